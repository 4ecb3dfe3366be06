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

/** Access for wait resources, or undefined in render mode, where there is no cluster to ask. */
export function clusterAccess(cluster: EstateConfig["cluster"]): ClusterAccess | undefined {
  if (cluster.render !== undefined) return undefined;
  return {
    kubeconfig: cluster.kubeconfig === undefined ? undefined : pulumi.secret(cluster.kubeconfig),
    context: cluster.context,
  };
}

/**
 * The one explicit Kubernetes provider of a stack. `clusterIdentifier` keeps it from being replaced (and every
 * object with it) when only the kubeconfig's credentials change.
 */
export function kubernetesProvider(cluster: EstateConfig["cluster"], opts?: pulumi.CustomResourceOptions): k8s.Provider {
  return new k8s.Provider(
    "cluster",
    {
      kubeconfig: cluster.kubeconfig === undefined ? undefined : pulumi.secret(cluster.kubeconfig),
      context: cluster.context,
      clusterIdentifier: cluster.clusterIdentifier,
      renderYamlToDirectory: cluster.render,
    },
    opts,
  );
}
