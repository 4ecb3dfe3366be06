/**
 * Pure decisions about cluster state: given what the Kubernetes API returned, is the thing we wait for there yet?
 * No I/O here. The operator's (OLM's) decisions are in olm.ts.
 */

/** The API's answer to one GET: the parsed object, or `undefined` when it does not exist (404). */
export type Fetched = Record<string, unknown> | undefined;

/** `notice`: something to tell although the wait is done (an upgrade that awaits approval). */
export type Verdict<T> =
  | { state: "done"; outputs: T; notice?: string }
  | { state: "waiting"; reason: string }
  | { state: "failed"; message: string };

import { get, str } from "../../lib/json";
import { decodeNodes } from "../day2/inventory";

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
  if (t.dataKey && !str(get(obj, "data", t.dataKey)))
    return { state: "waiting", reason: `${id} exists but has no '${t.dataKey}' yet` };
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

/**
 * Has WMCO deconfigured every BYOH node? It removes a node once its instance leaves `windows-instances`
 * (`deconfigureInstances`), so the list empties; until then the key and SSH access must stay.
 */
export function byohGoneVerdict(list: Fetched): Verdict<Record<string, never>> {
  const items = decodeNodes(list).map((n) => n.name);
  if (items.length === 0) return { state: "done", outputs: {} };
  return {
    state: "waiting",
    reason: `WMCO has not yet deconfigured ${items.length} BYOH node(s): ${items.join(", ")}`,
  };
}

/** Whether WMCO has let go of the BYOH node at `address` (no BYOH Node carries that address any more). */
export function byohHostReleasedVerdict(list: Fetched, address: string): Verdict<Record<string, never>> {
  const held = decodeNodes(list).filter((n) => n.addresses.some((a) => a.address === address));
  if (held.length === 0) return { state: "done", outputs: {} };
  return {
    state: "waiting",
    reason: `WMCO has not yet deconfigured node ${held.map((n) => n.name).join(", ")} at ${address}`,
  };
}
