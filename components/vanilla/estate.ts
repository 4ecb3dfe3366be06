import * as pulumi from "@pulumi/pulumi";
import { VanillaEstateArgs } from "../args";
import { isVanillaConfig, VanillaEstateConfig } from "../../stacks/load";
import { ResolvedKubernetes } from "./node-plan";
import { VanillaFacts } from "./discover";
import { clusterAccess } from "../cluster-access";
import { ComponentResource, EstateOptions, EstateSteps } from "../estate-resource";
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

/**
 * How the args are completed: the cluster's Kubernetes, networks and nodes read (components/vanilla/complete.ts); and
 * what is declared from them.
 */
const STEPS: EstateSteps<VanillaEstateConfig, CompletedVanilla, Parts> = {
  accepts: isVanillaConfig,
  otherKind: (c) => `cluster.platform ${c.cluster.platform} is an OpenShift/OKD cluster; use WindowsEstate`,
  complete: async (loaded: VanillaEstateConfig) => {
    const { config, resolved, facts, issues } = await completeVanilla(loaded);
    const completed = resolved ? { config, resolved, ...(facts ? { facts } : {}) } : undefined;
    return { completed, issues, warnings: config.warnings };
  },
  cluster: (c) => c.config.cluster,
  declare: (self, name, c) => {
    const access = clusterAccess(c.config.cluster);
    return {
      ...declareVanilla(self, name, { ...c, ...(access ? { access } : {}) }, { parent: self }),
      resolved: c.resolved,
    };
  },
};

/**
 * The Windows side of a vanilla kubeadm cluster with flannel: flannel's VXLAN backend as Windows needs it (patched in
 * place, never replaced), the Linux DaemonSets pinned to Linux, RuntimeClasses per Windows build, and each Windows
 * host's files and steps, flanneld and kube-proxy as HostProcess DaemonSets, and each host joined and kept converged
 * over SSH. Its args are the keys of a stack's `windows-estate:` config (docs/configuration.md, docs/kubeadm.md).
 */
export class VanillaEstate extends ComponentResource<CompletedVanilla, Parts> {
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

  /** As WindowsEstate.steps. */
  static readonly steps = STEPS;

  constructor(name: string, args: VanillaEstateArgs, opts?: EstateOptions<CompletedVanilla>) {
    super("windows-estate:index:VanillaEstate", name, args, opts, STEPS);
    this.kubernetes = this.part((p) => p.resolved);
    this.nodePlans = this.part((p) => p.nodePlans);
    this.runtimeClasses = this.part((p) => p.runtimeClasses);
    this.inventory = this.part<InventoryEntry[]>((p) => p.inventory);
    this.patching = this.part<PatchSummary | undefined>((p) => p.patching);
    this.hostStatus = this.part((p) => p.hostStatus);
    this.registerDeclared({ runtimeClasses: this.runtimeClasses, nodePlans: this.nodePlans });
  }
}
