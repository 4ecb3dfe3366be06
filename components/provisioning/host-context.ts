/**
 * What the cloud hosts' modules share (cloud-hosts.ts declares, aws-host.ts and azure-host.ts build): a host to create,
 * what each module is given and what it returns, and the component's providers. Its own module so that the per-cloud
 * modules, which load their SDK, import nothing that loads them.
 */
import * as pulumi from "@pulumi/pulumi";
import type { AwsProvisioning, AzureProvisioning } from "../../stacks/schema/provisioning";
import type { WindowsServer } from "../../facts/wmco";

/** A Windows VM to create: its stable key (also its lower-case hostname), Windows Server version and cloud block. */
export type CloudHost =
  | { kind: "aws"; key: string; hostname: string; windowsServer: WindowsServer; aws: AwsProvisioning }
  | { kind: "azure"; key: string; hostname: string; windowsServer: WindowsServer; azure: AzureProvisioning };

/** The VM an expanded `byoh[]`/`nodes[]` host stands for: none for a host given by address. */
export function cloudHostOf(
  key: string,
  windowsServer: WindowsServer,
  e: { aws?: AwsProvisioning; azure?: AzureProvisioning },
): CloudHost[] {
  if (e.aws) return [{ kind: "aws", key, hostname: key, windowsServer, aws: e.aws }];
  if (e.azure) return [{ kind: "azure", key, hostname: key, windowsServer, azure: e.azure }];
  return [];
}

/** What each cloud's module (aws-host.ts, azure-host.ts) is given. */
export interface CloudHostsContext {
  parent: pulumi.ComponentResource;
  name: string;
  cluster: { infrastructureId: string; region?: string };
  /** WMCO configures these hosts (OpenShift), rather than this program joining them (Kubernetes). */
  wmco: boolean;
  /** The explicit providers made so far, by cloud and region or subscription, shared by the hosts. */
  providers: Map<string, pulumi.ProviderResource>;
}

/** The component's explicit provider for `key` (cloud and region or subscription), made once by `make`. */
export function providerFor(
  ctx: CloudHostsContext,
  key: string,
  make: (index: number) => pulumi.ProviderResource,
): pulumi.ProviderResource {
  const cloud = key.split("/")[0];
  let provider = ctx.providers.get(key);
  if (!provider) {
    // Each cloud's providers are numbered in the order they are first needed (the Azure providers' logical names).
    provider = make([...ctx.providers.keys()].filter((k) => k.startsWith(`${cloud}/`)).length);
    ctx.providers.set(key, provider);
  }
  return provider;
}

/** What each cloud's module declares for a host. */
export interface CloudHostParts {
  /** The private IPv4 address. */
  address: pulumi.Output<string>;
  /** What a prepared host waits for: the VM (and on Azure the extension that ran first boot). */
  resources: pulumi.Resource[];
  /** The Node name WMCO will give the host, where it is not the hostname (AWS: the private DNS name). */
  nodeName?: pulumi.Output<string>;
}
