import type * as pulumi from "@pulumi/pulumi";
import { lockedJob } from "./day2-lock";
import { connectKube, KubeApi } from "../kube-wait/api";
import { MACHINE_API_NAMESPACE } from "../../facts/wmco";
import { MACHINESET_LABEL } from "../../facts/day2";
import { batchSize, configuredByWmco, machinesOf, MachineState, staleMachines } from "./machine-rollout-plan";

export interface MachineRolloutInputs {
  /** `<project>/<stack>`: Machines are replaced under the cluster-wide day-2 lock (providers/day2/day2-lock.ts). */
  lockStack?: string;
  machineSet: string;
  /** The image the set's template boots now (`machineImage` of its providerSpec value). */
  image: string;
  replicas: number;
  maxUnavailable: number;
  /** How long one batch's replacements may take to be Ready and configured by WMCO, seconds. */
  readyTimeoutSeconds: number;
  /** Machines preview expected to replace (shown in the plan; the run reads the API again). */
  planned: string[];
  /** Pause between checks, seconds. Default 15 (WMCO polls its version every 15 s). */
  pollSeconds?: number;
  kubeconfig?: string;
  context?: string;
  __provider?: string;
}

export interface MachineRolloutOutputs extends MachineRolloutInputs {
  /** Machines replaced by the last run, in order. */
  replaced: string[];
}

const progress = (line: string) => console.error(`machine rollout: ${line}`);
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));
const machinesPath = `/apis/machine.openshift.io/v1beta1/namespaces/${MACHINE_API_NAMESPACE}/machines`;

async function listMachines(api: KubeApi, set: string): Promise<MachineState[]> {
  const r = await api.request(
    "GET",
    `${machinesPath}?labelSelector=${encodeURIComponent(`${MACHINESET_LABEL}=${set}`)}`,
  );
  if (r.status !== 200) throw new Error(`MachineSet ${set}: listing its Machines failed: the API answered ${r.status}`);
  return machinesOf(r.body, set);
}

/** Fresh Machines (on the wanted image) whose Node WMCO has configured, and what the others lack. */
async function configured(
  api: KubeApi,
  machines: MachineState[],
  image: string,
): Promise<{ done: string[]; waiting: string[] }> {
  const done: string[] = [];
  const waiting: string[] = [];
  for (const m of machines.filter((x) => x.image === image && !x.deleting)) {
    if (!m.node) {
      waiting.push(`${m.name} (phase ${m.phase || "none yet"}, no Node)`);
      continue;
    }
    const node = await api.get(`/api/v1/nodes/${encodeURIComponent(m.node)}`);
    if (node && configuredByWmco(node)) done.push(m.name);
    else waiting.push(`${m.name} (Node ${m.node} not yet Ready and configured by WMCO)`);
  }
  return { done, waiting };
}

async function run(i: MachineRolloutInputs): Promise<MachineRolloutOutputs> {
  const api = await connectKube({ kubeconfig: i.kubeconfig, context: i.context }, 30_000);
  const poll = (i.pollSeconds ?? 15) * 1000;
  // The day-2 lock only when there is something to replace: an up with nothing to do waits for no one.
  const first = staleMachines(await listMachines(api, i.machineSet), i.image);
  if (first.length === 0) return { ...i, replaced: [] };
  return lockedJob(api, i.lockStack, `Machine rollout of ${i.machineSet}`, { pollMs: poll, progress }, () =>
    replaceStale(i, api, poll),
  );
}

async function replaceStale(i: MachineRolloutInputs, api: KubeApi, poll: number): Promise<MachineRolloutOutputs> {
  const size = batchSize(i.maxUnavailable, i.replicas);
  const replaced: string[] = [];
  for (let round = 1; ; round++) {
    const machines = await listMachines(api, i.machineSet);
    const stale = staleMachines(machines, i.image);
    if (stale.length === 0) break;
    if (size === 0)
      throw new Error(
        `MachineSet ${i.machineSet}: ${stale.join(", ")} run the old image, but with ${i.replicas} replica(s) replacing one would leave no Windows node; raise replicas to 2 or more for the rollout`,
      );
    const before = (await configured(api, machines, i.image)).done.length;
    const batch = stale.slice(0, size);
    progress(
      `MachineSet ${i.machineSet}, batch ${round}: deleting ${batch.join(", ")} (${stale.length} on the old image)`,
    );
    for (const name of batch) {
      // machine-api drains the node (Eviction API), deletes the VM and the Node; the MachineSet creates the replacement.
      const r = await api.request("DELETE", `${machinesPath}/${encodeURIComponent(name)}`);
      if (r.status >= 300 && r.status !== 404)
        throw new Error(`MachineSet ${i.machineSet}: deleting Machine ${name} failed: the API answered ${r.status}`);
    }
    const want = Math.min(i.replicas, before + batch.length);
    const deadline = Date.now() + i.readyTimeoutSeconds * 1000;
    const started = Date.now();
    for (;;) {
      const now = await configured(api, await listMachines(api, i.machineSet), i.image);
      if (now.done.length >= want) break;
      if (Date.now() + poll > deadline)
        throw new Error(
          `MachineSet ${i.machineSet}: the replacements of ${batch.join(", ")} were not Ready and configured by WMCO within ${Math.round(i.readyTimeoutSeconds / 60)} minutes (${now.done.length}/${want} on the new image; waiting: ${now.waiting.join("; ") || "no new Machine yet"}). Machines replaced so far: ${replaced.join(", ") || "none"}; the next pulumi up resumes with the ones still on the old image`,
        );
      progress(
        `MachineSet ${i.machineSet}: ${now.done.length}/${want} on the new image configured, ${Math.round((Date.now() - started) / 1000)}s`,
      );
      await pause(poll);
    }
    replaced.push(...batch);
  }
  return { ...i, replaced };
}

/**
 * The MachineSetRollout dynamic provider: replaces the Machines still on an old image after the MachineSet's image
 * changed, a batch at a time, each batch waiting for its replacements to be configured by WMCO. Progress is the
 * cluster itself (which Machines run which image), so a failed run resumes.
 */
export const machineRolloutProvider: pulumi.dynamic.ResourceProvider = {
  async diff(_id: string, olds: MachineRolloutOutputs, news: MachineRolloutInputs) {
    const settingsChanged =
      JSON.stringify({ ...olds, replaced: undefined }) !== JSON.stringify({ ...news, replaced: undefined });
    return { changes: settingsChanged || news.planned.length > 0, replaces: [], deleteBeforeReplace: false };
  },
  async create(inputs: MachineRolloutInputs) {
    return { id: inputs.machineSet, outs: await run(inputs) };
  },
  async update(_id: string, _olds: MachineRolloutOutputs, news: MachineRolloutInputs) {
    return { outs: await run(news) };
  },
  async delete() {
    // Nothing to undo: the Machines are the MachineSet's.
  },
};
