/**
 * What every player shares: raw JSON REST calls against the API server through @kubernetes/client-node's KubeConfig
 * (objects stay exactly as the API serves them; the generated typed clients turn times into Date objects and refuse
 * RFC 3339 strings on the way back), metadata accessors, conditions, and the log. The watch cache is
 * lab/players/informer.ts, the work queue lab/players/queue.ts, events lab/players/events.ts.
 */
import { KubeConfig } from "@kubernetes/client-node";
import { answerError, KubeClient, kubeClient } from "../../lib/kube-api";
import { get, isObject, JsonObject, obj, str, stringMap } from "../../lib/json";

export type { JsonObject };

/** One line per action on stdout: `olm: ...`, `wmco: ...`. */
export function say(player: string, text: string): void {
  process.stdout.write(`${player}: ${text}\n`);
}

export class KubeError extends Error {
  constructor(
    readonly status: number,
    readonly reason: string,
    message: string,
  ) {
    super(message);
  }
}

export const isNotFound = (e: unknown) => e instanceof KubeError && e.status === 404;
export const isConflict = (e: unknown) => e instanceof KubeError && e.status === 409;
export const errText = (e: unknown) => (e instanceof Error ? e.message : String(e));

/** `/api/v1/...` or `/apis/<group>/<version>/...`, namespaced when a namespace is given. */
export function resourcePath(apiVersion: string, plural: string, namespace?: string, name?: string, sub?: string) {
  const base = apiVersion.includes("/") ? `/apis/${apiVersion}` : `/api/${apiVersion}`;
  const ns = namespace ? `/namespaces/${encodeURIComponent(namespace)}` : "";
  return `${base}${ns}/${plural}${name ? `/${encodeURIComponent(name)}` : ""}${sub ? `/${sub}` : ""}`;
}

/** The fields of `metadata` the players read. */
export function metaOf(o: unknown) {
  const m = obj(get(o, "metadata")) ?? {};
  return {
    name: str(m.name) ?? "",
    namespace: str(m.namespace) ?? "",
    uid: str(m.uid) ?? "",
    resourceVersion: str(m.resourceVersion) ?? "",
    generation: typeof m.generation === "number" ? m.generation : 0,
    labels: stringMap(m.labels),
    annotations: stringMap(m.annotations),
    deleting: str(m.deletionTimestamp) !== undefined,
    finalizers: Array.isArray(m.finalizers) ? m.finalizers.filter((f): f is string => typeof f === "string") : [],
    ownerReferences: Array.isArray(m.ownerReferences) ? m.ownerReferences.filter(isObject) : [],
  };
}

export const keyOf = (o: unknown) => {
  const m = metaOf(o);
  return m.namespace ? `${m.namespace}/${m.name}` : m.name;
};

/** RFC 3339 in seconds, as metav1.Time serializes. */
export const now = () => new Date().toISOString().replace(/\.\d+Z$/, "Z");
/** RFC 3339 with microseconds, as metav1.MicroTime serializes (Lease renewTime). */
export const nowMicro = () => new Date().toISOString().replace(/Z$/, "000Z");

/** Stable JSON (sorted keys) for "did anything change" comparisons. */
export function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(",")}]`;
  if (isObject(v))
    return `{${Object.keys(v)
      .filter((k) => v[k] !== undefined)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical(v[k])}`)
      .join(",")}}`;
  return JSON.stringify(v);
}

/** Raw JSON REST against the API server the kubeconfig names, through the one client (lib/kube-api.ts). */
export class Kube {
  private constructor(
    readonly kc: KubeConfig,
    private readonly client: KubeClient,
  ) {}

  static connect(kubeconfigPath: string): Kube {
    const kc = new KubeConfig();
    kc.loadFromFile(kubeconfigPath);
    const cluster = kc.getCurrentCluster();
    if (!cluster) throw new Error(`${kubeconfigPath} names no current cluster`);
    return new Kube(kc, kubeClient({ server: cluster.server, authorize: (opts) => kc.applyToHTTPSOptions(opts) }));
  }

  /** The body of a 2xx answer (its text when not JSON); any other answer is a KubeError naming the call. */
  async request(method: string, path: string, body?: unknown, contentType?: string): Promise<unknown> {
    const r = await this.client.request(method, path, body, contentType);
    if (r.status >= 200 && r.status < 300) return r.body ?? (r.text === "" ? undefined : r.text);
    throw new KubeError(r.status, str(get(r.body, "reason")) ?? "", answerError(method, path, r));
  }

  /** The object, or undefined when it does not exist. */
  async get(path: string): Promise<JsonObject | undefined> {
    try {
      return obj(await this.request("GET", path));
    } catch (e) {
      if (isNotFound(e)) return undefined;
      throw e;
    }
  }
  async create(path: string, body: JsonObject): Promise<JsonObject> {
    return obj(await this.request("POST", path, body)) ?? {};
  }
  /** RFC 7386 merge patch (`null` removes a key; lists are replaced whole). */
  async patch(path: string, patch: JsonObject): Promise<JsonObject> {
    return obj(await this.request("PATCH", path, patch)) ?? {};
  }
  async put(path: string, body: JsonObject): Promise<JsonObject> {
    return obj(await this.request("PUT", path, body)) ?? {};
  }
  /** Deletes; true when it was there. */
  async remove(path: string, options?: JsonObject): Promise<boolean> {
    try {
      await this.request("DELETE", path, options);
      return true;
    } catch (e) {
      if (isNotFound(e)) return false;
      throw e;
    }
  }
}

/** A condition list with one entry replaced; lastTransitionTime moves only when the status changes. */
export function withCondition(list: unknown, c: JsonObject, at = now()): JsonObject[] {
  const old = Array.isArray(list) ? list.filter(isObject) : [];
  const prev = old.find((x) => x.type === c.type);
  const transition = prev && prev.status === c.status ? prev.lastTransitionTime : at;
  return [...old.filter((x) => x.type !== c.type), { ...c, lastTransitionTime: transition }];
}

/** What a player is: started (resolves once its watches are established) and stopped. */
export interface Player {
  readonly name: string;
  start(): Promise<void>;
  stop(): void;
}
