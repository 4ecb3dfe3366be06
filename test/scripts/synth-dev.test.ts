import * as fs from "fs";
import * as path from "path";
import { parse } from "yaml";
import { get, obj } from "../../lib/json";
import { PROJECT_DIR } from "../../scripts/synth/main";
import { validateAgainstSchema, validateObject, schemaFileFor } from "../helpers/schemas";
import { readTree, runSynth } from "../helpers/stack";

// The main job: synth of the built-in dev stack, run in-process exactly as `npm start` runs it.
const out = fs.mkdtempSync(path.join(require("os").tmpdir(), "dev-synth-"));
let result: Awaited<ReturnType<typeof runSynth>>;
let files: Map<string, string>;

beforeAll(async () => {
  result = await runSynth(["--stack", "dev", "--out", out]);
  files = result.code === 0 ? readTree(out) : new Map();
}, 120_000);
afterAll(() => fs.rmSync(out, { recursive: true, force: true }));

type Obj = { apiVersion: string; kind: string; metadata: { name: string; namespace?: string }; [k: string]: unknown };
const objects = (): Obj[] => [...files].filter(([p]) => p.startsWith("1-manifest/")).map(([, t]) => parse(t) as Obj);
const find = (kind: string, name?: string) =>
  objects().find((o) => o.kind === kind && (name === undefined || o.metadata.name === name));

test("synth succeeds and prints the resource tree with counts", () => {
  expect(result.stderr).toBe("");
  expect(result.code).toBe(0);
  expect(result.stdout).toMatch(/pulumi:pulumi:Stack {2}windows-estate-dev/);
  expect(result.stdout).toMatch(/windows-estate:index:WmcoOperator/);
  expect(result.stdout).toMatch(/pulumi-nodejs:dynamic\/windows-estate:OperatorReady/);
  expect(result.stdout).toMatch(/^\d+ resources: \d+ kubernetes, \d+ dynamic/m);
});

test("renders the operator and its key, in renderYamlToDirectory's layout with a kustomization", () => {
  expect(find("Namespace", "openshift-windows-machine-config-operator")?.metadata).toMatchObject({
    labels: { "openshift.io/cluster-monitoring": "true" },
  });
  // OwnNamespace install, as WMCO's bundle supports (hack/common.sh creates the OperatorGroup with targetNamespaces).
  expect(find("OperatorGroup")).toMatchObject({
    spec: { targetNamespaces: ["openshift-windows-machine-config-operator"] },
  });
  expect(find("Subscription")).toMatchObject({
    metadata: { name: "windows-machine-config-operator", namespace: "openshift-windows-machine-config-operator" },
    spec: {
      name: "windows-machine-config-operator",
      channel: "stable",
      source: "redhat-operators",
      sourceNamespace: "openshift-marketplace",
      installPlanApproval: "Automatic",
    },
  });
  expect(find("Secret", "cloud-private-key")?.metadata.namespace).toBe("openshift-windows-machine-config-operator");
  expect(files.has("1-manifest/v1-namespace-default-openshift-windows-machine-config-operator.yaml")).toBe(true);
});

test("the output says it is for review; what holds a placeholder is not in what kustomize would apply", () => {
  const secret = "1-manifest/v1-secret-openshift-windows-machine-config-operator-cloud-private-key.yaml";
  // The redacted key: applied, it would replace WMCO's key and lock it out of every node.
  expect(files.get(secret)).toContain("<redacted: secret>");
  const text = files.get("kustomization.yaml") ?? "";
  expect(text.split("\n")[0]).toMatch(/^# Rendered offline by `npm run synth` for review/);
  expect(text).toContain(`#   ${secret} (a secret redacted for review)`);
  const kustomization = parse(text) as { resources: string[] };
  const manifests = [...files.keys()].filter((p) => p.startsWith("1-manifest/"));
  expect(kustomization.resources.sort()).toEqual(manifests.filter((p) => p !== secret).sort());
  for (const f of kustomization.resources) expect(files.get(f)).not.toMatch(/<redacted|ami-lookedupatpulumiup/);
  expect(files.get("README.md")).toMatch(/^# For review, not for applying\n/);
  expect(files.get("README.md")).toContain(`- \`${secret}\`: a secret redacted for review`);
  expect(result.stdout).toMatch(/for review: 1 object with a placeholder left out of kustomization\.yaml/);
});

test("renders the Azure MachineSet as WMCO's hack/machineset.sh does, its RuntimeClass as WMCO's docs show; MachineSets wait for windows-user-data", () => {
  // hack/machineset.sh get_azure_ms (defaults) and get_spec (labels); the dev stack sets vmSize and zone "".
  const ms = find("MachineSet", "winworker");
  expect(ms).toMatchObject({
    metadata: {
      namespace: "openshift-machine-api",
      labels: { "machine.openshift.io/cluster-api-cluster": "win-tmk9g" },
    },
    spec: {
      selector: {
        matchLabels: {
          "machine.openshift.io/cluster-api-cluster": "win-tmk9g",
          "machine.openshift.io/cluster-api-machineset": "winworker",
        },
      },
      template: {
        metadata: {
          labels: {
            "machine.openshift.io/os-id": "Windows",
            "machine.openshift.io/cluster-api-machine-role": "worker",
            "machine.openshift.io/cluster-api-machine-type": "worker",
          },
        },
        spec: {
          metadata: { labels: { "node-role.kubernetes.io/worker": "" } },
          providerSpec: {
            value: {
              kind: "AzureMachineProviderSpec",
              image: {
                publisher: "MicrosoftWindowsServer",
                offer: "WindowsServer",
                sku: "2022-datacenter-smalldisk",
                version: "latest",
                resourceID: "",
              },
              osDisk: { diskSizeGB: 128, managedDisk: { storageAccountType: "Premium_LRS" }, osType: "Windows" },
              vmSize: "Standard_D2s_v3",
              location: "westus",
              resourceGroup: "win-tmk9g-rg",
              networkResourceGroup: "win-tmk9g-rg",
              vnet: "win-tmk9g-vnet",
              subnet: "win-tmk9g-worker-subnet",
              publicIP: false,
              userDataSecret: { name: "windows-user-data", namespace: "openshift-machine-api" },
            },
          },
        },
      },
    },
  });
  // Where hack/machineset.sh writes `zone: ""`, no key: machine-api's defaulting webhook drops it on create
  // (`json:"zone,omitempty"`), and a declared "" would show as a change after every create (issue 43).
  expect(Object.keys(obj(get(ms, "spec", "template", "spec", "providerSpec", "value")) ?? {})).not.toContain("zone");
  // docs/windows-workloads.md "Example Windows Server 2019 RuntimeClass", with 2022's build.
  expect(find("RuntimeClass", "windows2022")).toMatchObject({
    handler: "runhcs-wcow-process",
    scheduling: {
      nodeSelector: {
        "kubernetes.io/os": "windows",
        "kubernetes.io/arch": "amd64",
        "node.kubernetes.io/windows-build": "10.0.20348",
      },
      tolerations: expect.arrayContaining([{ effect: "NoSchedule", key: "os", operator: "Equal", value: "Windows" }]),
    },
  });
  expect(result.stdout).toMatch(/pulumi-nodejs:dynamic\/windows-estate:ObjectExists {2}estate-windows-user-data/);
});

test("shows the hosts.toml files every Windows node will get, as TOML, in the output and under windows-node-files/", () => {
  const { parse: parseToml } = require("smol-toml") as typeof import("smol-toml");
  const file = files.get("windows-node-files/C/k/containerd/registries/mcr.microsoft.com/hosts.toml") ?? "";
  expect(file).toMatch(/^server = "https:\/\/mcr.microsoft.com\/v2"\n/);
  expect(() => parseToml(file)).not.toThrow();
  const outputs = JSON.parse(files.get("stack-outputs.json") ?? "{}") as {
    windowsRegistryConfig: Record<string, string>;
  };
  expect(Object.keys(outputs.windowsRegistryConfig).sort()).toEqual(["mcr.microsoft.com", "registry.redhat.io"]);
  expect(
    objects()
      .filter((o) => o.kind === "ImageDigestMirrorSet")
      .map((o) => o.metadata.name)
      .sort(),
  ).toEqual([
    "windows-estate-digest-mcr-microsoft-com-oss-kubernetes-pause",
    "windows-estate-digest-registry-redhat-io-ubi9",
  ]);
});

test("never declares windows-user-data: WMCO owns it", () => {
  expect(objects().some((o) => o.metadata.name === "windows-user-data")).toBe(false);
});

test("every rendered object is valid against its schema, closed to unknown fields", () => {
  const objs = objects();
  expect(objs.length).toBeGreaterThanOrEqual(4);
  for (const o of objs) {
    expect(`${o.kind}/${o.metadata.name}: ${validateObject(o, { closed: true })}`).toBe(
      `${o.kind}/${o.metadata.name}: `,
    );
    const value = (o as { spec?: { template?: { spec?: { providerSpec?: { value?: { kind: string } } } } } }).spec
      ?.template?.spec?.providerSpec?.value;
    if (value) expect(validateAgainstSchema(value, schemaFileFor(undefined, value.kind))).toBe("");
  }
});

test("no key material anywhere in the output or the log", () => {
  const pem = fs.readFileSync(path.join(PROJECT_DIR, ".dev", "wmco-dev-key.pem"), "utf8");
  const body = pem
    .split("\n")
    .filter((l) => l && !l.startsWith("-----"))
    .join("");
  const everything = [...files.values(), result.stdout, result.stderr].join("\n").replace(/\s+/g, "");
  expect(everything).not.toContain("PRIVATEKEY");
  for (let i = 0; i + 24 <= body.length; i += 24) expect(everything).not.toContain(body.slice(i, i + 24));
  const secret = find("Secret", "cloud-private-key") as { stringData?: Record<string, string> };
  expect(secret.stringData?.["private-key.pem"]).toBe("<redacted: secret>");
});

test("stack outputs carry the public key and its fingerprint in plain text", () => {
  const outputs = JSON.parse(files.get("stack-outputs.json") ?? "{}") as Record<string, string>;
  expect(outputs.wmcoPublicKey).toMatch(/^ssh-rsa AAAA/);
  expect(outputs.wmcoPublicKeyFingerprint).toMatch(/^SHA256:[A-Za-z0-9+/]{43}$/);
});
