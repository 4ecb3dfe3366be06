import { MachineSetRollout } from "../../../providers/machine-rollout";
import { machineImage } from "../../../providers/day2/machine-rollout-plan";
import { serializedProviderOf } from "../../helpers/dynamic-host";
import { FakeNodes } from "../../helpers/fake-nodes";
import { FakeMachineApi } from "../../helpers/fake-machine-api";
import { validateObject } from "../../helpers/schemas";
import { providerRigPerFile } from "../../helpers/provider-rig";

// A MachineSet image roll as `pulumi up` runs it: the MachineSetRollout provider in the real dynamic-provider plugin,
// against the Kubernetes API stand-in playing machine-api and WMCO (test/helpers/fake-machine-api.ts): a deleted
// Machine drains and disappears a few reads later, the MachineSet controller keeps `spec.replicas` Machines not being
// deleted (creating them on the template's image, deleting annotated ones first on a scale-down), and WMCO marks a new
// Node configured (version = desired-version) a few reads after it registers. State changes are driven by requests,
// never by time.
jest.setTimeout(120_000);

const SET = "winworker";
const OLD = { id: "ami-0aaaaaaaaaaaaaaaa" };
const NEW = { id: "ami-0bbbbbbbbbbbbbbbb" };
const WMCO = "10.22.2";
const URN = "urn:pulumi:test::windows-estate::pulumi-nodejs:dynamic:Resource::estate-ms-winworker-rollout";

const { kube, plugin } = providerRigPerFile();
let nodes: FakeNodes;
let providerText: string;
let api: FakeMachineApi;

const spec = (ami: { id: string }) => ({
  apiVersion: "machine.openshift.io/v1beta1",
  kind: "AWSMachineProviderConfig",
  ami,
  instanceType: "m5a.large",
});

beforeAll(async () => {
  nodes = new FakeNodes(kube);
  providerText = (
    await serializedProviderOf(() => new MachineSetRollout("r", { machineSet: SET, image: "x", replicas: 3 }))
  ).text;
});

/** Machines on the old AMI, each with a configured Node; the MachineSet's template now boots the new one. */
function cluster(names: string[]): FakeMachineApi {
  api = new FakeMachineApi(kube, nodes, SET, WMCO);
  api.seed(names, spec(OLD));
  api.template(spec(NEW));
  return api;
}

/** The events of some kinds only, in order. */
const only = (...kinds: string[]) => api.events.filter((e) => kinds.some((k) => e.startsWith(`${k} `)));

function inputs(maxUnavailable: number, readyTimeoutSeconds = 30, extra: Record<string, unknown> = {}) {
  return {
    machineSet: SET,
    image: machineImage(spec(NEW)),
    replicas: 3,
    maxUnavailable,
    readyTimeoutSeconds,
    planned: [],
    pollSeconds: 0.01,
    kubeconfig: kube.kubeconfig(),
    __provider: providerText,
    ...extra,
  };
}

test("the Machines and the MachineSet the stand-in serves are valid machine.openshift.io/v1beta1 objects", () => {
  const a = cluster(["a"]);
  for (const m of a.machines.values()) expect(validateObject(m)).toBe("");
  expect(validateObject(a.machineSet)).toBe("");
});

test("maxUnavailable 1: each Machine is deleted only after the previous replacement is configured by WMCO", async () => {
  cluster(["win-a", "win-b", "win-c"]);
  const out = await plugin.create(URN, inputs(1));
  expect(out.outputs.replaced).toEqual(["win-a", "win-b", "win-c"]);
  expect(only("delete", "configured")).toEqual([
    "delete win-a",
    `configured ${SET}-new-1`,
    "delete win-b",
    `configured ${SET}-new-2`,
    "delete win-c",
    `configured ${SET}-new-3`,
  ]);
  // Deleting takes time: the node drains first and the Machine disappears reads later, not on the next one.
  const e = api.events;
  expect(e.indexOf("drain win-a")).toBeGreaterThan(e.indexOf("delete win-a"));
  expect(e.indexOf("gone win-a")).toBeGreaterThan(e.indexOf("drain win-a") + 1);
  expect([...api.machines.values()].map((m) => m.spec.providerSpec.value.ami)).toEqual([NEW, NEW, NEW]);
  // Replacing deletes first: one of three is out of service meanwhile.
  expect(api.fewestServing).toBe(2);
});

test("maxUnavailable 2 of 3: two at once, then the last; a set never has fewer than one serving Machine", async () => {
  cluster(["win-d", "win-e", "win-f"]);
  const out = await plugin.create(URN, inputs(2));
  expect(out.outputs.replaced).toEqual(["win-d", "win-e", "win-f"]);
  const events = only("delete", "configured");
  expect(events.slice(0, 2)).toEqual(["delete win-d", "delete win-e"]);
  expect(events.indexOf("delete win-f")).toBeGreaterThan(events.indexOf(`configured ${SET}-new-5`));
  expect(api.fewestServing).toBe(1);
  // Asked for more than replicas - 1, it still keeps one serving.
  cluster(["win-g", "win-h", "win-i"]);
  await plugin.create(URN, inputs(5));
  expect(only("delete", "configured").slice(0, 3)).toEqual([
    "delete win-g",
    "delete win-h",
    expect.stringMatching(/^configured/),
  ]);
  expect(api.fewestServing).toBe(1);
});

test("a replacement WMCO never configures stops the rollout naming set and machine; the next run resumes", async () => {
  cluster(["win-j", "win-k", "win-l"]);
  api.neverConfigure = true;
  await expect(plugin.create(URN, inputs(1, 0.05))).rejects.toThrow(
    /MachineSet winworker: the replacements of win-j were not Ready and configured by WMCO within 0 minutes \(0\/1 on the new image; waiting: winworker-new-\d+ \((phase Provisioning, no Node|Node winworker-new-\d+ not yet Ready and configured by WMCO)\)\)\. Machines replaced so far: none; the next pulumi up resumes/,
  );
  expect(only("delete")).toEqual(["delete win-j"]);
  api.configureNow();
  const out = await plugin.create(URN, inputs(1));
  // win-j is already being deleted: the run goes on with the Machines still on the old image.
  expect(out.outputs.replaced).toEqual(["win-k", "win-l"]);
  expect(only("delete", "configured")[1]).toMatch(/^configured/);
});

test("while WMCO upgrades a Windows node, the rollout refuses to start, naming it, and deletes nothing", async () => {
  cluster(["win-p", "win-q", "win-r"]);
  // A BYOH node WMCO is rebuilding (pkg/metadata/metadata.go `UpgradingLabel`, controllers/controllers.go
  // `markNodeAsUpgrading`): not one of this set's, but WMCO moves on to the others next.
  nodes.add("win-byoh-up", {
    address: "10.0.0.99",
    labels: { "windowsmachineconfig.openshift.io/upgrading": "true" },
  });
  try {
    await expect(plugin.create(URN, inputs(1))).rejects.toThrow(
      /the Machine rollout of winworker did not start; nothing was changed: WMCO is upgrading Windows nodes \(node win-byoh-up\); run again when no node carries windowsmachineconfig\.openshift\.io\/upgrading/,
    );
  } finally {
    nodes.nodes.delete("win-byoh-up");
  }
  expect(only("delete")).toEqual([]);
});

describe("strategy surge", () => {
  test("marks the old Machines, doubles the set, waits for the new ones, scales back: the marked ones go, capacity never drops", async () => {
    cluster(["win-m", "win-n", "win-o"]);
    // Newest would pick the new Machines on a plain scale-down; the annotation outranks it (delete_policy.go).
    api.machineSet.spec.deletePolicy = "Newest";
    const out = await plugin.create(URN, inputs(1, 30, { strategy: "surge" }));
    expect(out.outputs.replaced).toEqual(["win-m", "win-n", "win-o"]);
    const events = only("mark", "scale", "configured", "controller", "gone");
    expect(events.slice(0, 4)).toEqual(["mark win-m", "mark win-n", "mark win-o", "scale 6"]);
    // Scaled back only once all three new Machines were configured, and exactly the marked ones were deleted.
    const back = events.indexOf("scale 3");
    const configured = expect.stringMatching(/^configured winworker-new-\d+$/);
    expect(events.slice(4, back)).toEqual([configured, configured, configured]);
    expect(events.slice(back + 1, back + 4)).toEqual([
      "controller deletes win-m",
      "controller deletes win-n",
      "controller deletes win-o",
    ]);
    // The run returns once they are gone, not when they begin deleting.
    expect(events.slice(-3).sort()).toEqual(["gone win-m", "gone win-n", "gone win-o"]);
    expect(api.machines.size).toBe(3);
    expect([...api.machines.values()].map((m) => m.spec.providerSpec.value.ami)).toEqual([NEW, NEW, NEW]);
    expect(api.machineSet.spec.replicas).toBe(3);
    expect(api.fewestServing).toBe(3);
    expect(only("delete")).toEqual([]); // no Machine deleted through the API: the controller chose them
    expect(api.patchQueries.every((q) => q === "fieldManager=windows-estate-rollout")).toBe(true);
  });

  test("maxSurge 1: one round per Machine, the set never above replicas + 1", async () => {
    cluster(["win-p", "win-q", "win-r"]);
    const out = await plugin.create(URN, inputs(1, 30, { strategy: "surge", maxSurge: 1 }));
    expect(out.outputs.replaced).toEqual(["win-p", "win-q", "win-r"]);
    expect(only("mark", "scale")).toEqual([
      "mark win-p",
      "scale 4",
      "scale 3",
      "mark win-q",
      "scale 4",
      "scale 3",
      "mark win-r",
      "scale 4",
      "scale 3",
    ]);
    expect(api.mostReplicas).toBe(4);
    expect(api.fewestServing).toBe(3);
  });

  test("one replica is enough: the new Machine serves before the old one goes", async () => {
    cluster(["win-s"]);
    const out = await plugin.create(URN, { ...inputs(1, 30, { strategy: "surge" }), replicas: 1 });
    expect(out.outputs.replaced).toEqual(["win-s"]);
    expect(api.fewestServing).toBe(1);
  });

  test("a run that stopped scaled up is finished by the next from what the cluster shows, without scaling up again", async () => {
    cluster(["win-t", "win-u", "win-v"]);
    api.neverConfigure = true;
    await expect(plugin.create(URN, inputs(1, 0.05, { strategy: "surge" }))).rejects.toThrow(
      /MachineSet winworker: the new Machines were not Ready and configured by WMCO within 0 minutes \(0\/3; waiting: .*\)\. The set stays scaled up with the old Machines marked; the next pulumi up resumes/,
    );
    expect(api.machineSet.spec.replicas).toBe(6);
    api.configureNow();
    // A new provider process: nothing carried over but the cluster.
    const out = await plugin.create(URN, inputs(1, 30, { strategy: "surge" }));
    expect(out.outputs.replaced).toEqual(["win-t", "win-u", "win-v"]);
    expect(only("mark", "scale")).toEqual(["mark win-t", "mark win-u", "mark win-v", "scale 6", "scale 3"]);
    expect(api.fewestServing).toBe(3);
  });

  test("a drain held up (a PodDisruptionBudget) stops the run naming the Machines; the next run waits for them to go", async () => {
    cluster(["win-w", "win-x"]);
    let held = true;
    api.holdDeletion = () => held;
    await expect(plugin.create(URN, { ...inputs(1, 0.5, { strategy: "surge" }), replicas: 2 })).rejects.toThrow(
      /MachineSet winworker: win-w, win-x were not deleted within \d+ minutes \(machine-api drains each node first; a PodDisruptionBudget can hold the drain\)/,
    );
    expect(api.machineSet.spec.replicas).toBe(2);
    held = false;
    const out = await plugin.create(URN, { ...inputs(1, 30, { strategy: "surge" }), replicas: 2 });
    expect(out.outputs.replaced).toEqual([]);
    expect(api.machines.size).toBe(2);
    expect(only("gone").sort()).toEqual(["gone win-w", "gone win-x"]);
  });

  test("the stand-in, like the controller, may remove a new Machine on a plain scale-down; marked ones go first", async () => {
    // What the annotation guarantees, played on the stand-in alone (delete_policy.go `newestDeletePriority`).
    const read = async (n: number) => {
      for (let i = 0; i < n; i++)
        await fetch(`${kube.url}/apis/machine.openshift.io/v1beta1/namespaces/openshift-machine-api/machines`, {
          headers: { Authorization: `Bearer ${kube.token}` },
        });
    };
    for (const marked of [false, true]) {
      cluster(["win-y", "win-z"]);
      api.machineSet.spec.deletePolicy = "Newest";
      api.machineSet.spec.replicas = 4;
      await read(5);
      if (marked)
        for (const name of ["win-y", "win-z"])
          api.machines.get(name)!.metadata.annotations = { "machine.openshift.io/delete-machine": "true" };
      api.machineSet.spec.replicas = 2;
      await read(1);
      const deleted = only("controller").map((e) => e.replace("controller deletes ", ""));
      expect(deleted.every((n) => (marked ? /^win-[yz]$/ : /^winworker-new-/).test(n))).toBe(true);
      expect(deleted).toHaveLength(2);
    }
  });
});
