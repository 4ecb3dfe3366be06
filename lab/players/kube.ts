/**
 * What every player shares: raw JSON REST calls against the API server through @kubernetes/client-node's KubeConfig
 * (objects stay exactly as the API serves them; the generated typed clients turn times into Date objects and refuse
 * RFC 3339 strings on the way back), metadata accessors, conditions, and the log. The watch cache is
 * lab/players/informer.ts, the work queue lab/players/queue.ts, events lab/players/events.ts.
 */
import * as http from "http";
import * as https from "https";
import { KubeConfig } from "@kubernetes/client-node";
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

/** Raw JSON REST against the API server the kubeconfig names. */
export class Kube {
  private constructor(
    readonly kc: KubeConfig,
    private readonly server: URL,
  ) {}

  static connect(kubeconfigPath: string): Kube {
    const kc = new KubeConfig();
    kc.loadFromFile(kubeconfigPath);
    const cluster = kc.getCurrentCluster();
    if (!cluster) throw new Error(`${kubeconfigPath} names no current cluster`);
    return new Kube(kc, new URL(cluster.server));
  }

  async request(method: string, path: string, body?: unknown, contentType = "application/json"): Promise<unknown> {
    const opts: https.RequestOptions = { method, headers: { Accept: "application/json" } };
    await this.kc.applyToHTTPSOptions(opts);
    const url = new URL(path, this.server);
    const payload = body === undefined ? undefined : JSON.stringify(body);
    // Content-Length always: Node sends a DELETE's body with neither it nor chunked encoding, and the API server then
    // reads no body (a pod's grace-period-0 DeleteOptions was silently ignored: the kubelet player never finished
    // an evicted pod; found by test/e2e/day2.e2e.ts).
    if (payload !== undefined)
      opts.headers = { ...opts.headers, "Content-Type": contentType, "Content-Length": Buffer.byteLength(payload) };
    const send = url.protocol === "https:" ? https.request : http.request;
    return new Promise((resolve, reject) => {
      const req = send(url, opts, (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => {
          const text = Buffer.concat(chunks).toString("utf8");
          let parsed: unknown = undefined;
          try {
            parsed = text ? JSON.parse(text) : undefined;
          } catch {
            parsed = text;
          }
          const status = res.statusCode ?? 0;
          if (status >= 200 && status < 300) return resolve(parsed);
          const message = str(get(parsed, "message")) ?? text.slice(0, 300);
          reject(new KubeError(status, str(get(parsed, "reason")) ?? "", `${method} ${path}: ${status} ${message}`));
        });
      });
      req.on("error", reject);
      req.setTimeout(30_000, () => req.destroy(new Error(`${method} ${path}: timed out`)));
      if (payload !== undefined) req.write(payload);
      req.end();
    });
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
    return obj(await this.request("PATCH", path, patch, "application/merge-patch+json")) ?? {};
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

export function withoutCondition(list: unknown, type: string): JsonObject[] {
  return (Array.isArray(list) ? list.filter(isObject) : []).filter((x) => x.type !== type);
}

/** What a player is: started (resolves once its watches are established) and stopped. */
export interface Player {
  readonly name: string;
  start(): Promise<void>;
  stop(): void;
}
