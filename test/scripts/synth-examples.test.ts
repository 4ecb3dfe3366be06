import { powershellErrors } from "../helpers/powershell-parser";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { parse } from "yaml";
import { resourceRules, ResourceView, stackRules } from "../../policy/rules";
import { PROJECT_DIR } from "../../scripts/synth/main";
import { schemaFileFor, validateAgainstSchema, validateObject } from "../helpers/schemas";
import { readTree, scratch } from "../helpers/stack";
import { parsePrivateKey } from "../../stacks/key";

// Every example stack (one per platform, plus BYOH-only) synthesizes, every object is valid against its schema,
// and the policy pack finds nothing to object to.
const examples = fs
  .readdirSync(path.join(PROJECT_DIR, "stacks", "examples"))
  .filter((f) => /^Pulumi\..+\.yaml$/.test(f));
const out = fs.mkdtempSync(path.join(os.tmpdir(), "examples-"));
afterAll(() => fs.rmSync(out, { recursive: true, force: true }));
const key = scratch();
afterAll(() => key.cleanup());

/**
 * The example as a user fills it in: its `privateKeyPath` (`~/.ssh/wmco`, "your WMCO key") pointed at a scratch key.
 * Only that line changes; everything else is the file as committed.
 */
function withScratchKey(file: string): string {
  const text = fs.readFileSync(path.join(PROJECT_DIR, "stacks", "examples", file), "utf8");
  const filled = text.replace(/^(\s*windows-estate:privateKeyPath:) ~\/\.ssh\/wmco$/m, `$1 ${key.keyPath}`);
  if (filled === text) throw new Error(`${file}: no 'windows-estate:privateKeyPath: ~/.ssh/wmco' line`);
  const copy = path.join(key.dir, file);
  fs.writeFileSync(copy, filled);
  return copy;
}

type Obj = {
  apiVersion: string;
  kind: string;
  metadata: { name: string };
  spec?: { template?: { spec?: { providerSpec?: { value?: { kind: string } } } } };
};

const rendered = new Map<string, Obj[]>();
const patches = new Map<string, Obj[]>();
const nodeFiles = new Map<string, Map<string, string>>();
const logs = new Map<string, string>();
const outputs = new Map<string, Record<string, unknown>>();
const cloudFiles = new Map<string, Map<string, string>>();
const allFiles = new Map<string, Map<string, string>>();
/** What the program logged through `pulumi.log` (console.warn with no engine attached), per stack. */
const pulumiWarnings = new Map<string, string[]>();
beforeAll(async () => {
  const exitHooks = process.listeners("exit");
  const warn = jest.spyOn(console, "warn").mockImplementation(() => undefined);
  for (const file of examples) {
    const stack = file.replace(/^Pulumi\.|\.yaml$/g, "");
    // Each synth runs the program in a fresh module registry, as each `pulumi up` runs it in a fresh process.
    jest.resetModules();
    const { runSynth } = require("../helpers/stack") as typeof import("../helpers/stack");
    warn.mockClear();
    const r = await runSynth(["--stack", stack, "--config-file", withScratchKey(file), "--out", path.join(out, stack)]);
    pulumiWarnings.set(
      stack,
      warn.mock.calls.map((args) => args.join(" ")),
    );
    // Each fresh @pulumi/pulumi hooks process "exit" for its promise-leak report (runtime/debuggable.js); a real
    // run's process ends with it, here its registry is dropped: drop the hook too (it could never fire in jest's
    // sandboxed process, and ten of them trip Node's MaxListeners warning).
    for (const l of process.listeners("exit")) if (!exitHooks.includes(l)) process.removeListener("exit", l);
    if (r.code !== 0) throw new Error(`${file}: exit ${r.code}\n${r.stderr}`);
    const files = readTree(path.join(out, stack));
    allFiles.set(stack, files);
    logs.set(stack, r.stdout + r.stderr);
    outputs.set(stack, JSON.parse(files.get("stack-outputs.json") ?? "{}") as Record<string, unknown>);
    rendered.set(
      stack,
      [...files].filter(([p]) => p.startsWith("1-manifest/")).map(([, t]) => parse(t) as Obj),
    );
    patches.set(
      stack,
      [...files].filter(([p]) => p.startsWith("2-patch/")).map(([, t]) => parse(t) as Obj),
    );
    nodeFiles.set(stack, new Map([...files].filter(([p]) => p.startsWith("windows-node-files/"))));
    cloudFiles.set(stack, new Map([...files].filter(([p]) => p.startsWith("cloud/"))));
  }
  warn.mockRestore();
}, 180_000);

test("no example's kustomization applies a placeholder (the AWS example's looked-up AMI, a redacted key)", () => {
  const aws = allFiles.get("aws") ?? new Map<string, string>();
  const withAmiMarker = [...aws].filter(
    ([f, t]) => f.startsWith("1-manifest/") && t.includes("ami-lookedupatpulumiup"),
  );
  // Pulumi.aws.yaml: one MachineSet without `ami` (looked up at pulumi up), one with an explicit AMI.
  expect(withAmiMarker).toHaveLength(1);
  for (const [stack, files] of allFiles) {
    const resources = (parse(files.get("kustomization.yaml") ?? "") as { resources: string[] }).resources;
    for (const f of resources)
      expect([stack, f, files.get(f)]).not.toEqual([
        stack,
        f,
        expect.stringMatching(/<redacted|ami-lookedupatpulumiup|<bootstrap token/),
      ]);
    if (stack === "aws") expect(resources).not.toContain(withAmiMarker[0][0]);
  }
});

test("there is an example for every platform", () => {
  expect(examples.length).toBeGreaterThanOrEqual(5);
});

test("every object of every example is valid against its schema (closed), providerSpecs included", () => {
  for (const [stack, objs] of rendered) {
    for (const o of objs) {
      expect(`${stack} ${o.kind}/${o.metadata.name}: ${validateObject(o, { closed: true })}`).toBe(
        `${stack} ${o.kind}/${o.metadata.name}: `,
      );
      const v = o.spec?.template?.spec?.providerSpec?.value;
      if (v)
        expect(
          `${stack} ${v.kind}: ${validateAgainstSchema(v, schemaFileFor(undefined, v.kind), { closed: true })}`,
        ).toBe(`${stack} ${v.kind}: `);
    }
  }
});

test("every patch is valid against its kind's schema (closed; a patch sets some fields, so nothing is required)", () => {
  for (const [stack, objs] of patches)
    for (const o of objs)
      expect(`${stack} ${o.kind}/${o.metadata.name}: ${validateObject(o, { closed: true, partial: true })}`).toBe(
        `${stack} ${o.kind}/${o.metadata.name}: `,
      );
});

describe("the vanilla kubeadm example", () => {
  test("patches flannel's backend to what Windows flanneld accepts and pins the Linux DaemonSets, replacing nothing", () => {
    const p = patches.get("kubeadm") ?? [];
    expect(p.map((o) => `${o.kind} ${o.metadata.name}`).sort()).toEqual([
      "ConfigMap kube-flannel-cfg",
      "DaemonSet kube-flannel-ds",
      "DaemonSet kube-proxy",
    ]);
    const cm = p.find((o) => o.kind === "ConfigMap") as unknown as { data: Record<string, string> };
    expect(JSON.parse(cm.data["net-conf.json"]).Backend).toEqual({ Type: "vxlan", VNI: 4096, Port: 4789 });
    // No WMCO, operator, key Secret or MachineSet on a vanilla cluster: RuntimeClasses and the Windows network agents.
    expect((rendered.get("kubeadm") ?? []).map((o) => `${o.kind} ${o.metadata.name}`).sort()).toEqual([
      "ClusterRole windows-estate-flannel",
      "ClusterRoleBinding windows-estate-flannel",
      "ClusterRoleBinding windows-estate-kube-proxy-node-proxier",
      "ConfigMap windows-estate-network",
      "DaemonSet windows-estate-flanneld",
      "DaemonSet windows-estate-kube-proxy",
      "RuntimeClass windows2022",
      "RuntimeClass windows2025",
      "ServiceAccount windows-estate-flanneld",
      "ServiceAccount windows-estate-kube-proxy",
    ]);
    // The agents reach the API server the example names (a host process cannot reach the Service IP).
    const ds = (rendered.get("kubeadm") ?? []).find((o) => o.metadata.name === "windows-estate-flanneld");
    expect(JSON.stringify(ds)).toContain('{"name":"KUBERNETES_SERVICE_HOST","value":"10.0.0.10"}');
  });

  test("shows every node's files, with no token in them, and its steps", () => {
    const files = nodeFiles.get("kubeadm") ?? new Map();
    for (const node of ["10.0.0.21", "10.0.0.22", "win-vm3.lab.example.com"]) {
      for (const f of [
        "C/k/containerd/config.toml",
        "C/etc/kube-flannel/net-conf.json",
        "C/etc/cni/net.d/10-flannel.conf",
        "C/k/kubeadm/join.yaml",
        "C/k/containerd/registries/registry.k8s.io/hosts.toml",
      ])
        expect(files.has(`windows-node-files/${node}/${f}`)).toBe(true);
      expect(files.get(`windows-node-files/${node}/C/k/kubeadm/join.yaml`)).toContain("<bootstrap token: secret");
    }
    const plans = outputs.get("kubeadm")?.windowsNodePlans as Record<string, { steps: { name: string }[] }>;
    expect(plans["10.0.0.21"].steps.map((s) => s.name)).toEqual([
      "os",
      "features",
      "host settings",
      "containerd",
      "containerd config",
      "containerd service",
      "kubernetes binaries",
      "cni and flannel",
      "kubelet service",
      "join",
      "identity",
      "flanneld",
      "kube-proxy",
    ]);
  });
});

test("every example passes the policy pack", () => {
  for (const [stack, objs] of rendered) {
    const views: ResourceView[] = objs.map((o) => ({
      type: `kubernetes:${o.apiVersion.includes("/") ? o.apiVersion : `core/${o.apiVersion}`}:${o.kind}`,
      name: o.metadata.name,
      props: o as unknown as Record<string, unknown>,
    }));
    const violations: string[] = [];
    for (const rule of resourceRules)
      for (const v of views) rule.validate(v, (m) => violations.push(`${stack} ${rule.name}: ${m}`));
    for (const rule of stackRules) rule.validate(views, (m) => violations.push(`${stack} ${rule.name}: ${m}`));
    expect(violations).toEqual([]);
  }
});

test("the AWS example without an AMI shows the placeholder, and pins the one it was given", () => {
  const sets = (rendered.get("aws") ?? []).filter((o) => o.kind === "MachineSet");
  const amis = sets
    .map((s) => (s.spec?.template?.spec?.providerSpec?.value as unknown as { ami: { id: string } }).ami.id)
    .sort();
  expect(amis).toEqual(["ami-0123456789abcdef0", "ami-lookedupatpulumiup"]);
});

test("a policy violation is caught on rendered output (the check can fail)", () => {
  const ms = JSON.parse(JSON.stringify((rendered.get("aws") ?? []).find((o) => o.kind === "MachineSet"))) as Record<
    string,
    never
  >;
  (
    ms as unknown as {
      spec: { template: { spec: { providerSpec: { value: { metadataServiceOptions: { authentication: string } } } } } };
    }
  ).spec.template.spec.providerSpec.value.metadataServiceOptions.authentication = "Required";
  const violations: string[] = [];
  for (const rule of resourceRules)
    rule.validate({ type: "kubernetes:machine.openshift.io/v1beta1:MachineSet", name: "x", props: ms }, (m) =>
      violations.push(m),
    );
  expect(violations.join()).toMatch(/IMDSv2/);
});

test("a WMCO-documented Nutanix name (<infrastructure_id>-windows-worker-<suffix>, docs/machineset-nutanix.md) renders", () => {
  expect((rendered.get("nutanix") ?? []).filter((o) => o.kind === "MachineSet").map((o) => o.metadata.name)).toEqual([
    "ocp-ntnx-2mkp4-windows-worker-a",
  ]);
});

test("the OKD docs' IDMS example renders, with a warning naming the mirror", () => {
  expect(
    (rendered.get("byoh") ?? []).filter((o) => o.kind === "ImageDigestMirrorSet").map((o) => o.metadata.name),
  ).toEqual(["ubi9repo"]);
  expect(logs.get("byoh")).toMatch(
    /windows-estate:mirrors\.digest\[0\]\.mirrors\[0\]: on Windows nodes a mirror of registry\.access\.redhat\.com\/ubi9\/ubi-minimal must end with its path/,
  );
});

test("a rendered WMCO estate leaves the key Secret out and says how to create it; nothing else warns", () => {
  // components/estate.ts: declareSecret only without cluster.render or with cluster.renderKeySecret: true.
  const keyWarning =
    "warning: [runtime] cloud-private-key is not rendered: rendered Secrets are plaintext files. Create it in the " +
    "cluster yourself (oc create secret generic cloud-private-key -n <operator namespace> " +
    "--from-file=private-key.pem=<key file>), or set windows-estate:cluster.renderKeySecret: true to render it anyway.";
  const warned = [...pulumiWarnings].filter(([, w]) => w.length > 0).map(([stack]) => stack);
  expect(warned.sort()).toEqual(["byoh", "byoh-aws", "byoh-azure"]);
  for (const stack of warned) {
    expect(pulumiWarnings.get(stack)).toEqual([keyWarning]);
    expect((rendered.get(stack) ?? []).filter((o) => o.kind === "Secret").map((o) => o.metadata.name)).not.toContain(
      "cloud-private-key",
    );
  }
});

test("the vSphere example (discovery off) says, as docs/day2.md does, that templateKeys is needed, with the key's fingerprint", () => {
  const fingerprint = parsePrivateKey(fs.readFileSync(key.keyPath, "utf8")).fingerprint;
  const warnings = (logs.get("vsphere") ?? "").split("\n").filter((l) => l.includes("vsphere.templateKeys"));
  expect(warnings).toHaveLength(1);
  expect(warnings[0]).toMatch(/^warning: windows-estate:machineSets\[0\]\.vsphere\.templateKeys: is not set/);
  expect(warnings[0]).toContain(`templateKeys: ["${fingerprint}"]`);
  // The example shows the line to set, commented out (its value is the user's key's fingerprint).
  const example = fs.readFileSync(path.join(PROJECT_DIR, "stacks", "examples", "Pulumi.vsphere.yaml"), "utf8");
  expect(example).toMatch(/^\s+# templateKeys: \["SHA256:<your WMCO key's fingerprint>"\]$/m);
});

test("offline, the hosts.toml preview says it covers this stack's mirror sets only", () => {
  expect((outputs.get("byoh")?.windowsRegistrySources as { scope: string }).scope).toMatch(
    /^this stack's mirror sets only/,
  );
});

test("BYOH-only estates get a RuntimeClass per declared Windows Server version", () => {
  expect(
    (rendered.get("byoh") ?? [])
      .filter((o) => o.kind === "RuntimeClass")
      .map((o) => o.metadata.name)
      .sort(),
  ).toEqual(["windows2022", "windows2025"]);
});

test("WMCO's namespace carries the labels of WMCO's install script (hack/common.sh NS_LABELS)", () => {
  const ns = (rendered.get("aws") ?? []).find((o) => o.kind === "Namespace") as unknown as {
    metadata: { labels: Record<string, string> };
  };
  expect(ns.metadata.labels).toMatchObject({
    "openshift.io/cluster-monitoring": "true",
    "security.openshift.io/scc.podSecurityLabelSync": "true",
    "pod-security.kubernetes.io/enforce": "privileged",
  });
});

test("synth lists each example's declared Windows hosts in windowsNodeInventory, the cluster's answers marked unknown", () => {
  const inventory = (stack: string) =>
    (
      outputs.get(stack)?.windowsNodeInventory as {
        from: string;
        windowsServer: string;
        build?: string;
        revision: unknown;
      }[]
    ).map((e) => [e.from, e.windowsServer, e.build, e.revision]);
  const unknown = "<unknown: read from the cluster at preview/up>";
  // Builds as facts/wmco.ts and facts/kubernetes.ts name them (WMCO test/e2e/windows/version.go; kubernetes.io).
  expect(inventory("byoh")).toEqual([
    ["BYOH 10.1.42.1", "2022", "20348", unknown],
    ["BYOH win2.example.com", "2025", "26100", unknown],
  ]);
  expect(inventory("kubeadm").map((e) => e[0])).toEqual([
    "vanilla 10.0.0.21",
    "vanilla 10.0.0.22",
    "vanilla win-vm3.lab.example.com",
  ]);
});

describe("BYOH hosts created on AWS and Azure", () => {
  test("byoh-aws: two EC2 instances with <powershell> user data that parses, and windows-instances naming both", async () => {
    const files = cloudFiles.get("byoh-aws") ?? new Map<string, string>();
    const vms = [...files.keys()].filter((f) => f.endsWith(".yaml")).sort();
    expect(vms).toEqual([
      "cloud/aws_ec2_instance_Instance-estate-byoh-vms-winbyoh-1.yaml",
      "cloud/aws_ec2_instance_Instance-estate-byoh-vms-winbyoh-2.yaml",
    ]);
    const vm = parse(files.get(vms[0]) ?? "") as Record<string, unknown>;
    expect(vm).toMatchObject({
      instanceType: "m5a.large",
      subnetId: "subnet-0a1b2c3d4e5f60718",
      vpcSecurityGroupIds: ["sg-0123456789abcdef0"],
      rootBlockDevice: { volumeSize: 128, encrypted: true },
      tags: { Name: "winbyoh-1", "kubernetes.io/cluster/ocp-aws-9kq2z": "owned" },
      // WMCO's machines' profile (hack/machineset.sh `${infraID}-worker-profile`), the default offline; IMDSv1 kept for
      // WMCO's kubelet (pkg/services/services.go getHostnameCmd reads local-hostname without a token).
      iamInstanceProfile: "ocp-aws-9kq2z-worker-profile",
      metadataOptions: { httpTokens: "optional" },
    });
    const userData = files.get("cloud/aws_ec2_instance_Instance-estate-byoh-vms-winbyoh-1.user-data.txt") ?? "";
    expect(userData.endsWith("\n</powershell>\n<persist>true</persist>\n")).toBe(true);
    const script = userData.replace(/^<powershell>\n/, "").replace(/\n<\/powershell>\n<persist>true<\/persist>\n$/, "");
    expect(await powershellErrors(script)).toEqual([]);
    expect(script).toContain("Rename-Computer -NewName 'winbyoh-1'");
    expect(userData).not.toMatch(/PRIVATE KEY/);
    const cm = (rendered.get("byoh-aws") ?? []).find((o) => o.metadata.name === "windows-instances") as unknown as {
      data: Record<string, string>;
    };
    // WMCO's format (pkg/wiparser): key = address, value exactly username=<user>; the IPs are known at up.
    expect(cm.data).toEqual({
      "winbyoh-1.private-ip-known-at-up": "username=Administrator",
      "winbyoh-2.private-ip-known-at-up": "username=Administrator",
    });
  });

  test("byoh-azure: NIC, VM and the Custom Script Extension; the admin password and the VM's osProfile only as secrets", () => {
    const files = cloudFiles.get("byoh-azure") ?? new Map<string, string>();
    expect([...files.keys()].sort()).toEqual([
      "cloud/azure-native_compute_VirtualMachine-estate-byoh-vms-winbyoh-az.yaml",
      "cloud/azure-native_compute_VirtualMachineExtension-estate-byoh-vms-winbyoh-az-first-boot.yaml",
      "cloud/azure-native_network_NetworkInterface-estate-byoh-vms-winbyoh-az-nic.yaml",
    ]);
    const vm = parse(files.get("cloud/azure-native_compute_VirtualMachine-estate-byoh-vms-winbyoh-az.yaml") ?? "");
    expect(vm).toMatchObject({
      vmName: "winbyoh-az",
      resourceGroupName: "ocp-az-4m8wd-rg",
      osProfile: { adminPassword: "<redacted: secret>" },
      // hack/machineset.sh: the smalldisk image (30 GiB) with `diskSizeGB: 128` and boot diagnostics on managed
      // storage, where the first-boot console lines go (audit rows 9, 10).
      storageProfile: {
        imageReference: { sku: "2022-datacenter-smalldisk", version: "latest" },
        osDisk: { diskSizeGB: 128 },
      },
      diagnosticsProfile: { bootDiagnostics: { enabled: true } },
    });
    const nic = parse(
      files.get("cloud/azure-native_network_NetworkInterface-estate-byoh-vms-winbyoh-az-nic.yaml") ?? "",
    );
    expect(JSON.stringify(nic)).toContain(
      "/resourceGroups/ocp-az-4m8wd-rg/providers/Microsoft.Network/virtualNetworks/ocp-az-4m8wd-vnet/subnets/ocp-az-4m8wd-worker-subnet",
    );
    // Its way out (audit row 7): the cluster's public load balancer's pools, read at preview and up, shown as such.
    expect(nic.ipConfigurations[0].loadBalancerBackendAddressPools).toEqual([
      { id: "<the IPv4 backend pools of load balancer ocp-az-4m8wd, read at preview and up>" },
    ]);
    // The first-boot script itself carries no secret: shown as a stack output.
    const firstBoot = outputs.get("byoh-azure")?.byohVmFirstBoot as Record<string, string>;
    expect(firstBoot["winbyoh-az"]).toContain("Set-LocalUser -Name 'capi' -PasswordNeverExpires $true");
  });
});
