import { z } from "zod";
import { Platform, PLATFORMS } from "../../facts/wmco";

// The platforms are a WMCO fact (facts/wmco.ts); the config schema derives from them.
export { PLATFORMS };
export type { Platform };

/**
 * What `cluster.platform` may say: an OpenShift/OKD platform (WMCO), or `Kubernetes` for a vanilla kubeadm cluster
 * with flannel (no WMCO: Windows nodes are joined and converged by this program, `windows-estate:nodes`).
 */
const CLUSTER_PLATFORMS = [...PLATFORMS, "Kubernetes"] as const;
type ClusterPlatform = (typeof CLUSTER_PLATFORMS)[number];

/** Whether the stack manages a vanilla Kubernetes cluster rather than an OpenShift one with WMCO. */
export function isVanilla(platform: ClusterPlatform): platform is "Kubernetes" {
  return platform === "Kubernetes";
}

/** The MachineSet platform block key for each platform (`machineSets[i].<block>`); `None` has no MachineSets. */
export const PLATFORM_BLOCK = {
  AWS: "aws",
  Azure: "azure",
  GCP: "gcp",
  VSphere: "vsphere",
  Nutanix: "nutanix",
  None: undefined,
} as const satisfies Record<Platform, string | undefined>;

/**
 * `windows-estate:cluster`: which cluster this stack manages and how to reach it.
 */
export const clusterSchema = z.strictObject({
  /** The cluster's platform type (`oc get infrastructure cluster -o jsonpath='{.spec.platformSpec.type}'`). */
  platform: z.enum(CLUSTER_PLATFORMS),
  /**
   * The infrastructure ID (`oc get infrastructure cluster -o jsonpath='{.status.infrastructureName}'`), e.g. `win-tmk9g`.
   * MachineSet names, labels and default network names derive from it. Required on OpenShift; with `Kubernetes` a
   * name for the cluster used in object names, default the stack name.
   */
  infrastructureId: z
    .string()
    .regex(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/, "must be a lowercase DNS label like `win-tmk9g` (letters, digits, '-')")
    .max(63)
    .optional(),
  /** Cloud region (AWS, GCP) or location (Azure). Required for MachineSets on those platforms unless discovered. */
  region: z.string().min(1).optional(),
  /** Kubeconfig content or a path to one (`~` expanded). Default: the usual loading order (KUBECONFIG, ~/.kube/config). */
  kubeconfig: z.string().min(1).optional(),
  /** Kubeconfig context to use. Default: the kubeconfig's current context. */
  context: z.string().min(1).optional(),
  /**
   * A stable name for the cluster. The Kubernetes provider is replaced only when this changes, not when the
   * kubeconfig is edited (`clusterIdentifier`). Default: `infrastructureId`.
   */
  clusterIdentifier: z.string().min(1).optional(),
  /**
   * Render YAML into this directory instead of touching a cluster (the provider's `renderYamlToDirectory`).
   * Waits and discovery are off in this mode, since there is no cluster to ask.
   */
  render: z.string().min(1).optional(),
  /**
   * In render mode, also write the `cloud-private-key` Secret into the render directory. Off by default: the
   * Kubernetes provider renders Secrets in plaintext, so the key would sit unencrypted in a directory meant for
   * review and Git. When off, the program says how to create the Secret by hand.
   */
  renderKeySecret: z.boolean().optional(),
  /**
   * Discover missing MachineSet values (region, zone, networks) from the cluster at `pulumi preview/up`.
   * Default: true when the stack talks to a cluster (no `render`).
   */
  discovery: z.boolean().optional(),
});

/** `windows-estate:cluster` as parsed: any platform, `infrastructureId` possibly left out. */
export type ClusterConfig = z.infer<typeof clusterSchema>;

/** The cluster of an OpenShift/OKD stack, after validation: a WMCO platform and its infrastructure ID. */
export type OpenShiftClusterConfig = Omit<ClusterConfig, "platform" | "infrastructureId"> & {
  platform: Platform;
  infrastructureId: string;
};

/** Narrows a parsed cluster to an OpenShift one; undefined for `Kubernetes` or a missing infrastructure ID. */
export function asOpenShift(c: ClusterConfig): OpenShiftClusterConfig | undefined {
  const { platform, infrastructureId } = c;
  if (isVanilla(platform) || infrastructureId === undefined) return undefined;
  return { ...c, platform, infrastructureId };
}
