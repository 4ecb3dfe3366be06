import {
  eventStamps,
  eventsOf,
  JoinOutputs,
  joinVerdict,
  JoinSnapshot,
  JoinTarget,
  lastWritten,
  notConfigured,
} from "../../../providers/kube-wait/joins";
import { decodeNodes } from "../../../providers/day2/inventory";
import type { Verdict } from "../../../providers/kube-wait/conditions";

// Objects in the shapes WMCO and the Machine API leave (openshift/windows-machine-config-operator release-4.22):
// the annotations of pkg/metadata/metadata.go, values `<semver>-<git sha>` (build/build.sh `version`), the Events of
// controllers/configmap_controller.go `reconcileNodes` and controllers/windowsmachine_controller.go `Reconcile`.
const VERSION = "windowsmachineconfig.openshift.io/version";
const DESIRED = "windowsmachineconfig.openshift.io/desired-version";
const BYOH = "windowsmachineconfig.openshift.io/byoh";
const UPGRADING = "windowsmachineconfig.openshift.io/upgrading";
const SET = "machine.openshift.io/cluster-api-machineset";

function node(
  name: string,
  o: {
    addresses?: string[];
    byoh?: boolean;
    version?: string;
    desired?: string;
    ready?: boolean;
    cordoned?: boolean;
    upgrading?: boolean;
  } = {},
) {
  const version = o.version ?? "10.22.1-1a2b3c4";
  return {
    metadata: {
      name,
      labels: {
        "kubernetes.io/os": "windows",
        ...(o.byoh ? { [BYOH]: "true" } : {}),
        ...(o.upgrading ? { [UPGRADING]: "true" } : {}),
      },
      annotations: version === "" ? {} : { [VERSION]: version, [DESIRED]: o.desired ?? version },
    },
    spec: o.cordoned ? { unschedulable: true } : {},
    status: {
      addresses: (o.addresses ?? []).map((address, i) => ({ type: i === 0 ? "InternalIP" : "Hostname", address })),
      conditions: [{ type: "Ready", status: o.ready === false ? "False" : "True" }],
    },
  };
}

const machine = (name: string, set: string, nodeName?: string, phase = "Running") => ({
  metadata: { name, uid: `uid-${name}`, labels: { [SET]: set } },
  status: { phase, ...(nodeName ? { nodeRef: { kind: "Node", name: nodeName } } : {}) },
});

const event = (reason: string, kind: string, name: string, message: string, at: string, uid = "", count = 1) => ({
  metadata: { uid: `event-${reason}-${name}` },
  reason,
  type: "Warning",
  involvedObject: { kind, name, uid },
  message,
  count,
  lastTimestamp: at,
});

const instances = (written: string) => ({
  metadata: {
    name: "windows-instances",
    creationTimestamp: "2026-11-26T10:00:00Z",
    managedFields: [{ manager: "pulumi-kubernetes", operation: "Apply", time: written }],
  },
});

const target = (o: Partial<JoinTarget> = {}): JoinTarget => ({
  namespace: "openshift-windows-machine-config-operator",
  byoh: [],
  machineSets: [],
  operatorVersion: "10.22.1",
  ...o,
});

/** WMCO's InstanceSetupFailure on windows-instances, about one BYOH host (configmap_controller.go reconcileNodes). */
const hostFailure = (message: string, at = "2026-11-26T10:06:00Z", count = 1) =>
  event("InstanceSetupFailure", "ConfigMap", "windows-instances", message, at, "", count);

/** WMCO's MachineSetupFailure on Machine winworker-a, about the Machine of `uid` (windowsmachine_controller.go). */
const machineFailure = (message: string, uid = "uid-winworker-a") =>
  event("MachineSetupFailure", "Machine", "winworker-a", message, "2026-11-26T10:06:00Z", uid);

/** The BYOH host 10.0.0.<n>'s node, win-<n>. */
const byohNode = (n: number, o: Parameters<typeof node>[1] = {}) =>
  node(`win-${n}`, { byoh: true, addresses: [`10.0.0.${n}`], ...o });

/** One look of the wait: these objects (the Events as one list), windows-instances last written at `written`. */
const seen = (o: { nodes?: unknown[]; machines?: unknown[]; events?: unknown[]; written?: string }): JoinSnapshot => ({
  nodes: { items: o.nodes ?? [] },
  machines: { items: o.machines ?? [] },
  events: o.events ? [{ items: o.events }] : [],
  ...(o.written ? { instances: instances(o.written) } : {}),
});

/** A Node as the wait reads it (providers/day2/inventory.ts `decodeNodes`, the one reader of Node objects). */
const decoded = (n: unknown) => decodeNodes({ items: [n] })[0];

describe("a node counts as configured by this WMCO", () => {
  test("Ready, version == desired-version with the running operator's semver, schedulable, not upgrading", () => {
    expect(notConfigured(decoded(node("a")), "10.22.1")).toBeUndefined();
  });
  test("each missing condition is named", () => {
    expect(notConfigured(decoded(node("a", { version: "" })), "10.22.1")).toBe("WMCO configuring");
    expect(notConfigured(decoded(node("a", { desired: "10.22.1-9f9f9f9" })), "10.22.1")).toBe(
      "WMCO reconfiguring (10.22.1-1a2b3c4 → 10.22.1-9f9f9f9)",
    );
    // After an operator upgrade the old version still equals the old desired-version until WMCO reaches the node.
    expect(notConfigured(decoded(node("a", { version: "10.21.0-5e5e5e5" })), "10.22.1")).toBe(
      "configured by WMCO 10.21.0, waiting for WMCO 10.22.1",
    );
    expect(notConfigured(decoded(node("a", { ready: false })), "10.22.1")).toBe("not Ready");
    expect(notConfigured(decoded(node("a", { cordoned: true })), "10.22.1")).toBe("cordoned");
    expect(notConfigured(decoded(node("a", { upgrading: true })), "10.22.1")).toBe("WMCO upgrading");
  });
  test("a `-dirty` build's value still compares by its semver part", () => {
    expect(notConfigured(decoded(node("a", { version: "10.22.1-1a2b3c4-dirty" })), "10.22.1")).toBeUndefined();
  });
});

describe("the join verdict", () => {
  const byoh = ["10.0.0.41", "10.0.0.42"];
  const sets = (replicas: number) => target({ machineSets: [{ name: "winworker", replicas }] });
  const provisioned = machine("winworker-a", "winworker", undefined, "Provisioned");

  // Each row: what the wait expects, one look at the cluster, and the verdict (or only its state) that look gives.
  test.each<{
    name: string;
    t: JoinTarget;
    look: JoinSnapshot;
    verdict: Verdict<JoinOutputs> | Verdict<JoinOutputs>["state"];
  }>([
    {
      name: "BYOH hosts are matched to nodes by exact address; done once both are configured",
      t: target({ byoh }),
      look: seen({
        nodes: [
          byohNode(41, { addresses: ["10.0.0.41", "win-41"] }),
          byohNode(42, { addresses: ["10.0.0.42", "win-42"] }),
        ],
        written: "2026-11-26T10:00:00Z",
      }),
      verdict: { state: "done", outputs: { nodes: ["win-41", "win-42"] } },
    },
    {
      name: "progress names how many joined and what each other one waits for",
      t: target({ byoh }),
      look: seen({ nodes: [byohNode(41)], written: "2026-11-26T10:00:00Z" }),
      verdict: { state: "waiting", reason: "1 of 2 Windows nodes joined; 10.0.0.42: no Node yet" },
    },
    {
      name: "a node without the BYOH label is not the host's node, even with its address",
      t: target({ byoh: ["10.0.0.41"] }),
      look: seen({ nodes: [byohNode(41, { byoh: false })] }),
      verdict: "waiting",
    },
    {
      name: "an InstanceSetupFailure written after windows-instances fails the wait, naming the host and quoting WMCO",
      t: target({ byoh }),
      look: seen({
        nodes: [byohNode(41)],
        events: [
          hostFailure(
            "error configuring host with address 10.0.0.42: failed to configure instance: unable to connect",
            "2026-11-26T10:05:02Z",
            3,
          ),
        ],
        written: "2026-11-26T10:05:00Z",
      }),
      verdict: {
        state: "failed",
        message: `BYOH host 10.0.0.42: WMCO's Event InstanceSetupFailure on ConfigMap openshift-windows-machine-config-operator/windows-instances (2026-11-26T10:05:02Z, 3 times): "error configuring host with address 10.0.0.42: failed to configure instance: unable to connect"`,
      },
    },
    {
      name: "an Event from before the last write of windows-instances speaks of an older list and is ignored",
      t: target({ byoh }),
      look: seen({
        nodes: [byohNode(41)],
        events: [hostFailure("error configuring host with address 10.0.0.42: x", "2026-11-26T10:04:59Z")],
        written: "2026-11-26T10:05:00Z",
      }),
      verdict: "waiting",
    },
    {
      name: "a node waiting its turn in a WMCO upgrade is waiting, not failing (controllers/errors.go)",
      t: target({ byoh }),
      look: seen({
        nodes: [byohNode(41, { upgrading: true }), byohNode(42, { version: "10.21.0-5e5e5e5" })],
        events: [
          hostFailure(
            "error configuring host with address 10.0.0.42: Cannot mark node win-42 as upgrading. Current number of upgrading nodes is (1). Max number of upgrading nodes is (1)",
          ),
        ],
        written: "2026-11-26T10:05:00Z",
      }),
      verdict: {
        state: "waiting",
        reason:
          "0 of 2 Windows nodes joined; 10.0.0.41: WMCO upgrading; 10.0.0.42: configured by WMCO 10.21.0, waiting for WMCO 10.22.1; WMCO is upgrading win-41 (one node at a time)",
      },
    },
    {
      name: "a host that is not in this stack's list but blocks the others is named as such",
      t: target({ byoh: ["10.0.0.41"] }),
      look: seen({
        events: [hostFailure("error configuring host with address 10.0.0.99: boom")],
        written: "2026-11-26T10:05:00Z",
      }),
      verdict: {
        state: "failed",
        message: expect.stringMatching(
          /^host 10\.0\.0\.99 in windows-instances: .*; WMCO configures the hosts one after another and stops at the first that fails$/,
        ),
      },
    },
    {
      name: "failure Events do not fail a wait whose nodes have all joined",
      t: target({ byoh: ["10.0.0.41"] }),
      look: seen({
        nodes: [byohNode(41)],
        events: [hostFailure("error configuring host with address 10.0.0.41: transient")],
        written: "2026-11-26T10:05:00Z",
      }),
      verdict: "done",
    },
    {
      name: "a Machine still provisioning says so",
      t: sets(1),
      look: seen({ machines: [machine("winworker-a", "winworker", undefined, "Provisioning")] }),
      verdict: {
        state: "waiting",
        reason:
          "0 of 1 Windows nodes joined; MachineSet winworker: 0 of 1 configured (winworker-a: Machine Provisioning)",
      },
    },
    {
      name: "MachineSetupFailure on one of the set's Machines fails the wait, quoting it",
      t: sets(1),
      look: seen({ machines: [provisioned], events: [machineFailure("Machine winworker-a authentication failure")] }),
      verdict: {
        state: "failed",
        message:
          'Machine winworker-a of MachineSet winworker: WMCO\'s Event MachineSetupFailure on Machine winworker-a (2026-11-26T10:06:00Z): "Machine winworker-a authentication failure"',
      },
    },
    {
      name: "'configuration failure' while another node upgrades is its turn coming, not a failure",
      t: sets(1),
      look: seen({
        nodes: [node("byoh-1", { byoh: true, upgrading: true })],
        machines: [provisioned],
        events: [machineFailure("Machine winworker-a configuration failure")],
      }),
      verdict: "waiting",
    },
    {
      name: "an Event about an earlier Machine of the same name (another uid) is not this Machine's",
      t: sets(1),
      look: seen({
        machines: [provisioned],
        events: [machineFailure("Machine winworker-a authentication failure", "uid-of-a-deleted-machine")],
      }),
      verdict: "waiting",
    },
  ])("$name", ({ t, look, verdict }) => {
    const v = joinVerdict(t, look);
    expect(typeof verdict === "string" ? v.state : v).toEqual(verdict);
  });

  test("a MachineSet is done when as many of its Machines' nodes as its replicas are configured", () => {
    const t = sets(2);
    const nodes = { items: [node("ip-10-0-128-10"), node("ip-10-0-128-11", { version: "" })] };
    const machines = {
      items: [
        machine("winworker-a", "winworker", "ip-10-0-128-10"),
        machine("winworker-b", "winworker", "ip-10-0-128-11"),
        machine("other-c", "linux-workers", "ip-10-0-0-5"),
      ],
    };
    expect(joinVerdict(t, { nodes, machines, events: [] })).toEqual({
      state: "waiting",
      reason: "1 of 2 Windows nodes joined; MachineSet winworker: 1 of 2 configured (winworker-b: WMCO configuring)",
    });
    nodes.items[1] = node("ip-10-0-128-11");
    expect(joinVerdict(t, { nodes, machines, events: [] })).toEqual({
      state: "done",
      outputs: { nodes: ["ip-10-0-128-10", "ip-10-0-128-11"] },
    });
  });

  test("an Event the wait's first look already saw counts only once WMCO says it again", () => {
    const failure = (count: number, at: string) =>
      hostFailure("error configuring host with address 10.0.0.42: unable to connect", at, count);
    const look = (e: ReturnType<typeof failure>, before: Map<string, string>) =>
      joinVerdict(target({ byoh }), {
        ...seen({ nodes: [byohNode(41)], events: [e], written: "2026-11-26T10:05:00Z" }),
        before,
      }).state;
    // From a previous update, after the ConfigMap's last write: the host may have been fixed since.
    const earlier = failure(2, "2026-11-26T10:06:00Z");
    const before = eventStamps(eventsOf([{ items: [earlier] }]));
    expect(look(earlier, before)).toBe("waiting");
    // WMCO retried and failed again (the recorder bumps count and lastTimestamp of the same Event).
    expect(look(failure(3, "2026-11-26T10:21:00Z"), before)).toBe("failed");
  });
});

test("windows-instances was last written at its newest managedFields time, else its creation", () => {
  expect(lastWritten(instances("2026-11-26T10:05:00Z"))).toBe(Date.parse("2026-11-26T10:05:00Z"));
  expect(lastWritten({ metadata: { creationTimestamp: "2026-11-26T09:00:00Z" } })).toBe(
    Date.parse("2026-11-26T09:00:00Z"),
  );
  expect(lastWritten(undefined)).toBe(0);
});
