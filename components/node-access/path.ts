import { EstateConfig } from "../../stacks/load";
import { readKeyFile } from "./credentials";
import { RELAY_PORT, RELAY_SELECTOR, RELAY_VANILLA_NAMESPACE } from "../../facts/day2";
import { ClusterTunnel, SshConnection } from "../../providers/ssh/types";

/** The hop every node session takes, from `windows-estate:nodeAccess`: nothing (direct), a jump host, or the relay. */
export interface NodePath {
  proxy?: SshConnection;
  cluster?: ClusterTunnel;
}

/**
 * Builds the hop. The jump host's key is read from its `privateKeyPath` (default: the WMCO key); the tunnel uses the
 * stack's kubeconfig. Both end up only in secret inputs. The tunnel goes to the relay's namespace (WMCO's on
 * OpenShift, the relay's own on a vanilla cluster: components/node-access/relay.ts declares it there) and waits
 * `nodeAccess.connectTimeoutSeconds` for each step, as long as the relay itself waits for the node.
 */
export function nodePath(
  cfg: Pick<EstateConfig, "nodeAccess" | "privateKey"> & {
    cluster: Pick<EstateConfig["cluster"], "kubeconfig" | "context">;
    /** WMCO's namespace on OpenShift; on a vanilla cluster the relay has its own (`RELAY_VANILLA_NAMESPACE`). */
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
        namespace: cfg.operator?.namespace ?? RELAY_VANILLA_NAMESPACE,
        selector: RELAY_SELECTOR,
        port: RELAY_PORT,
        timeoutSeconds: a.connectTimeoutSeconds,
      },
    };
  return {};
}
