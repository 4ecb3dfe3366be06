import * as pulumi from "@pulumi/pulumi";
import { isObject } from "../../lib/json";

/**
 * Argo CD applies a sync wave only once every resource of the waves before it is healthy (argo-cd
 * docs/user-guide/sync-waves.md; the annotation's value is an integer as a string, default "0").
 */
const SYNC_WAVE_ANNOTATION = "argocd.argoproj.io/sync-wave";

/**
 * The order `pulumi up` itself keeps against a cluster (docs/architecture.md, "How the estate is converged"), as
 * waves for whoever applies rendered YAML: the operator and cluster-wide settings first, then what WMCO reads once it
 * runs (its key, `windows-instances`), then the MachineSets, which need the `windows-user-data` WMCO writes after it
 * has seen the key. On a vanilla cluster: accounts, RBAC and scripts, then the DaemonSets that use them.
 */
function syncWave(kind: string): number | undefined {
  switch (kind) {
    case "Namespace":
    case "OperatorGroup":
    case "Subscription":
    case "ImageDigestMirrorSet":
    case "ImageTagMirrorSet":
    case "RuntimeClass":
    case "ServiceAccount":
    case "ClusterRole":
    case "ClusterRoleBinding":
    case "Role":
    case "RoleBinding":
      return 0;
    case "Secret":
    case "ConfigMap":
    case "DaemonSet":
      return 1;
    case "MachineSet":
      return 2;
    default:
      return undefined;
  }
}

/**
 * In render mode only: every rendered Kubernetes object gets its wave as an annotation. A stack that applies to a
 * cluster itself gets no such annotation (it would be a diff on every object for no one to read).
 */
export const annotateSyncWaves: pulumi.ResourceTransformation = (args) => {
  // Patches (`*Patch`) change objects someone else owns (flannel's ConfigMap, Linux DaemonSets): no wave of ours.
  if (!args.type.startsWith("kubernetes:") || args.type.endsWith("Patch")) return undefined;
  const wave = syncWave(args.type.split(":").pop() ?? "");
  if (wave === undefined) return undefined;
  // Entries are kept as given; only the wave is added. Either level may be an Output (a ConfigMap built from
  // resolved addresses has Output args, so its `metadata` is an Output too).
  const withWave = (a: unknown) => ({ ...(isObject(a) ? a : {}), [SYNC_WAVE_ANNOTATION]: String(wave) });
  const annotate = (m: unknown) => {
    const md = isObject(m) ? m : {};
    const given = md.annotations;
    return { ...md, annotations: pulumi.Output.isInstance(given) ? given.apply(withWave) : withWave(given) };
  };
  const given = args.props.metadata;
  const metadata = pulumi.Output.isInstance(given) ? given.apply(annotate) : annotate(given);
  return { props: { ...args.props, metadata }, opts: args.opts };
};
