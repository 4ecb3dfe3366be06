/**
 * The `windows-estate:byoh` entries as the hosts they stand for: a host given by address, or `count` VMs an entry
 * provisions on AWS or Azure (named `<name>` or `<name>-<n>`). Validation (validate.ts) has proved each entry has
 * either an address and a username or exactly one provisioning block with a name. Pure.
 */
import type { AwsProvisioning, AzureProvisioning, ByohHostConfig } from "../../stacks/schema/byoh";

interface Common {
  /** Stable key: the address, or the provisioned host's name. Logical names and messages use it. */
  key: string;
  username: string;
  entry: ByohHostConfig;
  /** Index of the entry in `windows-estate:byoh`. */
  index: number;
}

export type ByohHost =
  | (Common & { kind: "manual"; address: string })
  | (Common & { kind: "aws"; hostname: string; aws: AwsProvisioning })
  | (Common & { kind: "azure"; hostname: string; azure: AzureProvisioning });

/** The user WMCO logs in as on a provisioned host: AWS Windows AMIs' `Administrator`; Azure's declared admin. */
export const AWS_WINDOWS_USER = "Administrator";

/** A provisioned host's name: the entry's name, with `-<n>` (from 1) when it makes several. */
export function provisionedName(name: string, count: number, n: number): string {
  return count > 1 ? `${name}-${n}` : name;
}

export function expandByoh(entries: readonly ByohHostConfig[]): ByohHost[] {
  return entries.flatMap((entry, index): ByohHost[] => {
    const name = entry.name ?? `byoh-${index}`;
    const names = Array.from({ length: entry.count }, (_, k) => provisionedName(name, entry.count, k + 1));
    const { aws, azure } = entry;
    const cloud = aws
      ? { kind: "aws" as const, aws, username: AWS_WINDOWS_USER }
      : azure
        ? { kind: "azure" as const, azure, username: azure.adminUsername }
        : undefined;
    if (cloud) return names.map((hostname) => ({ ...cloud, key: hostname, hostname, entry, index }));
    if (!entry.address || !entry.username) return []; // refused by validate.ts before anything is declared
    return [{ kind: "manual", key: entry.address, address: entry.address, username: entry.username, entry, index }];
  });
}
