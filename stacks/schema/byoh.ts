import { z } from "zod";
import { awsProvisioning, azureProvisioning } from "./provisioning";

/** How the program reaches a bring-your-own host the first time, before the WMCO key is authorized. */
const bootstrap = z.strictObject({
  /** Path to a private key that the host already accepts (`~` expanded). */
  privateKeyPath: z.string().min(1).optional(),
  /** Name of a secret stack config key (in this namespace) holding the bootstrap password, e.g. `byohPassword`. */
  passwordSecret: z.string().min(1).optional(),
});

const byohHost = z.strictObject({
  /**
   * IPv4 address or DNS name that the WMCO pod can resolve (`windows-instances` key). IPv6 is rejected by WMCO.
   * Required unless the entry provisions its VM (`aws` or `azure`), whose private IP is used.
   */
  address: z.string().min(1).optional(),
  /**
   * With `aws`/`azure`: the VMs' name and lower-case Windows hostname (`<name>-<n>` with `count` > 1), and their
   * logical names in the stack (stable: changing it replaces the VMs). At most 15 characters with the suffix.
   */
  name: z.string().min(1).optional(),
  /** With `aws`/`azure`: how many identical hosts. Default 1. */
  count: z.number().int().min(1).max(50).default(1),
  /** Create the host as an EC2 instance (instead of giving `address`). */
  aws: awsProvisioning.optional(),
  /** Create the host as an Azure VM (instead of giving `address`). */
  azure: azureProvisioning.optional(),
  /**
   * The administrator WMCO logs in as (`username=<user>` in `windows-instances`). Required with `address`; a provisioned
   * host uses `Administrator` on AWS and `azure.adminUsername` on Azure.
   */
  username: z.string().min(1).optional(),
  /** SSH port. Must be 22: WMCO always connects on 22 (validation says so for anything else). */
  port: z.number().int().min(1).max(65535).default(22),
  /**
   * The Windows Server version the host runs: `2019`, `2022` or `2025`. Default `2022`. Checked against the WMCO in
   * use and against the host itself; it decides the host's RuntimeClass.
   */
  windowsServer: z.enum(["2019", "2022", "2025"]).default("2022"),
  /** The host's SSH host key: an OpenSSH public-key line or a `SHA256:` fingerprint. Required unless `trustOnFirstUse`. */
  hostKey: z.string().min(1).optional(),
  /** Record the host key at first contact and enforce it afterwards. Default false: an unknown host key is an error. */
  trustOnFirstUse: z.boolean().default(false),
  /**
   * How long one operation on this host may keep retrying to connect (a host that is rebooting comes back within
   * it), in seconds. Default 120; a refresh looks for at most 30 of them.
   */
  sshDeadlineSeconds: z.number().int().min(5).max(3600).optional(),
  /** Credential for the first connection; afterwards the WMCO key is used. Default: the WMCO key itself. */
  bootstrap: bootstrap.optional(),
});

/**
 * `windows-estate:byoh`: Windows hosts you bring yourself. Each is prepared over SSH and listed in WMCO's
 * `windows-instances` ConfigMap; removing an entry makes WMCO deconfigure that node.
 */
export const byohSchema = z.array(byohHost).default([]);

export type ByohHostConfig = z.output<typeof byohHost>;

export type { AwsProvisioning, AzureProvisioning } from "./provisioning";
