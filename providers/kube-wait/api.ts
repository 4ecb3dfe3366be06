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

import { obj } from "../../lib/json";
import { expandHome } from "../../lib/paths";
import { messageOf, finalError as fatal, unreachableError } from "../../lib/errors";
import { answerError, KubeAnswer as Answer, kubeClient } from "../../lib/kube-api";

/** Loads the kubeconfig the way every API user here does; messages name the source, never its content. */
export function loadKubeConfig(access: KubeAccess): import("@kubernetes/client-node").KubeConfig {
  const k8s: typeof import("@kubernetes/client-node") = require("@kubernetes/client-node");
  const kc = new k8s.KubeConfig();
  const source = access.kubeconfig;
  const inline = source?.includes("\n") || source?.includes("apiVersion:");
  try {
    if (!source) kc.loadFromDefault();
    else if (inline) kc.loadFromString(source);
    else kc.loadFromFile(expandHome(source));
    if (access.context) kc.setCurrentContext(access.context);
  } catch (e) {
    // The loader's messages can quote the file; say what failed without echoing content.
    const what = !source ? "the default kubeconfig" : inline ? "the kubeconfig given in cluster.kubeconfig" : source;
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

/**
 * The answer to one request: status and parsed JSON body (undefined when the body is empty or not JSON); from
 * `connectKube` also the text and the call it answers, for messages (`apiError`; a test's in-process API has neither).
 */
export type KubeAnswer = Omit<Answer, "text"> & { text?: string; method?: string; path?: string };

/**
 * The one wording of a call a provider needed and did not get: what it was doing, naming the object, then the call
 * and the API's answer with its Status message (lib/kube-api.ts answerError), then what to do when there is a fix.
 */
export function apiError(doing: string, answer: KubeAnswer, fix?: string): Error {
  // Without the call (a test's in-process API): "the API answered 404".
  const { method = "the", path = "API" } = answer;
  return new Error(`${doing} failed: ${answerError(method, path, answer)}${fix ? `; ${fix}` : ""}`);
}

/**
 * The API access of the program and its providers: the kubeconfig loaded by `@kubernetes/client-node` (contexts,
 * certificates, tokens, exec plugins), the requests by the one client (lib/kube-api.ts: timeout, Content-Length,
 * the retry of a GET answered 429), and what an answer means here: a refusal (401/403) is final with the hint to the
 * kubeconfig, a 5xx is unreachable. client-node is required at call time (loadKubeConfig): it does not load under jest,
 * whose tests import this module's types.
 */
export async function connectKube(access: KubeAccess, requestTimeoutMs: number): Promise<KubeApi> {
  const kc = loadKubeConfig(access);
  const client = kubeClient({
    server: kc.getCurrentCluster()?.server ?? "",
    timeoutMs: requestTimeoutMs,
    authorize: async (opts) => {
      try {
        await kc.applyToHTTPSOptions(opts);
      } catch (e) {
        throw fatal(
          `cannot prepare the request to ${client.server} from the kubeconfig: ${messageOf(e).split("\n")[0].slice(0, 200)}`,
        );
      }
    },
  });
  const server = client.server;

  /** What an answer means here: a refusal (401/403) is final, a 5xx unreachable, unless `options` passes it. */
  const judged = (method: string, path: string, r: Answer, options?: RequestOptions) => {
    const passed = options?.passThrough?.(r.status, r.body) === true;
    if ((r.status === 401 || r.status === 403) && !passed)
      throw fatal(
        `the Kubernetes API at ${server} refused ${method} ${path} (${r.status}); check the credentials and RBAC of the kubeconfig/context (windows-estate:cluster.kubeconfig, cluster.context)`,
      );
    if (r.status >= 500 && !passed) throw unreachableError(answerError(method, path, r));
    return { ...r, method, path };
  };

  return {
    server,
    request: async (method, path, body, options) =>
      judged(method, path, await client.request(method, path, body), options),
    async get(path: string): Promise<Fetched> {
      const r = await client.request("GET", path);
      judged("GET", path, r);
      if (r.status === 404) return undefined;
      if (r.status < 200 || r.status >= 300) throw new Error(answerError("GET", path, r));
      const body = obj(r.body);
      if (!body) throw new Error(`GET ${path} returned something that is not a JSON object`);
      return body;
    },
  };
}
