import * as pulumi from "@pulumi/pulumi";
import { VanillaEstateArgs } from "../args";
import { isVanillaConfig, VanillaEstateConfig } from "../../stacks/load";
import { formatArgsIssue, formatArgsIssues, FromStack, loadArgs } from "../../stacks/from-args";
import { ResolvedKubernetes } from "./node-plan";
import { VanillaFacts } from "./discover";
import { clusterAccess } from "../cluster-access";
import { DOMAIN_VALIDATORS } from "../validators";
import { componentOptions, declared, kubernetesFor, partOf, whenDeclared } from "../component-args";
import { completeVanilla } from "./complete";
import { declareVanilla, VanillaParts } from "./declare";
import { InventoryEntry } from "../day2/inventory";
import { PatchSummary } from "../day2/patch-rollout";

export type { VanillaEstateArgs };

/** A vanilla stack's config as the program completes it (components/vanilla/complete.ts), what the estate declares. */
export interface CompletedVanilla {
  config: VanillaEstateConfig;
  resolved: ResolvedKubernetes;
  facts?: VanillaFacts;
}
type Parts = VanillaParts & { resolved: ResolvedKubernetes };

const completedConfigs = new WeakMap<VanillaEstateArgs, FromStack<CompletedVanilla>>();

/** The program's args, with the config it completed from the same stack config (as components/estate.ts). */
export function withCompletedConfig(args: VanillaEstateArgs, from: FromStack<CompletedVanilla>): VanillaEstateArgs {
  completedConfigs.set(args, from);
  return args;
}

/** A library user's args as the complete config: validated in args' terms, then completed from the cluster. */
async function completeArgs(
  component: string,
  args: VanillaEstateArgs,
  on: pulumi.Resource,
): Promise<CompletedVanilla> {
  const loaded = await loadArgs(component, args, DOMAIN_VALIDATORS);
  if (!isVanillaConfig(loaded))
    throw new pulumi.RunError(
      `${component}: cluster.platform ${loaded.cluster.platform} is an OpenShift/OKD cluster; use WindowsEstate`,
    );
  for (const w of loaded.warnings) pulumi.log.warn(formatArgsIssue(w), on);
  const { config, resolved, facts, issues } = await completeVanilla(loaded);
  if (issues.length > 0 || !resolved) throw new pulumi.RunError(formatArgsIssues(component, issues));
  for (const w of config.warnings.slice(loaded.warnings.length)) pulumi.log.warn(formatArgsIssue(w), on);
  return { config, resolved, ...(facts ? { facts } : {}) };
}

/**
 * The Windows side of a vanilla kubeadm cluster with flannel: flannel's VXLAN backend as Windows needs it (patched in
 * place, never replaced), the Linux DaemonSets pinned to Linux, RuntimeClasses per Windows build, and each Windows
 * host's files and steps, flanneld and kube-proxy as HostProcess DaemonSets, and each host joined and kept converged
 * over SSH. Its args are the keys of a stack's `windows-estate:` config (docs/configuration.md, docs/kubeadm.md).
 */
export class VanillaEstate extends pulumi.ComponentResource {
  /** The Kubernetes version, networks and VXLAN settings the Windows nodes are configured for. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- a record of settings: JSON to other languages
  readonly kubernetes: pulumi.Output<any>;
  /** Per node address: its files (exact text; the join token as a placeholder), downloads and steps, in order. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- plans by address: JSON to other languages
  readonly nodePlans: pulumi.Output<any>;
  /** RuntimeClasses for the Windows builds in use: set `runtimeClassName` on Windows pods. */
  readonly runtimeClasses: pulumi.Output<string[]>;
  /** Every Windows node: Windows Server version, build, update revision, kubelet/runtime versions, patch level. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- revision is a number or a reason: JSON to other languages
  readonly inventory: pulumi.Output<any[]>;
  /** The patch rollout (`patching`): the minimum and the batches planned; none without `patching`. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- a free-form summary: JSON to other languages
  readonly patching: pulumi.Output<any>;
  /** Per node: boot time, uptime and a pending restart, read over SSH at up and refresh (with `patching`). */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- per-host readings: JSON to other languages
  readonly hostStatus: pulumi.Output<any>;

  /**
   * Resolves once the args are validated (and completed from the cluster) and every child is declared; rejects with
   * the problems found. A program that awaits it ends with that message alone, before any output is read.
   */
  whenDeclared(): Promise<void> {
    return whenDeclared(this);
  }

  constructor(name: string, args: VanillaEstateArgs, opts?: pulumi.ComponentResourceOptions) {
    // The Kubernetes objects use the provider kubernetesFor gives once the config is known (components/estate.ts).
    let kubernetes: pulumi.ProviderResource | undefined;
    const from = completedConfigs.get(args);
    const cluster = from?.completed.config.cluster ?? args.cluster;
    super(
      "windows-estate:index:VanillaEstate",
      name,
      {},
      componentOptions(opts, cluster, () => kubernetes),
    );
    const declare = (c: CompletedVanilla, from?: FromStack<CompletedVanilla>): Parts => {
      kubernetes = kubernetesFor(this, name, c.config.cluster, from);
      const access = clusterAccess(c.config.cluster);
      const what = { config: c.config, resolved: c.resolved, ...(c.facts ? { facts: c.facts } : {}) };
      return {
        ...declareVanilla(this, name, { ...what, ...(access ? { access } : {}) }, { parent: this }),
        resolved: c.resolved,
      };
    };
    // Through the program: validated and completed already (program.ts); as a library, first (components/estate.ts).
    const built = from
      ? declare(from.completed, from)
      : completeArgs(`VanillaEstate ${name}`, args, this).then(declare);
    const part = partOf(built);
    this.kubernetes = part((p) => p.resolved);
    this.nodePlans = part((p) => p.nodePlans);
    this.runtimeClasses = part((p) => p.runtimeClasses);
    this.inventory = part<InventoryEntry[]>((p) => p.inventory);
    this.patching = part<PatchSummary | undefined>((p) => p.patching);
    this.hostStatus = part((p) => p.hostStatus);
    declared(this, built);
    // As components/estate.ts: at once through the program; a library user's from the SDK, with none.
    if (from) this.registerOutputs({ runtimeClasses: this.runtimeClasses, nodePlans: this.nodePlans });
  }
}
