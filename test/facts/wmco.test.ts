import {
  acceptedKubernetesMinors,
  machineSetNameLimit,
  NAMESPACE_LABELS,
  parseWmcoVersion,
  supportedBy,
  supportedVersions,
  versionOfBuild,
  WINDOWS_SERVER,
  wmcoForKubernetesMinor,
  wmcoForOpenShift,
  WMCO_PORTS,
  WMCO_SERVICES,
} from "../../facts/wmco";

// Expected values are WMCO's (openshift/windows-machine-config-operator), cited per test; not derived from our code.

test("WMCO 11 (master, release-5.0): 2022 and 2025 only, on every platform (test/e2e/windows/version.go SupportedVersions)", () => {
  for (const p of ["AWS", "Azure", "GCP", "VSphere", "Nutanix", "None"] as const)
    expect(supportedVersions(p, { major: 11, minor: 0 })).toEqual(["2022", "2025"]);
  // Without a known version the newest rules apply.
  expect(supportedVersions("AWS")).toEqual(["2022", "2025"]);
});

test("WMCO 10.22 (release-4.22 docs/wmco-prerequisites.md): 2019 on AWS and Azure only; 2022 and 2025 everywhere", () => {
  const v = { major: 10, minor: 22 };
  expect(supportedVersions("AWS", v)).toEqual(["2019", "2022", "2025"]);
  expect(supportedVersions("Azure", v)).toEqual(["2019", "2022", "2025"]);
  expect(supportedVersions("GCP", v)).toEqual(["2022", "2025"]);
  expect(supportedVersions("VSphere", v)).toEqual(["2022", "2025"]);
  expect(supportedVersions("Nutanix", v)).toEqual(["2022", "2025"]);
});

test("2025 from WMCO 10.22: release-4.21 docs/wmco-prerequisites.md lists 2019 and 2022 only (unlisted = NOT supported); release-4.22 lists 2025", () => {
  expect(supportedVersions("AWS", { major: 10, minor: 20 })).toEqual(["2019", "2022"]);
  expect(supportedVersions("AWS", { major: 10, minor: 21 })).toEqual(["2019", "2022"]);
  expect(supportedVersions("VSphere", { major: 10, minor: 21 })).toEqual(["2022"]);
  expect(supportedVersions("AWS", { major: 10, minor: 22 })).toEqual(["2019", "2022", "2025"]);
  expect(supportedBy("AWS", "2025")).toBe("WMCO 10.22 and later");
});

test("Kubernetes minors per WMCO release: pkg/cluster/config.go baseK8sVersion and one above (validateK8sVersion)", () => {
  // baseK8sVersion: release-4.18 "v1.31", release-4.19 "v1.32", release-4.20 "v1.33", release-4.21 "v1.34",
  // release-4.22 "v1.35", master (WMCO 11.0) "v1.36"; maxK8sVersion = base + 0.01.
  const ranges = [18, 19, 20, 21, 22].map((minor) => acceptedKubernetesMinors({ major: 10, minor }));
  expect(ranges).toEqual([
    { min: 31, max: 32 },
    { min: 32, max: 33 },
    { min: 33, max: 34 },
    { min: 34, max: 35 },
    { min: 35, max: 36 },
  ]);
  expect(acceptedKubernetesMinors({ major: 11, minor: 0 })).toEqual({ min: 36, max: 37 });
  expect(acceptedKubernetesMinors({ major: 10, minor: 17 })).toBeUndefined();
  expect(wmcoForKubernetesMinor(36)).toEqual(["10.22", "11.0"]);
  expect(wmcoForKubernetesMinor(31)).toEqual(["10.18"]);
  expect(wmcoForKubernetesMinor(40)).toEqual([]);
});

test("versions from CSV names and OpenShift versions (release-4.22 Makefile WMCO_VERSION ?= 10.22.2; release-5.0: 11.0.0)", () => {
  expect(parseWmcoVersion("windows-machine-config-operator.v10.22.2")).toEqual({ major: 10, minor: 22 });
  expect(parseWmcoVersion("community-windows-machine-config-operator.v11.0.0")).toEqual({ major: 11, minor: 0 });
  expect(parseWmcoVersion("v10")).toBeUndefined();
  expect(wmcoForOpenShift("4.22.3")).toEqual({ major: 10, minor: 22 });
  expect(wmcoForOpenShift("5.0.1")).toEqual({ major: 11, minor: 0 });
  expect(wmcoForOpenShift("4.12.0")).toBeUndefined();
});

test("builds (version.go BuildNumber) and the 2022 update revision of KB5012637 (docs/wmco-prerequisites.md: build 20348.681)", () => {
  expect(WINDOWS_SERVER["2022"].buildLabel).toBe("10.0.20348");
  expect(WINDOWS_SERVER["2025"].buildLabel).toBe("10.0.26100");
  expect(WINDOWS_SERVER["2019"].buildLabel).toBe("10.0.17763");
  expect(WINDOWS_SERVER["2022"].minUpdateRevision?.revision).toBe(681);
  expect(versionOfBuild("26100")).toBe("2025");
  expect(versionOfBuild("14393")).toBeUndefined();
});

test("name limits: 9 on Azure and vSphere (README IMPORTANT, docs/machineset-azure.md), none beyond a label's 63 on Nutanix (docs/machineset-nutanix.md)", () => {
  expect(machineSetNameLimit("Azure")).toBe(9);
  expect(machineSetNameLimit("VSphere")).toBe(9);
  expect(machineSetNameLimit("Nutanix")).toBe(63);
  expect("ocp-ntnx-2mkp4-windows-worker-a".length).toBeLessThanOrEqual(machineSetNameLimit("Nutanix"));
});

test("namespace labels are hack/common.sh NS_LABELS; ports and services as WMCO names them", () => {
  expect(NAMESPACE_LABELS).toEqual({
    "openshift.io/cluster-monitoring": "true",
    "security.openshift.io/scc.podSecurityLabelSync": "true",
    "pod-security.kubernetes.io/enforce": "privileged",
  });
  expect([...WMCO_PORTS]).toEqual([22, 10250, 9182]); // docs/byoh-instance-pre-requisites.md
  expect(WMCO_SERVICES.containerd).toBe("containerd"); // pkg/windows/windows.go ContainerdServiceName
  expect(WMCO_SERVICES.wicd).toBe("windows-instance-config-daemon"); // WicdServiceName
});
