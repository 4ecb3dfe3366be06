/**
 * One Windows VM on Azure (NIC, VM, the extension that runs its first boot), with its explicit provider per
 * subscription and location. Loaded only by stacks that create Azure hosts (cloud-hosts.ts): `@pulumi/azure-native`
 * is an optional peer dependency.
 */
import * as pulumi from "@pulumi/pulumi";
import { Provider as AzureProvider } from "@pulumi/azure-native/provider";
import { VirtualMachine, VirtualMachineExtension } from "@pulumi/azure-native/compute";
import { NetworkInterface, getLoadBalancerOutput } from "@pulumi/azure-native/network";
import { azureImage } from "../machinesets/azure";
import { AZURE_RUN_CUSTOM_DATA } from "./user-data";
import { providerFor } from "./host-context";
import type { CloudHost, CloudHostParts, CloudHostsContext } from "./host-context";
import { azureOutboundWarning } from "./cloud-rules";
import { isOffline } from "../../stacks/offline";

/**
 * The IPv4 backend pools of a load balancer, as machine-api's Azure actuator joins a Machine's NIC to its
 * `publicLoadBalancer` (openshift/machine-api-provider-azure pkg/cloud/azure/services/networkinterfaces
 * networkinterfaces.go: every pool of the balancer, those named `…-v6` going to the IPv6 configuration).
 */
export function ipv4Pools(pools: readonly { id?: string; name?: string }[] | undefined): { id: string }[] {
  return (pools ?? []).flatMap((p) => (p.id && p.name && !p.name.endsWith("-v6") ? [{ id: p.id }] : []));
}

export function azureHost(
  h: Extract<CloudHost, { kind: "azure" }>,
  ctx: CloudHostsContext,
  customData: pulumi.Output<string>,
): CloudHostParts {
  const { parent, name } = ctx;
  const a = h.azure;
  const infra = ctx.cluster.infrastructureId;
  const location = a.location ?? ctx.cluster.region ?? "";
  const group = a.resourceGroup ?? `${infra}-rg`;
  const provider = providerFor(
    ctx,
    `azure/${a.subscriptionId}/${location}`,
    (index) => new AzureProvider(`${name}-azure-${index}`, { subscriptionId: a.subscriptionId, location }, { parent }),
  );
  const subnetId = [
    `/subscriptions/${a.subscriptionId}/resourceGroups/${a.networkResourceGroup ?? group}`,
    `providers/Microsoft.Network/virtualNetworks/${a.vnet ?? `${infra}-vnet`}`,
    `subnets/${a.subnet ?? `${infra}-worker-subnet`}`,
  ].join("/");
  // The way out first boot needs (Windows Update, then the registries): the cluster's public load balancer, as
  // WMCO's MachineSets have it; read at preview and up, as the actuator reads it when it creates a NIC.
  if (a.publicLoadBalancer === undefined) pulumi.log.warn(azureOutboundWarning(h.key), parent);
  // Offline (synth) nothing is looked up: the pool reads as what it stands for.
  const pools = !a.publicLoadBalancer
    ? undefined
    : isOffline()
      ? pulumi.output([
          { id: `<the IPv4 backend pools of load balancer ${a.publicLoadBalancer}, read at preview and up>` },
        ])
      : getLoadBalancerOutput(
          { resourceGroupName: group, loadBalancerName: a.publicLoadBalancer },
          { parent, provider },
        ).apply((lb) => ipv4Pools(lb.backendAddressPools));
  const nic = new NetworkInterface(
    `${name}-${h.key}-nic`,
    {
      resourceGroupName: group,
      location,
      networkInterfaceName: `${h.hostname}-nic`,
      ipConfigurations: [
        {
          name: "ipconfig1",
          subnet: { id: subnetId },
          privateIPAllocationMethod: "Dynamic",
          ...(pools ? { loadBalancerBackendAddressPools: pools } : {}),
        },
      ],
      tags: { [`kubernetes.io_cluster.${infra}`]: "owned" },
    },
    { parent, provider },
  );
  const password = new pulumi.Config("windows-estate").requireSecret(a.adminPasswordSecret);
  const image = a.image ?? azureImage(h.windowsServer);
  const vm = new VirtualMachine(
    `${name}-${h.key}`,
    {
      resourceGroupName: group,
      location,
      vmName: h.hostname,
      hardwareProfile: { vmSize: a.vmSize },
      osProfile: {
        computerName: h.hostname,
        adminUsername: a.adminUsername,
        adminPassword: password,
        // Azure stores custom data on the VM; it holds only the public key (the password is above, a secret).
        customData,
        // Patch levels are this stack's job (windows-estate:patching), not Windows Update's own schedule.
        windowsConfiguration: { provisionVMAgent: true, enableAutomaticUpdates: false },
      },
      storageProfile: {
        imageReference: { publisher: image.publisher, offer: image.offer, sku: image.sku, version: image.version },
        osDisk: {
          createOption: "FromImage",
          diskSizeGB: a.osDiskSizeGB,
          managedDisk: { storageAccountType: "Premium_LRS" },
        },
      },
      networkProfile: { networkInterfaces: [{ id: nic.id, primary: true }] },
      // The serial console the first-boot lines go to (host key, failures): boot diagnostics on managed storage
      // ("If storageUri is not specified while enabling boot diagnostics, managed storage will be used"), as WMCO's
      // MachineSets (hack/machineset.sh `diagnostics.boot.storageAccountType: AzureManaged`).
      diagnosticsProfile: { bootDiagnostics: { enabled: true } },
      tags: { [`kubernetes.io_cluster.${infra}`]: "owned" },
    },
    {
      parent,
      provider,
      // First boot only: customData "cannot be updated after the VM is created" (azure-native OSProfile; ARM answers
      // 409 PropertyChangeNotAllowed), so a rotated key or a reworded script must not reach it; they go over SSH.
      // The OS disk of a running VM grows only deallocated: a new size applies to VMs created from then on.
      ignoreChanges: ["osProfile.customData", "storageProfile.osDisk.diskSizeGB"],
    },
  );
  const run = new VirtualMachineExtension(
    `${name}-${h.key}-first-boot`,
    {
      resourceGroupName: group,
      location,
      vmName: vm.name,
      vmExtensionName: "windows-estate-first-boot",
      publisher: "Microsoft.Compute",
      type: "CustomScriptExtension",
      typeHandlerVersion: "1.10",
      autoUpgradeMinorVersion: true,
      settings: { commandToExecute: AZURE_RUN_CUSTOM_DATA },
    },
    { parent, provider },
  );
  return {
    // Azure assigns the address when it creates the NIC (dynamic allocation): a preview that plans the NIC from
    // its inputs has none yet. Unknown then, as any output the provider will compute, never "": an empty
    // address would fail the host's check. Found through the real CLI (test/e2e/plan.e2e.ts).
    address: nic.ipConfigurations.apply(
      (c) => c?.[0]?.privateIPAddress ?? (pulumi.runtime.isDryRun() ? (pulumi.unknown as never) : ""),
    ),
    resources: [vm, run],
  };
}
