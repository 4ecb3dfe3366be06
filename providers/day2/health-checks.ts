/**
 * Pausing the MachineHealthChecks that select the Machines of a batch while it reboots, and resuming only the ones
 * this rollout paused. A check someone else paused is left alone. Clusters without the Machine API (404) have none.
 */
import { get, objects, str, stringMap, strings } from "../../lib/json";
import { MHC_PAUSED_ANNOTATION, PAUSED_FOR_ROLLOUT_ANNOTATION } from "../../facts/day2";
import { MACHINE_API_NAMESPACE } from "../../facts/wmco";
import { NodeApi } from "./drain-run";
import { apiError } from "../kube-wait/api";

const MHC_PATH = `/apis/machine.openshift.io/v1beta1/namespaces/${MACHINE_API_NAMESPACE}/machinehealthchecks`;

/** Whether a metav1.LabelSelector selects these labels (matchLabels and matchExpressions; an empty selector: all). */
export function selectorMatches(selector: unknown, labels: Record<string, string>): boolean {
  const matchLabels = Object.entries(stringMap(get(selector, "matchLabels")));
  return (
    matchLabels.every(([k, v]) => labels[k] === v) &&
    objects(get(selector, "matchExpressions")).every((e) => {
      const key = str(e.key) ?? "";
      const has = Object.prototype.hasOwnProperty.call(labels, key);
      const isIn = has && strings(e.values).includes(labels[key]);
      const holds: Record<string, boolean> = { In: isIn, NotIn: !isIn, Exists: has, DoesNotExist: !has };
      // An operator of another name (or an inherited property's) selects nothing.
      return holds[str(e.operator) ?? ""] === true;
    })
  );
}

/** The labels of the Machine a Node came from (`machine.openshift.io/machine: <ns>/<name>`), if any. */
async function machineLabels(
  api: NodeApi,
  machineRef: string | undefined,
): Promise<Record<string, string> | undefined> {
  if (!machineRef) return undefined;
  const [ns, name] = machineRef.split("/");
  if (!ns || !name) return undefined;
  const r = await api.request(
    "GET",
    `/apis/machine.openshift.io/v1beta1/namespaces/${encodeURIComponent(ns)}/machines/${encodeURIComponent(name)}`,
  );
  return r.status === 200 ? stringMap(get(r.body, "metadata", "labels")) : undefined;
}

/**
 * Pauses every check selecting one of these Machines (`<namespace>/<name>`, undefined for a node without one) that is
 * not paused yet, marking it as ours. Returns the names of the checks this rollout holds paused (ours from an earlier,
 * interrupted run included).
 */
export async function pauseHealthChecks(
  api: NodeApi,
  machineRefs: readonly (string | undefined)[],
  digest: string,
): Promise<string[]> {
  const machines = (await Promise.all(machineRefs.map((m) => machineLabels(api, m)))).filter((m) => m !== undefined);
  if (machines.length === 0) return [];
  const list = await api.request("GET", MHC_PATH);
  if (list.status === 404) return [];
  if (list.status !== 200) throw apiError(`listing MachineHealthChecks`, list);
  const ours: string[] = [];
  for (const mhc of objects(get(list.body, "items"))) {
    const name = str(get(mhc, "metadata", "name"));
    if (!name || !machines.some((labels) => selectorMatches(get(mhc, "spec", "selector"), labels))) continue;
    const annotations = stringMap(get(mhc, "metadata", "annotations"));
    if (annotations[PAUSED_FOR_ROLLOUT_ANNOTATION] !== undefined) {
      ours.push(name);
      continue;
    }
    if (annotations[MHC_PAUSED_ANNOTATION] !== undefined) continue; // paused by someone else: theirs to resume
    const r = await api.request("PATCH", `${MHC_PATH}/${encodeURIComponent(name)}`, {
      metadata: { annotations: { [MHC_PAUSED_ANNOTATION]: "", [PAUSED_FOR_ROLLOUT_ANNOTATION]: digest } },
    });
    if (r.status < 200 || r.status >= 300)
      throw apiError(`pausing MachineHealthCheck ${MACHINE_API_NAMESPACE}/${name}`, r);
    ours.push(name);
  }
  return ours;
}

/** Resumes the checks this rollout paused. */
export async function resumeHealthChecks(api: NodeApi, names: readonly string[]): Promise<void> {
  for (const name of names) {
    const r = await api.request("PATCH", `${MHC_PATH}/${encodeURIComponent(name)}`, {
      metadata: { annotations: { [MHC_PAUSED_ANNOTATION]: null, [PAUSED_FOR_ROLLOUT_ANNOTATION]: null } },
    });
    if (r.status < 200 || (r.status >= 300 && r.status !== 404))
      throw apiError(`resuming MachineHealthCheck ${MACHINE_API_NAMESPACE}/${name}`, r);
  }
}
