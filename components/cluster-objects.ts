/**
 * The cluster objects discovery reads, decoded at the boundary into the values the checks and the completion use: each
 * field as the API documents it (openshift/api config/v1 `Infrastructure`, `Network`, `Proxy`, `ClusterVersion`;
 * machine/v1beta1 `MachineSet`, `Machine`; OLM `Subscription`; node.k8s.io/v1 `RuntimeClass`; config/v1 `ImageDigestMirrorSet`, `ImageTagMirrorSet`; core/v1 `Secret`, `NodeList`; the Windows Nodes through
 * providers/day2/inventory.ts `decodeNodes`, which the day-2 providers read them with too), and nothing else. A
 * field of another type than the API's reads as absent, as a cluster we do not know may send one: discovery then says
 * what it could not find instead of failing on a shape. Pure, apart from `connectForDiscovery`, the one way discovery
 * (machinesets/discover.ts, vanilla/discover.ts) connects, with its one timeout.
 */
import { z } from "zod";
import { isObject, parseJson } from "../lib/json";
import { messageOf } from "../lib/errors";
import type { ConfigIssue } from "../stacks/config-issue";
import { anyText, fields, itemsOf, listOf, loose, stringMap, text } from "../lib/decode";
import { MACHINESET_LABEL } from "../facts/day2";
import { isMarked, machineImage } from "../providers/day2/machine-rollout-plan";
import { connectKube, KubeAccess, KubeApi } from "../providers/kube-wait/api";
import type { IDMS, ITMS } from "./mirrors/hosts-toml";

/**
 * How long discovery waits for one answer of the API server: what WMCO's pkg/cluster/config.go `validateK8sVersion`
 * gives its discovery client too. The one timeout of every read at preview/up.
 */
const DISCOVERY_REQUEST_TIMEOUT_MS = 15_000;

/** The connection every read of the cluster at preview/up goes through. */
export function connectForDiscovery(access: KubeAccess): Promise<KubeApi> {
  return connectKube(access, DISCOVERY_REQUEST_TIMEOUT_MS);
}

/** The problem when discovery cannot read the cluster: `give` names what the config then has to hold. */
export function unreadableCluster(e: unknown, give: string): ConfigIssue[] {
  const message = `could not read the cluster (${messageOf(e)}); fix access, or set discovery: false and give ${give}`;
  return [{ path: "cluster.discovery", message }];
}

const metadata = fields({ name: text, labels: stringMap });

/** `infrastructures.config.openshift.io/cluster`: which cluster the kubeconfig reaches, and its region. */
const infrastructure = fields({
  spec: loose({ platformSpec: loose({ type: text }) }),
  status: loose({
    infrastructureName: text,
    platformStatus: loose({ type: text, aws: loose({ region: text }), gcp: loose({ region: text }) }),
  }),
}).transform((i) => ({
  platform: i.status?.platformStatus?.type ?? i.spec?.platformSpec?.type,
  infrastructureName: i.status?.infrastructureName,
  region: { AWS: i.status?.platformStatus?.aws?.region, GCP: i.status?.platformStatus?.gcp?.region },
}));
export type Infrastructure = z.output<typeof infrastructure>;

/** One MachineSet of `openshift-machine-api`: its name, replicas, template labels and `providerSpec.value`. */
const machineSet = fields({
  metadata,
  spec: fields({
    replicas: z.number().optional().catch(undefined),
    template: loose({
      metadata: loose({ labels: stringMap }),
      spec: loose({ providerSpec: loose({ value: z.unknown().optional() }) }),
    }),
  }),
}).transform((ms) => ({
  name: ms.metadata.name,
  replicas: ms.spec.replicas,
  templateLabels: ms.spec.template?.metadata?.labels ?? {},
  providerSpec: ms.spec.template?.spec?.providerSpec?.value,
}));
export type MachineSetFacts = z.output<typeof machineSet>;

/** One Machine: its MachineSet, the image it boots, and whether it is going (deleted, or marked for a scale-down). */
const machine = fields({
  metadata: fields({
    name: text,
    labels: stringMap,
    annotations: z.unknown().optional(),
    deletionTimestamp: z.unknown().optional(),
  }),
  spec: fields({ providerSpec: loose({ value: z.unknown().optional() }) }),
}).transform((m) => {
  const machineSet = m.metadata.labels[MACHINESET_LABEL];
  return m.metadata.name && machineSet
    ? {
        name: m.metadata.name,
        machineSet,
        image: machineImage(m.spec.providerSpec?.value),
        deleting: m.metadata.deletionTimestamp !== undefined,
        marked: isMarked(m.metadata.annotations),
      }
    : undefined;
});
export type MachineRow = NonNullable<z.output<typeof machine>>;

/**
 * `networks.config.openshift.io/cluster` and `networks.operator.openshift.io/cluster`: what WMCO's
 * pkg/cluster/config.go `getNetworkType` and `ovnKubernetes.Validate` read.
 */
const networkConfig = fields({
  spec: loose({ networkType: anyText, clusterNetwork: listOf(z.object({ cidr: text })) }),
}).transform((n) => ({
  networkType: n.spec?.networkType,
  clusterNetworks: (n.spec?.clusterNetwork ?? []).map((c) => c.cidr ?? ""),
}));
const networkOperator = fields({
  spec: loose({
    defaultNetwork: loose({
      ovnKubernetesConfig: loose({
        hybridOverlayConfig: loose({
          hybridClusterNetwork: listOf(z.object({})),
          hybridOverlayVXLANPort: z.unknown().optional(),
        }),
      }),
    }),
  }),
}).transform((n) => {
  const hybrid = n.spec?.defaultNetwork?.ovnKubernetesConfig?.hybridOverlayConfig;
  return {
    hybrid: hybrid && { networks: hybrid.hybridClusterNetwork.length, vxlanPort: hybrid.hybridOverlayVXLANPort },
  };
});
export interface NetworkFacts {
  config?: z.output<typeof networkConfig>;
  operator?: z.output<typeof networkOperator>;
}

/** `proxies.config.openshift.io/cluster`: the proxy WMCO applies to Windows nodes. */
const proxy = fields({
  spec: loose({ trustedCA: loose({ name: text }) }),
  status: loose({ httpProxy: text, httpsProxy: text, noProxy: text }),
}).transform((p) => ({ ...p.status, trustedCA: p.spec?.trustedCA?.name }));
export type ProxyFacts = z.output<typeof proxy>;

/**
 * One page of a NodeList: the taints of each node (where the node relay may be scheduled), whether the list goes on
 * (`metadata.continue`), and how many nodes the server says are left (`metadata.remainingItemCount`).
 */
const nodeList = fields({
  items: listOf(z.object({ spec: loose({ taints: listOf(z.object({ key: text, effect: text })) }) })),
  metadata: loose({ continue: text, remainingItemCount: z.number().optional().catch(undefined) }),
}).transform((l) => ({
  taints: l.items.map((n) => n.spec?.taints ?? []),
  continued: l.metadata?.continue !== undefined,
  remaining: l.metadata?.remainingItemCount,
}));
export type NodeTaints = z.output<typeof nodeList>;

/** A `node.k8s.io/v1` RuntimeClass: its name and `scheduling.nodeSelector` (the nodes its pods may land on). */
const runtimeClass = fields({
  metadata: fields({ name: text }),
  scheduling: fields({ nodeSelector: stringMap }),
}).transform((c) => (c.metadata.name ? { name: c.metadata.name, nodeSelector: c.scheduling.nodeSelector } : undefined));
export type RuntimeClassView = NonNullable<z.output<typeof runtimeClass>>;

/**
 * An ImageDigestMirrorSet's or ImageTagMirrorSet's entries with only what WMCO reads (config/v1 `ImageDigestMirrors`,
 * `ImageTagMirrors`): its source, mirrors and policy; an entry without a source dropped.
 */
const mirrorEntries = listOf(
  z.object({ source: text, mirrors: listOf(z.string()), mirrorSourcePolicy: text }),
).transform((es) => es.flatMap(({ source, ...e }) => (source ? [{ source, ...e }] : [])));
const idms = fields({ metadata: fields({ name: text }), spec: fields({ imageDigestMirrors: mirrorEntries }) });
const itms = fields({ metadata: fields({ name: text }), spec: fields({ imageTagMirrors: mirrorEntries }) });

/** A Secret's `data`, base64 as the API returns it. */
const secretData = fields({ data: z.record(z.string(), z.unknown()).catch({}) });

/** The registry names of a `kubernetes.io/dockerconfigjson` Secret, without reading out any credential. */
export function registriesIn(secret: unknown): string[] {
  const b64 = secretData.parse(secret).data[".dockerconfigjson"];
  if (typeof b64 !== "string") return [];
  try {
    const config = z
      .object({ auths: z.record(z.string(), z.unknown()) })
      .safeParse(parseJson(Buffer.from(b64, "base64").toString("utf8")));
    return config.success ? Object.keys(config.data.auths).sort() : [];
  } catch {
    return [];
  }
}

/** A Secret's key, decoded from base64 (undefined when absent or empty). */
export function secretText(secret: unknown, key: string): string | undefined {
  const b64 = secretData.parse(secret).data[key];
  return typeof b64 === "string" && b64 !== "" ? Buffer.from(b64, "base64").toString("utf8") : undefined;
}

const decode =
  <T extends z.ZodType>(schema: T) =>
  (v: unknown): z.output<T> | undefined =>
    v === undefined ? undefined : schema.parse(v);

export const decodeInfrastructure = decode(infrastructure);
export const decodeMachineSets = (list: unknown): MachineSetFacts[] => itemsOf(machineSet).parse(list).items;
export const decodeMachines = (list: unknown): MachineRow[] =>
  itemsOf(machine)
    .parse(list)
    .items.flatMap((m) => (m ? [m] : []));
export const decodeNetwork = (n: { config?: unknown; operator?: unknown }): NetworkFacts => ({
  config: decode(networkConfig)(n.config),
  operator: decode(networkOperator)(n.operator),
});
export const decodeProxy = decode(proxy);
export const decodeNodeTaints = decode(nodeList);
/** The RuntimeClasses of a list (one without a name dropped). */
export const decodeRuntimeClasses = (list: unknown): RuntimeClassView[] =>
  itemsOf(runtimeClass)
    .parse(list)
    .items.flatMap((c) => c ?? []);
/** The cluster's mirror sets (discovery's, or a library user's `clusterMirrorSets`), with what WMCO reads. */
export const decodeMirrorSets = (found: { idms: readonly unknown[]; itms: readonly unknown[] }) => ({
  idms: found.idms.map((o): IDMS => idms.parse(o)),
  itms: found.itms.map((o): ITMS => itms.parse(o)),
});
/** `status.installedCSV` of a Subscription. */
export const installedCsv = (subscription: unknown) =>
  fields({ status: loose({ installedCSV: text }) }).parse(subscription).status?.installedCSV;
/** `status.desired.version` of a ClusterVersion. */
export const desiredVersion = (clusterVersion: unknown) =>
  fields({ status: loose({ desired: loose({ version: text }) }) }).parse(clusterVersion).status?.desired?.version;
/** `gitVersion` of the API server's `GET /version`. */
export const gitVersion = (version: unknown) => fields({ gitVersion: text }).parse(version).gitVersion;

/** The Linux worker MachineSets among all MachineSets: role worker, not Windows (so not ours). */
export function linuxWorkerSpecs(sets: readonly MachineSetFacts[]): unknown[] {
  return sets
    .filter(
      (ms) =>
        ms.templateLabels["machine.openshift.io/cluster-api-machine-role"] === "worker" &&
        ms.templateLabels["machine.openshift.io/os-id"] !== "Windows" &&
        isObject(ms.providerSpec),
    )
    .map((ms) => ms.providerSpec);
}
