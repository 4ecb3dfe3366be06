import { ConfigIssue } from "../../stacks/config-issue";
import { OpenShiftClusterConfig } from "../../stacks/schema/cluster";
import { MachineSetConfig } from "../../stacks/schema/machinesets";
import type { ByohHostConfig } from "../../stacks/schema/byoh";

import { get, JsonObject as Obj, obj, objects, parseJson, str, stringMap } from "../../lib/json";

/** What the cluster says about itself: `Infrastructure/cluster` and its Linux worker MachineSets. */
export interface ClusterFacts {
  infrastructure?: Obj;
  /** `providerSpec.value` of each Linux worker MachineSet. */
  workerSpecs: Obj[];
  /** Registries the global pull secret has credentials for: the keys only, the credentials are dropped here. */
  registriesWithCredentials?: string[];
  /** `networks.config.openshift.io/cluster` and `networks.operator.openshift.io/cluster`. */
  network?: { config?: Obj; operator?: Obj };
  /** `proxies.config.openshift.io/cluster`. */
  proxy?: Obj;
  /** `clusterversions.config.openshift.io/version`. */
  clusterVersion?: Obj;
  /** The API server's `GET /version` (`gitVersion`, e.g. `v1.36.3`): the Kubernetes WMCO checks itself against. */
  serverVersion?: Obj;
  /** WMCO's Subscription, when it is installed already (its `status.installedCSV` names the running WMCO). */
  subscription?: Obj;
  /** Every ImageDigestMirrorSet and ImageTagMirrorSet in the cluster (WMCO merges them all). */
  mirrorSets?: { idms: Obj[]; itms: Obj[] };
  /** The `kubernetes.io/os=windows` NodeList and the Machines of `openshift-machine-api` (day-2 inventory). */
  windowsNodes?: Obj;
  machines?: Obj;
  /** Every MachineSet of `openshift-machine-api` (its `spec.replicas` while a surge rollout is under way). */
  machineSets?: Obj;
  /** `node.k8s.io/v1` RuntimeClasses, for the inventory's RuntimeClass check. */
  runtimeClasses?: Obj;
  /** The `kubernetes.io/os=linux` NodeList (first 500): where the node relay can be scheduled. */
  linuxNodes?: Obj;
}

/** The registry names of a `kubernetes.io/dockerconfigjson` Secret, without reading out any credential. */
export function registriesIn(secret: unknown): string[] {
  const b64 = get(secret, "data", ".dockerconfigjson");
  if (typeof b64 !== "string") return [];
  try {
    return Object.keys(obj(get(parseJson(Buffer.from(b64, "base64").toString("utf8")), "auths")) ?? {}).sort();
  } catch {
    return [];
  }
}

/** The Linux worker MachineSets among all MachineSets: role worker, not Windows, not ours. */
export function linuxWorkerSpecs(machineSetList: unknown): Obj[] {
  return objects(get(machineSetList, "items"))
    .filter((ms) => {
      const labels = stringMap(get(ms, "spec", "template", "metadata", "labels"));
      return (
        labels["machine.openshift.io/cluster-api-machine-role"] === "worker" &&
        labels["machine.openshift.io/os-id"] !== "Windows"
      );
    })
    .flatMap((ms) => objects([get(ms, "spec", "template", "spec", "providerSpec", "value")]));
}

/** Config and cluster must describe the same cluster: a wrong kubeconfig context must not get another cluster's MachineSets. */
export function identityIssues(cluster: OpenShiftClusterConfig, facts: ClusterFacts): ConfigIssue[] {
  const out: ConfigIssue[] = [];
  const infra = facts.infrastructure;
  if (!infra) return out;
  const platform =
    str(get(infra, "status", "platformStatus", "type")) ?? str(get(infra, "spec", "platformSpec", "type"));
  const id = str(get(infra, "status", "infrastructureName"));
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

/** The cluster's region as the Infrastructure or a worker states it. */
function discoveredRegion(cluster: OpenShiftClusterConfig, facts: ClusterFacts): string | undefined {
  const infra = facts.infrastructure;
  const w = facts.workerSpecs[0];
  switch (cluster.platform) {
    case "AWS":
      return str(get(infra, "status", "platformStatus", "aws", "region")) ?? str(get(w, "placement", "region"));
    case "GCP":
      return str(get(infra, "status", "platformStatus", "gcp", "region")) ?? str(get(w, "region"));
    case "Azure":
      return str(get(w, "location"));
    default:
      return undefined;
  }
}

function awsNames(refs: unknown): string[] | undefined {
  const list = Array.isArray(refs) ? refs : refs ? [refs] : [];
  const out = list
    .map((r) => str(get(r, "id")) ?? str(get(r, "filters", 0, "values", 0)))
    .filter((v): v is string => !!v);
  return out.length > 0 ? out : undefined;
}

/** An Azure zone as the worker has it: "" (no zone) counts. */
function zoneOf(v: unknown): string | undefined {
  return typeof v === "string" ? v : undefined;
}

/** The worker to copy from: the one in the same zone when the config names a zone, else the first. */
function pickWorker(specs: Obj[], zone: string | undefined, zoneOf: (s: Obj) => unknown): Obj | undefined {
  return (zone ? specs.find((s) => zoneOf(s) === zone) : undefined) ?? specs[0];
}

/**
 * Fills what the config left out from the cluster; config always wins. Copies zone and network references from a
 * Linux worker instead of recomputing tag names, so installs whose tags were named differently still work.
 */
export function mergeDiscovered(
  cluster: OpenShiftClusterConfig,
  sets: readonly MachineSetConfig[],
  facts: ClusterFacts,
): { cluster: OpenShiftClusterConfig; machineSets: MachineSetConfig[] } {
  const merged = { ...cluster, region: cluster.region ?? discoveredRegion(cluster, facts) };
  const out = sets.map((set) => {
    const s: MachineSetConfig = { ...set };
    // Config always wins (`??`); a discovered value only fills what the config left out.
    const a = set.aws;
    if (a) {
      const w = pickWorker(facts.workerSpecs, a.availabilityZone, (x) => get(x, "placement", "availabilityZone"));
      const workerZone = str(get(w, "placement", "availabilityZone"));
      // A subnet copied from a worker in another zone would be wrong; only take it from the worker's own zone.
      const sameZone = !a.availabilityZone || workerZone === a.availabilityZone;
      s.aws = {
        ...a,
        availabilityZone: a.availabilityZone ?? workerZone,
        subnet: a.subnet ?? (sameZone ? awsNames(get(w, "subnet"))?.[0] : undefined),
        securityGroups: a.securityGroups ?? awsNames(get(w, "securityGroups")),
        iamInstanceProfile: a.iamInstanceProfile ?? str(get(w, "iamInstanceProfile", "id")),
      };
    }
    const az = set.azure;
    if (az) {
      const w = facts.workerSpecs[0];
      s.azure = {
        ...az,
        zone: az.zone ?? zoneOf(get(w, "zone")),
        resourceGroup: az.resourceGroup ?? str(get(w, "resourceGroup")),
        networkResourceGroup: az.networkResourceGroup ?? str(get(w, "networkResourceGroup")),
        vnet: az.vnet ?? str(get(w, "vnet")),
        subnet: az.subnet ?? str(get(w, "subnet")),
        publicLoadBalancer: az.publicLoadBalancer ?? str(get(w, "publicLoadBalancer")),
      };
    }
    const g = set.gcp;
    if (g) {
      const w = pickWorker(facts.workerSpecs, g.zone, (x) => get(x, "zone"));
      s.gcp = {
        ...g,
        projectID: g.projectID ?? str(get(w, "projectID")),
        zone: g.zone ?? str(get(w, "zone")),
        network: g.network ?? str(get(w, "networkInterfaces", 0, "network")),
        subnetwork: g.subnetwork ?? str(get(w, "networkInterfaces", 0, "subnetwork")),
        serviceAccountEmail: g.serviceAccountEmail ?? str(get(w, "serviceAccounts", 0, "email")),
      };
    }
    const v = set.vsphere;
    if (v) {
      const w = facts.workerSpecs[0];
      s.vsphere = {
        ...v,
        server: v.server ?? str(get(w, "workspace", "server")),
        datacenter: v.datacenter ?? str(get(w, "workspace", "datacenter")),
        datastore: v.datastore ?? str(get(w, "workspace", "datastore")),
        folder: v.folder ?? str(get(w, "workspace", "folder")),
        resourcePool: v.resourcePool ?? str(get(w, "workspace", "resourcePool")),
        networkName: v.networkName ?? str(get(w, "network", "devices", 0, "networkName")),
        credentialsSecret: v.credentialsSecret ?? str(get(w, "credentialsSecret", "name")),
      };
    }
    const n = set.nutanix;
    if (n) {
      const w = facts.workerSpecs[0];
      // hack/machineset.sh copies the worker's `project` whatever its type, by name or by UUID.
      const byName = get(w, "project", "type") === "name";
      const configured = n.projectUuid !== undefined || n.projectName !== undefined;
      s.nutanix = {
        ...n,
        clusterUuid: n.clusterUuid ?? str(get(w, "cluster", "uuid")),
        subnetUuid: n.subnetUuid ?? str(get(w, "subnets", 0, "uuid")),
        credentialsSecret: n.credentialsSecret ?? str(get(w, "credentialsSecret", "name")),
        projectUuid: configured ? n.projectUuid : byName ? undefined : str(get(w, "project", "uuid")),
        projectName: configured ? n.projectName : byName ? str(get(w, "project", "name")) : undefined,
      };
    }
    return s;
  });
  return { cluster: merged, machineSets: out };
}

/**
 * Fills what a `byoh[]` entry that creates its VM left out from the Linux workers, as WMCO's MachineSets copy them
 * (hack/machineset.sh): on AWS the instance profile, on Azure the public load balancer (the NIC's way out). Config
 * always wins, `""` included (Azure: no load balancer, the subnet has its own way out).
 */
export function mergeDiscoveredHosts(hosts: readonly ByohHostConfig[], facts: ClusterFacts): ByohHostConfig[] {
  const w = facts.workerSpecs[0];
  return hosts.map((h) => ({
    ...h,
    ...(h.aws
      ? { aws: { ...h.aws, iamInstanceProfile: h.aws.iamInstanceProfile ?? str(get(w, "iamInstanceProfile", "id")) } }
      : {}),
    ...(h.azure
      ? { azure: { ...h.azure, publicLoadBalancer: h.azure.publicLoadBalancer ?? str(get(w, "publicLoadBalancer")) } }
      : {}),
  }));
}
