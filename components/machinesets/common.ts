import { MACHINE_API_NAMESPACE, WINDOWS_BUILD_LABEL, WINDOWS_SERVER } from "../../facts/wmco";
import type { ConfigIssue } from "../../stacks/config-issue";
import { MachineSetConfig } from "../../stacks/schema/machinesets";
import { MANAGED_BY } from "../operator/builders";
import type { Infrastructure } from "../cluster-objects";

/** Values known only at `pulumi up` (the AWS AMI looked up by name) or read from the cluster. */
export interface Resolved {
  amiId?: string;
  /** `spec.replicas` to declare instead of `set.replicas` (machine-surge-plan.ts `declaredReplicas`, mid-surge). */
  replicas?: number;
}

/** What the Linux workers of one platform give its Windows MachineSets, decoded from their providerSpecs. */
export interface Workers {
  /** The cluster's region: the Infrastructure's, else the first worker's (AWS, GCP, Azure's `location`). */
  region(infra: Infrastructure | undefined): string | undefined;
  /** The set with what its config left out copied from the workers; config always wins. */
  complete(set: MachineSetConfig): MachineSetConfig;
  /** What a VM the stack creates for a BYOH host copies from the first worker (hack/machineset.sh copies them too). */
  hosts: { iamInstanceProfile?: string; publicLoadBalancer?: string };
}

/**
 * One platform's Windows MachineSets, each in its own file (aws.ts, azure.ts, gcp.ts, vsphere.ts, nutanix.ts): its
 * config block, what discovery fills, what its Linux workers give, its own checks, and its providerSpec.
 */
export interface PlatformMachineSets {
  block: "aws" | "azure" | "gcp" | "vsphere" | "nutanix";
  /** Fields discovery can fill; without discovery they must be in the config (validate.ts `requiredFieldIssues`). */
  discoverable: readonly string[];
  /** The zone a set names, which must be in `cluster.region` and names the set (names.ts). */
  zone(set: MachineSetConfig): string | undefined;
  /** Decodes the Linux workers' `providerSpec.value`s. */
  workers(providerSpecs: readonly unknown[]): Workers;
  /** The set's providerSpec; validation has guaranteed every value it needs (a missing one is a bug, said so). */
  providerSpec(infraId: string, region: string, set: MachineSetConfig, resolved: Resolved): Record<string, unknown>;
  /** The platform's own rules for a set (errors). */
  issues(set: MachineSetConfig, i: number): ConfigIssue[];
  /** What the set should carry and may not without discovery (warnings). */
  warnings?(set: MachineSetConfig, i: number): ConfigIssue[];
}

/**
 * The workers of a platform with no region and nothing for a created host (vSphere, Nutanix): each set's block
 * completed from the first worker, decoded by `decode`.
 */
export function firstWorkerFills<K extends "vsphere" | "nutanix", W>(
  block: K,
  providerSpecs: readonly unknown[],
  decode: (spec: unknown) => W,
  complete: (b: NonNullable<MachineSetConfig[K]>, w: W | undefined) => NonNullable<MachineSetConfig[K]>,
): Workers {
  const first = providerSpecs.length > 0 ? decode(providerSpecs[0]) : undefined;
  return {
    region: () => undefined,
    complete: (set) => {
      const b = set[block];
      return b ? { ...set, [block]: complete(b, first) } : set;
    },
    hosts: {},
  };
}

/** The block with each of `keys` its config left out taken from the worker; config always wins (`""` included). */
export function fillFrom<B extends object>(block: B, worker: Partial<B> | undefined, keys: readonly (keyof B)[]): B {
  const filled = keys.flatMap((k) => (block[k] === undefined && worker?.[k] !== undefined ? [[k, worker[k]]] : []));
  return { ...block, ...Object.fromEntries(filled) };
}

/** A block whose fields `K` validation (without discovery) or discovery have filled: what a builder accepts. */
export type Filled<B, K extends keyof B> = B & { [P in K]-?: NonNullable<B[P]> };

function isFilled<B extends object, K extends keyof B>(block: B, keys: readonly K[]): block is Filled<B, K> {
  return keys.every((k) => block[k] !== undefined);
}

/**
 * The set's block with its `discoverable` keys filled, as validation guarantees (validate.ts `requiredFieldIssues`
 * checks the same keys); a missing one is a bug in this program, reported as such.
 */
export function filled<B extends object, K extends keyof B>(
  block: B | undefined,
  keys: readonly K[],
  what: string,
): Filled<B, K> {
  if (block && isFilled(block, keys)) return block;
  throw new Error(`internal: ${what} (${keys.join(", ")}) missing after validation`);
}

/** A value validation guarantees; undefined here is a bug in this program, reported as such. */
export function required<T>(v: T | undefined, what: string): T {
  if (v === undefined) throw new Error(`internal: ${what} missing after validation`);
  return v;
}

export const LABEL = {
  cluster: "machine.openshift.io/cluster-api-cluster",
  role: "machine.openshift.io/cluster-api-machine-role",
  type: "machine.openshift.io/cluster-api-machine-type",
  machineSet: "machine.openshift.io/cluster-api-machineset",
  osId: "machine.openshift.io/os-id",
  ignore: "windowsmachineconfig.openshift.io/ignore",
  workerRole: "node-role.kubernetes.io/worker",
} as const;

/**
 * The part every platform shares, as WMCO requires it: `os-id: Windows` (WMCO only watches such Machines), worker
 * role and type, `node-role.kubernetes.io/worker: ""` on the Machine so the node joins as a worker, and a selector
 * equal to the template's identifying labels so the MachineSet owns its Machines.
 */
export function buildSkeleton(
  infraId: string,
  name: string,
  set: MachineSetConfig,
  providerSpec: Record<string, unknown>,
) {
  const selector = { [LABEL.cluster]: infraId, [LABEL.machineSet]: name };
  const templateLabels: Record<string, string> = {
    ...selector,
    [LABEL.role]: "worker",
    [LABEL.type]: "worker",
    [LABEL.osId]: "Windows",
  };
  if (set.byoh) templateLabels[LABEL.ignore] = "true";
  // A surge rollout scales `spec.replicas` itself (a JSON merge patch, which makes its field manager the field's
  // owner under server-side apply). Forcing lets the declared value win again when `replicas` is next changed in the
  // config, instead of pulumi-kubernetes stopping at a field conflict (its `pulumi.com/patchForce`).
  const all = { ...set.annotations, ...(set.rollout?.strategy === "surge" ? { "pulumi.com/patchForce": "true" } : {}) };
  const annotations = Object.keys(all).length > 0 ? { annotations: all } : {};
  return {
    apiVersion: "machine.openshift.io/v1beta1" as const,
    kind: "MachineSet" as const,
    // The Windows build, on the MachineSet object only (not propagated to Machines or Nodes, where kubelet sets the
    // same label itself): what the policy pack reads to require a RuntimeClass per build.
    metadata: {
      name,
      namespace: MACHINE_API_NAMESPACE,
      labels: {
        [LABEL.cluster]: infraId,
        ...MANAGED_BY,
        [WINDOWS_BUILD_LABEL]: WINDOWS_SERVER[set.windowsServer].buildLabel,
      },
      ...annotations,
    },
    spec: {
      replicas: set.replicas,
      selector: { matchLabels: selector },
      template: {
        metadata: { labels: templateLabels },
        spec: {
          metadata: { labels: { ...set.labels, [LABEL.workerRole]: "" } },
          ...(set.taints.length > 0 ? { taints: set.taints.map((t) => ({ ...t })) } : {}),
          providerSpec: { value: providerSpec },
        },
      },
    },
  };
}
