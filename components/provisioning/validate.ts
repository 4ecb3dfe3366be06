/**
 * Checks an entry (`byoh[]` or vanilla `nodes[]`) that creates its VM with an `aws` or `azure` block: one cloud, a name
 * that makes valid Windows hostnames, none of the fields only a host given by address has, and an Azure admin password
 * that is a secret config value; and what both lists check of a host given by address. Pure.
 */
import { isIP } from "net";
import { ConfigIssue, joinPath } from "../../stacks/config-issue";
import { isUsablePin } from "../../providers/ssh/host-key";
import type { AwsProvisioning, AzureProvisioning } from "../../stacks/schema/provisioning";
import { provisionedName } from "../byoh/hosts";

/** What the check reads of an entry: the fields `byoh[]` and `nodes[]` share. */
interface CreatedEntry {
  name?: string;
  count: number;
  windowsServer: string;
  aws?: AwsProvisioning;
  azure?: AzureProvisioning;
  address?: string;
  username?: string;
  hostKey?: string;
  bootstrap?: unknown;
}

/** Hostnames Windows and WMCO accept: lower case (WMCO's BYOH docs), a DNS label, NetBIOS's 15 characters. */
const HOSTNAME = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
// Characters Windows forbids in account names, plus whitespace and '=' (WMCO's value separator).
export const BAD_USERNAME = /[\s"/\\[\]:;|=,+*?<>@]/;
const DNS_NAME = /^(?=.{1,253}$)([a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?)(\.[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?)*$/i;

/**
 * What `byoh[]` and `nodes[]` check of a host given by address: an IPv4 address or a DNS name (`words.ipv6` says
 * what to give instead of IPv6), each address once (`seen`: the earlier entries' lower-cased addresses, added to), a
 * usable host key unless trusted on first use (`words.hostKey` and `words.pin` say how to find it), one way in.
 */
export function givenHostIssues(
  h: { address: string; hostKey?: string; trustOnFirstUse: boolean; bootstrap?: Record<string, unknown> },
  list: "byoh" | "nodes",
  i: number,
  seen: Map<string, number>,
  words: { ipv6: string; hostKey: string; pin: string },
): ConfigIssue[] {
  const at = (p: string) => joinPath([list, i, p]);
  const errors: ConfigIssue[] = [];
  const family = isIP(h.address);
  if (family === 6 || h.address.includes(":"))
    errors.push({ path: at("address"), message: `${h.address} is IPv6 (or has a port); ${words.ipv6}` });
  else if (family !== 4 && /^[\d.]+$/.test(h.address))
    errors.push({ path: at("address"), message: `${h.address} looks like an IPv4 address but is not a valid one` });
  else if (family !== 4 && !DNS_NAME.test(h.address))
    errors.push({
      path: at("address"),
      message: `${JSON.stringify(h.address)} is neither an IPv4 address nor a DNS name`,
    });
  const first = seen.get(h.address.toLowerCase());
  if (first !== undefined)
    errors.push({
      path: at("address"),
      message: `${h.address} is listed twice (also ${list}[${first}]); each host appears once`,
    });
  else seen.set(h.address.toLowerCase(), i);
  if (!h.hostKey && !h.trustOnFirstUse) errors.push({ path: at("hostKey"), message: words.hostKey });
  if (h.hostKey && !isUsablePin(h.hostKey)) errors.push({ path: at("hostKey"), message: words.pin });
  if (h.bootstrap?.privateKeyPath && h.bootstrap.passwordSecret)
    errors.push({ path: at("bootstrap"), message: "set either privateKeyPath or passwordSecret, not both" });
  return errors;
}

/**
 * What an entry without an aws or azure block lacks when it has no `address` or no `username`: the first of them;
 * `account` says what the username names there.
 */
export function givenHostMissing(
  e: Pick<CreatedEntry, "address">,
  at: (...p: (string | number)[]) => string,
  account: string,
): ConfigIssue {
  return e.address === undefined
    ? {
        path: at("address"),
        message:
          "is required (the host's IPv4 address or DNS name), unless the entry creates its VM with an aws or azure block",
      }
    : { path: at("username"), message: `is required: ${account}` };
}

export function createdEntryIssues(
  e: CreatedEntry,
  at: (...p: (string | number)[]) => string,
  secretKeys: ReadonlySet<string>,
): ConfigIssue[] {
  const errors: ConfigIssue[] = [];
  if (e.aws && e.azure)
    errors.push({ path: at("azure"), message: "an entry creates its VM on one cloud: keep either aws or azure" });
  if (e.address !== undefined)
    errors.push({
      path: at("address"),
      message: "comes from the VM this entry creates (its private IP): remove address (or the aws/azure block)",
    });
  if (e.username !== undefined)
    errors.push({
      path: at("username"),
      message: `comes from the VM (${e.aws ? "Administrator on AWS" : "azure.adminUsername"}): remove username`,
    });
  if (e.hostKey !== undefined || e.bootstrap !== undefined)
    errors.push({
      path: at(e.hostKey !== undefined ? "hostKey" : "bootstrap"),
      message:
        "a VM this stack creates is reached with the key its user data authorizes, and its host key is pinned at first contact (trust on first use): remove it",
    });
  if (e.name === undefined)
    errors.push({
      path: at("name"),
      message:
        "is required for a host this stack creates: its VM name, lower-case hostname, Node name and stable logical name",
    });
  else {
    const longest = provisionedName(e.name, e.count, e.count);
    if (!HOSTNAME.test(e.name) || longest.length > 15)
      errors.push({
        path: at("name"),
        message: `${JSON.stringify(longest)} is not a Windows hostname WMCO accepts: lower-case letters, digits and '-', at most 15 characters including the -<n> suffix`,
      });
  }
  if (e.azure && !e.azure.image && e.windowsServer === "2019")
    errors.push({
      path: at("azure", "image"),
      message:
        "is required for Windows Server 2019: the image version WMCO's releases pinned was removed by Microsoft (give publisher, offer, sku and a version you have checked)",
    });
  const ref = e.azure?.adminPasswordSecret;
  if (ref !== undefined && !secretKeys.has(`windows-estate:${ref}`))
    errors.push({
      path: at("azure", "adminPasswordSecret"),
      message: `names windows-estate:${ref}, which is not set as a secret; run \`pulumi config set --secret windows-estate:${ref} <password>\` (Azure requires an admin password; it never leaves Pulumi's secrets)`,
    });
  if (e.azure && BAD_USERNAME.test(e.azure.adminUsername))
    errors.push({
      path: at("azure", "adminUsername"),
      message: `${JSON.stringify(e.azure.adminUsername)} cannot be a Windows account name WMCO parses`,
    });
  return errors;
}
