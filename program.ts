import * as pulumi from "@pulumi/pulumi";
// Pulumi records a stack trace for every resource it registers (Resource.callsites: `new Error().stack`, unlimited
// depth); with ts-node's source-map support each frame is mapped back to TypeScript, which for a large estate costs
// seconds. V8's own positions are kept unless DEBUG is set (as synth does); our errors never rely on stack traces.
if (!process.env.DEBUG) Reflect.deleteProperty(Error, "prepareStackTrace");
import { WindowsEstate } from "./components/estate";
import { VanillaEstate } from "./components/vanilla/estate";
import { argsFromStack } from "./stacks/from-pulumi";
import { VanillaEstateArgs, WindowsEstateArgs } from "./components/args";

/**
 * The program: the stack config as the components' args, and the component its `cluster.platform` names. The
 * component validates them (and, against a live cluster, completes them by discovery) before it declares anything,
 * telling the problems in the stack config's terms: a config error declares no child.
 */
export = async () => {
  const { args, reader, vanilla: isVanilla } = argsFromStack<WindowsEstateArgs & VanillaEstateArgs>();
  if (isVanilla) return vanilla(new VanillaEstate("estate", args, { reader }));
  // A fixed logical name: `pulumi stack rename` must not rename (and so replace) anything. Stacks made before
  // used the stack name; the alias carries them over, and children follow through the engine's inherited aliases.
  const estate = new WindowsEstate("estate", args, { aliases: [{ name: pulumi.getStack() }], reader });
  // The problems alone end the run, before any output is read.
  await estate.whenDeclared();
  return {
    /** Namespace WMCO runs in. */
    operatorNamespace: estate.operatorNamespace,
    /** The installed and succeeded WMCO CSV (unknown in render mode). */
    installedCSV: estate.installedCSV,
    /** Public half of the WMCO key as an `authorized_keys` line: put it on golden images and BYOH hosts. */
    wmcoPublicKey: estate.publicKey,
    /** SHA256 fingerprint of the WMCO key. */
    wmcoPublicKeyFingerprint: estate.publicKeyFingerprint,
    /** Per MachineSet: name, platform, Windows Server version and build, replicas. */
    machineSets: estate.machineSets,
    /** RuntimeClasses for the Windows builds in use: set `runtimeClassName` on Windows pods. */
    runtimeClasses: estate.runtimeClasses,
    /** The containerd hosts.toml every Windows node gets from WMCO, by registry directory, credentials redacted. */
    windowsRegistryConfig: estate.windowsRegistryConfig,
    /** The same files by full Windows path (synth writes them under windows-node-files/). */
    windowsNodeFiles: estate.windowsNodeFiles,
    /** Which mirror sets each registry file comes from (this stack's or the cluster's), and what the files cover. */
    windowsRegistrySources: estate.windowsRegistrySources,
    /** The cluster-wide proxy WMCO applies to every Windows node (read at preview/up; credentials removed). */
    clusterProxy: estate.clusterProxy.apply((p) => p ?? null),
    /** Bring-your-own hosts as prepared (hostname, Windows Server version, host key fingerprint). */
    byohHosts: estate.byohHosts,
    /** The first-boot script of each BYOH VM this stack creates on AWS or Azure (no secret in it). */
    byohVmFirstBoot: estate.createdHostsFirstBoot,
    /** The rolling reboot (`windows-estate:reboot`): token and the nodes in their batches, as preview shows them. */
    windowsReboot: estate.reboot.apply((r) => (r ? { token: r.token, plan: r.plan } : undefined)),
    /** Every Windows node: Windows Server version, build, update revision, kubelet/runtime versions, patch level. */
    windowsNodeInventory: estate.inventory,
    /** The patch rollout (`windows-estate:patching`): the minimum, the batches planned, nodes left to an image roll. */
    windowsPatching: estate.patching,
    /** Per managed node (BYOH, vanilla): boot time, uptime and a pending restart, read over SSH at up and refresh. */
    windowsNodeHostStatus: estate.hostStatus,
  };
};

/** A vanilla Kubernetes stack (`cluster.platform: Kubernetes`): no WMCO; the Windows side of a kubeadm cluster. */
async function vanilla(estate: VanillaEstate) {
  await estate.whenDeclared();
  return {
    /** The Kubernetes version, networks and VXLAN settings the Windows nodes are configured for. */
    kubernetes: estate.kubernetes,
    /** RuntimeClasses for the Windows builds in use: set `runtimeClassName` on Windows pods. */
    runtimeClasses: estate.runtimeClasses,
    /** Per node: the files it gets (exact text; the join token as a placeholder), downloads and steps, in order. */
    windowsNodePlans: estate.nodePlans,
    /** Every Windows node: Windows Server version, build, update revision, kubelet/runtime versions, patch level. */
    windowsNodeInventory: estate.inventory,
    /** The patch rollout (`windows-estate:patching`): the minimum and the batches planned. */
    windowsPatching: estate.patching,
    /** Per managed node (BYOH, vanilla): boot time, uptime and a pending restart, read over SSH at up and refresh. */
    windowsNodeHostStatus: estate.hostStatus,
  };
}
