import { ConfigIssue } from "../../stacks/config-issue";
import { ClusterConfig } from "../../stacks/schema/cluster";
import { MachineSetConfig } from "../../stacks/schema/machinesets";
import { parseWmcoVersion, wmcoForOpenShift, WmcoVersion } from "../../facts/wmco";

type Obj = Record<string, unknown>;
const get = (o: unknown, ...path: (string | number)[]): unknown =>
  path.reduce<unknown>((cur, k) => (cur && typeof cur === "object" ? (cur as Record<string | number, unknown>)[k] : undefined), o);
const str = (v: unknown): string | undefined => (typeof v === "string" && v !== "" ? v : undefined);

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
  /** WMCO's Subscription, when it is installed already (its `status.installedCSV` names the running WMCO). */
  subscription?: Obj;
  /** Every ImageDigestMirrorSet and ImageTagMirrorSet in the cluster (WMCO merges them all). */
  mirrorSets?: { idms: Obj[]; itms: Obj[] };
}

/**
 * Which WMCO runs (or will): the installed CSV if there is one, else the release that ships with the cluster's
 * OpenShift version (`status.desired.version`).
 */
export function discoveredWmco(facts: ClusterFacts): { version: WmcoVersion; source: string } | undefined {
  const csv = str(get(facts.subscription, "status", "installedCSV"));
  const fromCsv = parseWmcoVersion(csv);
  if (fromCsv) return { version: fromCsv, source: `the installed CSV ${csv}` };
  const ocp = str(get(facts.clusterVersion, "status", "desired", "version"));
  const fromOcp = wmcoForOpenShift(ocp);
  return fromOcp ? { version: fromOcp, source: `the cluster version ${ocp}` } : undefined;
}

/** The registry names of a `kubernetes.io/dockerconfigjson` Secret, without reading out any credential. */
export function registriesIn(secret: unknown): string[] {
  const b64 = get(secret, "data", ".dockerconfigjson");
  if (typeof b64 !== "string") return [];
  try {
    const auths = (JSON.parse(Buffer.from(b64, "base64").toString("utf8")) as { auths?: Record<string, unknown> }).auths ?? {};
    return Object.keys(auths).sort();
  } catch {
    return [];
  }
}

/** The Linux worker MachineSets among all MachineSets: role worker, not Windows, not ours. */
export function linuxWorkerSpecs(machineSetList: unknown): Obj[] {
  const items = (get(machineSetList, "items") as Obj[] | undefined) ?? [];
  return items
    .filter((ms) => {
      const labels = (get(ms, "spec", "template", "metadata", "labels") as Record<string, string> | undefined) ?? {};
      return labels["machine.openshift.io/cluster-api-machine-role"] === "worker" && labels["machine.openshift.io/os-id"] !== "Windows";
    })
    .map((ms) => get(ms, "spec", "template", "spec", "providerSpec", "value") as Obj)
    .filter((v): v is Obj => !!v && typeof v === "object");
}

/** Config and cluster must describe the same cluster: a wrong kubeconfig context must not get another cluster's MachineSets. */
export function identityIssues(cluster: ClusterConfig, facts: ClusterFacts): ConfigIssue[] {
  const out: ConfigIssue[] = [];
  const infra = facts.infrastructure;
  if (!infra) return out;
  const platform = str(get(infra, "status", "platformStatus", "type")) ?? str(get(infra, "spec", "platformSpec", "type"));
  const id = str(get(infra, "status", "infrastructureName"));
  if (platform && platform !== cluster.platform) {
    out.push({ path: "cluster.platform", message: `is ${cluster.platform}, but the cluster reached through the kubeconfig is ${platform}; check cluster.kubeconfig/context` });
  }
  if (id && id !== cluster.infrastructureId) {
    out.push({ path: "cluster.infrastructureId", message: `is ${cluster.infrastructureId}, but the cluster reached through the kubeconfig is ${id}; check cluster.kubeconfig/context` });
  }
  return out;
}

/** The cluster's region as the Infrastructure or a worker states it. */
function discoveredRegion(cluster: ClusterConfig, facts: ClusterFacts): string | undefined {
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

/** Drops undefined so spreading discovered values never erases a configured one. */
function defined<T extends Obj>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}

function awsNames(refs: unknown): string[] | undefined {
  const list = Array.isArray(refs) ? refs : refs ? [refs] : [];
  const out = list.map((r) => str(get(r, "id")) ?? str(get(r, "filters", 0, "values", 0))).filter((v): v is string => !!v);
  return out.length > 0 ? out : undefined;
}

/** The worker to copy from: the one in the same zone when the config names a zone, else the first. */
function pickWorker(specs: Obj[], zone: string | undefined, zoneOf: (s: Obj) => unknown): Obj | undefined {
  return (zone ? specs.find((s) => zoneOf(s) === zone) : undefined) ?? specs[0];
}

/**
 * Fills what the config left out from the cluster; config always wins. Copies zone and network references from a
 * Linux worker instead of recomputing tag names, so installs whose tags were named differently still work.
 */
export function mergeDiscovered(cluster: ClusterConfig, sets: readonly MachineSetConfig[], facts: ClusterFacts): { cluster: ClusterConfig; machineSets: MachineSetConfig[] } {
  const merged = { ...cluster, region: cluster.region ?? discoveredRegion(cluster, facts) };
  const out = sets.map((set) => {
    const s: MachineSetConfig = { ...set };
    if (set.aws) {
      const w = pickWorker(facts.workerSpecs, set.aws.availabilityZone, (x) => get(x, "placement", "availabilityZone"));
      s.aws = {
        ...defined({
          availabilityZone: str(get(w, "placement", "availabilityZone")),
          subnet: awsNames(get(w, "subnet"))?.[0],
          securityGroups: awsNames(get(w, "securityGroups")),
          iamInstanceProfile: str(get(w, "iamInstanceProfile", "id")),
        }),
        ...defined(set.aws),
      } as MachineSetConfig["aws"];
      // A subnet copied from a worker in another zone would be wrong; only keep it for the worker's own zone.
      if (set.aws.availabilityZone && str(get(w, "placement", "availabilityZone")) !== set.aws.availabilityZone && !set.aws.subnet && s.aws) delete s.aws.subnet;
    }
    if (set.azure) {
      const w = facts.workerSpecs[0];
      s.azure = {
        ...defined({
          zone: typeof get(w, "zone") === "string" ? (get(w, "zone") as string) : undefined,
          resourceGroup: str(get(w, "resourceGroup")),
          networkResourceGroup: str(get(w, "networkResourceGroup")),
          vnet: str(get(w, "vnet")),
          subnet: str(get(w, "subnet")),
          publicLoadBalancer: str(get(w, "publicLoadBalancer")),
        }),
        ...defined(set.azure),
      } as MachineSetConfig["azure"];
    }
    if (set.gcp) {
      const w = pickWorker(facts.workerSpecs, set.gcp.zone, (x) => get(x, "zone"));
      s.gcp = {
        ...defined({
          projectID: str(get(w, "projectID")),
          zone: str(get(w, "zone")),
          network: str(get(w, "networkInterfaces", 0, "network")),
          subnetwork: str(get(w, "networkInterfaces", 0, "subnetwork")),
          serviceAccountEmail: str(get(w, "serviceAccounts", 0, "email")),
        }),
        ...defined(set.gcp),
      } as MachineSetConfig["gcp"];
    }
    if (set.vsphere) {
      const w = facts.workerSpecs[0];
      s.vsphere = {
        ...defined({
          server: str(get(w, "workspace", "server")),
          datacenter: str(get(w, "workspace", "datacenter")),
          datastore: str(get(w, "workspace", "datastore")),
          folder: str(get(w, "workspace", "folder")),
          resourcePool: str(get(w, "workspace", "resourcePool")),
          networkName: str(get(w, "network", "devices", 0, "networkName")),
          credentialsSecret: str(get(w, "credentialsSecret", "name")),
        }),
        ...defined(set.vsphere),
      } as MachineSetConfig["vsphere"];
    }
    if (set.nutanix) {
      const w = facts.workerSpecs[0];
      s.nutanix = {
        ...defined({
          clusterUuid: str(get(w, "cluster", "uuid")),
          subnetUuid: str(get(w, "subnets", 0, "uuid")),
          credentialsSecret: str(get(w, "credentialsSecret", "name")),
          projectUuid: get(w, "project", "type") === "name" ? undefined : str(get(w, "project", "uuid")),
          projectName: get(w, "project", "type") === "name" ? str(get(w, "project", "name")) : undefined,
        }),
        ...defined(set.nutanix),
      } as MachineSetConfig["nutanix"];
    }
    return s;
  });
  return { cluster: merged, machineSets: out };
}
