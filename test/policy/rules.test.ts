import {
  ALLOW_ZERO,
  capacityNotZero,
  machineSetLabels,
  machineSetNameLimit,
  noImdsV2Required,
  noManagedUserData,
  patchLevel,
  privateKeyOnlyInSecret,
  ResourceRule,
  ResourceView,
  runtimeClassPerBuild,
  windowsMirrorNaming,
} from "../../policy/rules";

const MS = "kubernetes:machine.openshift.io/v1beta1:MachineSet";

function run(rule: ResourceRule, r: ResourceView): string[] {
  const out: string[] = [];
  rule.validate(r, (m) => out.push(m));
  return out;
}

function machineSet(
  over: {
    name?: string;
    kind?: string;
    labels?: Record<string, string>;
    nodeRole?: boolean;
    replicas?: number;
    value?: Record<string, unknown>;
    annotations?: Record<string, string>;
    build?: string;
  } = {},
): ResourceView {
  const name = over.name ?? "winworker";
  const labels = over.labels ?? {
    "machine.openshift.io/cluster-api-cluster": "infra",
    "machine.openshift.io/cluster-api-machine-role": "worker",
    "machine.openshift.io/cluster-api-machine-type": "worker",
    "machine.openshift.io/cluster-api-machineset": name,
    "machine.openshift.io/os-id": "Windows",
  };
  return {
    type: MS,
    name,
    props: {
      metadata: {
        name,
        annotations: over.annotations,
        labels: { "node.kubernetes.io/windows-build": over.build ?? "10.0.20348" },
      },
      spec: {
        replicas: over.replicas ?? 1,
        selector: {
          matchLabels: {
            "machine.openshift.io/cluster-api-cluster": "infra",
            "machine.openshift.io/cluster-api-machineset": name,
          },
        },
        template: {
          metadata: { labels },
          spec: {
            metadata: { labels: over.nodeRole === false ? {} : { "node-role.kubernetes.io/worker": "" } },
            providerSpec: {
              value: {
                kind: over.kind ?? "AzureMachineProviderSpec",
                image: { sku: "2022-datacenter-smalldisk" },
                ...over.value,
              },
            },
          },
        },
      },
    },
  };
}

test("a good Windows MachineSet passes every resource rule", () => {
  for (const rule of [machineSetLabels, machineSetNameLimit, noImdsV2Required, capacityNotZero])
    expect(run(rule, machineSet())).toEqual([]);
});

test("labels: a missing os-id, role or node-role label fails", () => {
  const bad = machineSet({ nodeRole: false });
  expect(run(machineSetLabels, bad).join()).toMatch(/node-role/);
  const noRole = machineSet();
  delete (noRole.props as { spec: { template: { metadata: { labels: Record<string, string> } } } }).spec.template
    .metadata.labels["machine.openshift.io/cluster-api-machine-role"];
  expect(run(machineSetLabels, noRole).join()).toMatch(/machine-role/);
});

test("labels: a selector that does not match the template fails", () => {
  const ms = machineSet();
  (ms.props as { spec: { selector: { matchLabels: Record<string, string> } } }).spec.selector.matchLabels[
    "machine.openshift.io/cluster-api-machineset"
  ] = "other";
  expect(run(machineSetLabels, ms).join()).toMatch(/selector/);
});

test("Linux MachineSets are not this pack's business", () => {
  expect(
    run(machineSetLabels, machineSet({ labels: { "machine.openshift.io/os-id": "Linux" }, nodeRole: false })),
  ).toEqual([]);
});

test.each([
  ["AzureMachineProviderSpec", "winworker", 0],
  ["AzureMachineProviderSpec", "winworker1", 1],
  ["VSphereMachineProviderSpec", "windows-workers", 1],
  // WMCO's Nutanix docs name sets `<infrastructure_id>-windows-worker-<suffix>`: no 9-character limit there.
  ["NutanixMachineProviderConfig", "ocp-ntnx-2mkp4-windows-worker-a", 0],
  ["AWSMachineProviderConfig", "win-tmk9g-winworker-us-east-1a", 0],
  ["GCPMachineProviderSpec", "x".repeat(64), 1],
])("name limit: %s %s", (kind, name, violations) => {
  expect(run(machineSetNameLimit, machineSet({ kind, name }))).toHaveLength(violations);
});

test("IMDSv2 Required is refused on AWS, Optional passes", () => {
  const aws = (auth: string) =>
    machineSet({
      kind: "AWSMachineProviderConfig",
      name: "a",
      value: { metadataServiceOptions: { authentication: auth } },
    });
  expect(run(noImdsV2Required, aws("Required"))).toHaveLength(1);
  expect(run(noImdsV2Required, aws("Optional"))).toEqual([]);
});

test("windows-user-data may not be managed", () => {
  expect(
    run(noManagedUserData, {
      type: "kubernetes:core/v1:Secret",
      name: "ud",
      props: { metadata: { name: "windows-user-data" } },
    }),
  ).toHaveLength(1);
  expect(
    run(noManagedUserData, {
      type: "kubernetes:core/v1:Secret",
      name: "k",
      props: { metadata: { name: "cloud-private-key" } },
    }),
  ).toEqual([]);
});

test("private keys only in Secrets", () => {
  const pem = "-----BEGIN OPENSSH PRIVATE KEY-----\nabc\n-----END OPENSSH PRIVATE KEY-----";
  expect(
    run(privateKeyOnlyInSecret, { type: "kubernetes:core/v1:ConfigMap", name: "c", props: { data: { key: pem } } }),
  ).toHaveLength(1);
  expect(
    run(privateKeyOnlyInSecret, { type: "kubernetes:core/v1:Secret", name: "s", props: { stringData: { key: pem } } }),
  ).toEqual([]);
  expect(
    run(privateKeyOnlyInSecret, { type: "kubernetes:core/v1:ConfigMap", name: "c", props: { data: { a: "b" } } }),
  ).toEqual([]);
});

test("mirror naming rule for Windows", () => {
  const idms = (mirror: string): ResourceView => ({
    type: "kubernetes:config.openshift.io/v1:ImageDigestMirrorSet",
    name: "m",
    props: { spec: { imageDigestMirrors: [{ source: "mcr.microsoft.com/oss/kubernetes/pause", mirrors: [mirror] }] } },
  });
  expect(run(windowsMirrorNaming, idms("quay.io/me/oss/kubernetes/pause"))).toEqual([]);
  expect(run(windowsMirrorNaming, idms("quay.io/oss/kubernetes/pause"))).toEqual([]);
  expect(run(windowsMirrorNaming, idms("quay.io/me/pause"))).toHaveLength(1);
});

test("RuntimeClass for every Windows build in use", () => {
  const rc = (build: string): ResourceView => ({
    type: "kubernetes:node.k8s.io/v1:RuntimeClass",
    name: "rc",
    props: { scheduling: { nodeSelector: { "node.kubernetes.io/windows-build": build } } },
  });
  const violations = (rs: ResourceView[]) => {
    const out: string[] = [];
    runtimeClassPerBuild.validate(rs, (m) => out.push(m));
    return out;
  };
  expect(violations([machineSet()])).toHaveLength(1);
  expect(violations([machineSet(), rc("10.0.20348")])).toEqual([]);
  expect(violations([machineSet(), rc("10.0.17763")])).toHaveLength(1);
  // The build comes from the label the builders set, not from numbers found in the provider spec.
  expect(violations([machineSet({ build: "10.0.26100" }), rc("10.0.20348")])).toHaveLength(1);
  expect(violations([machineSet({ build: "10.0.26100" }), rc("10.0.26100")])).toEqual([]);
});

test("zero replicas is advisory unless annotated", () => {
  expect(capacityNotZero.enforcementLevel).toBe("advisory");
  expect(run(capacityNotZero, machineSet({ replicas: 0 }))).toHaveLength(1);
  expect(run(capacityNotZero, machineSet({ replicas: 0, annotations: { [ALLOW_ZERO]: "true" } }))).toEqual([]);
});

describe("windows-patch-level", () => {
  const patching = (belowNotPatched: unknown): ResourceView => ({
    type: "pulumi-nodejs:dynamic/windows-estate:WindowsPatching",
    name: "estate-patching-nodes",
    props: { minimumUpdateRevision: { "20348": 2900 }, batches: [["byoh-1"]], belowNotPatched },
  });
  test("a node below the level that this update does not patch is refused, named with why", () => {
    expect(
      run(patchLevel, patching(["win-ms-a (MachineSet winworker): build 20348 at revision 2700, below 2900"])),
    ).toEqual([
      "win-ms-a (MachineSet winworker): build 20348 at revision 2700, below 2900: not patched in place; roll its MachineSet to an image at or above the declared revision",
    ]);
  });
  test("nodes the rollout patches are no violation, nor is another resource type", () => {
    expect(run(patchLevel, patching([]))).toEqual([]);
    expect(run(patchLevel, { ...patching(["x: below"]), type: "kubernetes:core/v1:ConfigMap" })).toEqual([]);
  });
});
