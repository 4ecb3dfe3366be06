/**
 * Pure decisions about cluster state: given what the Kubernetes API returned, is the thing we wait for there yet?
 * No I/O here, so every OLM situation can be tested with recorded objects.
 */

/** The API's answer to one GET: the parsed object, or `undefined` when it does not exist (404). */
export type Fetched = Record<string, unknown> | undefined;

export type Verdict<T> =
  { state: "done"; outputs: T } | { state: "waiting"; reason: string } | { state: "failed"; message: string };

import { get, obj as objOf, objects, str, strings } from "../../lib/json";

interface Condition {
  type?: string;
  status?: string;
  reason?: string;
  message?: string;
}

/** An object's `status.conditions`, each field read as text. */
function conditionsOf(o: unknown): Condition[] {
  return objects(get(o, "status", "conditions")).map((c) => ({
    type: str(c.type),
    status: str(c.status),
    reason: str(c.reason),
    message: str(c.message),
  }));
}

/** Where an operator wait looks; `installPlan`/`csv` are fetched only once the Subscription names them. */
export interface OperatorTarget {
  namespace: string;
  subscription: string;
}

export interface OperatorReadyOutputs {
  installedCSV: string;
  version: string;
}

/** What the Subscription tells us to fetch next. */
export function nextFromSubscription(sub: Fetched): { csv?: string; installPlan?: string } {
  return {
    csv: str(get(sub, "status", "installedCSV")),
    installPlan: str(get(sub, "status", "installPlanRef", "name")) ?? str(get(sub, "status", "installplan", "name")),
  };
}

/** Subscription conditions that explain a stall (catalog down, resolution failed), for the wait's reason. */
function subscriptionTrouble(sub: Fetched): string | undefined {
  const conditions = conditionsOf(sub);
  const bad = conditions.filter(
    (c) =>
      c.status === "True" &&
      ["ResolutionFailed", "CatalogSourcesUnhealthy", "InstallPlanFailed", "InstallPlanMissing"].includes(c.type ?? ""),
  );
  if (bad.length === 0) return undefined;
  return bad.map((c) => `${c.type}${c.reason ? ` (${c.reason})` : ""}${c.message ? `: ${c.message}` : ""}`).join("; ");
}

/**
 * Is WMCO really running? Done when the Subscription's installed CSV reports `Succeeded`. Fails fast when an
 * InstallPlan waits for manual approval (waiting would only end in a timeout) and when the CSV failed.
 */
export function operatorVerdict(
  t: OperatorTarget,
  sub: Fetched,
  installPlan: Fetched,
  csv: Fetched,
): Verdict<OperatorReadyOutputs> {
  if (!sub) return { state: "waiting", reason: `Subscription ${t.namespace}/${t.subscription} does not exist yet` };
  const { csv: installed, installPlan: planName } = nextFromSubscription(sub);
  if (installed && csv) {
    const phase = str(get(csv, "status", "phase")) ?? "Pending";
    if (phase === "Succeeded") {
      return {
        state: "done",
        outputs: {
          installedCSV: installed,
          version: str(get(csv, "spec", "version")) ?? installed.replace(/^.*\.v/, ""),
        },
      };
    }
    const why = [str(get(csv, "status", "reason")), str(get(csv, "status", "message"))].filter(Boolean).join(": ");
    if (phase === "Failed") {
      return {
        state: "failed",
        message: `CSV ${t.namespace}/${installed} failed${why ? ` (${why})` : ""}; see \`oc describe csv ${installed} -n ${t.namespace}\``,
      };
    }
    return { state: "waiting", reason: `CSV ${installed} is ${phase}${why ? ` (${why})` : ""}` };
  }
  if (planName && installPlan) {
    const approval = str(get(installPlan, "spec", "approval"));
    const approved = get(installPlan, "spec", "approved") === true;
    const phase = str(get(installPlan, "status", "phase"));
    if ((approval === "Manual" && !approved) || phase === "RequiresApproval") {
      const csvs = strings(get(installPlan, "spec", "clusterServiceVersionNames"));
      return {
        state: "failed",
        message:
          `InstallPlan ${t.namespace}/${planName}${csvs.length ? ` (installs ${csvs.join(", ")})` : ""} awaits manual approval ` +
          `(operator.installPlanApproval is Manual). Approve it with ` +
          `\`oc patch installplan ${planName} -n ${t.namespace} --type merge -p '{"spec":{"approved":true}}'\`, then run \`pulumi up\` again.`,
      };
    }
    if (phase === "Failed") {
      const conditions = conditionsOf(installPlan);
      const msg = conditions
        .map((c) => c.message)
        .filter(Boolean)
        .join("; ");
      return { state: "failed", message: `InstallPlan ${t.namespace}/${planName} failed${msg ? `: ${msg}` : ""}` };
    }
    return { state: "waiting", reason: `InstallPlan ${planName} is ${phase ?? "being created"}` };
  }
  const trouble = subscriptionTrouble(sub);
  const state = str(get(sub, "status", "state")) ?? "not yet resolved";
  return { state: "waiting", reason: `Subscription ${t.subscription} is ${state}${trouble ? `; ${trouble}` : ""}` };
}

/** A namespaced object we wait for, such as `openshift-machine-api/windows-user-data`. */
export interface ObjectTarget {
  apiVersion: string;
  kind: string;
  namespace: string;
  name: string;
  /** When set, the object counts only once `data[dataKey]` is present (WMCO writes `userData`). */
  dataKey?: string;
}

export interface ObjectExistsOutputs {
  resourceVersion: string;
  uid: string;
}

/** Exists, and has the data key when one is asked for. Only metadata leaves this function, never data. */
export function objectVerdict(t: ObjectTarget, obj: Fetched): Verdict<ObjectExistsOutputs> {
  const id = `${t.kind} ${t.namespace}/${t.name}`;
  if (!obj) return { state: "waiting", reason: `${id} does not exist yet` };
  if (t.dataKey) {
    const data = objOf(get(obj, "data"));
    if (!data || typeof data[t.dataKey] !== "string" || data[t.dataKey] === "") {
      return { state: "waiting", reason: `${id} exists but has no '${t.dataKey}' yet` };
    }
  }
  return {
    state: "done",
    outputs: {
      resourceVersion: str(get(obj, "metadata", "resourceVersion")) ?? "",
      uid: str(get(obj, "metadata", "uid")) ?? "",
    },
  };
}

/** REST path of a namespaced object: core group under /api, others under /apis. */
export function objectPath(apiVersion: string, plural: string, namespace: string, name: string): string {
  const base = apiVersion.includes("/") ? `/apis/${apiVersion}` : `/api/${apiVersion}`;
  return `${base}/namespaces/${encodeURIComponent(namespace)}/${plural}/${encodeURIComponent(name)}`;
}

/** The resource name the API uses for a kind (the kinds we wait for all pluralise regularly). */
export function pluralOf(kind: string): string {
  const lower = kind.toLowerCase();
  return lower.endsWith("s") ? `${lower}es` : lower.endsWith("y") ? `${lower.slice(0, -1)}ies` : `${lower}s`;
}

export const OLM = "operators.coreos.com/v1alpha1";

import { BYOH_NODE_LABEL } from "../../facts/wmco";

/** The node list request for BYOH nodes (label selector, URL-encoded). */
export const BYOH_NODES_PATH = `/api/v1/nodes?labelSelector=${encodeURIComponent(`${BYOH_NODE_LABEL}=true`)}`;

/**
 * Has WMCO deconfigured every BYOH node? It removes a node once its instance leaves `windows-instances`
 * (`deconfigureInstances`), so the list empties; until then the key and SSH access must stay.
 */
export function byohGoneVerdict(list: Fetched): Verdict<Record<string, never>> {
  const items = objects(list?.items).map((n) => str(get(n, "metadata", "name")) ?? "?");
  if (items.length === 0) return { state: "done", outputs: {} };
  return {
    state: "waiting",
    reason: `WMCO has not yet deconfigured ${items.length} BYOH node(s): ${items.join(", ")}`,
  };
}

/** Whether WMCO has let go of the BYOH node at `address` (no BYOH Node carries that address any more). */
export function byohHostReleasedVerdict(list: Fetched, address: string): Verdict<Record<string, never>> {
  const held = objects(list?.items).filter((n) =>
    objects(get(n, "status", "addresses")).some((a) => str(a.address) === address),
  );
  if (held.length === 0) return { state: "done", outputs: {} };
  return {
    state: "waiting",
    reason: `WMCO has not yet deconfigured node ${held.map((n) => str(get(n, "metadata", "name")) ?? "?").join(", ")} at ${address}`,
  };
}
