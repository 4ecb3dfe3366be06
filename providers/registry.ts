/**
 * Every dynamic provider of the project, by its resource type name, loaded on first use. The dynamic-provider host
 * reaches this file from the small serialized provider each resource carries (thin.ts), also for resources in old
 * state that only need a delete: so this file's path (`providers/registry.ts`) and its type names never change, and a
 * type whose resource is retired keeps its entry until no stack can hold one.
 *
 * `methods` lists what each provider implements: the host calls only those (cmd/dynamic-provider treats a missing
 * diff, read, update or delete its own way), so the serialized stand-in must offer exactly the same
 * (test/providers/registry.test.ts compares them).
 */
import type * as pulumi from "@pulumi/pulumi";

export type ProviderMethod = "check" | "diff" | "create" | "read" | "update" | "delete";

interface Entry {
  load(): pulumi.dynamic.ResourceProvider;
  methods: readonly ProviderMethod[];
}

const ALL: readonly ProviderMethod[] = ["check", "diff", "create", "read", "update", "delete"];
/** Everything but check: the host then accepts the inputs as given. */
const NO_CHECK: readonly ProviderMethod[] = ["diff", "create", "read", "update", "delete"];

export const PROVIDERS: Record<string, Entry> = {
  WindowsHost: { load: () => require("./windows-host/provider").windowsHostProvider, methods: ALL },
  RetiredWmcoKeys: {
    load: () => require("./windows-host/retire").retiredKeysProvider,
    methods: ["diff", "create", "update"],
  },
  WmcoKeyAdopted: {
    load: () => require("./day2/key-adopted").wmcoKeyAdoptedProvider,
    methods: ["diff", "create", "update"],
  },
  OperatorReady: { load: () => require("./kube-wait/provider").operatorReadyProvider, methods: NO_CHECK },
  ObjectExists: { load: () => require("./kube-wait/provider").objectExistsProvider, methods: NO_CHECK },
  ByohDeconfigured: { load: () => require("./kube-wait/provider").byohDeconfiguredProvider, methods: NO_CHECK },
  ByohHostReleased: { load: () => require("./kube-wait/provider").byohHostReleasedProvider, methods: NO_CHECK },
  WindowsNodesJoined: {
    load: () => require("./kube-wait/provider").windowsNodesJoinedProvider,
    methods: NO_CHECK,
  },
  PinnedAmi: { load: () => require("./aws-ami/provider").pinnedAmiProvider, methods: NO_CHECK },
  VanillaNode: { load: () => require("./vanilla-node/provider").vanillaNodeProvider, methods: ALL },
  BootstrapToken: { load: () => require("./vanilla-node/bootstrap-token").bootstrapTokenProvider, methods: NO_CHECK },
  RollingReboot: {
    load: () => require("./day2/rolling-reboot-provider").rollingRebootProvider,
    methods: ["check", "diff", "create", "update", "delete"],
  },
  WindowsPatching: { load: () => require("./day2/patching-provider").windowsPatchingProvider, methods: NO_CHECK },
  MachineSetRollout: {
    load: () => require("./day2/machine-rollout-provider").machineRolloutProvider,
    methods: ["diff", "create", "update", "delete"],
  },
  NodeFiles: { load: () => require("./node-files/provider").nodeFilesProvider, methods: ALL },
};

/** The provider for a type name; an unknown name is an error naming it (state written by a newer version?). */
export function providerFor(type: string): pulumi.dynamic.ResourceProvider {
  const e = Object.prototype.hasOwnProperty.call(PROVIDERS, type) ? PROVIDERS[type] : undefined;
  if (!e)
    throw new Error(
      `windows-estate has no dynamic provider named ${JSON.stringify(type)}; was this stack written by a newer version of the program?`,
    );
  return e.load();
}
