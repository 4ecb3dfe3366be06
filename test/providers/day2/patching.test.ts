import * as fs from "fs";
import { WindowsPatching } from "../../../providers/patching";
import { patchToken, planPatching } from "../../../providers/day2/patch-plan";
import { tokenDigest } from "../../../providers/day2/rollout";
import { PATCHED_FOR_ANNOTATION, PATCHING_FOR_ANNOTATION } from "../../../facts/day2";
import { serializedProviderOf } from "../../helpers/dynamic-host";
import { FakeKube } from "../../helpers/fake-kube";
import { FakeNodes } from "../../helpers/fake-nodes";
import { validateObject } from "../../helpers/schemas";
import { DynamicPlugin } from "../../helpers/dynamic-plugin";
import { labWindows, LabWindows, launchLog, scriptsRun } from "../../lab/lab-windows";
import { byohReach, wmcoPin } from "../../helpers/byoh-lab";

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

let kube: FakeKube;
let nodes: FakeNodes;
let labs: LabWindows[] = [];
let plugin: DynamicPlugin;
let providerText: string;

const name = (i: number) => `byoh-${i}`;
const state = (l: LabWindows) => JSON.parse(fs.readFileSync(l.state, "utf8"));
const setState = (l: LabWindows, over: Record<string, unknown>) =>
  fs.writeFileSync(l.state, JSON.stringify({ ...state(l), ...over }));

beforeAll(async () => {
  kube = new FakeKube();
  await kube.start();
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
  plugin = new DynamicPlugin();
  await plugin.start("127.0.0.1:1");
});
afterAll(async () => {
  await plugin?.stop();
  await kube?.stop();
  await Promise.all(labs.map((l) => l.stop()));
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
  launchLog(l.state).map((scripts) =>
    scripts.map((x) =>
      x.includes("Write-Output 'patch task started'")
        ? "start"
        : x.includes("Get-ScheduledTaskInfo")
          ? "status"
          : x.includes("Restart-Computer")
            ? "restart"
            : x.includes("rebootPending = [bool]$pending")
              ? "host status"
              : x.includes("LastBootUpTime")
                ? "boot time"
                : "other",
    ),
  );
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
      /the patch rollout stopped in batch 2\/3:\n {2}- node byoh-3, step "install updates": Windows Update result code 4 \(Failed\), HRESULT 0x80240022; KB5066782: 4 \(Failed\), HRESULT 0x80240022\nDone so far: byoh-0, byoh-1, byoh-2\. Not started: byoh-4, byoh-5\./,
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
    // The task was polled while it ran (one read saw it Running), never waited on by sleeping blindly.
    expect(ran(labs[0], "Get-ScheduledTaskInfo")).toBe(2);
    // Two PowerShell launches per patched node (issue 17's guard): the install, its polls and the restart in one
    // process, the new boot time in the next.
    expect(launchNames(labs[0])).toEqual([["start", "status", "status", "boot time", "restart"], ["boot time"]]);
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
    expect(ran(labs[3], "patch task started")).toBe(2);
    for (const i of [0, 1, 2, 4, 5]) expect(ran(labs[i], "patch task started")).toBe(1);
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
});

test("a node whose update source offers nothing newer is stopped at the check, cordoned, with the revision named", async () => {
  const higher = { "20348": 3000 };
  const batches = planPatching(
    [{ name: "byoh-0", kernelVersion: "10.0.20348.2966", managed: true }],
    higher,
    1,
  ).batches;
  expect(batches).toEqual([["byoh-0"]]);
  await expect(plugin.create(URN, inputs(batches, higher))).rejects.toThrow(
    /node byoh-0, step "check": after the updates the kubelet reports build 20348 at revision 2966, below 3000 .*the node stays cordoned/,
  );
  expect(nodes.nodes.get("byoh-0")?.spec.unschedulable).toBe(true);
  // No update, no pending restart: the host was not restarted again.
  expect(ran(labs[0], "Restart-Computer -Force")).toBe(1);
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

test("on AWS, the patch restart is followed by the metadata route, re-added where lost (WMCO TROUBLESHOOTING.md)", async () => {
  // WMCO docs/TROUBLESHOOTING.md, "Node reboot limitation in AWS": after a graceful reboot the node is not Ready until
  // the 169.254.169.254 route is re-added. The cluster's platform (reach.platform) says AWS, as for the rolling reboot.
  const higher = { "20348": 3200 };
  setState(labs[2], {
    availableUpdates: [{ ...CU, kb: "5071000", revision: 3210 }],
    metadataRouteMissing: true,
    routeChecks: 0,
  });
  const out = await plugin.create(URN, { ...inputs([["byoh-2"]], higher), reach: byohReach(labs, "AWS") });
  expect(out.outputs.patched).toEqual(["byoh-2"]);
  expect({ missing: state(labs[2]).metadataRouteMissing, checks: state(labs[2]).routeChecks }).toEqual({
    missing: false,
    checks: 1,
  });
  expect(nodes.nodes.get("byoh-2")?.spec.unschedulable).toBe(false);
});
