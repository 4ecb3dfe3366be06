import { MACHINE_API_NAMESPACE, WINDOWS_BUILD_LABEL, WINDOWS_SERVER } from "../../facts/wmco";
import { MachineSetConfig } from "../../stacks/schema/machinesets";
import { MANAGED_BY } from "../operator/builders";

export const LABEL = {
  cluster: "machine.openshift.io/cluster-api-cluster",
  role: "machine.openshift.io/cluster-api-machine-role",
  type: "machine.openshift.io/cluster-api-machine-type",
  machineSet: "machine.openshift.io/cluster-api-machineset",
  osId: "machine.openshift.io/os-id",
  ignore: "windowsmachineconfig.openshift.io/ignore",
  workerRole: "node-role.kubernetes.io/worker",
} as const;

export interface MachineSetObject {
  apiVersion: "machine.openshift.io/v1beta1";
  kind: "MachineSet";
  metadata: { name: string; namespace: string; labels: Record<string, string>; annotations?: Record<string, string> };
  spec: {
    replicas: number;
    selector: { matchLabels: Record<string, string> };
    template: {
      metadata: { labels: Record<string, string> };
      spec: {
        metadata: { labels: Record<string, string> };
        taints?: { key: string; value?: string; effect: string }[];
        providerSpec: { value: Record<string, unknown> };
      };
    };
  };
}

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
): MachineSetObject {
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
    apiVersion: "machine.openshift.io/v1beta1",
    kind: "MachineSet",
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
