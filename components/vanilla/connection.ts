import * as pulumi from "@pulumi/pulumi";
import type { JoinedNode } from "./hosts";
import { SshConnection } from "../../providers/ssh/types";
import { bootstrapCredential } from "../node-access/credentials";
import { NodePath } from "../node-access/path";

/**
 * How the program reaches a vanilla node: its address and port, its first credential (the same rule as BYOH hosts),
 * its host key or trust on first use, and the stack's hop (jump host or cluster relay). A secret Output.
 */
export function nodeConnection(n: JoinedNode, stackKeyPem: string, hop: NodePath): pulumi.Output<SshConnection> {
  return bootstrapCredential(n.bootstrap, stackKeyPem, `nodes[${n.index}]`).apply((credential): SshConnection => ({
    host: n.address,
    port: n.port,
    user: n.username,
    ...credential,
    ...(n.hostKey ? { hostKey: n.hostKey } : { trustOnFirstUse: n.trustOnFirstUse }),
    pathStyle: "windows",
    ...(hop.proxy ? { proxy: hop.proxy } : {}),
    ...(hop.cluster ? { cluster: hop.cluster } : {}),
  }));
}
