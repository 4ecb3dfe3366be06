import { identityPatch, vsphereProviderId } from "../../../providers/vanilla-node/identity";

// Expected values follow the legacy in-tree vSphere provider's normalisation (legacy-cloud-providers
// vsphere_util_linux.go GetVMUUID: prefix `VMware-`, spaces and dashes dropped, 32 hex digits, 8-4-4-4-12) and the
// rule that spec.providerID only changes from empty (k/k PR #51761).
test("a vSphere BIOS serial becomes vsphere://<uuid>; anything else is not a vSphere VM", () => {
  expect(vsphereProviderId("VMware-42 1a 8f 9c 3b 4e 5d 6f-7a 8b 9c 0d 1e 2f 3a 4b\r\n")).toBe(
    "vsphere://421a8f9c-3b4e-5d6f-7a8b-9c0d1e2f3a4b",
  );
  expect(vsphereProviderId("To be filled by O.E.M.")).toBeUndefined();
  expect(vsphereProviderId("VMware-42 1a 8f")).toBeUndefined();
});

const node = (spec: Record<string, unknown>, labels: Record<string, string> = {}) => ({
  metadata: { name: "win-a", labels: { "kubernetes.io/os": "windows", ...labels } },
  spec,
});
const taint = { key: "os", value: "windows", effect: "NoSchedule" as const };

test("nothing to patch when the Node already carries the labels, taints and providerID", () => {
  expect(
    identityPatch(node({ taints: [taint], providerID: "vsphere://x" }, { pool: "w" }), {
      labels: { pool: "w" },
      taints: [taint],
      providerId: "vsphere://x",
    }),
  ).toEqual({});
});

test("labels and taints are added, the Node's other taints kept; the providerID is set while empty", () => {
  const other = { key: "node.kubernetes.io/unreachable", effect: "NoExecute" };
  expect(
    identityPatch(node({ taints: [other] }), { labels: { pool: "w" }, taints: [taint], providerId: "vsphere://x" }),
  ).toEqual({
    patch: {
      metadata: { labels: { pool: "w" } },
      spec: { taints: [other, { key: "os", value: "windows", effect: "NoSchedule" }], providerID: "vsphere://x" },
    },
  });
});

test("a providerID set to something else cannot change: a conflict, not a patch", () => {
  expect(
    identityPatch(node({ providerID: "vsphere://old" }), { labels: {}, taints: [], providerId: "vsphere://new" }),
  ).toEqual({
    conflict:
      "its providerID is vsphere://old, not vsphere://new; a providerID cannot change once set: delete the Node and let the node join again",
  });
});
