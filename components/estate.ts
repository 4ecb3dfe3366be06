import * as pulumi from "@pulumi/pulumi";
import { WindowsEstateArgs } from "./args";
import { AnyEstateConfig, EstateConfig, isVanillaConfig } from "../stacks/load";
import { ComponentResource, EstateOptions, EstateSteps } from "./estate-resource";
import { completeWithCluster } from "./machinesets/complete";
import { ByohHostSummary, declareEstate, EstateParts, MachineSetSummary } from "./estate-declare";
import { InventoryEntry } from "./day2/inventory";
import { PatchSummary } from "./day2/patch-rollout";
import { wmcoUpgradeNotice } from "../providers/day2/wmco-upgrade";

export type { WindowsEstateArgs };

/**
 * How the args are completed: discovery against the cluster (components/machinesets/complete.ts), then told; and what
 * is declared from them.
 */
const STEPS: EstateSteps<EstateConfig, EstateConfig, Parts> = {
  accepts: (c: AnyEstateConfig): c is EstateConfig => !isVanillaConfig(c),
  otherKind: () => "cluster.platform Kubernetes is a kubeadm cluster without WMCO; use VanillaEstate",
  complete: async (loaded: EstateConfig) => {
    const { config, issues } = await completeWithCluster(loaded);
    return { completed: config, issues, warnings: config.warnings };
  },
  announce: (config, log) => {
    if (config.discovered?.wmco) log.info(`Windows Server support checked against ${config.discovered.wmco}`);
    // A WMCO upgrade rebuilding Windows nodes (its `upgrading` label): our reboots, patching and rollouts will refuse.
    const upgrading = wmcoUpgradeNotice(config.discovered?.windowsNodes ?? []);
    if (upgrading) log.warn(upgrading);
  },
  cluster: (config) => config.cluster,
  declare: (self, name, config) => ({
    ...declareEstate(self, name, config, { parent: self }),
    proxy: config.discovered?.proxy,
  }),
};

/** The type token of the component (stable: every existing stack's URNs carry it). */
const TYPE = "windows-estate:index:WindowsEstate";

/** The cluster-wide proxy WMCO applies to every Windows node, as discovery read it (credentials removed). */
export interface ClusterProxy {
  /** `Proxy cluster` `status.httpProxy`, credentials removed. */
  httpProxy?: string;
  /** `status.httpsProxy`, credentials removed. */
  httpsProxy?: string;
  /** `status.noProxy`. */
  noProxy?: string;
  /** The ConfigMap of the proxy's trusted CA bundle (`spec.trustedCA.name`), if any. */
  trustedCA?: string;
}

/** The rolling reboot asked for (`reboot`): its token, the plan as preview shows it, and the batches run. */
export interface RebootSummary {
  /** The token asked for (`reboot.token`). */
  token: string;
  /** The plan as preview shows it: the batches of nodes, or why they wait. */
  plan: string;
  /** The nodes rebooted, batch by batch. */
  batches: string[][];
}

/** Which mirror sets each registry's hosts.toml comes from (this stack's or the cluster's), and what they cover. */
export interface RegistrySources {
  /** Whose mirror sets the files are made of: this stack's, or every one in the cluster (as WMCO merges them). */
  scope: string;
  /** Per registry directory, the mirror sets its hosts.toml comes from. */
  byRegistry: { [registry: string]: string[] };
}

type Parts = EstateParts & { proxy?: ClusterProxy };

/**
 * The whole Windows estate of an OpenShift/OKD cluster with WMCO, wired in the order WMCO needs: the operator through
 * OLM (running) → its SSH key (`cloud-private-key`) → (WMCO writes `windows-user-data`) → Windows MachineSets,
 * bring-your-own hosts, registry mirrors and RuntimeClasses; day-2 jobs (rolling reboots, patching) after them.
 * Its args are the keys of a stack's `windows-estate:` config (docs/configuration.md); they are validated, and
 * completed from the cluster at preview/up, before anything is declared.
 */
export class WindowsEstate extends ComponentResource<EstateConfig, Parts> {
  /** Namespace WMCO runs in. */
  readonly operatorNamespace: pulumi.Output<string>;
  /** The installed and succeeded WMCO ClusterServiceVersion (unknown in render mode). */
  readonly installedCSV: pulumi.Output<string | undefined>;
  /** Public half of the WMCO key as an `authorized_keys` line: put it on golden images and BYOH hosts. */
  readonly publicKey: pulumi.Output<string | undefined>;
  /** SHA256 fingerprint of the WMCO key. */
  readonly publicKeyFingerprint: pulumi.Output<string | undefined>;
  /** Per MachineSet: name, platform, Windows Server version and build, replicas. */
  readonly machineSets: pulumi.Output<MachineSetSummary[]>;
  /** RuntimeClasses for the Windows builds in use: set `runtimeClassName` on Windows pods. */
  readonly runtimeClasses: pulumi.Output<string[]>;
  /** The containerd hosts.toml every Windows node gets from WMCO, by registry directory, credentials redacted. */
  readonly windowsRegistryConfig: pulumi.Output<{ [directory: string]: string }>;
  /** The same files by full Windows path. */
  readonly windowsNodeFiles: pulumi.Output<{ [path: string]: string }>;
  /** Which mirror sets each registry file comes from (this stack's or the cluster's), and what the files cover. */
  readonly windowsRegistrySources: pulumi.Output<RegistrySources>;
  /** The cluster-wide proxy WMCO applies to every Windows node (read at preview/up; credentials removed). */
  readonly clusterProxy: pulumi.Output<ClusterProxy | undefined>;
  /** The rolling reboot (`reboot`): token, the plan as preview shows it, and the batches; none without `reboot`. */
  readonly reboot: pulumi.Output<RebootSummary | undefined>;
  /** Every Windows node: Windows Server version, build, update revision, kubelet/runtime versions, patch level. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- revision is a number or a reason: JSON to other languages
  readonly inventory: pulumi.Output<any[]>;
  /** The patch rollout (`patching`): the minimum, the batches planned, nodes left to an image roll. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- a free-form summary: JSON to other languages
  readonly patching: pulumi.Output<any>;
  /** Per managed node (BYOH): boot time, uptime and a pending restart, read over SSH at up and refresh (with `patching`). */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- per-host readings: JSON to other languages
  readonly hostStatus: pulumi.Output<any>;
  /** The first-boot script of each BYOH VM this stack creates on AWS or Azure, by host (no secret in it). */
  readonly createdHostsFirstBoot: pulumi.Output<{ [host: string]: string } | undefined>;
  /** Bring-your-own hosts as prepared: address, hostname, Windows Server version, host key fingerprint. */
  readonly byohHosts: pulumi.Output<ByohHostSummary[]>;

  /** How its args are completed and its children declared (static for ComponentResource.create). */
  static readonly steps = STEPS;

  constructor(name: string, args: WindowsEstateArgs, opts?: EstateOptions<EstateConfig>) {
    super(TYPE, name, args, opts, STEPS);
    this.operatorNamespace = this.part((p) => p.operatorNamespace);
    this.installedCSV = this.part((p) => p.installedCSV);
    this.publicKey = this.part((p) => p.publicKey);
    this.publicKeyFingerprint = this.part((p) => p.publicKeyFingerprint);
    this.machineSets = this.part((p) => p.machineSets);
    this.runtimeClasses = this.part((p) => p.runtimeClasses);
    this.windowsRegistryConfig = this.part((p) => p.windowsRegistryConfig);
    this.windowsNodeFiles = this.part((p) => p.windowsNodeFiles);
    this.windowsRegistrySources = this.part((p) => p.windowsRegistrySources);
    this.clusterProxy = this.part((p) => p.proxy);
    this.reboot = this.part((p) => (p.reboot ? pulumi.output(p.reboot) : undefined));
    this.inventory = this.part<InventoryEntry[]>((p) => p.inventory);
    this.patching = this.part<PatchSummary | undefined>((p) => p.patching);
    this.hostStatus = this.part((p) => p.hostStatus);
    this.createdHostsFirstBoot = this.part((p) => p.createdHostsFirstBoot);
    this.byohHosts = this.part((p) => p.byohHosts);
    this.registerDeclared({
      operatorNamespace: this.operatorNamespace,
      installedCSV: this.installedCSV,
      publicKey: this.publicKey,
      publicKeyFingerprint: this.publicKeyFingerprint,
      machineSets: this.machineSets,
      runtimeClasses: this.runtimeClasses,
      windowsRegistryConfig: this.windowsRegistryConfig,
      byohHosts: this.byohHosts,
    });
  }
}
