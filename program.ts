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
 * The program: the stack config as the components' args, and the component its `cluster.platform` names. The args are
 * validated (and, against a live cluster, completed by discovery) before the component is registered, the problems
 * told in the stack config's terms: a config error declares nothing.
 */
export = async () => {
  const { args, reader, vanilla } = argsFromStack<WindowsEstateArgs & VanillaEstateArgs>();
  // create: the args completed (validated, and discovered from the cluster) before the component is registered, so a
  // problem ends the run with nothing declared, not even the component; then the component declares at once.
  if (vanilla) return vanillaOutputs(await VanillaEstate.create("estate", args, reader));
  // A fixed logical name: `pulumi stack rename` must not rename (and so replace) anything. Stacks made before
  // used the stack name; the alias carries them over, and children follow through the engine's inherited aliases.
  const estate = await WindowsEstate.create("estate", args, reader, { aliases: [{ name: pulumi.getStack() }] });
  // The stack outputs: the component's properties (components/estate.ts documents each), some renamed.
  return {
    operatorNamespace: estate.operatorNamespace,
    installedCSV: estate.installedCSV,
    wmcoPublicKey: estate.publicKey,
    wmcoPublicKeyFingerprint: estate.publicKeyFingerprint,
    machineSets: estate.machineSets,
    windowsRegistryConfig: estate.windowsRegistryConfig,
    /** The same files by full Windows path (synth writes them under windows-node-files/). */
    windowsNodeFiles: estate.windowsNodeFiles,
    windowsRegistrySources: estate.windowsRegistrySources,
    /** The cluster-wide proxy WMCO applies to every Windows node (read at preview/up; credentials removed). */
    clusterProxy: estate.clusterProxy.apply((p) => p ?? null),
    byohHosts: estate.byohHosts,
    byohVmFirstBoot: estate.createdHostsFirstBoot,
    /** The rolling reboot (`windows-estate:reboot`): token and the nodes in their batches, as preview shows them. */
    windowsReboot: estate.reboot.apply((r) => (r ? { token: r.token, plan: r.plan } : undefined)),
    ...bothOutputs(estate),
  };
};

/** A vanilla Kubernetes stack (`cluster.platform: Kubernetes`): no WMCO; the Windows side of a kubeadm cluster. */
function vanillaOutputs(estate: VanillaEstate) {
  // As above: components/vanilla/estate.ts documents each.
  return { kubernetes: estate.kubernetes, windowsNodePlans: estate.nodePlans, ...bothOutputs(estate) };
}

/** The stack outputs both kinds of stack have, from the properties both components have. */
function bothOutputs(estate: WindowsEstate | VanillaEstate) {
  return {
    runtimeClasses: estate.runtimeClasses,
    windowsNodeInventory: estate.inventory,
    windowsPatching: estate.patching,
    windowsNodeHostStatus: estate.hostStatus,
  };
}
