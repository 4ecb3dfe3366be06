import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import { EstateConfig } from "../stacks/load";

/**
 * What the wait resources need to ask the cluster themselves. The kubeconfig may hold credentials, so it only
 * travels as a secret; undefined means the usual loading order (KUBECONFIG, ~/.kube/config, in-cluster).
 */
export interface ClusterAccess {
  kubeconfig?: pulumi.Input<string>;
  context?: string;
}

/** How a stack reaches its cluster, whichever kind it is (OpenShift or vanilla). */
type ClusterConnection = Pick<EstateConfig["cluster"], "kubeconfig" | "context" | "render">;

/** Access for wait resources, or undefined in render mode, where there is no cluster to ask. */
export function clusterAccess(cluster: ClusterConnection): ClusterAccess | undefined {
  if (cluster.render !== undefined) return undefined;
  return {
    kubeconfig: cluster.kubeconfig === undefined ? undefined : pulumi.secret(cluster.kubeconfig),
    context: cluster.context,
  };
}

/**
 * The one explicit Kubernetes provider of a stack. `clusterIdentifier` keeps it from being replaced (and every
 * object with it) when only the kubeconfig's credentials change.
 *
 * ConfigMaps and Secrets are updated in place (`enableConfigMapMutable`, `enableSecretMutable`): without them a
 * data change replaces the object, delete first because its name is fixed (pulumi-kubernetes
 * provider/pkg/provider/diff.go `forceNewProperties`, provider.go `Diff`). WMCO reads a missing `windows-instances`
 * as empty and deconfigures every BYOH node, and a missing `cloud-private-key` locks it out of every node.
 * Turning the options on for an existing stack updates the provider in place (`DiffConfig` replaces it only when
 * `clusterIdentifier` changes).
 */
export function kubernetesProvider(
  cluster: ClusterConnection & { clusterIdentifier: string },
  opts?: pulumi.CustomResourceOptions,
): k8s.Provider {
  return new k8s.Provider("cluster", providerArgs(cluster), opts);
}

/**
 * The provider's arguments. In render mode the kubeconfig is explicitly empty: left undefined, the SDK fills it from
 * the environment's `KUBECONFIG` (@pulumi/kubernetes provider.ts, `args.kubeconfig ?? getEnv("KUBECONFIG")`), and the
 * provider refuses any kubeconfig beside `renderYamlToDirectory` (pulumi-kubernetes provider/pkg/provider/provider.go
 * `CheckConfig`, `"kubeconfig" arg is not compatible with "renderYamlToDirectory" arg`); an empty one is not "truthy"
 * there. Found through the real CLI with KUBECONFIG set, as in most pipelines.
 */
export function providerArgs(cluster: ClusterConnection & { clusterIdentifier: string }): k8s.ProviderArgs {
  const render = cluster.render !== undefined;
  return {
    kubeconfig: render ? "" : cluster.kubeconfig === undefined ? undefined : pulumi.secret(cluster.kubeconfig),
    context: render ? undefined : cluster.context,
    clusterIdentifier: cluster.clusterIdentifier,
    renderYamlToDirectory: cluster.render,
    enableConfigMapMutable: true,
    enableSecretMutable: true,
  };
}
