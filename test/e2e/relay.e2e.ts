import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import type { LabInfo } from "../../lab/record";
import { readRecord } from "../../lab/record";
import { KUBERNETES_VERSION } from "../../lab/programs";
import { REBOOTED_FOR_ANNOTATION, RELAY_NAME, RELAY_PORT, RELAY_VANILLA_NAMESPACE } from "../../facts/day2";
import { tokenDigest } from "../../providers/day2/rollout";
import type { LabWindows } from "../lab/lab-windows";
import { allButPortForward, Identity, issueIdentity, portForwardAs, review } from "./identity";
import { labApi, stopLab } from "./lab";
import { byohConfig, engineSteps, labProject, Stack, startByohHosts, stopByohLab } from "./project";
import { startVanillaLab, VanillaLab } from "./vanilla-lab";

// Node access through the cluster (`nodeAccess.via: cluster`) through the real CLI and the real API server's
// port-forward (issue 42 item 6): a BYOH stack on the OpenShift lab and a kubeadm stack, each run by a user whose only
// grant to port-forward is the RoleBinding the stack declares for it (test/e2e/identity.ts: a client certificate from
// the certificates API, RBAC for everything but pods/portforward). Real: the CLI, pulumi-kubernetes, the API server's
// authorization of the port-forward (RBAC get and, since 1.35, create on pods/portforward), its upgrade and proxying
// to the kubelet with its kubelet client certificate, the deployment and replicaset controllers rolling the relay out,
// the scheduler spreading its two pods, Pod Security admission, the relay program itself. Played: the Linux nodes'
// kubelets (lab/players/linux-kubelet.ts, kubelet-server.ts), which run the relay program as a local process and serve
// the kubelet's WebSocket port-forward to it; Windows, by the PowerShell stand-in behind loopback sshd hosts.
// Each session through the relay shows in the players' log as `<namespace>/<pod> relay: relay: <host>:22 open`.
// Scenarios, each stack: up, refresh, a day-2 operation during which the relay pod carrying its first session is
// deleted with grace period 0 (BYOH: a rolling reboot; kubeadm: an upgrade, since rolling reboots are refused on a
// kubeadm stack), destroy (kubeadm: `kubeadm reset` on each host before the relay's objects go).

const BYOH_LAB = "e2e-relay-byoh";
const VANILLA_LAB = "e2e-relay-kubeadm";
const WMCO_NS = "openshift-windows-machine-config-operator";
const RUNNER = "stack-runner";
const SERVER = KUBERNETES_VERSION.replace(/^v/, "");
const nodeOf = (address: string) => `win-${address.replace(/\./g, "-")}`;

/** The players' log of a running lab, from `from` characters on. */
function playersLog(lab: string, from = 0): string {
  const runDir = readRecord(lab)?.runDir ?? "";
  return fs.readFileSync(path.join(runDir, "logs", "players.log"), "utf8").slice(from);
}

/** The sessions the relay opened, as its pods logged them: pod and target host. */
function relayOpens(log: string): { namespace: string; pod: string; host: string }[] {
  return [...log.matchAll(/^linux-kubelet: ([^/\s]+)\/(\S+) relay: relay: (\S+):22 open$/gm)].map((m) => ({
    namespace: m[1],
    pod: m[2],
    host: m[3],
  }));
}

/** The API server's audit events (lab/start.ts: port-forwards and deletions, at Metadata level). */
interface AuditEvent {
  verb: string;
  stage: string;
  requestURI: string;
  user: { username: string };
  objectRef?: { resource?: string; subresource?: string; namespace?: string; name?: string; apiGroup?: string };
  responseStatus?: { code?: number };
  stageTimestamp: string;
}
function audit(lab: string): AuditEvent[] {
  const runDir = readRecord(lab)?.runDir ?? "";
  return fs
    .readFileSync(path.join(runDir, "logs", "audit.log"), "utf8")
    .split("\n")
    .filter((l) => l.startsWith("{"))
    .map((l) => JSON.parse(l) as AuditEvent);
}
const portForwards = (events: AuditEvent[], user: string) =>
  events.filter((e) => e.objectRef?.subresource === "portforward" && e.user.username === user);

/**
 * What a run through the relay left on lab `labName` (players' log from `from` on): every host of `addresses` reached
 * through a relay pod of the stack's namespace `ns`; the runner's port-forwards authorized and upgraded by the real API server (101
 * Switching Protocols) there and nowhere else; the grant the stack's RoleBinding in `ns`, reaching no other namespace
 * (`otherNs`); two relay pods, spread over the two Linux workers by the real scheduler.
 */
async function expectRelayed(
  lab: LabInfo,
  {
    labName,
    from,
    addresses,
    ns,
    otherNs,
  }: { labName: string; from: number; addresses: string[]; ns: string; otherNs: string },
): Promise<void> {
  const opens = relayOpens(playersLog(labName, from));
  expect([...new Set(opens.map((o) => o.host))].sort()).toEqual(addresses);
  expect(new Set(opens.map((o) => o.namespace))).toEqual(new Set([ns]));
  const forwards = portForwards(audit(labName), RUNNER);
  expect(new Set(forwards.map((e) => `${e.objectRef?.namespace} ${e.responseStatus?.code}`))).toEqual(
    new Set([`${ns} 101`]),
  );
  const pf = { verb: "create", resource: "pods", subresource: "portforward", namespace: ns };
  const granted = await review(lab, RUNNER, pf);
  expect(granted.allowed).toBe(true);
  expect(granted.reason).toContain(`RoleBinding "${RELAY_NAME}-user/${ns}"`);
  expect((await review(lab, RUNNER, { ...pf, namespace: otherNs })).allowed).toBe(false);
  const pods = (
    await labApi(lab).get(
      `/api/v1/namespaces/${ns}/pods?labelSelector=${encodeURIComponent(`app.kubernetes.io/name=${RELAY_NAME}`)}`,
    )
  ).items as { spec: { nodeName: string } }[];
  expect(pods.map((p) => p.spec.nodeName).sort()).toEqual(["lab-worker-0", "lab-worker-1"]);
}

/**
 * Waits for a line the players log, polling the file (what the test waits on is the players' own record), while
 * `run` has not finished; a run that ends first fails the wait with its output.
 */
async function logged<T>(
  lab: string,
  from: number,
  find: (log: string) => T | undefined,
  what: string,
  run: { done?: { status: number | null; stdout: string; stderr: string } },
): Promise<T> {
  const deadline = Date.now() + 300_000;
  for (;;) {
    const hit = find(playersLog(lab, from));
    if (hit !== undefined) return hit;
    if (run.done) {
      const out = run.done.stdout + run.done.stderr;
      const errors = out.split("\n").filter((l) => /error/i.test(l));
      throw new Error(`${what}: the run ended (exit ${run.done.status}) first: ${errors.join("\n").slice(0, 4000)}`);
    }
    if (Date.now() > deadline) throw new Error(`${what}: not logged by the players within 300s`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** The relay's pods, Running and Ready, by name. */
async function readyRelayPods(lab: LabInfo, namespace: string): Promise<string[]> {
  const list = await labApi(lab).get(
    `/api/v1/namespaces/${namespace}/pods?labelSelector=${encodeURIComponent(`app.kubernetes.io/name=${RELAY_NAME}`)}`,
  );
  return (
    list.items as {
      metadata: { name: string; deletionTimestamp?: string };
      status: { phase: string; conditions?: { type: string; status: string }[] };
    }[]
  )
    .filter(
      (p) =>
        !p.metadata.deletionTimestamp &&
        p.status.phase === "Running" &&
        (p.status.conditions ?? []).some((c) => c.type === "Ready" && c.status === "True"),
    )
    .map((p) => p.metadata.name)
    .sort();
}

/** The relay Deployment rolled out with `replicas` Ready pods, none of them in `gone`. */
async function relayBack(lab: LabInfo, namespace: string, replicas: number, gone: string[]): Promise<string[]> {
  await labApi(lab).until(
    `/apis/apps/v1/namespaces/${namespace}/deployments/${RELAY_NAME}`,
    (d) => d.status?.readyReplicas === replicas && d.status?.availableReplicas === replicas,
    `the relay Deployment back to ${replicas} ready pods`,
  );
  const pods = await readyRelayPods(lab, namespace);
  expect(pods).toHaveLength(replicas);
  for (const p of gone) expect(pods).not.toContain(p);
  return pods;
}

/**
 * An `up` whose node operation (a rolling reboot, a kubeadm upgrade) reaches the nodes through the relay, with the
 * relay pod that carries its first session deleted with grace period 0 as soon as that session opens (the kubelet then
 * stops the relay within 2 s, cutting the session). Either the operation goes on through the other pod (a step
 * retried where it may be) or it fails naming the relay; then the next `up` finishes it. Returns the deleted pod and
 * the outputs of the runs.
 */
async function upWithRelayDeleted(
  labName: string,
  lab: LabInfo,
  stack: Stack,
  namespace: string,
): Promise<{ deleted: string; outputs: string[] }> {
  const from = playersLog(labName).length;
  // Killed after 5 minutes: an up that neither finishes nor fails by then has hung on the lost session.
  const run = stack.pulumiAsync(["up", "--yes", "--skip-preview"], 300_000);
  const state: { done?: Awaited<typeof run> } = {};
  void run.then((r) => (state.done = r));
  const first = await logged(labName, from, (log) => relayOpens(log)[0], "a session of the operation", state);
  const gone = await labApi(lab).request("DELETE", `/api/v1/namespaces/${namespace}/pods/${first.pod}`, {
    apiVersion: "v1",
    kind: "DeleteOptions",
    gracePeriodSeconds: 0,
  });
  expect(gone.status).toBe(200);
  const atDeletion = playersLog(labName).length;
  const r = await run;
  const outputs = [r.stdout + r.stderr];
  if (r.status === null)
    throw new Error(
      `pulumi up neither finished nor failed within 5 minutes after relay pod ${namespace}/${first.pod} was deleted (its session to ${first.host}:22 cut): ${outputs[0].slice(-2000)}`,
    );
  if (r.status !== 0) {
    // Failed, naming the relay pod that went away (the tunnel's words: cluster-tunnel.ts).
    expect(r.stdout + r.stderr).toMatch(new RegExp(`relay pod ${namespace}/${first.pod}|${first.pod}`));
    const again = await stack.pulumiAsync(["up", "--yes", "--skip-preview"]);
    outputs.push(again.stdout + again.stderr);
    expect({ status: again.status, output: again.status === 0 ? "" : outputs[1].slice(-4000) }).toEqual({
      status: 0,
      output: "",
    });
  }
  // The pod's program was stopped by its kubelet, the Deployment made a new pod, and sessions went on through the
  // relay after the deletion, through another pod. Counted from the deletion, not from the kubelet's "containers
  // stopped" line: the kubelet logs that up to 2 s later, by when the operation may have opened its next sessions.
  const after = playersLog(labName, from);
  expect(after).toContain(`linux-kubelet: ${namespace}/${first.pod}: containers stopped`);
  expect(relayOpens(playersLog(labName, atDeletion)).filter((o) => o.pod !== first.pod).length).toBeGreaterThan(0);
  expect(await labApi(lab).status(`/api/v1/namespaces/${namespace}/pods/${first.pod}`)).toBe(404);
  return { deleted: first.pod, outputs };
}

describe("BYOH hosts on OpenShift, reached through the relay", () => {
  const ADDRESSES = ["127.0.0.91", "127.0.0.92"];
  let lab: LabInfo;
  let stack: Stack;
  let config: Record<string, unknown>;
  let runner: Identity;
  const hosts: LabWindows[] = [];

  beforeAll(async () => {
    // Ready heartbeats every 3 s: the rolling reboot waits for one after each restart (day2.e2e.ts).
    let dir: string;
    ({ lab, dir } = await labProject("azure", BYOH_LAB, ["--node-status-report-seconds", "3"]));
    await startByohHosts(dir, { addresses: ADDRESSES, prefix: "win-relay", hosts });
    runner = await issueIdentity(lab, RUNNER, fs.mkdtempSync(path.join(os.tmpdir(), "e2e-relay-id-")));
    await allButPortForward(lab, RUNNER);
    config = byohConfig(dir, hosts);
    config["windows-estate:nodeAccess"] = {
      via: "cluster",
      portForwardSubjects: [{ kind: "User", name: RUNNER }],
    };
    // Every command of this stack runs as the runner.
    stack = new Stack(dir, "relay", lab, { KUBECONFIG: runner.kubeconfig }).init(config);
  }, 900_000);
  afterAll(() => stopByohLab(BYOH_LAB, hosts));

  test("up prepares both hosts through the relay, the port-forward granted by the stack's RoleBinding alone", async () => {
    const pf = { verb: "create", resource: "pods", subresource: "portforward", namespace: WMCO_NS };
    expect((await review(lab, RUNNER, pf)).allowed).toBe(false);
    const from = playersLog(BYOH_LAB).length;
    stack.up();
    for (const a of ADDRESSES)
      await labApi(lab).until(
        `/api/v1/nodes/${nodeOf(a)}`,
        (n) => n.metadata.annotations?.["windowsmachineconfig.openshift.io/version"] !== undefined,
        `BYOH host ${a} configured by WMCO`,
      );
    // Every host was reached through a relay pod of WMCO's namespace, granted there alone.
    await expectRelayed(lab, { labName: BYOH_LAB, from, addresses: ADDRESSES, ns: WMCO_NS, otherNs: "default" });
  });

  test("the real API server refuses a port-forward with get but without create on pods/portforward (403)", async () => {
    const api = labApi(lab);
    const getOnly = await issueIdentity(lab, "portforward-get-only", fs.mkdtempSync(path.join(os.tmpdir(), "e2e-id-")));
    const rbac = `/apis/rbac.authorization.k8s.io/v1/namespaces/${WMCO_NS}`;
    expect(
      (
        await api.request("POST", `${rbac}/roles`, {
          apiVersion: "rbac.authorization.k8s.io/v1",
          kind: "Role",
          metadata: { name: "e2e-portforward-get-only" },
          rules: [
            { apiGroups: [""], resources: ["pods"], verbs: ["get", "list"] },
            { apiGroups: [""], resources: ["pods/portforward"], verbs: ["get"] },
          ],
        })
      ).status,
    ).toBe(201);
    expect(
      (
        await api.request("POST", `${rbac}/rolebindings`, {
          apiVersion: "rbac.authorization.k8s.io/v1",
          kind: "RoleBinding",
          metadata: { name: "e2e-portforward-get-only" },
          roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name: "e2e-portforward-get-only" },
          subjects: [{ kind: "User", name: getOnly.user, apiGroup: "rbac.authorization.k8s.io" }],
        })
      ).status,
    ).toBe(201);
    const [pod] = await readyRelayPods(lab, WMCO_NS);
    // pkg/registry/core/pod/rest/subresources.go PortForwardREST.Connect: the GET passed the request's own
    // authorization (get), then create is checked before anything is proxied (rest/authorize.go
    // ensureAuthorizedForVerb), and refused with RBAC's reason, which is empty on a denial: the message does not say
    // which verb was missing.
    const from = playersLog(BYOH_LAB).length;
    const refused = await portForwardAs(lab, getOnly, WMCO_NS, pod, RELAY_PORT);
    expect(refused.status).toBe(403);
    expect(JSON.parse(refused.body)).toMatchObject({
      kind: "Status",
      reason: "Forbidden",
      code: 403,
      message: `pods "${pod}" is forbidden: `,
      details: { name: pod, kind: "pods" },
    });
    // Nothing reached the kubelet.
    expect(playersLog(BYOH_LAB, from)).not.toContain("port-forward to");
    // The same request as the runner is upgraded, to the kubelet's first subprotocol the client offered.
    expect(await portForwardAs(lab, runner, WMCO_NS, pod, RELAY_PORT)).toEqual({
      status: 101,
      protocol: "v4.channel.k8s.io",
      body: "",
    });
    // Proxied to the pod's kubelet, which served it.
    await logged(
      BYOH_LAB,
      from,
      (log) =>
        log.includes(`port-forward to ${WMCO_NS}/${pod} port(s) ${RELAY_PORT} (v4.channel.k8s.io)`) ? true : undefined,
      "the kubelet's port-forward for the runner",
      {},
    );
  });

  test("refresh reads both hosts through the relay and finds no change", () => {
    const from = playersLog(BYOH_LAB).length;
    const r = stack.pulumi(["refresh", "--yes", "--expect-no-changes"]);
    expect(r.stdout + r.stderr).not.toMatch(/error:/);
    expect(r.status).toBe(0);
    expect([...new Set(relayOpens(playersLog(BYOH_LAB, from)).map((o) => o.host))].sort()).toEqual(ADDRESSES);
  });

  test("a rolling reboot goes on through the relay while the pod carrying its first session is deleted", async () => {
    const boots = hosts.map((h) => JSON.parse(fs.readFileSync(h.state, "utf8")).bootTime);
    config["windows-estate:reboot"] = { token: "relay-2026-11", maxUnavailable: 1 };
    stack.writeConfig(config);
    const { deleted } = await upWithRelayDeleted(BYOH_LAB, lab, stack, WMCO_NS);
    hosts.forEach((h, i) => expect(JSON.parse(fs.readFileSync(h.state, "utf8")).bootTime).not.toBe(boots[i]));
    for (const a of ADDRESSES) {
      const node = await labApi(lab).get(`/api/v1/nodes/${nodeOf(a)}`);
      expect([a, node.spec.unschedulable, node.metadata.annotations[REBOOTED_FOR_ANNOTATION]]).toEqual([
        a,
        undefined,
        tokenDigest("relay-2026-11"),
      ]);
    }
    await relayBack(lab, WMCO_NS, 2, [deleted]);
    expect(stack.pulumi(["up", "--yes", "--expect-no-changes"]).status).toBe(0);
  }, 600_000);

  test("destroy, as the runner, goes through and takes the relay with the rest", async () => {
    const r = stack.pulumi(["destroy", "--yes", "--skip-preview"]);
    expect(r.stdout + r.stderr).not.toMatch(/error:/);
    expect(r.status).toBe(0);
    const api = labApi(lab);
    expect(await api.status(`/api/v1/namespaces/${WMCO_NS}`)).toBe(404);
    for (const a of ADDRESSES) expect(await api.status(`/api/v1/nodes/${nodeOf(a)}`)).toBe(404);
  });
});

describe("kubeadm nodes reached through the relay", () => {
  const ADDRESSES = ["127.0.0.93", "127.0.0.94"];
  const NODES = ["win-relay-a", "win-relay-b"];
  const NS = RELAY_VANILLA_NAMESPACE;
  // Joined a patch below the API server and upgraded to its version (a node is never newer: version-skew-policy).
  // Rolling reboots are refused on a kubeadm stack (components/validators.ts), so the upgrade is the day-2 operation
  // here that a relay pod is deleted in the middle of.
  const JOINED_AT = SERVER.replace(/\.(\d+)$/, (_, p: string) => `.${Number(p) - 1}`);
  let v: VanillaLab | undefined;
  let lab: LabInfo;
  let stack: Stack;
  let runner: Identity;

  beforeAll(async () => {
    v = await startVanillaLab({
      lab: VANILLA_LAB,
      stack: "relay-kubeadm",
      hosts: ADDRESSES.map((address, i) => ({ address, hostname: NODES[i].toUpperCase() })),
      kubernetes: [JOINED_AT, SERVER],
      // The Linux nodes the relay runs on (a kubeadm control plane, tainted, and two workers), and nothing else played.
      labArgs: ["--players", "linux-nodes"],
      // The kubelets renew their node Leases every second, so the upgrade's waits for one are short.
      hostState: { nodeLeaseRenewSeconds: 1 },
    });
    lab = v.lab;
    runner = await issueIdentity(lab, RUNNER, fs.mkdtempSync(path.join(os.tmpdir(), "e2e-relay-id-")));
    await allButPortForward(lab, RUNNER);
    v.config["windows-estate:nodeAccess"] = { via: "cluster", portForwardSubjects: [{ kind: "User", name: RUNNER }] };
    v.useConfig({ version: JOINED_AT });
    stack = new Stack(v.stack.dir, v.stack.name, lab, { KUBECONFIG: runner.kubeconfig });
  }, 900_000);
  afterAll(async () => {
    if (v) await v.stop();
    else stopLab(VANILLA_LAB);
  });

  test("up joins both hosts through the relay in its own namespace, as the runner", async () => {
    const from = playersLog(VANILLA_LAB).length;
    // Not blocking this process: the mirror the hosts download from answers from it.
    const r = await stack.pulumiAsync(["up", "--yes", "--skip-preview"]);
    expect({ status: r.status, output: r.status === 0 ? "" : (r.stdout + r.stderr).slice(-4000) }).toEqual({
      status: 0,
      output: "",
    });
    for (const n of NODES) {
      const node = await labApi(lab).get(`/api/v1/nodes/${n}`);
      expect(node.status.conditions).toContainEqual(expect.objectContaining({ type: "Ready", status: "True" }));
      expect(node.status.nodeInfo.kubeletVersion).toBe(`v${JOINED_AT}`);
    }
    // On the two workers (the control plane's taint keeps the relay off), admitted by the real Pod Security
    // admission under the namespace's `restricted`.
    await expectRelayed(lab, { labName: VANILLA_LAB, from, addresses: ADDRESSES, ns: NS, otherNs: "kube-system" });
    const ns = await labApi(lab).get(`/api/v1/namespaces/${NS}`);
    expect(ns.metadata.labels["pod-security.kubernetes.io/enforce"]).toBe("restricted");
  });

  test("refresh reads both nodes through the relay and finds no change", async () => {
    const from = playersLog(VANILLA_LAB).length;
    const r = await stack.pulumiAsync(["refresh", "--yes", "--expect-no-changes"]);
    expect(r.stdout + r.stderr).not.toMatch(/error:/);
    expect(r.status).toBe(0);
    expect([...new Set(relayOpens(playersLog(VANILLA_LAB, from)).map((o) => o.host))].sort()).toEqual(ADDRESSES);
  });

  test("destroy runs kubeadm reset on each host through the relay before the relay's grant, pod or namespace goes", async () => {
    if (!v) throw new Error("no lab");
    const from = playersLog(VANILLA_LAB).length;
    const r = await stack.pulumiAsync(["destroy", "--yes", "--skip-preview", "--json"]);
    expect({ status: r.status, output: r.status === 0 ? "" : (r.stdout + r.stderr).slice(-4000) }).toEqual({
      status: 0,
      output: "",
    });
    // The stand-in counts `kubeadm reset` (test/lab/fake-powershell.js): once on each host, reached through the relay.
    for (const h of v.hosts) expect(JSON.parse(fs.readFileSync(h.state, "utf8")).resets).toBe(1);
    expect([...new Set(relayOpens(playersLog(VANILLA_LAB, from)).map((o) => o.host))].sort()).toEqual(ADDRESSES);
    // In the engine's own order: every node's delete (its reset) finished before any relay object's delete started.
    const steps = engineSteps(r.stdout);
    const relayObjects = steps
      .names("delete")
      .filter((n) => /-node-relay-(role|rolebinding|deployment|namespace)$/.test(n));
    expect(relayObjects.map((n) => n.replace(/^.*-node-relay-/, "")).sort()).toEqual([
      "deployment",
      "namespace",
      "role",
      "rolebinding",
    ]);
    for (const a of ADDRESSES) {
      const reset = steps.done("delete", `estate-node-${a}`);
      expect(reset).toBeDefined();
      for (const o of relayObjects)
        expect([a, o, (reset ?? Infinity) < (steps.started("delete", o) ?? -1)]).toEqual([a, o, true]);
    }
    // And in the API server's: the runner's last port-forward came before the RoleBinding's deletion.
    const events = audit(VANILLA_LAB);
    const lastForward =
      portForwards(events, RUNNER)
        .map((e) => e.stageTimestamp)
        .sort()
        .pop() ?? "";
    const bindingDeleted = events.find(
      (e) =>
        e.verb === "delete" &&
        e.objectRef?.resource === "rolebindings" &&
        e.objectRef.name === `${RELAY_NAME}-user` &&
        e.responseStatus?.code === 200,
    );
    expect(bindingDeleted?.user.username).toBe(RUNNER);
    expect(lastForward < (bindingDeleted?.stageTimestamp ?? "")).toBe(true);
    for (const n of NODES) expect(await labApi(lab).status(`/api/v1/nodes/${n}`)).toBe(404);
  }, 600_000);

  test("an upgrade through the relay, the pod carrying its first session deleted mid-way; the next up converges", async () => {
    if (!v) throw new Error("no lab");
    // Joined again (the destroy above reset both hosts), then raised to the server's version.
    v.useConfig({ version: JOINED_AT });
    const joined = await stack.pulumiAsync(["up", "--yes", "--skip-preview"]);
    expect({
      status: joined.status,
      output: joined.status === 0 ? "" : (joined.stdout + joined.stderr).slice(-3000),
    }).toEqual({
      status: 0,
      output: "",
    });
    v.useConfig({ version: SERVER, upgrade: { maxUnavailable: 1, waitMinutes: 10 } });
    const { deleted } = await upWithRelayDeleted(VANILLA_LAB, lab, stack, NS);
    for (const n of NODES) {
      const node = await labApi(lab).get(`/api/v1/nodes/${n}`);
      expect([n, node.status.nodeInfo.kubeletVersion, node.spec.unschedulable]).toEqual([n, `v${SERVER}`, undefined]);
    }
    await relayBack(lab, NS, 2, [deleted]);
    const again = await stack.pulumiAsync(["up", "--yes", "--expect-no-changes"]);
    expect(again.status).toBe(0);
  }, 600_000);
});
