/**
 * The `windows-estate:nodes` entries as the nodes they stand for: a host given by address, or `count` VMs an entry
 * creates on AWS or Azure. A created node's `address` is its name until the VM exists (its private IP is used for SSH
 * and flannel then), and its Node name is that name. Validation (validate.ts) has proved each entry has an address
 * and a username, or one provisioning block and a name. Pure.
 */
import type { VanillaNodeConfig } from "../../stacks/schema/kubernetes";
import type { AwsProvisioning, AzureProvisioning } from "../../stacks/schema/provisioning";
import { AWS_WINDOWS_USER, provisionedName } from "../byoh/hosts";

/** A node entry with what validation proved: an address (or a created VM's name) and a username. */
export type JoinedNode = VanillaNodeConfig & {
  address: string;
  username: string;
  /** Index of the entry in `windows-estate:nodes`. */
  index: number;
  /** Set for a node this stack creates: the cloud and its block. */
  create?: { kind: "aws"; aws: AwsProvisioning } | { kind: "azure"; azure: AzureProvisioning };
};

export function expandNodes(entries: readonly VanillaNodeConfig[]): JoinedNode[] {
  return entries.flatMap((n, index): JoinedNode[] => {
    const base = n.name ?? `node-${index}`;
    const created = (username: string, create: NonNullable<JoinedNode["create"]>) =>
      Array.from({ length: n.count }, (_, k): JoinedNode => {
        const name = provisionedName(base, n.count, k + 1);
        return { ...n, address: name, name, username, trustOnFirstUse: true, index, create };
      });
    if (n.aws) return created(AWS_WINDOWS_USER, { kind: "aws", aws: n.aws });
    if (n.azure) return created(n.azure.adminUsername, { kind: "azure", azure: n.azure });
    if (!n.address || !n.username) return []; // refused by validate.ts before anything is declared
    return [{ ...n, address: n.address, username: n.username, index }];
  });
}
