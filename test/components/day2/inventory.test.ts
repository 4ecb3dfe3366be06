import {
  declaredInventory,
  runtimeClassFindings,
  stackInventory,
  UNKNOWN_UNTIL_PREVIEW,
  windowsNodeInventory,
} from "../../../components/day2/inventory";
import { decodeNodes, windowsNodes, nodeInfoOf } from "../../../providers/day2/inventory";
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
  const discovered = windowsNodes(decodeNodes(list), undefined, ["10.0.0.42"]).map((n) => ({
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

test("RuntimeClasses against nodes: which pick each node, a node none picks, a class whose build no node runs", () => {
  const win = (name: string, build: string) => ({
    name,
    labels: { "kubernetes.io/os": "windows", "kubernetes.io/arch": "amd64", "node.kubernetes.io/windows-build": build },
  });
  // The selectors a per-build RuntimeClass uses (WMCO docs; components/scheduling/runtime-class.ts builds the same).
  const cls = (name: string, build: string) => ({
    name,
    nodeSelector: { "kubernetes.io/os": "windows", "node.kubernetes.io/windows-build": build },
  });
  const f = runtimeClassFindings(
    [win("a", "10.0.20348"), win("b", "10.0.26100")],
    [
      cls("windows2022", "10.0.20348"),
      cls("windows2019", "10.0.17763"),
      { name: "any-windows", nodeSelector: { "kubernetes.io/os": "windows" } },
    ],
  );
  expect(f.perNode).toEqual({ a: ["windows2022", "any-windows"], b: ["any-windows"] });
  expect(f.warnings).toEqual([
    "RuntimeClass windows2019 selects Windows build 10.0.17763, which no Windows node here runs: pods using it stay Pending",
  ]);
  expect(runtimeClassFindings([win("b", "10.0.26100")], [cls("windows2022", "10.0.20348")]).warnings).toEqual([
    "node b (build 10.0.26100) is picked by no RuntimeClass: workloads cannot target its build by runtimeClassName",
    "RuntimeClass windows2022 selects Windows build 10.0.20348, which no Windows node here runs: pods using it stay Pending",
  ]);
});

test("the stack's own per-build RuntimeClasses count, and override a cluster class of the same name", () => {
  const node = {
    name: "a",
    from: "BYOH 10.0.0.42",
    labels: {
      "kubernetes.io/os": "windows",
      "kubernetes.io/arch": "amd64",
      "node.kubernetes.io/windows-build": "10.0.20348",
    },
    kernelVersion: "10.0.20348.2700",
  };
  const stale = { name: "windows2022", nodeSelector: { "node.kubernetes.io/windows-build": "10.0.17763" } };
  const r = stackInventory({ discovered: { windowsNodes: [node], runtimeClasses: [stale] } }, ["2022"], []);
  expect(r.entries[0].runtimeClasses).toEqual(["windows2022"]);
  expect(r.warnings).toEqual([]);
});
