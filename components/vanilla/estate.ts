import * as pulumi from "@pulumi/pulumi";
import { VanillaEstateArgs } from "../args";
import { isVanillaConfig, Reader, VanillaEstateConfig } from "../../stacks/load";
import { ResolvedKubernetes } from "./node-plan";
import { VanillaFacts } from "./discover";
import { clusterAccess } from "../cluster-access";
import {
  completeArgs,
  EstateCompletion,
  EstateOptions,
  estateOptions,
  partOf,
  registered,
  wayIn,
  whenDeclared,
} from "../component-args";
import { completeVanilla } from "./complete";
import { declareVanilla, VanillaParts } from "./declare";
import { InventoryEntry } from "../day2/inventory";
import { PatchSummary } from "../day2/patch-rollout";

export type { VanillaEstateArgs };

/** A vanilla config as completed from the cluster (components/vanilla/complete.ts): what the estate declares. */
export interface CompletedVanilla {
  config: VanillaEstateConfig;
  resolved: ResolvedKubernetes;
  facts?: VanillaFacts;
}
type Parts = VanillaParts & { resolved: ResolvedKubernetes };

/** How the args are completed: the cluster's Kubernetes, networks and nodes read (components/vanilla/complete.ts). */
const COMPLETION: EstateCompletion<VanillaEstateConfig, CompletedVanilla> = {
  accepts: isVanillaConfig,
  otherKind: (c) => `cluster.platform ${c.cluster.platform} is an OpenShift/OKD cluster; use WindowsEstate`,
  complete: async (loaded: VanillaEstateConfig) => {
    const { config, resolved, facts, issues } = await completeVanilla(loaded);
    const completed = resolved ? { config, resolved, ...(facts ? { facts } : {}) } : undefined;
    return { completed, issues, warnings: config.warnings };
  },
};

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

  /** As WindowsEstate.complete: the program's first step, so that a problem ends the run with nothing registered. */
  static complete(args: VanillaEstateArgs, reader: Reader): Promise<CompletedVanilla> {
    return completeArgs(args, reader, COMPLETION);
  }

  constructor(name: string, args: VanillaEstateArgs, opts?: EstateOptions<CompletedVanilla>) {
    const { way, options } = estateOptions(`VanillaEstate ${name}`, args.cluster, opts);
    super("windows-estate:index:VanillaEstate", name, {}, options);
    // As components/estate.ts: validated and completed first, then declared.
    const built = wayIn(this, name, args, way, {
      ...COMPLETION,
      cluster: (c: CompletedVanilla) => c.config.cluster,
      declare: (c): Parts => {
        const access = clusterAccess(c.config.cluster);
        return {
          ...declareVanilla(this, name, { ...c, ...(access ? { access } : {}) }, { parent: this }),
          resolved: c.resolved,
        };
      },
    });
    const part = partOf(built, way.reader);
    this.kubernetes = part((p) => p.resolved);
    this.nodePlans = part((p) => p.nodePlans);
    this.runtimeClasses = part((p) => p.runtimeClasses);
    this.inventory = part<InventoryEntry[]>((p) => p.inventory);
    this.patching = part<PatchSummary | undefined>((p) => p.patching);
    this.hostStatus = part((p) => p.hostStatus);
    this.registerOutputs(
      registered(way.reader, built, { runtimeClasses: this.runtimeClasses, nodePlans: this.nodePlans }),
    );
  }
}
