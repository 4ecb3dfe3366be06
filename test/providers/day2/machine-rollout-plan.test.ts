import {
  batchSize,
  configuredByWmco,
  machineImage,
  machinesOf,
  staleMachines,
} from "../../../providers/day2/machine-rollout-plan";
import { decodeNode } from "../../../providers/day2/inventory";

test("the image a providerSpec boots, per platform, independent of field order and empty fields", () => {
  // openshift/api providerSpec types: AWS ami, Azure/Nutanix image, vSphere template, GCP the boot disk's image.
  expect(machineImage({ ami: { id: "ami-1" }, instanceType: "m5a.large" })).toBe(
    machineImage({ ami: { id: "ami-1" } }),
  );
  expect(machineImage({ ami: { id: "ami-1" } })).not.toBe(machineImage({ ami: { id: "ami-2" } }));
  expect(machineImage({ image: { sku: "a", offer: "b", resourceID: "" } })).toBe(
    machineImage({ image: { offer: "b", sku: "a" } }),
  );
  expect(machineImage({ template: "win-2022-v1" })).not.toBe(machineImage({ template: "win-2022-v2" }));
  expect(
    machineImage({
      disks: [
        { boot: false, image: "data" },
        { boot: true, image: "projects/windows-cloud/global/images/x" },
      ],
    }),
  ).toBe(machineImage({ disks: [{ boot: true, image: "projects/windows-cloud/global/images/x" }] }));
});

test("stale Machines: another image than the template's, not already deleting, in name order; one always serves", () => {
  const m = (name: string, id: string, deleting = false) => ({
    metadata: {
      name,
      labels: { "machine.openshift.io/cluster-api-machineset": "winworker" },
      ...(deleting ? { deletionTimestamp: "2026-11-23T00:00:00Z" } : {}),
    },
    spec: { providerSpec: { value: { ami: { id } } } },
    status: { phase: "Running", nodeRef: { name } },
  });
  const list = {
    items: [
      m("c", "old"),
      m("a", "old"),
      m("b", "new"),
      m("d", "old", true),
      { ...m("x", "old"), metadata: { name: "x" } },
    ],
  };
  const machines = machinesOf(list, "winworker");
  expect(machines.map((x) => x.name)).toEqual(["a", "b", "c", "d"]);
  expect(staleMachines(machines, machineImage({ ami: { id: "new" } }))).toEqual(["a", "c"]);
  expect([batchSize(1, 3), batchSize(2, 3), batchSize(5, 3), batchSize(1, 1)]).toEqual([1, 2, 2, 0]);
});

test("a Node counts as configured once Ready and WMCO's version equals its desired version (pkg/metadata)", () => {
  const node = (annotations: Record<string, string>, ready = "True") =>
    decodeNode({ metadata: { annotations }, status: { conditions: [{ type: "Ready", status: ready }] } });
  const v = "windowsmachineconfig.openshift.io/version";
  const d = "windowsmachineconfig.openshift.io/desired-version";
  expect(configuredByWmco(node({ [v]: "10.22.2", [d]: "10.22.2" }))).toBe(true);
  expect(configuredByWmco(node({ [d]: "10.22.2" }))).toBe(false);
  expect(configuredByWmco(node({ [v]: "10.21.0", [d]: "10.22.2" }))).toBe(false);
  expect(configuredByWmco(node({ [v]: "10.22.2", [d]: "10.22.2" }, "False"))).toBe(false);
});
