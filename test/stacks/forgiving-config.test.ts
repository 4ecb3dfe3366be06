import * as fs from "fs";
import * as path from "path";
import { parse, stringify } from "yaml";
import { namespaceTypos } from "../../stacks/namespace";
import { stackFileShapeIssues, STACK_FILE_KEYS } from "../../stacks/stack-file-shape";
import { readTree, runSynth, scratch, writeStack } from "../helpers/stack";

// Issue 25: what a user types by hand or with `pulumi config set --path` is either accepted (an integer where text is
// expected has one reading) or refused once, naming the key or the file and the fix; never silently dropped.
const s = scratch();
afterAll(() => s.cleanup());

const cluster = { platform: "Azure", infrastructureId: "win-tmk9g", region: "westus" };
const machineSet = {
  name: "winworker",
  replicas: 1,
  windowsServer: "2022",
  azure: { vmSize: "Standard_D2s_v3", zone: "1" },
};

async function synthFile(file: string) {
  const out = path.join(s.dir, `out-${path.basename(file, ".yaml")}`);
  const r = await runSynth(["--stack", "t", "--config-file", file, "--out", out, "--quiet"]);
  return { ...r, out };
}

function machineSetYaml(out: string): Record<string, unknown> {
  const files = [...readTree(out)].filter(([name]) => /machineset/i.test(name) && name.endsWith(".yaml"));
  expect(files).toHaveLength(1);
  return parse(files[0][1]);
}

describe("numbers where text is expected", () => {
  test("`pulumi config set --path` integers (windowsServer 2022, azure.zone 1) are taken as their text", async () => {
    // What `pulumi config set --path 'windows-estate:machineSets[0].windowsServer' 2022` writes: an unquoted number.
    const file = writeStack(s.dir, "numbers", {
      cluster,
      privateKeyPath: s.keyPath,
      machineSets: [{ ...machineSet, windowsServer: 2022, azure: { ...machineSet.azure, zone: 1 } }],
    });
    const r = await synthFile(file);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const ms = JSON.stringify(machineSetYaml(r.out));
    // machine.openshift.io AzureMachineProviderSpec `zone` is a string; the 2022 image is what "2022" selects.
    expect(ms).toContain('"zone":"1"');
    expect(ms).toContain("2022");
  });

  test("the same stack with the values quoted renders the same MachineSet", async () => {
    const quoted = await synthFile(
      writeStack(s.dir, "quoted", { cluster, privateKeyPath: s.keyPath, machineSets: [machineSet] }),
    );
    const numbers = await synthFile(
      writeStack(s.dir, "numbers2", {
        cluster,
        privateKeyPath: s.keyPath,
        machineSets: [{ ...machineSet, windowsServer: 2022, azure: { ...machineSet.azure, zone: 1 } }],
      }),
    );
    expect(numbers.code).toBe(0);
    expect(machineSetYaml(numbers.out)).toEqual(machineSetYaml(quoted.out));
  });

  test("an integer that is not an allowed value is still refused, naming the allowed ones", async () => {
    const r = await synthFile(
      writeStack(s.dir, "badnum", {
        cluster,
        privateKeyPath: s.keyPath,
        machineSets: [{ ...machineSet, windowsServer: 2023 }],
      }),
    );
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      'windows-estate:machineSets[0].windowsServer: number 2023 is not allowed; use one of "2019", "2022", "2025"',
    );
  });
});

describe("the stack file itself", () => {
  test("a mistyped `config:` is that one problem, not 'cluster is required'", async () => {
    const file = path.join(s.dir, "Pulumi.confg.yaml");
    fs.writeFileSync(file, stringify({ confg: { "windows-estate:cluster": cluster } }));
    const r = await synthFile(file);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("Pulumi.confg.yaml: unknown top-level key 'confg' (did you mean 'config'?)");
    expect(r.stderr).toContain("Pulumi.confg.yaml: has no 'config:' section");
    expect(r.stderr).not.toContain("windows-estate:cluster: is required");
    expect(r.stderr).toContain("the stack configuration has 2 problems");
  });

  test("a YAML syntax error shows the offending line, not only its position", async () => {
    const file = path.join(s.dir, "Pulumi.syntax.yaml");
    fs.writeFileSync(file, "config:\n  windows-estate:cluster:\n    platform: Azure\n   region: [westus\n");
    const r = await synthFile(file);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/is not valid YAML: .*line 4, column \d+:/);
    expect(r.stderr).toContain("region: [westus");
  });

  test("the known top-level keys are the CLI's (sdk/go/common/workspace/project.go ProjectStack yaml tags)", () => {
    expect([...STACK_FILE_KEYS].sort()).toEqual([
      "config",
      "encryptedkey",
      "encryptionsalt",
      "environment",
      "secretsprovider",
    ]);
    expect(stackFileShapeIssues({ config: {}, encryptionsalt: "v1:x", secretsprovider: "passphrase" }, "f")).toEqual(
      [],
    );
    // An ESC environment may hold every setting: no `config:` is then not a mistake.
    expect(stackFileShapeIssues({ environment: ["prod"] }, "f")).toEqual([]);
  });
});

describe("namespaces near ours", () => {
  test.each([
    "windows_estate:byoh",
    "windows-estat:byoh",
    "Windows-Estate:byoh",
    "windowsestate:byoh",
    "window-estates:byoh",
  ])("%s is named with the fix", (key) => {
    const issues = namespaceTypos([key], "windows-estate");
    expect(issues).toEqual([expect.objectContaining({ key, message: expect.stringContaining("windows-estate:byoh") })]);
  });

  test("other packages' namespaces and our own are left alone", () => {
    const keys = [
      "windows-estate:byoh",
      "pulumi:disable-default-providers",
      "kubernetes:context",
      "aws:region",
      "azure-native:location",
      "gcp:project",
      "vsphere:user",
    ];
    expect(namespaceTypos(keys, "windows-estate")).toEqual([]);
  });
});

describe("Kubernetes releases past support", () => {
  const vanilla = (version: string) => ({
    cluster: { platform: "Kubernetes" },
    privateKeyPath: s.keyPath,
    kubernetes: {
      version,
      podNetworkCidr: "10.244.0.0/16",
      serviceCidr: "10.96.0.0/12",
      dnsServiceIp: "10.96.0.10",
      apiServerEndpoint: "10.0.0.10:6443",
      caCertHash: "sha256:abababababababababababababababababababababababababababababababab",
    },
    nodes: [{ address: "10.0.0.21", username: "Administrator", trustOnFirstUse: true }],
  });

  // facts/kubernetes.ts SUPPORTED_MINORS (kubernetes.io releases page): 1.35–1.37 supported, so 1.34 has just left.
  test("one minor below the oldest supported goes on, with a warning naming the key", async () => {
    const r = await synthFile(writeStack(s.dir, "eol", vanilla("1.34.6")));
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("warning: windows-estate:kubernetes.version: 1.34.6 is past upstream support");
  });

  test("without discovery, a missing API server endpoint is a config error (exit 2), not a crash", async () => {
    const config = vanilla("1.36.2");
    const { apiServerEndpoint, ...kubernetes } = config.kubernetes;
    void apiServerEndpoint;
    // (caCertHash stays: only the endpoint is missing)
    const r = await synthFile(writeStack(s.dir, "noendpoint", { ...config, kubernetes }));
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("windows-estate:kubernetes.apiServerEndpoint: is needed and discovery is off");
    expect(r.stderr).toContain("nothing was written");
  });

  test("two minors below is refused", async () => {
    const r = await synthFile(writeStack(s.dir, "old", vanilla("1.33.9")));
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("windows-estate:kubernetes.version: 1.33.9 is not a supported Kubernetes release");
  });
});
