import { kubeletAcceptsLabel, kubernetesSupport } from "../../facts/kubernetes";

// k8s.io/kubelet v0.36.3 pkg/apis/well_known_labels.go (`kubeletLabels`, `kubeletLabelNamespaces`, `IsKubeletLabel`)
// and cmd/kubelet/app/options/options.go `ValidateKubeletFlags`: which keys the kubelet takes in --node-labels.
test.each([
  ["kubernetes.io/os", true],
  ["topology.kubernetes.io/zone", true],
  ["node.kubernetes.io/instance-type", true],
  ["node.kubernetes.io/windows-build", true], // the node.kubernetes.io namespace
  ["kubelet.kubernetes.io/pool", true],
  ["pool", true], // no prefix: not the kubelet's business
  ["example.com/team", true],
  ["node-role.kubernetes.io/windows", false],
  ["kubernetes.io/role", false],
  ["sub.k8s.io/x", false],
])("--node-labels %s accepted by the kubelet: %s", (key, ok) => {
  expect(kubeletAcceptsLabel(key)).toBe(ok);
});

test("a release one minor below the oldest supported is end-of-life (a warning); older or newer is unsupported", () => {
  // facts/kubernetes.ts SUPPORTED_MINORS follows kubernetes.io's releases page (1.35, 1.36, 1.37 as of 2026-08).
  expect(kubernetesSupport("1.36.2")).toBe("supported");
  expect(kubernetesSupport("1.34.6")).toBe("end-of-life");
  expect(kubernetesSupport("1.33.0")).toBe("unsupported");
  expect(kubernetesSupport("1.38.0")).toBe("unsupported");
});
