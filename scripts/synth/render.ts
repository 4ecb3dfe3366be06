import * as fs from "fs";
import * as path from "path";
import { stringify } from "yaml";
import { DeclaredResource, ProgramRun } from "./mock-run";
import { clean, REDACTED } from "./redact";
import { wrap } from "../docs/wrap";
import { AMI_PLACEHOLDER } from "../../components/machinesets/machineset";
import {
  API_ENDPOINT_PLACEHOLDER,
  HOSTNAME_PLACEHOLDER,
  NODE_IP_PLACEHOLDER,
  TOKEN_PLACEHOLDER,
} from "../../components/vanilla/node-plan";
import { get, obj, str, stringMap } from "../../lib/json";

export interface KubeObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string };
  [field: string]: unknown;
}

/** A rendered Kubernetes object, its identifying fields checked. */
function asKubeObject(v: unknown): KubeObject | undefined {
  const o = obj(v);
  const [apiVersion, kind, name] = [str(get(o, "apiVersion")), str(get(o, "kind")), str(get(o, "metadata", "name"))];
  if (!o || !apiVersion || !kind || !name) return undefined;
  return {
    ...o,
    apiVersion,
    kind,
    metadata: { ...obj(o.metadata), name, namespace: str(get(o, "metadata", "namespace")) },
  };
}

export interface Rendered {
  /** Path relative to the output directory → file text. */
  files: Map<string, string>;
  /** The Kubernetes objects, in declaration order, secrets redacted unless revealed. */
  objects: KubeObject[];
  /** True when any secret value was met (and redacted unless revealed). */
  hadSecret: boolean;
  /** Objects left out of kustomization.yaml, file → why: they hold a placeholder, not the value `pulumi up` uses. */
  withheld: Map<string, string>;
}

/**
 * The markers synth writes where the real value exists only at `pulumi up` or on the host: applied as they are, they
 * would break what they stand for (a redacted `cloud-private-key` locks WMCO out of every node; a MachineSet with the
 * AMI marker creates Machines that never boot).
 */
const PLACEHOLDERS: readonly [string, string][] = [
  [REDACTED, "a secret redacted for review"],
  [AMI_PLACEHOLDER, "the AMI looked up at pulumi up"],
  [API_ENDPOINT_PLACEHOLDER, "the API server endpoint discovered at pulumi up"],
  [TOKEN_PLACEHOLDER, "the bootstrap token"],
  [NODE_IP_PLACEHOLDER, "a node IP read on the host"],
  [HOSTNAME_PLACEHOLDER, "a hostname read on the host"],
];

/** Why a rendered file must not be applied as it is, or undefined when it holds no placeholder. */
export function placeholderIn(text: string): string | undefined {
  return PLACEHOLDERS.find(([marker]) => text.includes(marker))?.[1];
}

/** Said at the top of the kustomization and in the directory's README. */
export const FOR_REVIEW =
  "Rendered offline by `npm run synth` for review: what `pulumi up` would apply with this stack's config. It is not " +
  "a deployment: apply with `pulumi up`, or use render mode (`windows-estate:cluster.render`) for GitOps " +
  "(docs/gitops.md).";

/** True for the resources the Kubernetes provider would apply (not the provider itself, not components). */
export function isKubernetesObject(r: DeclaredResource): boolean {
  return r.custom && r.type.startsWith("kubernetes:") && !r.type.startsWith("pulumi:providers:");
}

/**
 * The file name `renderYamlToDirectory` gives an object: `<apiVersion>-<kind>-<namespace|default>-<name>.yaml`. A
 * patch (`*Patch` resources: server-side apply of the fields shown, onto an object someone else created) goes to
 * `2-patch/`, so a reviewer never mistakes it for the whole object.
 */
export function renderPath(obj: KubeObject, patch = false): string {
  const sanitise = (s: string) => s.replace(/[/:]/g, "_");
  const file = `${sanitise(obj.apiVersion)}-${obj.kind.toLowerCase()}-${obj.metadata.namespace || "default"}-${obj.metadata.name}.yaml`;
  return path.posix.join(obj.kind === "CustomResourceDefinition" ? "0-crd" : patch ? "2-patch" : "1-manifest", file);
}

/**
 * Windows paths of node files become a relative tree under `windows-node-files/`, e.g. `C/k/containerd/...`; a
 * vanilla node's files go under its address (`windows-node-files/10.0.0.21/C/...`).
 */
export function nodeFilePath(windowsPath: string, node?: string): string {
  const parts = windowsPath
    .replace(/^([A-Za-z]):\\?/, "$1\\")
    .split("\\")
    .filter((p) => p !== "");
  return path.posix.join("windows-node-files", ...(node ? [node] : []), ...parts);
}

/**
 * Lays out what the Kubernetes provider would apply (renderYamlToDirectory layout) plus a kustomization listing
 * it, the stack outputs, and the files WMCO will put on every Windows node (`windowsNodeFiles` output).
 */
export function render(run: ProgramRun, reveal: boolean): Rendered {
  const files = new Map<string, string>();
  const objects: KubeObject[] = [];
  let hadSecret = false;
  for (const r of run.resources.filter(isKubernetesObject)) {
    const c = clean(r.inputs, reveal);
    hadSecret ||= c.hadSecret;
    const obj = asKubeObject(c.value);
    if (!obj) throw new Error(`internal: ${r.type} ${r.name} rendered without apiVersion, kind or metadata.name`);
    objects.push(obj);
    files.set(renderPath(obj, r.type.endsWith("Patch")), stringify(obj, { lineWidth: 0 }));
  }
  const resources = [...files.keys()].sort();
  // Cloud resources (VMs this stack creates): their inputs, secrets redacted, and the first-boot script as a file.
  for (const r of run.resources.filter((x) => x.custom && /^(aws|azure-native):/.test(x.type))) {
    const c = clean(r.inputs, reveal);
    hadSecret ||= c.hadSecret;
    const base = `cloud/${r.type.replace(/[:/]/g, "_")}-${r.name}`;
    files.set(`${base}.yaml`, stringify(c.value, { lineWidth: 0 }));
    const userData = str(get(c.value, "userData"));
    if (userData) files.set(`${base}.user-data.txt`, userData);
    const customData = str(get(c.value, "osProfile", "customData"));
    if (customData && /^[A-Za-z0-9+/=]+$/.test(customData))
      files.set(`${base}.custom-data.ps1`, Buffer.from(customData, "base64").toString("utf8"));
  }
  // `kustomize build` (and `oc diff -k`) of this directory shows only objects applied exactly as written.
  const withheld = new Map<string, string>();
  for (const f of resources) {
    const why = placeholderIn(files.get(f) ?? "");
    if (why) withheld.set(f, why);
  }
  const header = [
    ...`# ${wrap(FOR_REVIEW, "# ", 118)}`.split("\n"),
    ...(withheld.size > 0
      ? [
          "# Left out, because they hold a placeholder instead of the value pulumi up uses:",
          ...[...withheld].map(([f, why]) => `#   ${f} (${why})`),
        ]
      : []),
  ];
  files.set(
    "kustomization.yaml",
    header.join("\n") +
      "\n" +
      stringify({
        apiVersion: "kustomize.config.k8s.io/v1beta1",
        kind: "Kustomization",
        resources: resources.filter((f) => !withheld.has(f)),
      }),
  );
  files.set("README.md", reviewReadme(withheld));

  const outputs: Record<string, unknown> = {};
  for (const [k, o] of Object.entries(run.outputs)) {
    const c = clean(o.value, reveal);
    hadSecret ||= c.hadSecret || o.secret;
    outputs[k] = o.secret && !reveal ? "<redacted: secret>" : c.value;
  }
  files.set("stack-outputs.json", JSON.stringify(outputs, null, 2) + "\n");

  const nodeFiles = outputs.windowsNodeFiles;
  for (const [winPath, text] of Object.entries(stringMap(nodeFiles))) files.set(nodeFilePath(winPath), text);
  // Vanilla nodes: each node's plan carries its own files.
  for (const [address, plan] of Object.entries(obj(outputs.windowsNodePlans) ?? {}))
    for (const [winPath, text] of Object.entries(stringMap(get(plan, "files"))))
      files.set(nodeFilePath(winPath, address), text);
  return { files, objects, hadSecret, withheld };
}

/**
 * Replaces `outDir` with the rendered files in one step: everything is written to a sibling temp directory
 * first, so a failure leaves the previous render untouched and never a half-written one.
 */
export function writeRendered(outDir: string, files: Map<string, string>): void {
  const abs = path.resolve(outDir);
  const tmp = `${abs}.tmp-${process.pid}`;
  fs.rmSync(tmp, { recursive: true, force: true });
  for (const [rel, text] of files) {
    const target = path.join(tmp, rel);
    fs.mkdirSync(path.dirname(target), { recursive: true });
    fs.writeFileSync(target, text);
  }
  const old = `${abs}.old-${process.pid}`;
  if (fs.existsSync(abs)) fs.renameSync(abs, old);
  fs.mkdirSync(path.dirname(abs), { recursive: true });
  fs.renameSync(tmp, abs);
  fs.rmSync(old, { recursive: true, force: true });
}

function reviewReadme(withheld: ReadonlyMap<string, string>): string {
  return [
    "# For review, not for applying",
    "",
    FOR_REVIEW,
    "",
    "- `1-manifest/`, `2-patch/`: the Kubernetes objects and patches (renderYamlToDirectory layout).",
    "- `kustomization.yaml`: the objects that hold no placeholder, for `kustomize build` or `oc diff -k`.",
    "- `windows-node-files/`: the files each Windows node gets; `cloud/`: the VMs this stack creates.",
    "- `stack-outputs.json`: the stack outputs, secrets redacted.",
    ...(withheld.size > 0
      ? ["", "Left out of `kustomization.yaml` (a placeholder stands where `pulumi up` has the real value):", ""]
      : []),
    ...[...withheld].map(([f, why]) => `- \`${f}\`: ${why}`),
    "",
  ].join("\n");
}
