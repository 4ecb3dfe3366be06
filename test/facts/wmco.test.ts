import {
  machineSetNameLimit,
  NAMESPACE_LABELS,
  parseWmcoVersion,
  supportedVersions,
  versionOfBuild,
  WINDOWS_SERVER,
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

test("WMCO 10.20 has no 2025 (release-4.20 version.go: Server2019, Server2022); 10.21 adds it (release-4.21)", () => {
  expect(supportedVersions("AWS", { major: 10, minor: 20 })).toEqual(["2019", "2022"]);
  expect(supportedVersions("AWS", { major: 10, minor: 21 })).toEqual(["2019", "2022", "2025"]);
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
