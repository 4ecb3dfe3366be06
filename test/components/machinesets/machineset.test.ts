import * as pulumi from "@pulumi/pulumi";
import { WindowsMachineSet } from "../../../components/machinesets/machineset";
import { machineSetSchema } from "../../../stacks/schema/machinesets";
import { get } from "../../../lib/json";

// What the program declares for a MachineSet with an image rollout, under Pulumi's mocks: the MachineSet object and
// the MachineSetRollout, from the config and what discovery read (machine-surge-plan.ts `declaredReplicas`).
const declared: { type: string; name: string; inputs: unknown }[] = [];
/** Told of each registration as it reaches the mocks: waiting is on that event, not on a polling bound. */
let registered = () => {};

beforeAll(async () => {
  await pulumi.runtime.setMocks(
    {
      newResource: (a) => {
        declared.push({ type: a.type, name: a.name, inputs: a.inputs });
        registered();
        return { id: `${a.name}-id`, state: a.inputs };
      },
      call: (a) => a.inputs,
    },
    "windows-estate",
    "test",
    false,
  );
});

const cluster = { platform: "Azure" as const, infrastructureId: "ocp-x7k2p", region: "westus" };
const rows = (marked: boolean, deleting = false) =>
  ["win-a", "win-b", "win-c"].map((name) => ({ name, machineSet: "winworker", image: "old", deleting, marked }));

/** Declares one set and returns the MachineSet's and the rollout's inputs. */
async function declare(
  rollout: Record<string, unknown>,
  machines: ReturnType<typeof rows>,
  live: number,
): Promise<{ machineSet: unknown; rollout: unknown }> {
  declared.length = 0;
  const name = `t${Math.random().toString(36).slice(2)}`;
  new WindowsMachineSet(name, {
    cluster,
    set: machineSetSchema.parse({ azure: {}, replicas: 3, rollout }),
    amiLookup: "placeholder",
    access: { kubeconfig: "kubeconfig" },
    machines,
    machineSetReplicas: { winworker: live },
  });
  const of = (suffix: string) => declared.find((d) => d.name.startsWith(name) && d.name.endsWith(suffix))?.inputs;
  // Registrations reach the mocks asynchronously: wait until both have, however long a loaded machine takes.
  while (!(of("-machineset") && of("-rollout"))) await new Promise<void>((r) => (registered = r));
  return { machineSet: of("-machineset"), rollout: of("-rollout") };
}

test("mid-surge (annotated Machines, the set at 6): the MachineSet declares 6, so neither refresh nor an edit scales it down", async () => {
  const { machineSet, rollout } = await declare({ strategy: "surge" }, rows(true), 6);
  expect(get(machineSet, "spec", "replicas")).toBe(6);
  expect(get(machineSet, "metadata", "annotations")).toEqual({ "pulumi.com/patchForce": "true" });
  // The rollout still restores the config's value at the end of the round.
  expect(get(rollout, "replicas")).toBe(3);
  expect(get(rollout, "strategy")).toBe("surge");
});

test("surge with no round under way, or the marked Machines already going: the config's replicas", async () => {
  expect(get((await declare({ strategy: "surge" }, rows(false), 6)).machineSet, "spec", "replicas")).toBe(3);
  expect(get((await declare({ strategy: "surge" }, rows(true, true), 6)).machineSet, "spec", "replicas")).toBe(3);
});

test("the default strategy declares what it always did: config replicas, no annotation, no strategy input", async () => {
  const { machineSet, rollout } = await declare({}, rows(true), 6);
  expect(get(machineSet, "spec", "replicas")).toBe(3);
  expect(get(machineSet, "metadata", "annotations")).toBeUndefined();
  expect(get(rollout, "strategy")).toBeUndefined();
  expect(get(rollout, "maxSurge")).toBeUndefined();
});
