/**
 * The rules of the windows-estate policy pack, as plain functions over plain resource descriptions, so they can be
 * unit-tested without the policy server (constructing a PolicyPack starts one). `index.ts` adapts them.
 */

import { namingBreaksWindowsPulls, windowsNamingProblem } from "../components/mirrors/validate";
import { get, obj, objects, str, stringMap, strings } from "../lib/json";
import {
  LABEL_VALUE_LIMIT,
  SHORT_NAME_LIMIT,
  SHORT_NAME_PROVIDER_KINDS,
  USER_DATA_SECRET,
  WINDOWS_BUILD_LABEL,
} from "../facts/wmco";

/** What a rule sees of a resource: its Pulumi type token, name and input properties. */
export interface ResourceView {
  type: string;
  name: string;
  props: Record<string, unknown>;
}

export type Report = (message: string) => void;

/** A rule over one resource (`ResourceView`) or over the whole stack (`readonly ResourceView[]`). */
interface Rule<Subject> {
  name: string;
  description: string;
  enforcementLevel: "mandatory" | "advisory";
  validate: (subject: Subject, report: Report) => void;
}
export type ResourceRule = Rule<ResourceView>;
export type StackRule = Rule<readonly ResourceView[]>;

const MACHINESET = "kubernetes:machine.openshift.io/v1beta1:MachineSet";
const SECRET = "kubernetes:core/v1:Secret";
const RUNTIME_CLASS = "kubernetes:node.k8s.io/v1:RuntimeClass";
const IDMS = "kubernetes:config.openshift.io/v1:ImageDigestMirrorSet";
const ITMS = "kubernetes:config.openshift.io/v1:ImageTagMirrorSet";

type Labels = Record<string, string>;

/** What the rules read of a Windows MachineSet, each field checked (the props are whatever the program declared). */
interface WindowsMachineSet {
  name?: string;
  replicas: unknown;
  annotations: Labels;
  labels: Labels;
  templateLabels: Labels;
  nodeLabels: Labels;
  selector: Labels;
  providerSpec: Record<string, unknown>;
}

function windowsMachineSet(r: ResourceView): WindowsMachineSet | undefined {
  if (r.type !== MACHINESET) return undefined;
  const p = r.props;
  const templateLabels = stringMap(get(p, "spec", "template", "metadata", "labels"));
  const providerSpec = obj(get(p, "spec", "template", "spec", "providerSpec", "value")) ?? {};
  const windows =
    templateLabels["machine.openshift.io/os-id"] === "Windows" || get(providerSpec, "osDisk", "osType") === "Windows";
  if (!windows) return undefined;
  return {
    name: str(get(p, "metadata", "name")),
    replicas: get(p, "spec", "replicas"),
    annotations: stringMap(get(p, "metadata", "annotations")),
    labels: stringMap(get(p, "metadata", "labels")),
    templateLabels,
    nodeLabels: stringMap(get(p, "spec", "template", "spec", "metadata", "labels")),
    selector: stringMap(get(p, "spec", "selector", "matchLabels")),
    providerSpec,
  };
}

export const machineSetLabels: ResourceRule = {
  name: "windows-machineset-labels",
  description:
    "Windows MachineSets carry the labels WMCO and the scheduler need (os-id, worker role and type, cluster, machineset, node-role).",
  enforcementLevel: "mandatory",
  validate(r, report) {
    const ms = windowsMachineSet(r);
    if (!ms) return;
    const labels = ms.templateLabels;
    const required: Labels = {
      "machine.openshift.io/os-id": "Windows",
      "machine.openshift.io/cluster-api-machine-role": "worker",
      "machine.openshift.io/cluster-api-machine-type": "worker",
    };
    for (const [k, v] of Object.entries(required)) {
      if (labels[k] !== v)
        report(`template label ${k} must be "${v}" (WMCO ignores or mis-roles the Machine otherwise)`);
    }
    for (const k of ["machine.openshift.io/cluster-api-cluster", "machine.openshift.io/cluster-api-machineset"]) {
      if (!labels[k]) report(`template label ${k} is missing`);
    }
    if (ms.nodeLabels["node-role.kubernetes.io/worker"] !== "") {
      report(
        'spec.template.spec.metadata.labels must set node-role.kubernetes.io/worker: "" so the node joins as a worker',
      );
    }
    for (const [k, v] of Object.entries(ms.selector)) {
      if (labels[k] !== v)
        report(`selector label ${k}=${v} does not match the template, so the MachineSet would never own its Machines`);
    }
  },
};

export const machineSetNameLimit: ResourceRule = {
  name: "windows-machineset-name-limit",
  description:
    "Windows MachineSet names fit the platform's limit: 9 characters on Azure, vSphere and Nutanix (15-character Windows computer names), 63 elsewhere.",
  enforcementLevel: "mandatory",
  validate(r, report) {
    const ms = windowsMachineSet(r);
    const name = ms?.name;
    if (!ms || !name) return;
    const kind = str(ms.providerSpec.kind) ?? "";
    // Where the Windows computer name is the Machine name: 15 characters, minus MAPI's `-xxxxx` suffix.
    const limit = SHORT_NAME_PROVIDER_KINDS.has(kind) ? SHORT_NAME_LIMIT : LABEL_VALUE_LIMIT;
    if (name.length > limit)
      report(
        `MachineSet name "${name}" has ${name.length} characters; ${kind || "this platform"} allows at most ${limit}`,
      );
  },
};

export const noImdsV2Required: ResourceRule = {
  name: "windows-aws-imds-optional",
  description:
    "AWS Windows machines must not require IMDSv2: WMCO's kubelet reads its Node name from the instance metadata without a token (pkg/services/services.go getHostnameCmd).",
  enforcementLevel: "mandatory",
  validate(r, report) {
    const ms = windowsMachineSet(r);
    if (!ms || ms.providerSpec.kind !== "AWSMachineProviderConfig") return;
    if (get(ms.providerSpec, "metadataServiceOptions", "authentication") === "Required") {
      report(
        "metadataServiceOptions.authentication is Required (IMDSv2 only), which breaks Windows nodes; use Optional",
      );
    }
  },
};

export const noManagedUserData: ResourceRule = {
  name: "no-managed-windows-user-data",
  description:
    "The stack never manages openshift-machine-api/windows-user-data: WMCO writes it and rewrites any change.",
  enforcementLevel: "mandatory",
  validate(r, report) {
    if (r.type === SECRET && get(r.props, "metadata", "name") === USER_DATA_SECRET) {
      report(
        "windows-user-data is owned by WMCO; remove it from the stack and let WMCO generate it from cloud-private-key",
      );
    }
  },
};

const PRIVATE_KEY = /-----BEGIN (RSA |EC |OPENSSH |DSA |ENCRYPTED )?PRIVATE KEY-----/;

function containsPrivateKey(v: unknown, depth = 0): boolean {
  if (depth > 20) return false;
  if (typeof v === "string") return PRIVATE_KEY.test(v);
  if (Array.isArray(v)) return v.some((x) => containsPrivateKey(x, depth + 1));
  if (typeof v === "object" && v !== null) return Object.values(v).some((x) => containsPrivateKey(x, depth + 1));
  return false;
}

export const privateKeyOnlyInSecret: ResourceRule = {
  name: "private-key-only-in-secret",
  description:
    "SSH private keys live only in Kubernetes Secrets (cloud-private-key), never in ConfigMaps, annotations or other resources' inputs.",
  enforcementLevel: "mandatory",
  validate(r, report) {
    if (r.type === SECRET) return;
    // Dynamic providers receive credentials as inputs by design (marked secret); their serialized code is not key material.
    if (r.type.startsWith("pulumi-nodejs:dynamic")) return;
    // Providers carry credentials by design, and the engine hands the default `pulumi-nodejs` provider the whole
    // stack config as inputs (pulumi/pulumi pkg/resource/deploy/target.go GetPackageConfig), the WMCO key included.
    if (r.type.startsWith("pulumi:providers:")) return;
    if (containsPrivateKey(r.props))
      report(`${r.type} ${r.name} holds a private key in its inputs; keep keys in the cloud-private-key Secret`);
  },
};

export const windowsMirrorNaming: ResourceRule = {
  name: "windows-mirror-naming",
  description:
    "Mirrors of mcr.microsoft.com (what Windows nodes pull through WMCO) end with their source's path and do not repeat the source registry (WMCO strips the shared suffix); otherwise Windows pulls go to the wrong repository.",
  enforcementLevel: "mandatory",
  validate(r, report) {
    if (r.type !== IDMS && r.type !== ITMS) return;
    const entries = objects(get(r.props, "spec", r.type === IDMS ? "imageDigestMirrors" : "imageTagMirrors"));
    for (const e of entries) {
      const source = str(e.source);
      if (!source || !namingBreaksWindowsPulls(source)) continue;
      for (const m of strings(e.mirrors)) {
        const problem = windowsNamingProblem(source, m);
        if (problem) report(problem);
      }
    }
  },
};

export const runtimeClassPerBuild: StackRule = {
  name: "runtimeclass-per-windows-build",
  description:
    "Every Windows build a MachineSet runs has a RuntimeClass, so workloads land on a node of the matching build.",
  enforcementLevel: "mandatory",
  validate(resources, report) {
    const builds = new Set<string>();
    for (const r of resources) {
      const ms = windowsMachineSet(r);
      // The label the builders put on it (components/machinesets/common.ts).
      const b = ms?.labels[WINDOWS_BUILD_LABEL];
      if (b) builds.add(b);
    }
    const covered = new Set(
      resources
        .filter((r) => r.type === RUNTIME_CLASS)
        .map((r) => str(get(r.props, "scheduling", "nodeSelector", WINDOWS_BUILD_LABEL)))
        .filter((b): b is string => b !== undefined),
    );
    for (const b of builds)
      if (!covered.has(b))
        report(`no RuntimeClass selects ${WINDOWS_BUILD_LABEL}=${b}, which a Windows MachineSet runs`);
  },
};

/** Annotation that declares a deliberate scale to zero. */
export const ALLOW_ZERO = "windows-estate.io/allow-zero-replicas";

export const capacityNotZero: ResourceRule = {
  name: "windows-capacity-not-zero",
  description: `Windows MachineSets are not scaled to zero unless annotated ${ALLOW_ZERO}: "true".`,
  enforcementLevel: "advisory",
  validate(r, report) {
    const ms = windowsMachineSet(r);
    if (!ms || ms.replicas !== 0) return;
    if (ms.annotations[ALLOW_ZERO] !== "true") {
      report(
        `${ms.name ?? r.name} has 0 replicas: Windows workloads would have nowhere to run (annotate ${ALLOW_ZERO}: "true" if intended)`,
      );
    }
  },
};

const WINDOWS_PATCHING = "pulumi-nodejs:dynamic/windows-estate:WindowsPatching";

/**
 * The declared patch level is a gate: a node below `windows-estate:patching.minimumUpdateRevision` that this update does
 * not patch (a MachineSet node: WMCO never patches; its MachineSet needs a newer image) fails the policy. Nodes the
 * rollout patches are not violations: the update brings them to the level.
 */
export const patchLevel: ResourceRule = {
  name: "windows-patch-level",
  description:
    "Windows nodes below the declared minimum update revision are patched by this update, or the update is refused.",
  enforcementLevel: "mandatory",
  validate(r, report) {
    if (r.type !== WINDOWS_PATCHING) return;
    for (const line of strings(get(r.props, "belowNotPatched")))
      report(`${line}: not patched in place; roll its MachineSet to an image at or above the declared revision`);
  },
};

export const resourceRules: ResourceRule[] = [
  patchLevel,
  machineSetLabels,
  machineSetNameLimit,
  noImdsV2Required,
  noManagedUserData,
  privateKeyOnlyInSecret,
  windowsMirrorNaming,
  capacityNotZero,
];
export const stackRules: StackRule[] = [runtimeClassPerBuild];
