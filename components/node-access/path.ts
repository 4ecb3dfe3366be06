import { EstateConfig } from "../../stacks/load";
import { readKeyFile } from "./credentials";
import { RELAY_PORT, RELAY_SELECTOR } from "../../facts/day2";
import { ClusterTunnel, SshConnection } from "../../providers/ssh/types";

/** The hop every node session takes, from `windows-estate:nodeAccess`: nothing (direct), a jump host, or the relay. */
export interface NodePath {
  proxy?: SshConnection;
  cluster?: ClusterTunnel;
}

/**
 * Builds the hop. The jump host's key is read from its `privateKeyPath` (default: the WMCO key); the tunnel uses the
 * stack's kubeconfig. Both end up only in secret inputs.
 */
export function nodePath(
  cfg: Pick<EstateConfig, "nodeAccess" | "privateKey"> & {
    cluster: Pick<EstateConfig["cluster"], "kubeconfig" | "context">;
    /** WMCO's namespace on OpenShift; the relay's namespace on a vanilla cluster is kube-system. */
    operator?: { namespace: string };
  },
): NodePath {
  const a = cfg.nodeAccess;
  if (a.via === "jumpHost" && a.jumpHost) {
    const j = a.jumpHost;
    const privateKey = j.privateKeyPath
      ? readKeyFile(j.privateKeyPath, "nodeAccess.jumpHost.privateKeyPath")
      : cfg.privateKey.pem;
    return {
      proxy: {
        host: j.address,
        port: j.port,
        user: j.username,
        hostKey: j.hostKey,
        privateKey,
        connectTimeoutSeconds: a.connectTimeoutSeconds,
        pathStyle: "posix",
      },
    };
  }
  if (a.via === "cluster")
    return {
      cluster: {
        ...(cfg.cluster.kubeconfig ? { kubeconfig: cfg.cluster.kubeconfig } : {}),
        ...(cfg.cluster.context ? { context: cfg.cluster.context } : {}),
        namespace: cfg.operator?.namespace ?? "kube-system",
        selector: RELAY_SELECTOR,
        port: RELAY_PORT,
      },
    };
  return {};
}
