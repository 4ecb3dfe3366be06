import type * as pulumi from "@pulumi/pulumi";
import { lockedJob } from "./day2-lock";
import { apiError, connectKube, KubeApi } from "../kube-wait/api";
import { MACHINE_API_NAMESPACE } from "../../facts/wmco";
import { DELETE_MACHINE_ANNOTATION, MACHINESET_LABEL } from "../../facts/day2";
import {
  batchSize,
  configuredByWmco,
  machinesOf,
  MachineState,
  notServing,
  staleMachines,
} from "./machine-rollout-plan";
import { surgeStep, SurgeStep } from "./machine-surge-plan";
import { get } from "../../lib/json";
import { decodeNode } from "./inventory";
import { listWindowsNodes } from "./ready";
import { wmcoUpgradeRefusal } from "./wmco-upgrade";

export interface MachineRolloutInputs {
  /** `<project>/<stack>`: Machines are replaced under the cluster-wide day-2 lock (providers/day2/day2-lock.ts). */
  lockStack?: string;
  machineSet: string;
  /** The image the set's template boots now (`machineImage` of its providerSpec value). */
  image: string;
  replicas: number;
  /** `replace` (default) or `surge` (machine-surge-plan.ts). */
  strategy?: "replace" | "surge";
  /** With `surge`, Machines replaced per round; absent: every Machine on the old image at once. */
  maxSurge?: number;
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
const machineSetsPath = `/apis/machine.openshift.io/v1beta1/namespaces/${MACHINE_API_NAMESPACE}/machinesets`;
/** Our writes are recorded under this name in managedFields, so an operator can tell who scaled the set. */
const FIELD_MANAGER = "windows-estate-rollout";

async function listMachines(api: KubeApi, set: string): Promise<MachineState[]> {
  const r = await api.request(
    "GET",
    `${machinesPath}?labelSelector=${encodeURIComponent(`${MACHINESET_LABEL}=${set}`)}`,
  );
  if (r.status !== 200) throw apiError(`MachineSet ${set}: listing its Machines`, r);
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
    const node = m.node && (await api.get(`/api/v1/nodes/${encodeURIComponent(m.node)}`));
    if (node && configuredByWmco(decodeNode(node))) done.push(m.name);
    else waiting.push(notServing(m));
  }
  return { done, waiting };
}

async function run(i: MachineRolloutInputs): Promise<MachineRolloutOutputs> {
  const api = await connectKube(i, 30_000);
  const poll = (i.pollSeconds ?? 15) * 1000;
  // The day-2 lock only when there is something to replace: an up with nothing to do waits for no one.
  const listed = await listMachines(api, i.machineSet);
  // Surge: a round a failed run left (annotated Machines, still there or being deleted) is work too.
  if (staleMachines(listed, i.image).length === 0 && !(i.strategy === "surge" && listed.some((m) => m.marked)))
    return { ...i, replaced: [] };
  const operation = `Machine rollout of ${i.machineSet}`;
  // Not while WMCO is upgrading any Windows node (wmco-upgrade.ts): it would compete for the same nodes.
  const refusal = wmcoUpgradeRefusal(await listWindowsNodes(api, `${operation}: listing Windows nodes`), operation);
  if (refusal) throw new Error(refusal);
  return lockedJob(api, i.lockStack, operation, { pollMs: poll, progress }, () =>
    i.strategy === "surge" ? surge(i, api, poll) : replaceStale(i, api, poll),
  );
}

/** The MachineSet's `spec.replicas` now. */
async function liveReplicas(api: KubeApi, set: string): Promise<number> {
  const ms = await api.get(`${machineSetsPath}/${encodeURIComponent(set)}`);
  if (!ms) throw new Error(`MachineSet ${set}: not found in ${MACHINE_API_NAMESPACE}`);
  const replicas = get(ms, "spec", "replicas");
  if (typeof replicas !== "number") throw new Error(`MachineSet ${set}: spec.replicas is not set`);
  return replicas;
}

async function patch(api: KubeApi, path: string, body: unknown, what: string): Promise<"done" | "gone"> {
  const r = await api.request("PATCH", `${path}?fieldManager=${FIELD_MANAGER}`, body);
  if (r.status === 404) return "gone";
  if (r.status < 200 || r.status >= 300) throw apiError(`${what}`, r);
  return "done";
}

/**
 * The surge strategy: each pass reads the set and its Machines and takes the one step machine-surge-plan.ts
 * `surgeStep` names. Waits are bounded by `readyTimeoutSeconds` each and report progress.
 */
async function surge(i: MachineRolloutInputs, api: KubeApi, poll: number): Promise<MachineRolloutOutputs> {
  const replaced: string[] = [];
  let waiting: { action: string; since: number } | undefined;
  const timeout = i.readyTimeoutSeconds * 1000;
  const minutes = Math.round(i.readyTimeoutSeconds / 60);
  for (;;) {
    const live = await liveReplicas(api, i.machineSet);
    const machines = await listMachines(api, i.machineSet);
    const configuredNow = new Set((await configured(api, machines, i.image)).done);
    const step: SurgeStep = surgeStep({
      declared: i.replicas,
      live,
      machines,
      image: i.image,
      configured: configuredNow,
      maxSurge: i.maxSurge ?? 0,
    });
    if (step.action !== "wait-new" && step.action !== "wait-gone") waiting = undefined;
    else if (waiting?.action !== step.action) waiting = { action: step.action, since: Date.now() };
    const elapsed = waiting ? Date.now() - waiting.since : 0;
    switch (step.action) {
      case "done":
        return { ...i, replaced };
      case "mark":
        progress(
          `MachineSet ${i.machineSet}: marking ${step.machines.join(", ")} with ${DELETE_MACHINE_ANNOTATION} (deleted first when the set scales back)`,
        );
        for (const name of step.machines)
          await patch(
            api,
            `${machinesPath}/${encodeURIComponent(name)}`,
            { metadata: { annotations: { [DELETE_MACHINE_ANNOTATION]: "true" } } },
            `MachineSet ${i.machineSet}: annotating Machine ${name}`,
          );
        break;
      case "scale": {
        const marked = machines.filter((m) => m.marked && !m.deleting).map((m) => m.name);
        progress(
          step.reason === "surge"
            ? `MachineSet ${i.machineSet}: scaling from ${live} to ${step.replicas} replicas so ${marked.length} new Machine(s) come up beside ${marked.join(", ")}`
            : `MachineSet ${i.machineSet}: the new Machines serve; scaling back to ${step.replicas} replicas, which deletes ${marked.join(", ")}`,
        );
        const r = await patch(
          api,
          `${machineSetsPath}/${encodeURIComponent(i.machineSet)}`,
          { spec: { replicas: step.replicas } },
          `MachineSet ${i.machineSet}: scaling to ${step.replicas} replicas`,
        );
        if (r === "gone") throw new Error(`MachineSet ${i.machineSet}: not found in ${MACHINE_API_NAMESPACE}`);
        if (step.reason === "restore") {
          // Until the controller has acted, the marked Machines still look like a round not yet scaled up.
          await controllerDeleting(i, api, marked, poll);
          replaced.push(...marked);
        }
        break;
      }
      case "wait-new":
        if (elapsed + poll > timeout)
          throw new Error(
            `MachineSet ${i.machineSet}: the new Machines were not Ready and configured by WMCO within ${minutes} minutes (${step.have}/${step.want}; waiting: ${step.waiting.join("; ") || "no new Machine yet"}). The set stays scaled up with the old Machines marked; the next pulumi up resumes`,
          );
        progress(
          `MachineSet ${i.machineSet}: ${step.have}/${step.want} new Machine(s) configured by WMCO, ${Math.round(elapsed / 1000)}s`,
        );
        await pause(poll);
        break;
      case "wait-gone":
        if (elapsed + poll > timeout)
          throw new Error(
            `MachineSet ${i.machineSet}: ${step.machines.join(", ")} were not deleted within ${minutes} minutes (machine-api drains each node first; a PodDisruptionBudget can hold the drain). The next pulumi up resumes`,
          );
        progress(
          `MachineSet ${i.machineSet}: waiting for machine-api to drain and delete ${step.machines.join(", ")}, ${Math.round(elapsed / 1000)}s`,
        );
        await pause(poll);
        break;
    }
  }
}

/** After the scale-back: wait until the controller has begun deleting every marked Machine (seconds, normally). */
async function controllerDeleting(
  i: MachineRolloutInputs,
  api: KubeApi,
  marked: readonly string[],
  poll: number,
): Promise<void> {
  const started = Date.now();
  for (;;) {
    const left = (await listMachines(api, i.machineSet)).filter((m) => marked.includes(m.name) && !m.deleting);
    if (left.length === 0) return;
    if (Date.now() - started + poll > i.readyTimeoutSeconds * 1000)
      throw new Error(
        `MachineSet ${i.machineSet}: scaled back to ${i.replicas}, but the MachineSet controller has not begun deleting ${left.map((m) => m.name).join(", ")}; is machine-api running?`,
      );
    progress(
      `MachineSet ${i.machineSet}: waiting for the MachineSet controller to delete ${left.map((m) => m.name).join(", ")}`,
    );
    await pause(poll);
  }
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
        throw apiError(`MachineSet ${i.machineSet}: deleting Machine ${name}`, r);
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
