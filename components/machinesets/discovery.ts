import { ConfigIssue } from "../../stacks/config-issue";
import { OpenShiftClusterConfig, Platform } from "../../stacks/schema/cluster";
import { MachineSetConfig } from "../../stacks/schema/machinesets";
import type { ByohHostConfig } from "../../stacks/schema/byoh";
import type { NodeObject } from "../../providers/day2/inventory";
import type { IDMS, ITMS } from "../mirrors/hosts-toml";
import { PLATFORM_MACHINESETS } from "./build";
import { Workers } from "./common";
import { Infrastructure, MachineRow, MachineSetFacts, NetworkFacts, NodeTaints, ProxyFacts } from "../cluster-objects";
import type { RuntimeClassView } from "../cluster-objects";

/**
 * What the cluster says about itself, decoded (cluster-objects.ts) by discover.ts `readCluster`, the one place the
 * program reads the cluster at preview/up.
 */
export interface ClusterFacts {
  infrastructure?: Infrastructure;
  /** What the Linux worker MachineSets give a Windows one, decoded for the stack's platform. */
  workers: Workers;
  /** Registries the global pull secret has credentials for: the keys only, the credentials are dropped here. */
  registriesWithCredentials?: string[];
  network?: NetworkFacts;
  proxy?: ProxyFacts;
  /** WMCO's Subscription `status.installedCSV`, when it is installed already (the running WMCO). */
  installedCSV?: string;
  /** The ClusterVersion's `status.desired.version`. */
  openShiftVersion?: string;
  /** The API server's `GET /version` `gitVersion` (e.g. `v1.36.3`): the Kubernetes WMCO checks itself against. */
  kubernetesVersion?: string;
  /** Every ImageDigestMirrorSet and ImageTagMirrorSet in the cluster (WMCO merges them all). */
  mirrorSets?: { idms: IDMS[]; itms: ITMS[] };
  /** The `kubernetes.io/os=windows` Nodes (the day-2 inventory and the key-rotation checks read them). */
  windowsNodes: NodeObject[];
  /** Every Machine of `openshift-machine-api` with its MachineSet and image. */
  machines: MachineRow[];
  /** Every MachineSet of `openshift-machine-api` (its `spec.replicas` while a surge rollout is under way). */
  machineSets: MachineSetFacts[];
  /** `node.k8s.io/v1` RuntimeClasses, for the inventory's RuntimeClass check. */
  runtimeClasses: RuntimeClassView[];
  /** The taints of the `kubernetes.io/os=linux` nodes (first 500): where the node relay can be scheduled. */
  linuxNodes?: NodeTaints;
}

/** Workers that give nothing: a platform without MachineSets, or a cluster with no Linux worker. */
const NO_WORKERS: Workers = { region: () => undefined, complete: (set) => set, hosts: {} };

/** The Linux workers' `providerSpec.value`s decoded for one platform. */
export function workersFor(platform: Platform, providerSpecs: readonly unknown[]): Workers {
  return PLATFORM_MACHINESETS[platform]?.workers(providerSpecs) ?? NO_WORKERS;
}

/** Config and cluster must describe the same cluster: a wrong kubeconfig context must not get another cluster's MachineSets. */
export function identityIssues(
  cluster: OpenShiftClusterConfig,
  facts: Pick<ClusterFacts, "infrastructure">,
): ConfigIssue[] {
  const out: ConfigIssue[] = [];
  const infra = facts.infrastructure;
  if (!infra) return out;
  const { platform, infrastructureName: id } = infra;
  if (platform && platform !== cluster.platform) {
    out.push({
      path: "cluster.platform",
      message: `is ${cluster.platform}, but the cluster reached through the kubeconfig is ${platform}; check cluster.kubeconfig/context`,
    });
  }
  if (id && id !== cluster.infrastructureId) {
    out.push({
      path: "cluster.infrastructureId",
      message: `is ${cluster.infrastructureId}, but the cluster reached through the kubeconfig is ${id}; check cluster.kubeconfig/context`,
    });
  }
  return out;
}

/**
 * Fills what the config left out from the cluster; config always wins. Copies zone and network references from a
 * Linux worker instead of recomputing tag names, so installs whose tags were named differently still work.
 */
export function mergeDiscovered(
  cluster: OpenShiftClusterConfig,
  sets: readonly MachineSetConfig[],
  facts: Pick<ClusterFacts, "infrastructure" | "workers">,
): { cluster: OpenShiftClusterConfig; machineSets: MachineSetConfig[] } {
  return {
    cluster: { ...cluster, region: cluster.region ?? facts.workers.region(facts.infrastructure) },
    machineSets: sets.map((set) => facts.workers.complete(set)),
  };
}

/**
 * Fills what a `byoh[]` entry that creates its VM left out from the Linux workers, as WMCO's MachineSets copy them
 * (hack/machineset.sh): on AWS the instance profile, on Azure the public load balancer (the NIC's way out). Config
 * always wins, `""` included (Azure: no load balancer, the subnet has its own way out).
 */
export function mergeDiscoveredHosts(
  hosts: readonly ByohHostConfig[],
  facts: Pick<ClusterFacts, "workers">,
): ByohHostConfig[] {
  const w = facts.workers.hosts;
  return hosts.map((h) => ({
    ...h,
    ...(h.aws ? { aws: { ...h.aws, iamInstanceProfile: h.aws.iamInstanceProfile ?? w.iamInstanceProfile } } : {}),
    ...(h.azure
      ? { azure: { ...h.azure, publicLoadBalancer: h.azure.publicLoadBalancer ?? w.publicLoadBalancer } }
      : {}),
  }));
}
