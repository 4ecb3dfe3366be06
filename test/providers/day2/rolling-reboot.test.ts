import * as fs from "fs";
import { RollingReboot } from "../../../providers/rolling-reboot";
import { planRollout } from "../../../providers/day2/batches";
import { tokenDigest } from "../../../providers/day2/rollout";
import { WMCO_HOST_KEY_ANNOTATION } from "../../../facts/day2";
import { serializedProviderOf } from "../../helpers/dynamic-host";
import { FakeNodes } from "../../helpers/fake-nodes";
import { validateObject } from "../../helpers/schemas";
import { providerRigPerFile } from "../../helpers/provider-rig";
import { labWindows, LabWindows, scriptsRun } from "../../lab/lab-windows";
import { byohReach, wmcoPin } from "../../helpers/byoh-lab";
import { launchesNamed } from "../../helpers/lab-host";

// The rolling reboot as `pulumi up` runs it: the RollingReboot provider, serialized by the SDK, run by the real
// dynamic-provider plugin over gRPC, against ten lab hosts (real sshd on 127.0.0.31-40:22, the simulated PowerShell
// answering boot time, Restart-Computer and the AWS route) and Windows Nodes behind the local Kubernetes API
// stand-in (cordon, drain, Ready, our progress annotations). What only a cluster and Windows prove: a real restart,
// a real kubelet coming back.
jest.setTimeout(240_000);

const URN = "urn:pulumi:test::windows-estate::pulumi-nodejs:dynamic:Resource::estate-reboot";
const HOSTS = 10;
const { kube, plugin } = providerRigPerFile(() => labs);
let nodes: FakeNodes;
let labs: LabWindows[] = [];
let providerText: string;
let neverReady = "";

const name = (i: number) => `win-${String(i).padStart(2, "0")}`;

beforeAll(async () => {
  nodes = new FakeNodes(kube);
  labs = await Promise.all(
    Array.from({ length: HOSTS }, (_, i) =>
      labWindows(`127.0.0.${31 + i}`, name(i), {
        bootTime: "2026-11-01T00:00:00.0000000Z",
        metadataRouteMissing: i === 4,
      }),
    ),
  );
  labs.forEach((l, i) =>
    nodes.add(name(i), {
      address: l.host.host,
      labels: { "windowsmachineconfig.openshift.io/byoh": "true" },
      // WMCO's pin (pkg/windows/hostkey.go): the host key's wire format in base64, and its type.
      annotations: wmcoPin(l),
      unschedulable: i === 7,
      neverReadyAfterReboot: () => neverReady === name(i),
    }),
  );
  providerText = (await serializedProviderOf(() => new RollingReboot("r", { token: "t", batches: [], reach: reach() })))
    .text;
  // One WMCO key for every node, as in a real cluster: host 0's user key, authorized on all ten hosts.
  const pub = fs.readFileSync(labs[0].host.authorizedKeysFile, "utf8");
  for (const l of labs) fs.writeFileSync(l.host.authorizedKeysFile, pub);
});

const reach = () => byohReach(labs, "AWS");

function inputs(token: string, batches: string[][], maxUnavailable: number | string = 3) {
  return {
    token,
    batches,
    maxUnavailable,
    disableEviction: false,
    drainTimeoutSeconds: 30,
    readyTimeoutSeconds: 3,
    pollSeconds: 0.05,
    kubeconfig: kube.kubeconfig(),
    reach: reach(),
    __provider: providerText,
  };
}

const restarts = (l: LabWindows) => scriptsRun(l).filter((s) => s.includes("Restart-Computer -Force")).length;

/** The most nodes cordoned at once, from the API stand-in's event list (a node starts out cordoned only if given). */
function maxCordonedAtOnce(events: string[], initially: Set<string>): number {
  const cordoned = new Set(initially);
  let max = 0;
  for (const e of events) {
    const [node, ...what] = e.split(" ");
    if (what.includes("cordon")) cordoned.add(node);
    if (what.includes("uncordon")) cordoned.delete(node);
    if (!initially.has(node) || what.includes("cordon"))
      max = Math.max(max, [...cordoned].filter((n) => !initially.has(n)).length);
  }
  return max;
}

test("the Node objects the stand-in serves are valid core/v1 Nodes", () => {
  for (const n of nodes.nodes.values()) expect(validateObject(n, { closed: true })).toBe("");
});

describe("ten nodes, maxUnavailable 3", () => {
  test("reboots all ten, never more than three out at once counting the node already cordoned, each cordoned and uncordoned through the API, none twice", async () => {
    const plan = planRollout(
      [...nodes.nodes.keys()].map((n) => ({ name: n })),
      "2026-11-patch",
      3,
    );
    expect(plan.batches.map((b) => b.length)).toEqual([3, 3, 3, 1]);
    const r = await plugin.create(URN, inputs("2026-11-patch", plan.batches));
    expect(r.outputs.rebooted).toEqual(plan.batches.flat());
    for (const l of labs) expect(restarts(l)).toBe(1);
    // Per node: cordon (marking the work), then uncordon (recording the token); never more than 3 at once.
    const digest = tokenDigest("2026-11-patch");
    for (let i = 0; i < HOSTS; i++) {
      const mine = nodes.events.filter((e) => e.startsWith(`${name(i)} `));
      expect(mine[0]).toBe(
        `${name(i)} cordon +windows-estate.io/rebooting-for ${i === 7 ? "+" : "-"}windows-estate.io/was-unschedulable`,
      );
      expect(mine[mine.length - 1]).toMatch(
        new RegExp(
          `^${name(i)} ${i === 7 ? "" : "uncordon "}\\+windows-estate.io/rebooted-for -windows-estate.io/rebooting-for -windows-estate.io/was-unschedulable$`,
        ),
      );
      expect(nodes.nodes.get(name(i))?.metadata.annotations["windows-estate.io/rebooted-for"]).toBe(digest);
    }
    // win-07, cordoned by someone else before we began, is out of service all along and takes one of the three
    // places (a Deployment's maxUnavailable counts unavailable pods whatever made them so): two of ours at most
    // besides it, and two at a time, not one.
    expect(maxCordonedAtOnce(nodes.events, new Set([name(7)]))).toBe(2);
    // The node that was cordoned before we began stays cordoned; the others are schedulable again.
    expect(nodes.nodes.get(name(7))?.spec.unschedulable).toBe(true);
    expect(nodes.nodes.get(name(0))?.spec.unschedulable).toBe(false);
    // AWS: the metadata route was checked on every node and re-added where it was missing.
    const state = JSON.parse(fs.readFileSync(labs[4].state, "utf8"));
    expect({ missing: state.metadataRouteMissing, checks: state.routeChecks }).toEqual({ missing: false, checks: 1 });
    // Two PowerShell launches per node (issue 17's guard): boot time and restart in one process, which ends with
    // Windows; the new boot time and the metadata route in the one that sees the host back.
    for (const l of labs)
      expect(
        launchesNamed(l.state, {
          "Restart-Computer": "restart",
          "169.254.169.254": "route",
          LastBootUpTime: "boot time",
        }),
      ).toEqual([
        ["boot time", "restart"],
        ["boot time", "route"],
      ]);
  });

  test("the same token again: every node is already done, nothing is rebooted", async () => {
    const before = nodes.events.length;
    const r = await plugin.create(URN, inputs("2026-11-patch", [[name(0), name(1), name(2)]]));
    expect(r.outputs.rebooted).toEqual([]);
    for (const l of labs) expect(restarts(l)).toBe(1);
    expect(nodes.events.slice(before)).toEqual([]);
  });

  test("a node that never comes back Ready stops the rollout after its batch, named with the step; the next up resumes without rebooting finished nodes", async () => {
    neverReady = name(4);
    const plan = planRollout(
      [...nodes.nodes.keys()].map((n) => ({ name: n })),
      "2026-12",
      3,
    );
    // win-04 is NotReady from the start and win-07 cordoned: both count against maxUnavailable 3, so one node at a
    // time goes until win-04 itself, which costs no further place: [00], [01], [02], [03, 04].
    await expect(plugin.create(URN, inputs("2026-12", plan.batches))).rejects.toThrow(
      /stopped in batch 4\/6:\n  - node win-04, step "wait for Ready": not Ready with a live kubelet within 3s after the restart \(Ready=Unknown, node Lease last renewed [^\n]*it stays cordoned\nDone so far: win-00, win-01, win-02, win-03\. Not started: win-05, win-06, win-07, win-08, win-09/,
    );
    expect(nodes.nodes.get(name(4))?.spec.unschedulable).toBe(true);
    expect(labs.map(restarts)).toEqual([2, 2, 2, 2, 2, 1, 1, 1, 1, 1]);
    neverReady = "";
    const again = await plugin.create(URN, inputs("2026-12", plan.batches));
    // win-04 had been restarted already but never finished: it is done again from the start; the others resume.
    expect(again.outputs.rebooted).toEqual([name(4), name(5), name(6), name(7), name(8), name(9)]);
    expect(labs.map(restarts)).toEqual([2, 2, 2, 2, 3, 2, 2, 2, 2, 2]);
    expect(nodes.nodes.get(name(4))?.spec.unschedulable).toBe(false);
  });

  test("a node whose host presents another key than WMCO pinned is refused before it is touched", async () => {
    const pinned = nodes.nodes.get(name(2))?.metadata.annotations ?? {};
    const saved = pinned[WMCO_HOST_KEY_ANNOTATION];
    pinned[WMCO_HOST_KEY_ANNOTATION] = labs[3].host.hostKeyLine.split(" ")[1];
    const before = nodes.events.length;
    try {
      await expect(plugin.create(URN, inputs("2027-01", [[name(2)]]))).rejects.toThrow(
        /node win-02, step "connect": host key mismatch for .*@127\.0\.0\.33:22/,
      );
    } finally {
      pinned[WMCO_HOST_KEY_ANNOTATION] = saved;
    }
    expect(restarts(labs[2])).toBe(2);
    // Refused at the first contact: not cordoned, not drained, not rebooted.
    expect(nodes.events.slice(before)).toEqual([]);
    expect(nodes.nodes.get(name(2))?.spec.unschedulable).toBe(false);
  });

  test("while WMCO upgrades a node (not one of the planned ones), the reboot refuses to start, naming it; nothing is touched", async () => {
    // pkg/metadata/metadata.go `UpgradingLabel`, set by controllers/controllers.go `markNodeAsUpgrading`.
    const labels = nodes.nodes.get(name(9))?.metadata.labels ?? {};
    labels["windowsmachineconfig.openshift.io/upgrading"] = "true";
    const before = nodes.events.length;
    const scripts = labs.map((l) => scriptsRun(l).length);
    try {
      await expect(plugin.create(URN, inputs("2027-02", [[name(2)]]))).rejects.toThrow(
        /the rolling reboot did not start; nothing was changed: WMCO is upgrading Windows nodes \(node win-09\); run again when no node carries windowsmachineconfig\.openshift\.io\/upgrading/,
      );
    } finally {
      delete labels["windowsmachineconfig.openshift.io/upgrading"];
    }
    expect(nodes.events.slice(before)).toEqual([]);
    expect(labs.map((l) => scriptsRun(l).length)).toEqual(scripts);
  });
});

describe("MachineHealthChecks are paused around a batch", () => {
  // Machines and MachineHealthChecks as the Machine API serves them (validated against openshift/api's schemas): one
  // check selects the Windows MachineSet's Machines, another selects other Machines, a third was paused by someone.
  const NS = "openshift-machine-api";
  const machine = (name: string) => ({
    apiVersion: "machine.openshift.io/v1beta1",
    kind: "Machine",
    metadata: {
      name,
      namespace: NS,
      labels: {
        "machine.openshift.io/cluster-api-machineset": "win-tmk9g-ms",
        "machine.openshift.io/cluster-api-machine-role": "worker",
      },
    },
    spec: {},
  });
  const mhc = (name: string, set: string, annotations: Record<string, string> = {}) => ({
    apiVersion: "machine.openshift.io/v1beta1",
    kind: "MachineHealthCheck",
    metadata: { name, namespace: NS, annotations },
    spec: {
      selector: { matchLabels: { "machine.openshift.io/cluster-api-machineset": set } },
      unhealthyConditions: [{ type: "Ready", status: "False", timeout: "300s" }],
      maxUnhealthy: "40%",
    },
  });
  const checks = new Map<string, ReturnType<typeof mhc>>();
  const mhcEvents: string[] = [];

  beforeAll(() => {
    checks.set("windows", mhc("windows", "win-tmk9g-ms"));
    checks.set("linux", mhc("linux", "win-tmk9g-worker"));
    checks.set("held", mhc("held", "win-tmk9g-ms", { "cluster.x-k8s.io/paused": "" }));
    for (const n of ["08", "09"]) {
      kube.route(`/apis/machine.openshift.io/v1beta1/namespaces/${NS}/machines/m-${n}`, () => ({
        status: 200,
        body: machine(`m-${n}`),
      }));
      const node = nodes.nodes.get(`win-${n}`);
      if (node) node.metadata.annotations["machine.openshift.io/machine"] = `${NS}/m-${n}`;
    }
    kube.route(`/apis/machine.openshift.io/v1beta1/namespaces/${NS}/machinehealthchecks`, () => ({
      status: 200,
      body: {
        apiVersion: "machine.openshift.io/v1beta1",
        kind: "MachineHealthCheckList",
        metadata: {},
        items: [...checks.values()],
      },
    }));
    for (const name of ["windows", "linux", "held"])
      kube.route(`/apis/machine.openshift.io/v1beta1/namespaces/${NS}/machinehealthchecks/${name}`, (_n, req) => {
        const current = checks.get(name);
        if (req.method !== "PATCH" || !current) return { status: 405 };
        const a = (req.body as { metadata: { annotations: Record<string, string | null> } }).metadata.annotations;
        for (const [k, v] of Object.entries(a))
          if (v === null) delete current.metadata.annotations[k];
          else current.metadata.annotations[k] = v;
        mhcEvents.push(`${name} ${a["cluster.x-k8s.io/paused"] === null ? "resume" : "pause"}`);
        // The same timeline as the Nodes' events, to check the order against cordon and uncordon.
        nodes.events.push(`mhc ${mhcEvents[mhcEvents.length - 1]}`);
        return { status: 200, body: current };
      });
  });

  test("the served Machines and MachineHealthChecks are valid for their schemas", () => {
    for (const o of [machine("m-08"), ...checks.values()]) expect(validateObject(o, { closed: true })).toBe("");
  });

  test("the check selecting the batch's Machines is paused before the first cordon and resumed after the last uncordon; others are not touched", async () => {
    const before = nodes.events.length;
    const r = await plugin.create(URN, inputs("2027-mhc", [[name(8), name(9)]]));
    expect(r.outputs.rebooted).toEqual([name(8), name(9)]);
    expect(mhcEvents).toEqual(["windows pause", "windows resume"]);
    expect(checks.get("windows")?.metadata.annotations).toEqual({});
    expect(checks.get("held")?.metadata.annotations).toEqual({ "cluster.x-k8s.io/paused": "" });
    const timeline = nodes.events.slice(before);
    const first = (what: string) => timeline.findIndex((e) => e.includes(what));
    const last = (what: string) => timeline.length - 1 - [...timeline].reverse().findIndex((e) => e.includes(what));
    expect(first("mhc windows pause")).toBeLessThan(first(" cordon"));
    expect(last("mhc windows resume")).toBeGreaterThan(last(" uncordon"));
  });

  test("a failed batch leaves its check paused and says how to resume it", async () => {
    mhcEvents.length = 0;
    neverReady = name(9);
    try {
      await expect(plugin.create(URN, inputs("2027-mhc-2", [[name(8), name(9)]]))).rejects.toThrow(
        /MachineHealthCheck\(s\) windows stay paused until the next run finishes the batch/,
      );
    } finally {
      neverReady = "";
    }
    expect(mhcEvents).toEqual(["windows pause"]);
    expect(checks.get("windows")?.metadata.annotations).toMatchObject({
      "cluster.x-k8s.io/paused": "",
      "windows-estate.io/paused-for-rollout": expect.any(String),
    });
    // The next run finishes the batch and resumes the check it paused.
    await plugin.create(URN, inputs("2027-mhc-2", [[name(8), name(9)]]));
    expect(mhcEvents).toEqual(["windows pause", "windows resume"]);
    expect(checks.get("windows")?.metadata.annotations).toEqual({});
  });
});
