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
}

import { finalError as fatal, isUnreachable, unreachableError } from "../errors";
import { obj, parseJson } from "../../lib/json";
import { expandHome } from "../../lib/paths";
import { messageOf } from "../../lib/errors";

/**
 * Builds the API access with `@kubernetes/client-node` (kubeconfig loading, contexts, certificates, tokens, exec
 * plugins) over Node's own http(s) with a timeout per request. Modules are required here, at call time, because
 * this code runs inside the dynamic-provider host after being serialized.
 */
export async function connectKube(access: KubeAccess, requestTimeoutMs: number): Promise<KubeApi> {
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
  const cluster = kc.getCurrentCluster();
  if (!cluster?.server)
    throw fatal(
      `the kubeconfig has no cluster${access.context ? ` for context ${access.context}` : ""}; set windows-estate:cluster.kubeconfig/context`,
    );
  const server = cluster.server.replace(/\/+$/, "");

  return {
    server,
    async get(path: string): Promise<Fetched> {
      const url = new URL(server + path);
      const opts: import("https").RequestOptions = { method: "GET", headers: { Accept: "application/json" } };
      try {
        await kc.applyToHTTPSOptions(opts);
      } catch (e) {
        throw fatal(
          `cannot prepare the request to ${server} from the kubeconfig: ${messageOf(e).split("\n")[0].slice(0, 200)}`,
        );
      }
      const lib: typeof import("https") = url.protocol === "http:" ? require("http") : require("https");
      return new Promise<Fetched>((resolve, reject) => {
        const req = lib.request(url, { ...opts, timeout: requestTimeoutMs }, (res) => {
          const chunks: Buffer[] = [];
          res.on("data", (c: Buffer) => chunks.push(c));
          res.on("end", () => {
            const status = res.statusCode ?? 0;
            if (status === 404) return resolve(undefined);
            if (status === 401 || status === 403) {
              return reject(
                fatal(
                  `the Kubernetes API at ${server} refused GET ${path} (${status}); check the credentials of the kubeconfig/context (windows-estate:cluster.kubeconfig, cluster.context)`,
                ),
              );
            }
            if (status >= 500) return reject(unreachableError(`GET ${path} answered ${status}`));
            if (status < 200 || status >= 300) return reject(new Error(`GET ${path} answered ${status}`));
            try {
              const body = obj(parseJson(Buffer.concat(chunks).toString("utf8")));
              if (body) resolve(body);
              else reject(new Error(`GET ${path} returned JSON that is not an object`));
            } catch {
              reject(new Error(`GET ${path} returned something that is not JSON`));
            }
          });
        });
        req.on("timeout", () =>
          req.destroy(unreachableError(`GET ${server}${path} timed out after ${requestTimeoutMs} ms`)),
        );
        req.on("error", (e: NodeJS.ErrnoException) =>
          reject(
            isUnreachable(e)
              ? e
              : unreachableError(`cannot reach the Kubernetes API at ${server}: ${e.code ?? e.message}`),
          ),
        );
        req.end();
      });
    },
  };
}
