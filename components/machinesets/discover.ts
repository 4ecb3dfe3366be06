import { connectKube, KubeAccess } from "../../providers/kube-wait/api";
import { objects } from "../../lib/json";
import { WINDOWS_NODE_SELECTOR } from "../../facts/day2";
import { ClusterFacts, linuxWorkerSpecs, registriesIn } from "./discovery";

/**
 * Reads `Infrastructure/cluster` and the MachineSets of `openshift-machine-api` at `pulumi preview/up` (never in
 * synth). Runs in the program, not in a provider: its answers shape what is declared.
 */
export async function discoverCluster(
  access: KubeAccess,
  operator: { namespace: string; subscription: string },
): Promise<ClusterFacts> {
  const api = await connectKube(access, 15_000);
  const get = (path: string) => api.get(path);
  const [
    infrastructure,
    list,
    pullSecret,
    networkConfig,
    networkOperator,
    proxy,
    clusterVersion,
    subscription,
    idms,
    itms,
    windowsNodes,
    machines,
    runtimeClasses,
    serverVersion,
    linuxNodes,
  ] = await Promise.all([
    get("/apis/config.openshift.io/v1/infrastructures/cluster"),
    get("/apis/machine.openshift.io/v1beta1/namespaces/openshift-machine-api/machinesets"),
    get("/api/v1/namespaces/openshift-config/secrets/pull-secret"),
    get("/apis/config.openshift.io/v1/networks/cluster"),
    get("/apis/operator.openshift.io/v1/networks/cluster"),
    get("/apis/config.openshift.io/v1/proxies/cluster"),
    get("/apis/config.openshift.io/v1/clusterversions/version"),
    get(`/apis/operators.coreos.com/v1alpha1/namespaces/${operator.namespace}/subscriptions/${operator.subscription}`),
    get("/apis/config.openshift.io/v1/imagedigestmirrorsets"),
    get("/apis/config.openshift.io/v1/imagetagmirrorsets"),
    get(`/api/v1/nodes?labelSelector=${encodeURIComponent(WINDOWS_NODE_SELECTOR)}`),
    get("/apis/machine.openshift.io/v1beta1/namespaces/openshift-machine-api/machines"),
    get("/apis/node.k8s.io/v1/runtimeclasses"),
    // What WMCO's pkg/cluster/config.go `validateK8sVersion` reads (discovery ServerVersion), with the same timeout.
    get("/version"),
    // Where the node relay can run (components/node-access/placement.ts): one page is plenty to tell one from two.
    get(`/api/v1/nodes?limit=500&labelSelector=${encodeURIComponent("kubernetes.io/os=linux")}`),
  ]);
  return {
    infrastructure,
    workerSpecs: linuxWorkerSpecs(list),
    machineSets: list,
    registriesWithCredentials: registriesIn(pullSecret),
    network: { config: networkConfig, operator: networkOperator },
    proxy,
    clusterVersion,
    subscription,
    mirrorSets: { idms: itemsOf(idms), itms: itemsOf(itms) },
    windowsNodes,
    machines,
    runtimeClasses,
    serverVersion,
    linuxNodes,
  };
}

function itemsOf(list: Record<string, unknown> | undefined): Record<string, unknown>[] {
  return objects(list?.items);
}

/** Which of these Secrets exist in `namespace`: each asked for by name, so no list of Secrets is read. */
export async function existingSecrets(
  access: KubeAccess,
  namespace: string,
  names: readonly string[],
): Promise<Set<string>> {
  const api = await connectKube(access, 15_000);
  const found = await Promise.all(
    names.map(async (n) => ((await api.get(`/api/v1/namespaces/${namespace}/secrets/${n}`)) ? [n] : [])),
  );
  return new Set(found.flat());
}
