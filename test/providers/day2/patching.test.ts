import * as fs from "fs";
import { WindowsPatching } from "../../../providers/patching";
import { patchToken, planPatching } from "../../../providers/day2/patch-plan";
import { tokenDigest } from "../../../providers/day2/rollout";
import { PATCHED_FOR_ANNOTATION, PATCHING_FOR_ANNOTATION } from "../../../facts/day2";
import { serializedProviderOf } from "../../helpers/dynamic-host";
import { FakeNodes } from "../../helpers/fake-nodes";
import { validateObject } from "../../helpers/schemas";
import { providerRigPerFile } from "../../helpers/provider-rig";
import { labWindows, LabWindows, scriptsRun } from "../../lab/lab-windows";
import { byohReach, wmcoPin } from "../../helpers/byoh-lab";
import { launchesNamed } from "../../helpers/lab-host";

const win = require("../../lab/windows-51");

// Patching as `pulumi up` runs it: the WindowsPatching provider, serialized by the SDK and run by the real
// dynamic-provider plugin over gRPC, against six BYOH lab hosts (real sshd on 127.0.0.61-66:22; the simulated
// PowerShell registers the SYSTEM task, reports it running then finished, installs the updates it was given, and
// raises the update revision at the restart) and their Nodes behind the Kubernetes API stand-in (the kubelet's
// kernelVersion follows the host's revision). Only a real Windows host proves the WUA calls themselves.
jest.setTimeout(240_000);

const URN = "urn:pulumi:test::windows-estate::pulumi-nodejs:dynamic:Resource::estate-patching";
const HOSTS = 6;
const MINIMUM = { "20348": 2900 };
// A cumulative update as WUA lists it; its revision is what the host reports after the restart.
const CU = { kb: "5066782", title: "2026-10 Cumulative Update for Microsoft server operating system", revision: 2966 };
// WU_E_NO_UPDATE-style failures are reported as WUA ResultCode 4 (Failed) with an HRESULT (wuerror.h).
const FAILURE = { resultCode: 4, hResult: 0x80240022 | 0 };

const { kube, plugin } = providerRigPerFile(() => labs);
let nodes: FakeNodes;
let labs: LabWindows[] = [];
let providerText: string;

const name = (i: number) => `byoh-${i}`;
const state = (l: LabWindows) => JSON.parse(fs.readFileSync(l.state, "utf8"));
const setState = (l: LabWindows, over: Record<string, unknown>) =>
  fs.writeFileSync(l.state, JSON.stringify({ ...state(l), ...over }));

beforeAll(async () => {
  nodes = new FakeNodes(kube);
  labs = await Promise.all(
    Array.from({ length: HOSTS }, (_, i) =>
      labWindows(`127.0.0.${61 + i}`, name(i), { revision: 2700, availableUpdates: [CU] }),
    ),
  );
  labs.forEach((l, i) =>
    nodes.add(name(i), {
      address: l.host.host,
      labels: { "windowsmachineconfig.openshift.io/byoh": "true" },
      annotations: wmcoPin(l),
      kernelVersion: () => `10.0.20348.${state(l).revision}`,
    }),
  );
  providerText = (
    await serializedProviderOf(
      () => new WindowsPatching("p", { minimumUpdateRevision: MINIMUM, batches: [], reach: reach() }),
    )
  ).text;
  const pub = fs.readFileSync(labs[0].host.authorizedKeysFile, "utf8");
  for (const l of labs) fs.writeFileSync(l.host.authorizedKeysFile, pub);
});

const reach = () => byohReach(labs, "None");

/** What the program plans from the cluster: the managed nodes below the minimum, two at a time. */
function plan(minimum: Record<string, number> = MINIMUM) {
  return planPatching(
    [...nodes.nodes.values()].map((n) => ({
      name: n.metadata.name,
      kernelVersion: n.status.nodeInfo.kernelVersion,
      managed: true,
    })),
    minimum,
    2,
  );
}

function inputs(batches: string[][], minimum: Record<string, number> = MINIMUM) {
  return {
    minimumUpdateRevision: minimum,
    categories: [],
    batches,
    disableEviction: false,
    drainTimeoutSeconds: 30,
    readyTimeoutSeconds: 5,
    installTimeoutMinutes: 1,
    managedNodes: labs.map((_, i) => name(i)),
    restartTimeoutSeconds: 3,
    pollSeconds: 0.05,
    kubeconfig: kube.kubeconfig(),
    reach: reach(),
    __provider: providerText,
  };
}

/** The provider's `hostStatus` output, by node. */
function hostStatus(outputs: Record<string, unknown>): Record<string, unknown> {
  const h = outputs.hostStatus;
  if (!h || typeof h !== "object") throw new Error(`no hostStatus in ${JSON.stringify(outputs).slice(0, 200)}`);
  return Object.fromEntries(Object.entries(h));
}

/** Each PowerShell launch on a host, with the scripts it ran named by what they do. */
const launchNames = (l: LabWindows) =>
  launchesNamed(l.state, {
    "Write-Output 'patch task started'": "start",
    "Get-ScheduledTaskInfo": "status",
    "Restart-Computer": "restart",
    "rebootPending = [bool]$pending": "host status",
    LastBootUpTime: "boot time",
  });
/** What an operator does after looking at a node a failed run left cordoned: uncordon it, drop our record. */
function release(node: string) {
  const n = nodes.nodes.get(node);
  if (!n) return;
  n.spec.unschedulable = false;
  delete n.metadata.annotations[PATCHING_FOR_ANNOTATION];
}
const ran = (l: LabWindows, marker: string) => scriptsRun(l).filter((s) => s.includes(marker)).length;

test("the Nodes the stand-in serves are valid core/v1 Nodes, at revision 2700", () => {
  for (const n of nodes.nodes.values()) {
    expect(validateObject(n, { closed: true })).toBe("");
    expect(n.status.nodeInfo.kernelVersion).toBe("10.0.20348.2700");
  }
});

describe("six BYOH hosts below revision 2900, two at a time", () => {
  let before = 0;
  test("the plan takes all six in three batches", () => {
    expect(plan().batches).toEqual([
      ["byoh-0", "byoh-1"],
      ["byoh-2", "byoh-3"],
      ["byoh-4", "byoh-5"],
    ]);
  });

  test("a failing update stops the rollout after its batch, names node, step and WUA result code; the node stays cordoned", async () => {
    setState(labs[3], { updateFailure: FAILURE });
    before = nodes.events.length;
    await expect(plugin.create(URN, inputs(plan().batches))).rejects.toThrow(
      /the patch rollout stopped in batch 2\/3:\n {2}- node byoh-3, step "install updates": Windows Update result code 4 \(Failed\), HRESULT 0x80240022; KB5066782 \(2026-10 Cumulative Update for Microsoft server operating system\): 4 \(Failed\), HRESULT 0x80240022\nDone so far: byoh-0, byoh-1, byoh-2\. Not started: byoh-4, byoh-5\./,
    );
    // Done nodes: updated, restarted once, at the new revision, uncordoned with our record; byoh-3 cordoned, marked.
    for (const i of [0, 1, 2]) {
      expect(state(labs[i]).revision).toBe(2966);
      expect(ran(labs[i], "Restart-Computer -Force")).toBe(1);
      const n = nodes.nodes.get(name(i));
      expect(n?.spec.unschedulable).toBe(false);
      expect(n?.metadata.annotations[PATCHED_FOR_ANNOTATION]).toBe(tokenDigest(patchToken(MINIMUM, [])));
    }
    expect(nodes.nodes.get("byoh-3")?.spec.unschedulable).toBe(true);
    expect(nodes.nodes.get("byoh-3")?.metadata.annotations[PATCHING_FOR_ANNOTATION]).toBe(
      tokenDigest(patchToken(MINIMUM, [])),
    );
    expect(ran(labs[3], "Restart-Computer -Force")).toBe(0);
    for (const i of [4, 5]) expect(ran(labs[i], "patch task started")).toBe(0);
    // The task was polled while it ran (one read saw it Running), never waited on by sleeping blindly: the search, then
    // the install.
    expect(ran(labs[0], "Get-ScheduledTaskInfo")).toBe(4);
    expect({ searches: state(labs[0]).patchSearches, installs: state(labs[0]).patchTasks }).toEqual({
      searches: 1,
      installs: 1,
    });
    // The task's own limit is the install timeout (1 minute here), not a fixed 4 hours.
    expect(state(labs[0]).patchTaskLimitMinutes).toBe(1);
    // Three PowerShell launches per patched node (issue 17's guard): the search before the cordon; the install, its
    // polls and the restart in one process; the new boot time in the next.
    expect(launchNames(labs[0])).toEqual([
      ["start", "status", "status"],
      ["start", "status", "status", "boot time", "restart"],
      ["boot time"],
    ]);
  });

  test("the next up resumes with the nodes still below; nothing is patched twice, never more than two cordoned", async () => {
    setState(labs[3], { updateFailure: undefined, availableUpdates: [CU] });
    const resumed = plan().batches;
    expect(resumed).toEqual([["byoh-3", "byoh-4"], ["byoh-5"]]);
    const out = await plugin.update(URN, "windows-patching", { ...inputs([]), patched: [] }, inputs(resumed));
    expect(out.patched).toEqual(["byoh-3", "byoh-4", "byoh-5"]);
    for (const l of labs) {
      expect(state(l).revision).toBe(2966);
      expect(ran(l, "Restart-Computer -Force")).toBe(1);
    }
    expect(state(labs[3]).patchTasks).toBe(2);
    for (const i of [0, 1, 2, 4, 5]) expect(state(labs[i]).patchTasks).toBe(1);
    for (const n of nodes.nodes.values()) {
      expect(n.spec.unschedulable).toBe(false);
      expect(n.status.nodeInfo.kernelVersion).toBe("10.0.20348.2966");
    }
    // Cordons and uncordons interleave so that at most two nodes (one batch) were out at any time, over both runs.
    const cordoned = new Set<string>();
    let max = 0;
    for (const e of nodes.events.slice(before)) {
      const [node, ...what] = e.split(" ");
      if (what.includes("cordon")) cordoned.add(node);
      if (what.includes("uncordon")) cordoned.delete(node);
      max = Math.max(max, cordoned.size);
    }
    expect(max).toBe(2);
    expect(plan().batches).toEqual([]);
    // The inventory's SSH part: every managed node's boot (the restart just now) and no restart pending.
    expect(Object.keys(hostStatus(out)).sort()).toEqual(labs.map((_, i) => name(i)));
    for (const [i, l] of labs.entries())
      expect(hostStatus(out)[name(i)]).toEqual({
        bootTime: state(l).bootTime,
        uptimeHours: expect.any(Number),
        rebootPending: false,
      });
  });

  test("refresh reads uptime and pending restarts again; a host that waits for a restart says so", async () => {
    setState(labs[1], { rebootPending: true });
    const refreshed = await plugin.read(URN, "windows-patching", { ...inputs([]), patched: [] }, inputs([]));
    expect(hostStatus(refreshed.outputs)["byoh-1"]).toMatchObject({ rebootPending: true });
    expect(hostStatus(refreshed.outputs)["byoh-2"]).toMatchObject({ rebootPending: false });
    setState(labs[1], { rebootPending: false });
  });

  test("a status script that fails shows PowerShell's error as text, not as CLIXML", async () => {
    // A host still starting fails every script; under -EncodedCommand its error arrives as CLIXML
    // (transport.stderr-clixml), which the provider decodes.
    expect(win.rule("transport.stderr-clixml").rows).toContain(11);
    setState(labs[2], { upAt: Date.now() + 600_000 });
    try {
      const refreshed = await plugin.read(URN, "windows-patching", { ...inputs([]), patched: [] }, inputs([]));
      expect(hostStatus(refreshed.outputs)["byoh-2"]).toEqual({
        unreachable: "the status script failed (exit 1): the host is still starting",
      });
    } finally {
      setState(labs[2], { upAt: undefined });
    }
  });
});

test("a node below the level with nothing applicable fails before the cordon, named with revision, minimum and cause", async () => {
  // Search first (audit-day2 §2.4): the update source offers nothing (an unapproved WSUS update, a minimum set too
  // high) and no restart is pending, so a drain could only end at the check with the node cordoned, on every up.
  const higher = { "20348": 3000 };
  const batches = planPatching(
    [{ name: "byoh-0", kernelVersion: "10.0.20348.2966", managed: true }],
    higher,
    1,
  ).batches;
  expect(batches).toEqual([["byoh-0"]]);
  const events = nodes.events.length;
  const installs = state(labs[0]).patchTasks;
  await expect(plugin.create(URN, inputs(batches, higher))).rejects.toThrow(
    /node byoh-0, step "precheck": node byoh-0 is at build 20348 revision 2966 \(kernelVersion 10\.0\.20348\.2966\), below the minimum 3000, and Windows Update offers it nothing applicable .* approve it in WSUS .*It was not cordoned/,
  );
  // Untouched: never cordoned, no progress annotation, no install, no restart.
  expect(nodes.events.slice(events).filter((e) => e.startsWith("byoh-0 "))).toEqual([]);
  expect(nodes.nodes.get("byoh-0")?.spec.unschedulable).toBe(false);
  expect(nodes.nodes.get("byoh-0")?.metadata.annotations[PATCHING_FOR_ANNOTATION]).toBeUndefined();
  expect(state(labs[0]).patchTasks).toBe(installs);
  expect(ran(labs[0], "Restart-Computer -Force")).toBe(1);
});

test("while WMCO upgrades another Windows node, patching refuses to start, naming it; nothing is searched or cordoned", async () => {
  // pkg/metadata/metadata.go `UpgradingLabel` on the node WMCO is rebuilding (controllers/controllers.go
  // `markNodeAsUpgrading`, one at a time): it moves on to the others next.
  const labels = nodes.nodes.get("byoh-1")?.metadata.labels ?? {};
  labels["windowsmachineconfig.openshift.io/upgrading"] = "true";
  const events = nodes.events.length;
  const scripts = labs.map((l) => scriptsRun(l).length);
  try {
    await expect(plugin.create(URN, inputs([["byoh-0"]], { "20348": 3000 }))).rejects.toThrow(
      /the patch rollout did not start; nothing was changed: WMCO is upgrading Windows nodes \(node byoh-1\); run again when no node carries windowsmachineconfig\.openshift\.io\/upgrading/,
    );
  } finally {
    delete labels["windowsmachineconfig.openshift.io/upgrading"];
  }
  expect(nodes.events.slice(events)).toEqual([]);
  expect(labs.map((l) => scriptsRun(l).length)).toEqual(scripts);
});

test("a restart already pending goes ahead with nothing to install; the restart brings the node to the level", async () => {
  // Windows applies staged servicing at a restart (day2-facts §3.3): the search finds nothing, the restart is due.
  const higher = { "20348": 3000 };
  setState(labs[0], { availableUpdates: [], pendingRevision: 3005, rebootPending: true });
  const out = await plugin.create(URN, inputs([["byoh-0"]], higher));
  expect(out.outputs.patched).toEqual(["byoh-0"]);
  expect(state(labs[0]).revision).toBe(3005);
  expect(state(labs[0]).rebootPending).toBeUndefined();
  expect(ran(labs[0], "Restart-Computer -Force")).toBe(2);
  expect(nodes.nodes.get("byoh-0")?.spec.unschedulable).toBe(false);
});

test("PendingFileRenameOperations alone (antivirus, drivers keep it set) restarts nothing; a servicing restart still does", async () => {
  expect(win.rule("updates.pending-file-renames").rows).toEqual([14]);
  // byoh-4 is at the level with nothing to install; only the renames are pending, as on many hosts for good.
  setState(labs[4], { availableUpdates: [], pendingFileRenames: true });
  const restarts = ran(labs[4], "Restart-Computer -Force");
  const events = nodes.events.length;
  const out = await plugin.create(URN, inputs([["byoh-4"]]));
  expect(out.outputs.patched).toEqual([]);
  expect(ran(labs[4], "Restart-Computer -Force")).toBe(restarts);
  expect(nodes.events.slice(events).filter((e) => e.startsWith("byoh-4 "))).toEqual([]);
  expect(hostStatus(out.outputs)["byoh-4"]).toMatchObject({ rebootPending: false });
  // Component servicing waiting for a restart (CBS RebootPending) is a restart due: the node is drained and restarted
  // (a run with other settings: the one above left the node done for its own).
  setState(labs[4], { rebootPending: true });
  const again = await plugin.create(URN, inputs([["byoh-4"]], { "20348": 2950 }));
  expect(again.outputs.patched).toEqual(["byoh-4"]);
  expect(ran(labs[4], "Restart-Computer -Force")).toBe(restarts + 1);
  expect(nodes.nodes.get("byoh-4")?.spec.unschedulable).toBe(false);
  setState(labs[4], { pendingFileRenames: false });
});

test("SucceededWithErrors fails the node, naming each failed update (KB, title) with its HRESULT; WUA goes through the proxy", async () => {
  const higher = { "20348": 3000 };
  setState(labs[1], {
    availableUpdates: [
      { ...CU, kb: "5072000", revision: 3010 },
      { kb: "5072001", title: "Servicing Stack Update", revision: 3010 },
    ],
    failedUpdates: { "5072001": 0x80073712 | 0 },
  });
  const proxy = { url: "http://proxy.example.com:3128", bypass: ["10.0.0.0/8"] };
  await expect(plugin.create(URN, { ...inputs([["byoh-1"]], higher), proxy })).rejects.toThrow(
    /node byoh-1, step "install updates": Windows Update result code 3 \(SucceededWithErrors\), HRESULT 0x00000000; KB5072001 \(Servicing Stack Update\): 4 \(Failed\), HRESULT 0x80073712\n/,
  );
  expect(nodes.nodes.get("byoh-1")?.spec.unschedulable).toBe(true);
  // IUpdateSession.WebProxy, set in the task (remote callers may not set it), for the search and the install.
  expect(state(labs[1]).wuaProxy).toBe("proxy.example.com:3128");
  expect(state(labs[1]).patchSearches).toBeGreaterThanOrEqual(1);
  setState(labs[1], { failedUpdates: undefined, availableUpdates: [], pendingRevision: undefined });
  release("byoh-1");
});

test("an install still running at the rollout's timeout is stopped (on-demand tasks ignore ExecutionTimeLimit)", async () => {
  const higher = { "20348": 3000 };
  // The search (the precheck, under the same 1.2 s timeout) finishes at its first status read (taskPolls 0), so it
  // never consults the clock; the install runs until stopped (taskHangs). What ends the install is the timeout alone,
  // however slowly a loaded machine gets there: an install left running fails patchTaskStops, no timeout never ends.
  setState(labs[3], { availableUpdates: [{ ...CU, kb: "5073000", revision: 3020 }], taskHangs: true, taskPolls: 0 });
  await expect(plugin.create(URN, { ...inputs([["byoh-3"]], higher), installTimeoutMinutes: 0.02 })).rejects.toThrow(
    /node byoh-3, step "install updates": the Windows Update task was still running after 1 seconds .*it was stopped \(Stop-ScheduledTask\)/,
  );
  expect(state(labs[3]).patchTaskStops).toBe(1);
  expect(nodes.nodes.get("byoh-3")?.spec.unschedulable).toBe(true);
  setState(labs[3], { taskHangs: false, taskPolls: undefined, availableUpdates: [] });
  release("byoh-3");
});

test("on AWS, the patch restart is followed by the metadata route, re-added where lost (WMCO TROUBLESHOOTING.md)", async () => {
  // WMCO docs/TROUBLESHOOTING.md, "Node reboot limitation in AWS": after a graceful reboot the node is not Ready until
  // the 169.254.169.254 route is re-added. The cluster's platform (reach.platform) says AWS, as for the rolling reboot.
  const higher = { "20348": 3200 };
  setState(labs[2], {
    availableUpdates: [{ ...CU, kb: "5071000", revision: 3210 }],
    metadataRouteMissing: true,
    routeChecks: 0,
  });
  const out = await plugin.create(URN, {
    ...inputs([["byoh-2"]], higher),
    reach: byohReach(labs, "AWS"),
    installTimeoutMinutes: 1440,
  });
  expect(out.outputs.patched).toEqual(["byoh-2"]);
  expect({ missing: state(labs[2]).metadataRouteMissing, checks: state(labs[2]).routeChecks }).toEqual({
    missing: false,
    checks: 1,
  });
  expect(nodes.nodes.get("byoh-2")?.spec.unschedulable).toBe(false);
  // The task may run as long as the config allows (1440 minutes), where it was held to 4 hours.
  expect(state(labs[2]).patchTaskLimitMinutes).toBe(1440);
});

test("a host that does not come back after its restart stops the rollout at the restart step, node cordoned", async () => {
  const higher = { "20348": 3100 };
  setState(labs[5], { availableUpdates: [{ ...CU, kb: "5070000", revision: 3120 }], neverReturns: true });
  await expect(plugin.create(URN, inputs([["byoh-5"]], higher))).rejects.toThrow(
    /node byoh-5, step "restart": node byoh-5 did not come back within 3s after Restart-Computer.*it stays cordoned/,
  );
  expect(nodes.nodes.get("byoh-5")?.spec.unschedulable).toBe(true);
  // Refresh still works with that host down: it is reported unreachable, the others are read.
  const refreshed = await plugin.read(URN, "windows-patching", { ...inputs([]), patched: [] }, inputs([]));
  expect(hostStatus(refreshed.outputs)["byoh-5"]).toEqual({ unreachable: expect.stringMatching(/.+/) });
  expect(hostStatus(refreshed.outputs)["byoh-4"]).toMatchObject({ rebootPending: false });
});
