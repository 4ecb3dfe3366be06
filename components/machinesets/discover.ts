import { KubeAccess } from "../../providers/kube-wait/api";
import { objects } from "../../lib/json";
import { LINUX_NODES_PAGE_PATH, WINDOWS_NODES_PATH } from "../../facts/day2";
import { MACHINE_API_NAMESPACE, USER_DATA_SECRET } from "../../facts/wmco";
import { Platform } from "../../stacks/schema/cluster";
import { userDataPublicKey } from "../key/rotation";
import { decodeNodes } from "../../providers/day2/inventory";
import { ClusterFacts, workersFor } from "./discovery";
import {
  connectForDiscovery,
  decodeInfrastructure,
  decodeMachines,
  decodeMachineSets,
  decodeMirrorSets,
  decodeNetwork,
  decodeNodeTaints,
  decodeProxy,
  decodeRuntimeClasses,
  desiredVersion,
  gitVersion,
  installedCsv,
  linuxWorkerSpecs,
  registriesIn,
  secretText,
} from "../cluster-objects";

/** Everything the program reads from the cluster at `pulumi preview/up` (never in synth), through one connection. */
export interface ClusterReader {
  /** The cluster objects discovery and the checks read, decoded (cluster-objects.ts). */
  facts(opts: { platform: Platform; operator: { namespace: string; subscription: string } }): Promise<ClusterFacts>;
  /** Which of these Secrets exist in `namespace`: each asked for by name, so no list of Secrets is read. */
  existingSecrets(namespace: string, names: readonly string[]): Promise<Set<string>>;
  /** The public key WMCO wrote into `windows-user-data` (undefined before WMCO has written it). */
  wmcoPublicKey(): Promise<string | undefined>;
}

/**
 * Opens the cluster for discovery. Runs in the program, not in a provider: its answers shape what is declared.
 */
export async function readCluster(access: KubeAccess): Promise<ClusterReader> {
  const api = await connectForDiscovery(access);
  const get = (path: string) => api.get(path);
  return {
    facts: async ({ platform, operator }) => {
      const [
        infrastructure,
        machineSets,
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
        get(`/apis/machine.openshift.io/v1beta1/namespaces/${MACHINE_API_NAMESPACE}/machinesets`),
        get("/api/v1/namespaces/openshift-config/secrets/pull-secret"),
        get("/apis/config.openshift.io/v1/networks/cluster"),
        get("/apis/operator.openshift.io/v1/networks/cluster"),
        get("/apis/config.openshift.io/v1/proxies/cluster"),
        get("/apis/config.openshift.io/v1/clusterversions/version"),
        get(
          `/apis/operators.coreos.com/v1alpha1/namespaces/${operator.namespace}/subscriptions/${operator.subscription}`,
        ),
        get("/apis/config.openshift.io/v1/imagedigestmirrorsets"),
        get("/apis/config.openshift.io/v1/imagetagmirrorsets"),
        get(WINDOWS_NODES_PATH),
        get(`/apis/machine.openshift.io/v1beta1/namespaces/${MACHINE_API_NAMESPACE}/machines`),
        get("/apis/node.k8s.io/v1/runtimeclasses"),
        // What WMCO's pkg/cluster/config.go `validateK8sVersion` reads (discovery ServerVersion).
        get("/version"),
        // Where the node relay can run.
        get(LINUX_NODES_PAGE_PATH),
      ]);
      const sets = decodeMachineSets(machineSets);
      return {
        infrastructure: decodeInfrastructure(infrastructure),
        workers: workersFor(platform, linuxWorkerSpecs(sets)),
        machineSets: sets,
        registriesWithCredentials: registriesIn(pullSecret),
        network: decodeNetwork({ config: networkConfig, operator: networkOperator }),
        proxy: decodeProxy(proxy),
        installedCSV: installedCsv(subscription),
        openShiftVersion: desiredVersion(clusterVersion),
        kubernetesVersion: gitVersion(serverVersion),
        mirrorSets: decodeMirrorSets({ idms: objects(idms?.items), itms: objects(itms?.items) }),
        windowsNodes: decodeNodes(windowsNodes),
        machines: decodeMachines(machines),
        runtimeClasses: decodeRuntimeClasses(runtimeClasses),
        linuxNodes: decodeNodeTaints(linuxNodes),
      };
    },
    existingSecrets: async (namespace, names) => {
      const found = await Promise.all(
        names.map(async (n) => ((await get(`/api/v1/namespaces/${namespace}/secrets/${n}`)) ? [n] : [])),
      );
      return new Set(found.flat());
    },
    wmcoPublicKey: async () => {
      const userData = secretText(
        await get(`/api/v1/namespaces/${MACHINE_API_NAMESPACE}/secrets/${USER_DATA_SECRET}`),
        "userData",
      );
      return userData ? userDataPublicKey(userData) : undefined;
    },
  };
}
