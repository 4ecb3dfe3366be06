import { execFileSync } from "child_process";
import * as fs from "fs";
import * as path from "path";
import type { LabInfo } from "../../lab/record";
import type { LabWindows } from "../lab/lab-windows";
import { labApi } from "./lab";
import { withSession } from "../../providers/ssh/session";
import { byohEntry, engineSteps, labStack, rsaKey, Stack, stopByohLab } from "./project";

// Bring-your-own hosts through the real CLI (issue 24 a, b, d, f): the dev stack on the Azure lab with its BYOH
// entries pointing at loopback OpenSSH servers on port 22 (WMCO's only port). Windows itself is not here: each
// host's `powershell` is the stand-in of test/lab/fake-powershell.js, whose key list is sshd's own authorized_keys
// file, so a key the program authorizes is one sshd then accepts. WMCO is the lab's player: it reads
// windows-instances and registers (through the kubelet player) a Node per host, `win-127-0-0-N`
// (lab/players/wmco-instances.ts `nodeNameFor`).

const NS = "openshift-windows-machine-config-operator";
const LAB = "e2e-byoh";
const ADDRESSES = ["127.0.0.51", "127.0.0.52", "127.0.0.53", "127.0.0.54", "127.0.0.55"];
/** A sixth host, for the join wait's tests (index 5). */
const JOINER = "127.0.0.56";
const nodeOf = (address: string) => `win-${address.replace(/\./g, "-")}`;

let lab: LabInfo;
let stack: Stack;
let config: Record<string, unknown>;
let wmcoPublic: string;
const hosts: LabWindows[] = [];

/** The `windows-estate:byoh` entry of lab host `i`: its pinned host key, its own key for the first login. */
function entry(i: number) {
  return {
    ...byohEntry(hosts[i], i),
    // A host that is down fails an operation within this, not the default 120 s.
    sshDeadlineSeconds: 8,
  };
}
const useHosts = (indexes: number[]) => {
  config["windows-estate:byoh"] = indexes.map(entry);
  stack.writeConfig(config);
};
const instances = async () =>
  (await labApi(lab).get(`/api/v1/namespaces/${NS}/configmaps/windows-instances`)) as {
    metadata: { uid: string };
    data: Record<string, string>;
  };
/** Waits until WMCO (the player) has made a configured node of the host. */
const becomesNode = (address: string) =>
  labApi(lab).until(
    `/api/v1/nodes/${nodeOf(address)}`,
    (n) =>
      n.metadata.labels?.["windowsmachineconfig.openshift.io/byoh"] === "true" &&
      n.metadata.annotations?.["windowsmachineconfig.openshift.io/version"] !== undefined,
    `BYOH host ${address} configured by WMCO`,
  );
const destructive = (plan: string[]) =>
  plan.filter((l) => /^(replace|delete|delete-replaced|create-replacement) /.test(l));

beforeAll(async () => {
  ({ lab, stack, config } = await labStack("azure", LAB, {
    file: "Pulumi.dev.yaml",
    byoh: { addresses: [...ADDRESSES, JOINER], prefix: "win-byoh", hosts },
  }));
  const pemFile = path.join(stack.dir, ".dev", "wmco-dev-key.pem");
  wmcoPublic = execFileSync("ssh-keygen", ["-y", "-f", pemFile], { encoding: "utf8" }).trim().split(" ")[1];
}, 900_000);
afterAll(() => stopByohLab(LAB, hosts));

test("first contact: preview → up prepares three hosts, lists them in windows-instances, WMCO makes nodes → converged", async () => {
  useHosts([0, 1, 2]);
  const p = stack.plan();
  expect(p).toEqual(
    expect.arrayContaining([
      "create estate-byoh-127.0.0.51",
      "create estate-byoh-127.0.0.52",
      "create estate-byoh-127.0.0.53",
      "create estate-byoh-windows-instances",
    ]),
  );
  stack.up();
  // pkg/wiparser/wiparser.go: one key per host, `username=<user>`.
  expect((await instances()).data).toEqual({
    "127.0.0.51": `username=${hosts[0].host.user}`,
    "127.0.0.52": `username=${hosts[1].host.user}`,
    "127.0.0.53": `username=${hosts[2].host.user}`,
  });
  for (const h of hosts.slice(0, 3)) {
    // The WMCO key is now one sshd accepts on the host (its own authorized_keys file).
    expect(fs.readFileSync(h.host.authorizedKeysFile, "utf8")).toContain(wmcoPublic);
    await becomesNode(h.host.host);
  }
  const r = stack.pulumi(["up", "--yes", "--expect-no-changes"]);
  expect(r.status).toBe(0);
  const refresh = stack.pulumi(["refresh", "--yes", "--expect-no-changes"]);
  expect(refresh.stdout + refresh.stderr).not.toMatch(/error:/);
  expect(refresh.status).toBe(0);
});

test("adding a host prepares it and updates windows-instances in place; removing one deletes only that host", async () => {
  const before = await instances();
  useHosts([0, 1, 2, 3]);
  const add = stack.plan();
  expect(destructive(add)).toEqual([]);
  expect(add.filter((l) => !l.endsWith(" windows-estate-e2e")).sort()).toEqual([
    "create estate-byoh-127.0.0.54",
    // The host's companion that retires earlier WMCO keys from it after a rotation (Day-2, key rotation).
    "create estate-byoh-127.0.0.54-retired-keys",
    "update estate-byoh-windows-instances",
    // The join wait now also waits for the new host's node.
    "update estate-nodes-joined",
  ]);
  stack.up();
  await becomesNode("127.0.0.54");

  useHosts([0, 2, 3]);
  const remove = stack.plan();
  expect(destructive(remove).sort()).toEqual([
    "delete estate-byoh-127.0.0.52",
    "delete estate-byoh-127.0.0.52-retired-keys",
  ]);
  expect(remove).toContain("update estate-byoh-windows-instances");
  stack.up();
  const after = await instances();
  expect(after.metadata.uid).toBe(before.metadata.uid);
  expect(Object.keys(after.data).sort()).toEqual(["127.0.0.51", "127.0.0.53", "127.0.0.54"]);
  // WMCO deconfigures the host no longer listed and deletes its Node (configmap_controller.go deconfigureInstances).
  await labApi(lab).until(
    "/api/v1/nodes",
    (l) => !l.items.some((n: { metadata: { name: string } }) => n.metadata.name === nodeOf("127.0.0.52")),
    "WMCO deletes the Node of the removed host",
  );
});

test("up with one new host down fails naming it; the other is prepared, windows-instances waits; the next up converges", async () => {
  await hosts[4].host.down();
  useHosts([0, 2, 3, 1, 4]);
  const failed = stack.pulumi(["up", "--yes", "--skip-preview"]);
  expect(failed.status).not.toBe(0);
  expect(failed.stdout).toMatch(/127\.0\.0\.55/);
  expect(failed.stdout).not.toMatch(/127\.0\.0\.52:22/);
  const state = stack.pulumi(["stack", "export"]).stdout;
  expect(state).toContain("estate-byoh-127.0.0.52");
  expect(state).not.toContain("estate-byoh-127.0.0.55");
  // WMCO would configure a listed host at once: neither new host is listed until every host is prepared.
  expect(Object.keys((await instances()).data).sort()).toEqual(["127.0.0.51", "127.0.0.53", "127.0.0.54"]);

  await hosts[4].host.up();
  stack.up();
  expect(Object.keys((await instances()).data).sort()).toEqual(ADDRESSES);
  await becomesNode("127.0.0.55");
  expect(stack.pulumi(["up", "--yes", "--expect-no-changes"]).status).toBe(0);
});

test("refresh with a host down names it and keeps its state; once it is back the stack converges", async () => {
  await hosts[2].host.down();
  const r = stack.pulumi(["refresh", "--yes"]);
  expect(r.status).toBe(0);
  expect(r.stdout + r.stderr).toMatch(/127\.0\.0\.53:22 is unreachable; refresh kept its last known state/);
  const exported = JSON.parse(stack.pulumi(["stack", "export"]).stdout) as {
    deployment: { resources: { urn: string; outputs?: Record<string, unknown> }[] };
  };
  const host = exported.deployment.resources.find((x) => x.urn.endsWith("::estate-byoh-127.0.0.53"));
  expect(host?.outputs?.hostKeyFingerprint).toBe(hosts[2].host.hostKeyFingerprint);

  await hosts[2].host.up();
  stack.up();
  const again = stack.pulumi(["up", "--yes", "--expect-no-changes"]);
  expect(again.status).toBe(0);
});

test("WMCO cannot reach a new host: up fails within the minute quoting WMCO's Event for that host; once it can, up waits for its node and reports progress", async () => {
  const api = labApi(lab);
  // A firewall between the cluster and the host (the program still reaches it): an egress NetworkPolicy on WMCO's
  // pod, which the WMCO player obeys (lab/players/network.ts).
  const policy = `/apis/networking.k8s.io/v1/namespaces/${NS}/networkpolicies`;
  const created = await api.request("POST", policy, {
    apiVersion: "networking.k8s.io/v1",
    kind: "NetworkPolicy",
    metadata: { name: "no-ssh-to-joiner" },
    spec: {
      podSelector: {},
      policyTypes: ["Egress"],
      egress: [{ to: [{ ipBlock: { cidr: "0.0.0.0/0", except: [`${JOINER}/32`] } }] }],
    },
  });
  expect(created.status).toBe(201);
  // A wait that has not seen WMCO's Event within 60 s times out, which this test tells apart from the Event.
  config["windows-estate:waitForNodesTimeoutSeconds"] = 60;
  useHosts([0, 2, 3, 1, 4, 5]);
  const failed = stack.pulumi(["up", "--yes", "--skip-preview"]);
  expect(failed.status).not.toBe(0);
  const out = failed.stdout + failed.stderr;
  // controllers/configmap_controller.go `reconcileNodes`: Warning InstanceSetupFailure on windows-instances, message
  // `error configuring host with address <key>: <cause>`.
  expect(out).toMatch(
    new RegExp(
      `BYOH host ${JOINER.replace(/\./g, "\\.")}: WMCO's Event InstanceSetupFailure on ConfigMap ${NS}/windows-instances \\([^)]*\\): "error configuring host with address ${JOINER.replace(/\./g, "\\.")}: `,
    ),
  );
  expect(out).not.toMatch(/timed out after/);
  // The host itself is prepared and listed: the next up only has to wait.
  expect(Object.keys((await instances()).data)).toContain(JOINER);

  // The firewall opens; one joined node is cordoned, so the wait has something to report until it is uncordoned.
  delete config["windows-estate:waitForNodesTimeoutSeconds"];
  stack.writeConfig(config);
  expect((await api.request("DELETE", `${policy}/no-ssh-to-joiner`)).status).toBe(200);
  const cordoned = nodeOf(ADDRESSES[0]);
  const cordon = (unschedulable: boolean) =>
    api.request("PATCH", `/api/v1/nodes/${cordoned}`, { spec: { unschedulable } }, "application/merge-patch+json");
  expect((await cordon(true)).status).toBe(200);
  let seen = "";
  let reported: () => void = () => undefined;
  const progress = new Promise<void>((resolve) => (reported = resolve));
  const up = stack.pulumiAsync(["up", "--yes", "--skip-preview"], 900_000, (text) => {
    seen += text;
    if (/Windows nodes: \d+ of 6 Windows nodes joined; [^\n]*127\.0\.0\.51: cordoned/.test(seen)) reported();
  });
  await Promise.race([progress, up]);
  expect((await cordon(false)).status).toBe(200);
  const r = await up;
  expect({ status: r.status, output: r.status === 0 ? "" : (r.stdout + r.stderr).slice(-4000) }).toEqual({
    status: 0,
    output: "",
  });
  expect(r.stdout + r.stderr).toMatch(/127\.0\.0\.51: cordoned/);
  await becomesNode(JOINER);
  const outputs = JSON.parse(stack.pulumi(["stack", "export"]).stdout) as {
    deployment: { resources: { urn: string; outputs?: { nodes?: string[] } }[] };
  };
  const wait = outputs.deployment.resources.find((x) => x.urn.endsWith("::estate-nodes-joined"));
  expect(wait?.outputs?.nodes).toEqual([...ADDRESSES, JOINER].map(nodeOf).sort());
});

/** Does a login with `pem` to lab host `h` succeed (host key pinned)? */
const logsIn = (h: LabWindows, pem: string) =>
  withSession(
    {
      host: h.host.host,
      port: 22,
      user: h.host.user,
      privateKey: pem,
      hostKey: h.host.hostKeyLine,
      pathStyle: "posix",
      deadlineSeconds: 3,
    },
    undefined,
    async () => true,
  ).catch(() => false);

test("a host down stops a key rotation before cloud-private-key changes", async () => {
  const keyFile = path.join(stack.dir, ".dev", "wmco-dev-key.pem");
  const oldKey = fs.readFileSync(keyFile, "utf8");
  const secretBefore = await labApi(lab).get(`/api/v1/namespaces/${NS}/secrets/cloud-private-key`);
  await hosts[3].host.down();
  try {
    fs.writeFileSync(keyFile, rsaKey(), { mode: 0o600 });
    const r = stack.pulumi(["up", "--yes", "--skip-preview"]);
    expect(r.status).not.toBe(0);
    expect(r.stdout).toMatch(/127\.0\.0\.54/);
    const secretAfter = await labApi(lab).get(`/api/v1/namespaces/${NS}/secrets/cloud-private-key`);
    expect(secretAfter.data).toEqual(secretBefore.data);
  } finally {
    fs.writeFileSync(keyFile, oldKey, { mode: 0o600 });
    await hosts[3].host.up();
  }
  expect(stack.pulumi(["up", "--yes"]).status).toBe(0);
});

test("rotating the WMCO key: every host authorizes the new key, then the Secret, then WMCO adopts it, then the old key leaves", async () => {
  const keyFile = path.join(stack.dir, ".dev", "wmco-dev-key.pem");
  const oldKey = fs.readFileSync(keyFile, "utf8");
  const newKey = rsaKey();
  fs.writeFileSync(keyFile, newKey, { mode: 0o600 });
  const r = stack.pulumi(["up", "--yes", "--skip-preview", "--json"]);
  expect(r.status).toBe(0);
  const order = engineSteps(r.stdout).finished();
  const at = (step: string) => order.indexOf(step);
  expect(at("update estate-key-secret")).toBeGreaterThanOrEqual(0);
  for (const address of ADDRESSES) {
    expect(at(`update estate-byoh-${address}`)).toBeGreaterThanOrEqual(0);
    expect(at(`update estate-byoh-${address}`)).toBeLessThan(at("update estate-key-secret"));
    expect(at(`update estate-byoh-${address}-retired-keys`)).toBeGreaterThan(at("update estate-key-adopted"));
  }
  expect(at("update estate-key-secret")).toBeLessThan(at("update estate-key-adopted"));
  expect(order.filter((o) => !o.startsWith("update"))).toEqual([]);
  // On every host sshd now takes the new key and no longer the old one.
  for (const h of hosts)
    expect([h.host.host, await logsIn(h, newKey), await logsIn(h, oldKey)]).toEqual([h.host.host, true, false]);
  expect(stack.pulumi(["up", "--yes", "--expect-no-changes"]).status).toBe(0);
});

test("destroy empties windows-instances first, waits for WMCO to remove the nodes, then deletes the key", async () => {
  const r = stack.pulumi(["destroy", "--yes", "--skip-preview", "--json"]);
  expect(r.status).toBe(0);
  const steps = engineSteps(r.stdout);
  const started = (n: string) => steps.started("delete", n) ?? -1;
  const done = (n: string) => steps.done("delete", n);
  expect(done("estate-byoh-windows-instances")).toBeLessThan(started("estate-byoh-deconfigured"));
  expect(done("estate-byoh-deconfigured")).toBeLessThan(started("estate-key-secret"));
  const api = labApi(lab);
  const nodes = await api.get("/api/v1/nodes");
  expect(nodes.items.filter((n: { metadata: { name: string } }) => n.metadata.name.startsWith("win-127-"))).toEqual([]);
  expect(await api.status(`/api/v1/namespaces/${NS}`)).toBe(404);
});
