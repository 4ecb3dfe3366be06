import type { LabInfo } from "../../lab/record";
import { OPENSHIFT_VERSION } from "../../lab/seed/openshift";
import { labApi, stopLab } from "./lab";
import { Ec2StandIn } from "../helpers/ec2-stand-in";
import { exampleConfig, expectEstateUp, expectOk, labStack, Stack } from "./project";

// First contact (issue 24 a), as a user has it: the project copied and built, `pulumi stack init`, the stack's
// config file, then the real CLI v3.248.0 with the real pulumi-resource-kubernetes against the lab's real API
// server and the lab's real OLM. WMCO and the machine controller are the lab's players. What is asserted comes from
// the CLI's own output and from the API server.

const NS = "openshift-windows-machine-config-operator";

describe("the dev stack (Azure) through the real CLI", () => {
  const LAB = "e2e-first-azure";
  let lab: LabInfo;
  let stack: Stack;
  let pem: string;
  beforeAll(async () => {
    ({ lab, stack, pem } = await labStack("azure", LAB, { file: "Pulumi.dev.yaml" }));
  }, 900_000);
  afterAll(() => stopLab(LAB));

  test("preview plans the estate and creates nothing", async () => {
    const p = stack.previewJson();
    expect(p.stderr).not.toMatch(/error:/);
    expect(p.status).toBe(0);
    const creates = p.steps.filter((s) => s.op === "create").map((s) => s.urn.split("::").pop());
    expect(creates).toEqual(
      expect.arrayContaining([
        "estate-operator-namespace",
        "estate-operator-operatorgroup",
        "estate-operator-subscription",
        "estate-operator-ready",
        "estate-key-secret",
        "estate-windows-user-data",
        "estate-ms-winworker-machineset",
      ]),
    );
    const api = labApi(lab);
    expect(await api.status(`/api/v1/namespaces/${NS}`)).toBe(404);
  });

  test("up installs WMCO through OLM, hands over the key, waits for windows-user-data, then creates the MachineSet", async () => {
    expectOk(stack.pulumi(["up", "--yes", "--skip-preview"]));
    await expectEstateUp(stack, pem);
    await labApi(lab).get("/api/v1/namespaces/openshift-machine-api/secrets/windows-user-data");
  });

  test("a second up changes nothing (--expect-no-changes), nor does a refresh", () => {
    expectConverged(stack);
  });
});

/** An example's config as against any cluster: discovery on (the examples turn it off only to render offline). */
function againstCluster(config: Record<string, unknown>): void {
  delete (config["windows-estate:cluster"] as Record<string, unknown>).discovery;
}

const machineSetSteps = (steps: { op: string; urn: string }[], op: string) =>
  steps.filter((s) => s.op === op && /:MachineSet::/.test(s.urn)).map((s) => s.urn.split("::").pop());

/** The Windows MachineSets the API server holds: their Machines carry `machine.openshift.io/os-id: Windows`, WMCO's label. */
async function windowsMachineSets(lab: LabInfo) {
  const list = await labApi(lab).get("/apis/machine.openshift.io/v1beta1/namespaces/openshift-machine-api/machinesets");
  return list.items.filter(
    (s: { spec: { template: { metadata?: { labels?: Record<string, string> } } } }) =>
      s.spec.template.metadata?.labels?.["machine.openshift.io/os-id"] === "Windows",
  );
}

/** Waits until a MachineSet's Machines run and WMCO made nodes of them (the machine and WMCO players). */
async function machinesBecomeNodes(lab: LabInfo, set: string, replicas: number): Promise<void> {
  const api = labApi(lab);
  const machines = await api.until(
    `/apis/machine.openshift.io/v1beta1/namespaces/openshift-machine-api/machines?labelSelector=${encodeURIComponent(`machine.openshift.io/cluster-api-machineset=${set}`)}`,
    (l) =>
      l.items.length === replicas &&
      l.items.every((m: { status?: { phase?: string } }) => m.status?.phase === "Running"),
    `${replicas} Machine(s) of MachineSet ${set} running`,
  );
  for (const m of machines.items)
    await api.until(
      `/api/v1/nodes/${m.status.nodeRef.name}`,
      (n) => n.metadata.annotations?.["windowsmachineconfig.openshift.io/version"] !== undefined,
      `Node ${m.status.nodeRef.name} configured by WMCO`,
    );
}

/** `up --expect-no-changes`, then `refresh --expect-no-changes`: the stack is converged and agrees with the cluster. */
function expectConverged(stack: Stack): void {
  for (const args of [
    ["up", "--yes", "--expect-no-changes"],
    ["refresh", "--yes", "--expect-no-changes"],
  ])
    expectOk(stack.pulumi(args));
}

describe(`the AWS example against OpenShift ${OPENSHIFT_VERSION} (AMI lookups answered by a local EC2 stand-in)`, () => {
  const LAB = "e2e-first-aws";
  // EC2 cannot run here: DescribeImages is answered by test/helpers/ec2-stand-in.ts (signed requests only).
  const ec2 = new Ec2StandIn();
  const IMAGE_A = {
    imageId: "ami-0aaaaaaaaaaaaaaa1",
    name: "Windows_Server-2022-English-Core-Base-2026.10.15",
    creationDate: "2026-10-15T07:00:00.000Z",
    ownerAlias: "amazon",
  };
  const IMAGE_B = {
    ...IMAGE_A,
    imageId: "ami-0bbbbbbbbbbbbbbb2",
    name: "Windows_Server-2022-English-Core-Base-2026.11.12",
    creationDate: "2026-11-12T07:00:00.000Z",
  };
  // Full (not Core) images are not what the lookup asks for.
  const OTHER = {
    ...IMAGE_A,
    imageId: "ami-0ccccccccccccccc3",
    name: "Windows_Server-2022-English-Full-Base-2026.11.20",
    creationDate: "2026-11-20T07:00:00.000Z",
  };
  let lab: LabInfo;
  let stack: Stack;
  let dir: string;
  let config: Record<string, unknown>;
  let env: NodeJS.ProcessEnv;
  beforeAll(async () => {
    const url = await ec2.start();
    // IMDS off: the SDK must never look for credentials beyond this machine.
    env = {
      AWS_ENDPOINT_URL_EC2: url,
      AWS_ACCESS_KEY_ID: "AKIDEXAMPLE",
      AWS_SECRET_ACCESS_KEY: "example-secret",
      AWS_EC2_METADATA_DISABLED: "true",
    };
    const file = "stacks/examples/Pulumi.aws.yaml";
    ({ lab, dir, stack, config } = await labStack("aws", LAB, { file, edit: againstCluster, env }));
  }, 900_000);
  afterAll(async () => {
    stopLab(LAB);
    await ec2.stop();
  });
  const amiOf = async (set: string) =>
    (await labApi(lab).get(`/apis/machine.openshift.io/v1beta1/namespaces/openshift-machine-api/machinesets/${set}`))
      .spec.template.spec.providerSpec.value.ami.id;

  test("preview refuses Windows Server 2019, which the cluster's WMCO (11.0, from its OpenShift version) dropped, and creates nothing", async () => {
    // Against the cluster the Windows Server check waits for discovery: the WMCO is the one the cluster's OpenShift
    // version ships (5.x → 11.0: WMCO's release-5.0 Makefile `WMCO_VERSION ?= 11.0.0`), which dropped 2019 (master
    // test/e2e/windows/version.go, hack/machineset.sh: 2022 and 2025 only).
    const with2019 = structuredClone(config);
    (with2019["windows-estate:machineSets"] as Record<string, unknown>[])[1].windowsServer = "2019";
    stack.writeConfig(with2019);
    const p = await stack.pulumiAsync(["preview"]);
    expect(p.status).not.toBe(0);
    expect(p.stdout).toContain(
      `windows-estate:machineSets[1].windowsServer: Windows Server 2019 is not supported on AWS by WMCO 11.0 (from the cluster version ${OPENSHIFT_VERSION})`,
    );
    expect(await labApi(lab).status(`/api/v1/namespaces/${NS}`)).toBe(404);
  });

  test("as the example has it (2022 and 2025): preview → up pins the newest matching AMI → converged; a newer AMI later changes nothing", async () => {
    ec2.images = [IMAGE_A, OTHER];
    stack.writeConfig(config);
    const p = await stack.pulumiAsync(["preview", "--json"]);
    expect(p.status).toBe(0);
    expect(machineSetSteps(JSON.parse(p.stdout).steps, "create").sort()).toEqual([
      "estate-ms-ocp-aws-x7k2p-winworker-us-east-1a-machineset",
      "estate-ms-ocp-aws-x7k2p-winworker-us-east-1b-machineset",
    ]);
    expect((await stack.pulumiAsync(["up", "--yes", "--skip-preview"])).status).toBe(0);
    const sets = await windowsMachineSets(lab);
    expect(sets.map((s: { metadata: { name: string } }) => s.metadata.name).sort()).toEqual([
      "ocp-aws-x7k2p-winworker-us-east-1a",
      "ocp-aws-x7k2p-winworker-us-east-1b",
    ]);
    // openshift/api machine/v1beta1 types_awsprovider.go: AWSMachineProviderConfig.
    expect(sets[0].spec.template.spec.providerSpec.value.kind).toBe("AWSMachineProviderConfig");
    expect(await amiOf("ocp-aws-x7k2p-winworker-us-east-1a")).toBe(IMAGE_A.imageId);
    expect(await amiOf("ocp-aws-x7k2p-winworker-us-east-1b")).toBe("ami-0123456789abcdef0");
    expect(ec2.requests).toHaveLength(1);
    expect(ec2.requests[0].get("Owner.1")).toBe("amazon");
    await machinesBecomeNodes(lab, "ocp-aws-x7k2p-winworker-us-east-1a", 1);
    await machinesBecomeNodes(lab, "ocp-aws-x7k2p-winworker-us-east-1b", 2);

    ec2.images = [IMAGE_A, IMAGE_B, OTHER];
    for (const args of [
      ["up", "--yes", "--expect-no-changes"],
      ["refresh", "--yes", "--expect-no-changes"],
    ])
      expect((await stack.pulumiAsync(args)).status).toBe(0);
    expect(await amiOf("ocp-aws-x7k2p-winworker-us-east-1a")).toBe(IMAGE_A.imageId);
  });

  test("amiRefresh moves the pin: the AMI resource and its MachineSet update in place, nothing else", async () => {
    const sets = config["windows-estate:machineSets"] as Record<string, Record<string, unknown>>[];
    sets[0].aws = { ...sets[0].aws, amiRefresh: "2026-11" };
    stack.writeConfig(config);
    expect(
      stack
        .plan()
        .filter((l) => !l.endsWith(" windows-estate-e2e"))
        .sort(),
    ).toEqual([
      "update estate-ms-ocp-aws-x7k2p-winworker-us-east-1a-ami",
      "update estate-ms-ocp-aws-x7k2p-winworker-us-east-1a-machineset",
    ]);
    expect((await stack.pulumiAsync(["up", "--yes", "--skip-preview"])).status).toBe(0);
    expect(await amiOf("ocp-aws-x7k2p-winworker-us-east-1a")).toBe(IMAGE_B.imageId);
  });

  test("without AWS credentials a new lookup fails naming it and the two fixes", async () => {
    const nocreds = new Stack(dir, "e2e-nocreds", lab, {
      AWS_ENDPOINT_URL_EC2: env.AWS_ENDPOINT_URL_EC2,
      AWS_EC2_METADATA_DISABLED: "true",
      AWS_ACCESS_KEY_ID: "",
      AWS_SECRET_ACCESS_KEY: "",
      AWS_PROFILE: "windows-estate-test-none",
      AWS_CONFIG_FILE: "/nonexistent",
      AWS_SHARED_CREDENTIALS_FILE: "/nonexistent",
    });
    const example = exampleConfig(dir, "stacks/examples/Pulumi.aws.yaml");
    againstCluster(example);
    nocreds.init(example);
    const r = await nocreds.pulumiAsync(["up", "--yes", "--skip-preview"]);
    expect(r.status).not.toBe(0);
    expect(r.stdout).toMatch(/looking up the Windows AMI in us-east-1 failed: .*machineSets\[i\]\.aws\.ami/s);
  });
});

/** The other clouds' example stacks, each against a lab of its platform, as they are. */
const CLOUDS: { platform: "gcp" | "vsphere" | "nutanix"; file: string; kind: string; apiVersion: string }[] = [
  // openshift/api machine/v1beta1 types_gcpprovider.go, types_vsphereprovider.go; machine/v1
  // types_nutanixprovider.go (NutanixMachineProviderConfig is machine.openshift.io/v1).
  {
    platform: "gcp",
    file: "Pulumi.gcp.yaml",
    kind: "GCPMachineProviderSpec",
    apiVersion: "machine.openshift.io/v1beta1",
  },
  {
    platform: "vsphere",
    file: "Pulumi.vsphere.yaml",
    kind: "VSphereMachineProviderSpec",
    apiVersion: "machine.openshift.io/v1beta1",
  },
  {
    platform: "nutanix",
    file: "Pulumi.nutanix.yaml",
    kind: "NutanixMachineProviderConfig",
    apiVersion: "machine.openshift.io/v1",
  },
];

describe.each(CLOUDS)("the $platform example through the real CLI", ({ platform, file, kind, apiVersion }) => {
  const LAB = `e2e-first-${platform}`;
  let lab: LabInfo;
  let stack: Stack;
  beforeAll(async () => {
    ({ lab, stack } = await labStack(platform, LAB, { file: `stacks/examples/${file}`, edit: againstCluster }));
  }, 900_000);
  afterAll(() => stopLab(LAB));

  test("preview → up → Machines become WMCO nodes → up --expect-no-changes → refresh --expect-no-changes", async () => {
    const p = expectOk(stack.previewJson());
    expect(machineSetSteps(p.steps, "create")).toHaveLength(1);
    expect(await labApi(lab).status(`/api/v1/namespaces/${NS}`)).toBe(404);

    stack.up();
    const sets = await windowsMachineSets(lab);
    expect(sets).toHaveLength(1);
    const spec = sets[0].spec.template.spec.providerSpec.value;
    expect([spec.kind, spec.apiVersion]).toEqual([kind, apiVersion]);
    await machinesBecomeNodes(lab, sets[0].metadata.name, sets[0].spec.replicas);
    expectConverged(stack);
  });
});
