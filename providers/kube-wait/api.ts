import type { Fetched } from "./conditions";

/** How the wait reaches the cluster; the kubeconfig may hold credentials and is only ever a secret input. */
export interface KubeAccess {
  /** Kubeconfig content, or a path to one (`~` expanded). Undefined: KUBECONFIG, ~/.kube/config, in-cluster. */
  kubeconfig?: string;
  /** Context to use; default: the kubeconfig's current context. */
  context?: string;
}

/** The one API call a wait needs. `undefined` means 404. */
export interface KubeApi {
  server: string;
  get(path: string): Promise<Fetched>;
  /** Any call, answered with its status (errors only for refusals, timeouts and 5xx, unless `options` says). */
  request(
    method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE",
    path: string,
    body?: unknown,
    options?: RequestOptions,
  ): Promise<KubeAnswer>;
}

/** How one request treats answers that are otherwise errors. */
export interface RequestOptions {
  /**
   * Answers the caller reads itself although they are refusals (401/403) or server errors (5xx): the drain's eviction
   * hands back a 403 `NamespaceTerminating` (kubectl retries it) and the "more than one PodDisruptionBudget" Status.
   * Every other such answer keeps its usual error (the RBAC hint, unreachable).
   */
  passThrough?: (status: number, body: unknown) => boolean;
}

import { finalError as fatal, isUnreachable, unreachableError } from "../errors";
import { obj, parseJson } from "../../lib/json";
import { expandHome } from "../../lib/paths";
import { messageOf } from "../../lib/errors";

/** Loads the kubeconfig the way every API user here does; messages name the source, never its content. */
export function loadKubeConfig(access: KubeAccess): import("@kubernetes/client-node").KubeConfig {
  const k8s: typeof import("@kubernetes/client-node") = require("@kubernetes/client-node");
  const kc = new k8s.KubeConfig();
  const source = access.kubeconfig;
  try {
    if (source === undefined || source === "") kc.loadFromDefault();
    else if (source.includes("\n") || source.includes("apiVersion:")) kc.loadFromString(source);
    else kc.loadFromFile(expandHome(source));
    if (access.context) kc.setCurrentContext(access.context);
  } catch (e) {
    // The loader's messages can quote the file; say what failed without echoing content.
    const what =
      source === undefined || source === ""
        ? "the default kubeconfig"
        : source.includes("\n")
          ? "the kubeconfig given in cluster.kubeconfig"
          : source;
    throw fatal(
      `cannot load ${what}${access.context ? ` with context ${access.context}` : ""}: ${messageOf(e).split("\n")[0].slice(0, 200)}`,
    );
  }
  if (!kc.getCurrentCluster()?.server)
    throw fatal(
      `the kubeconfig has no cluster${access.context ? ` for context ${access.context}` : ""}; set windows-estate:cluster.kubeconfig/context`,
    );
  return kc;
}

/** How many times a GET answered 429 is sent (modelled on client-go rest/request.go `maxRetries`). */
export const GET_RETRIES_ON_429 = 10;

/** The answer to one request: status and parsed JSON body (undefined when the body is empty or not JSON). */
export interface KubeAnswer {
  status: number;
  body: unknown;
}

/**
 * Builds the API access with `@kubernetes/client-node` (kubeconfig loading, contexts, certificates, tokens, exec
 * plugins) over Node's own http(s) with a timeout per request. Modules are required here, at call time, because
 * this code runs inside the dynamic-provider host after being serialized.
 */
export async function connectKube(access: KubeAccess, requestTimeoutMs: number): Promise<KubeApi> {
  const kc = loadKubeConfig(access);
  const server = (kc.getCurrentCluster()?.server ?? "").replace(/\/+$/, "");

  const send = async (
    method: string,
    path: string,
    body?: unknown,
    options?: RequestOptions,
  ): Promise<KubeAnswer & { retryAfterSeconds: number }> => {
    const url = new URL(server + path);
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const headers: Record<string, string> = { Accept: "application/json" };
    // Patches here are JSON merge patches (RFC 7386): small, explicit, and understood by every resource.
    if (payload !== undefined) {
      headers["Content-Type"] = method === "PATCH" ? "application/merge-patch+json" : "application/json";
      // Without it Node sends a DELETE's body chunked, and the API server reads no DeleteOptions from it.
      headers["Content-Length"] = String(Buffer.byteLength(payload));
    }
    const opts: import("https").RequestOptions = { method, headers };
    try {
      await kc.applyToHTTPSOptions(opts);
    } catch (e) {
      throw fatal(
        `cannot prepare the request to ${server} from the kubeconfig: ${messageOf(e).split("\n")[0].slice(0, 200)}`,
      );
    }
    const lib: typeof import("https") = url.protocol === "http:" ? require("http") : require("https");
    return new Promise((resolve, reject) => {
      const req = lib.request(url, { ...opts, timeout: requestTimeoutMs }, (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => {
          const status = res.statusCode ?? 0;
          let parsed: unknown;
          try {
            parsed = chunks.length > 0 ? parseJson(Buffer.concat(chunks).toString("utf8")) : undefined;
          } catch {
            parsed = undefined;
          }
          const passed = options?.passThrough?.(status, parsed) === true;
          if ((status === 401 || status === 403) && !passed) {
            return reject(
              fatal(
                `the Kubernetes API at ${server} refused ${method} ${path} (${status}); check the credentials and RBAC of the kubeconfig/context (windows-estate:cluster.kubeconfig, cluster.context)`,
              ),
            );
          }
          if (status >= 500 && !passed) return reject(unreachableError(`${method} ${path} answered ${status}`));
          // Retry-After in seconds (the API server sends whole seconds), 1 s when absent, at most 10 s.
          const after = Number(res.headers["retry-after"]);
          resolve({
            status,
            body: parsed,
            retryAfterSeconds: Number.isFinite(after) && after >= 0 ? Math.min(after, 10) : 1,
          });
        });
      });
      req.on("timeout", () =>
        req.destroy(unreachableError(`${method} ${server}${path} timed out after ${requestTimeoutMs} ms`)),
      );
      req.on("error", (e: NodeJS.ErrnoException) =>
        reject(
          isUnreachable(e)
            ? e
            : unreachableError(`cannot reach the Kubernetes API at ${server}: ${e.code ?? e.message}`),
        ),
      );
      req.end(payload);
    });
  };

  /**
   * A GET answered 429 is asked again after the server's Retry-After, up to 10 times, modelled on client-go
   * (rest/request.go: `checkWait`, `maxRetries` 10): an API server answers 429 "storage is (re)initializing" while a
   * resource's watch cache starts, and under API Priority and Fairness. Other verbs keep their 429 (an eviction's
   * 429 is a PodDisruptionBudget's answer, which the drain reads).
   */
  const sendRetrying = async (
    method: string,
    path: string,
    body?: unknown,
    options?: RequestOptions,
  ): Promise<KubeAnswer> => {
    for (let attempt = 1; ; attempt++) {
      const r = await send(method, path, body, options);
      if (method !== "GET" || r.status !== 429 || attempt >= GET_RETRIES_ON_429) return r;
      await new Promise((res) => setTimeout(res, r.retryAfterSeconds * 1000));
    }
  };

  return {
    server,
    request: (method, path, body, options) => sendRetrying(method, path, body, options),
    async get(path: string): Promise<Fetched> {
      const r = await sendRetrying("GET", path);
      if (r.status === 404) return undefined;
      if (r.status < 200 || r.status >= 300) throw new Error(`GET ${path} answered ${r.status}`);
      const body = obj(r.body);
      if (!body) throw new Error(`GET ${path} returned something that is not a JSON object`);
      return body;
    },
  };
}
