import { declaredInventory, UNKNOWN_UNTIL_PREVIEW, windowsNodeInventory } from "../../../components/day2/inventory";
import { windowsNodes, nodeInfoOf } from "../../../providers/day2/inventory";
import { NODE_INFO } from "../../helpers/fake-nodes";
import { validateObject } from "../../helpers/schemas";

// A Node as a Windows Server 2022 kubelet reports it (nodeInfo from winstats: kernelVersion <maj>.<min>.<build>.<UBR>).
const node = (name: string, kernelVersion?: string) => ({
  apiVersion: "v1",
  kind: "Node",
  metadata: { name, labels: { "kubernetes.io/os": "windows", "windowsmachineconfig.openshift.io/byoh": "true" } },
  spec: { unschedulable: name === "cordoned" },
  status: {
    addresses: [{ type: "InternalIP", address: "10.0.0.42" }],
    nodeInfo: { ...NODE_INFO, ...(kernelVersion === undefined ? { kernelVersion: "" } : { kernelVersion }) },
  },
});

test("Node objects become inventory entries: version, build, revision, versions, cordon state, patch level", () => {
  const list = { items: [node("a", "10.0.20348.2700"), node("cordoned", "10.0.26100.4652"), node("b")] };
  for (const n of list.items) expect(validateObject(n, { closed: true })).toBe("");
  const discovered = windowsNodes(list, undefined, ["10.0.0.42"]).map((n) => ({
    name: n.name,
    from: "BYOH 10.0.0.42",
    labels: n.labels,
    ...nodeInfoOf(n),
  }));
  expect(windowsNodeInventory(discovered, { "20348": 2900 })).toEqual([
    {
      node: "a",
      from: "BYOH 10.0.0.42",
      windowsServer: "2022",
      build: "20348",
      revision: 2700,
      osImage: "Windows Server 2022 Datacenter",
      kubeletVersion: "v1.33.2",
      containerRuntimeVersion: "containerd://1.7.27",
      unschedulable: false,
      patchLevel: "below: build 20348 at revision 2700, below 2900",
    },
    expect.objectContaining({ node: "b", patchLevel: "unknown (the kubelet reports no Windows kernelVersion)" }),
    expect.objectContaining({
      node: "cordoned",
      windowsServer: "2025",
      revision: 4652,
      unschedulable: true,
      patchLevel: "no minimum declared for build 26100",
    }),
  ]);
  // Without a declared minimum nothing is "below", and every build says it has none.
  expect(windowsNodeInventory(discovered, undefined)[0].patchLevel).toBe("no minimum declared for build 20348");
});

test("offline, declared hosts are listed with what only the cluster can say marked unknown", () => {
  expect(declaredInventory([{ from: "BYOH 10.0.0.42", windowsServer: "2022", build: "20348" }])).toEqual([
    {
      node: UNKNOWN_UNTIL_PREVIEW,
      from: "BYOH 10.0.0.42",
      windowsServer: "2022",
      build: "20348",
      revision: UNKNOWN_UNTIL_PREVIEW,
      kubeletVersion: UNKNOWN_UNTIL_PREVIEW,
      containerRuntimeVersion: UNKNOWN_UNTIL_PREVIEW,
      patchLevel: UNKNOWN_UNTIL_PREVIEW,
    },
  ]);
});
