import { connectKube, KubeAccess } from "../../providers/kube-wait/api";
import { ClusterFacts, linuxWorkerSpecs, registriesIn } from "./discovery";

/**
 * Reads `Infrastructure/cluster` and the MachineSets of `openshift-machine-api` at `pulumi preview/up` (never in
 * synth). Runs in the program, not in a provider: its answers shape what is declared.
 */
export async function discoverCluster(access: KubeAccess): Promise<ClusterFacts> {
  const api = await connectKube(access, 15_000);
  const infrastructure = await api.get("/apis/config.openshift.io/v1/infrastructures/cluster");
  const list = await api.get("/apis/machine.openshift.io/v1beta1/namespaces/openshift-machine-api/machinesets");
  const pullSecret = await api.get("/api/v1/namespaces/openshift-config/secrets/pull-secret");
  return { infrastructure, workerSpecs: linuxWorkerSpecs(list), registriesWithCredentials: registriesIn(pullSecret) };
}
