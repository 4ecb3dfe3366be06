import { FLANNEL_BACKEND_ANNOTATION } from "../../facts/kubernetes";

/**
 * The cluster-side objects a vanilla cluster needs for Windows nodes, as plain data. Patches are server-side apply
 * patches (pulumi-kubernetes `*Patch` resources): they set only the fields shown and never replace the object.
 */
/** flannel's ConfigMap, as the upstream manifest (kube-flannel.yml) names it. */
const FLANNEL_CONFIGMAP = { namespace: "kube-flannel", name: "kube-flannel-cfg" } as const;

/**
 * The Linux DaemonSets that must never be scheduled on Windows nodes: kubeadm's kube-proxy and flannel's
 * (kubeadm's manifest and kube-flannel.yml already select Linux; the patch keeps it so if someone edits them).
 */
export const LINUX_ONLY_DAEMONSETS = [
  { namespace: "kube-system", name: "kube-proxy" },
  { namespace: "kube-flannel", name: "kube-flannel-ds" },
] as const;

/**
 * Sets `net-conf.json` to the given text. Forced: kubectl (or the installer) owns the key, and this stack means
 * to own its value from now on (pulumi-kubernetes `pulumi.com/patchForce`).
 */
export function flannelConfigPatch(netConfJson: string) {
  return {
    apiVersion: "v1" as const,
    kind: "ConfigMap" as const,
    metadata: {
      name: FLANNEL_CONFIGMAP.name,
      namespace: FLANNEL_CONFIGMAP.namespace,
      annotations: { "pulumi.com/patchForce": "true" },
    },
    data: { "net-conf.json": netConfJson },
  };
}

/** Pins a DaemonSet to Linux nodes (`kubernetes.io/os: linux`), setting that one field. */
export function linuxOnlyPatch(namespace: string, name: string) {
  return {
    apiVersion: "apps/v1" as const,
    kind: "DaemonSet" as const,
    metadata: { name, namespace },
    spec: { template: { spec: { nodeSelector: { "kubernetes.io/os": "linux" } } } },
  };
}

/**
 * Restarts Linux flanneld after a backend change: a pod-template annotation naming the backend, so kube-flannel-ds
 * rolls its pods (its updateStrategy, one node at a time in kube-flannel.yml) and each reads the new net-conf.json.
 * Forced: a later change re-creates this patch under a new field manager (pulumi-kubernetes names one per Patch).
 */
export function flannelRestartPatch(backend: { vni: number; port: number }) {
  const [ds] = LINUX_ONLY_DAEMONSETS.filter((d) => d.name === "kube-flannel-ds");
  return {
    apiVersion: "apps/v1" as const,
    kind: "DaemonSet" as const,
    metadata: { name: ds.name, namespace: ds.namespace, annotations: { "pulumi.com/patchForce": "true" } },
    spec: {
      template: {
        metadata: { annotations: { [FLANNEL_BACKEND_ANNOTATION]: `vxlan vni=${backend.vni} port=${backend.port}` } },
      },
    },
  };
}

/** The exact fix when this stack may not change flannel's config (`flannel.manage: false`). */
export function flannelFixCommand(netConfJson: string): string {
  const body = JSON.stringify({ data: { "net-conf.json": netConfJson } });
  return `kubectl -n ${FLANNEL_CONFIGMAP.namespace} patch configmap ${FLANNEL_CONFIGMAP.name} --type merge -p '${body}'`;
}
