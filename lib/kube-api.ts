/**
 * The one client for the Kubernetes API's JSON REST calls, used by the program and its providers
 * (providers/kube-wait/api.ts `connectKube`), the lab's set-up (lab/kube.ts), its players (lab/players/kube.ts) and
 * the e2e tests (test/e2e/lab.ts `labApi`): the timeout, the Content-Length of bodies, TLS, the retry of a GET
 * answered 429 and the wording of failures are here and nowhere else.
 *
 * Why not @kubernetes/client-node's own request path for all of them: 1.x is ES modules only (`"type": "module"`),
 * which plain Node 20.19+ requires but jest's module system does not load, and the unit and e2e tests run under jest
 * (test/helpers/kube-child.ts runs `connectKube` in a child process for that reason); its generated typed clients
 * also turn times into Date objects and refuse RFC 3339 strings on the way back, which the players write. Where it
 * loads, its KubeConfig still does what it does well (kubeconfig files, contexts, tokens, exec plugins, proxies)
 * through `authorize` (KubeConfig.applyToHTTPSOptions). This module needs nothing but Node's http(s) and holds no
 * state, so the dynamic-provider host requires it like the rest of the provider code (providers/thin.ts).
 */
import * as http from "http";
import * as https from "https";
import { codeOf, finalError, isUnreachable, unreachableError } from "./errors";
import { parseJson } from "./json";

/** Where the API is and who is asking. */
interface KubeEndpoint {
  /** `https://host:port` (a trailing `/` is ignored); `http://` only for local test servers. */
  server: string;
  /** The CA to trust and a client certificate (PEM): a lab's PKI, a kubeconfig's embedded data. */
  tls?: { ca?: string | Buffer; cert?: string | Buffer; key?: string | Buffer };
  /** A bearer token (a bootstrap token, a ServiceAccount's). */
  token?: string;
  /** Fills each request's credentials: KubeConfig.applyToHTTPSOptions (per request: tokens and exec plugins renew). */
  authorize?: (options: https.RequestOptions) => Promise<void>;
  /** The time one request may take without an answer, in ms; 30 s when not given. */
  timeoutMs?: number;
  /** Keeps connections open between requests (with `tls`): for a long-lived client making many (the lab's set-up). */
  keepAlive?: boolean;
}

/** One answer: the status, the body as JSON (undefined when empty or not JSON) and as text. */
export interface KubeAnswer {
  status: number;
  body: unknown;
  text: string;
}

export interface KubeClient {
  /** The server, without a trailing `/`. */
  readonly server: string;
  /**
   * Any call, answered with its status: only timeouts and connections that fail are errors, flagged unreachable
   * (lib/errors.ts), except a certificate failure and credentials not ready in time, which are final. A body is sent
   * as JSON, as a merge patch (RFC 7386) for PATCH unless `contentType` says.
   */
  request(method: string, path: string, body?: unknown, contentType?: string): Promise<KubeAnswer>;
}

/** How many times a GET answered 429 is sent (client-go rest/request.go `maxRetries`). */
export const GET_RETRIES_ON_429 = 10;

/** An answer as its wording reads it: the text may be absent (a test's in-process API gives none). */
type Said = Pick<KubeAnswer, "status" | "body"> & { text?: string };

/** The `message` of an API Status body, or the start of a text body; "" when there is neither. */
export function statusMessage(answer: Said): string {
  const b = answer.body;
  if (typeof b === "object" && b !== null && "message" in b && typeof b.message === "string") return b.message;
  return b === undefined ? (answer.text ?? "").trim().slice(0, 300) : "";
}

/** The one wording of an answer that is not what the caller needed: `GET <path> answered 404: <Status message>`. */
export function answerError(method: string, path: string, answer: Said) {
  const message = statusMessage(answer);
  return `${method} ${path} answered ${answer.status}${message ? `: ${message}` : ""}`;
}

/**
 * Whether a connection failed on a certificate: the server's, which the client's CA does not verify (the codes Node
 * gives OpenSSL's X509_V_ERR_* results, src/crypto/crypto_common.cc `X509ErrorCode`, and the host-name check's
 * ERR_TLS_CERT_ALTNAME_INVALID, lib/tls.js `checkServerIdentity`), or the client's, which the server refused with a
 * TLS alert (RFC 8446 6.2: bad_certificate 42 … unknown_ca 48, certificate_required 116), which Node gives as EPROTO
 * with OpenSSL's "SSL alert number N" in its message. Waiting will not fix either.
 */
function certificateProblem(e: Error): "server" | "client" | undefined {
  const code = codeOf(e);
  if (typeof code !== "string") return undefined;
  if (
    /^(UNABLE_TO_(GET_ISSUER|DECRYPT|DECODE|VERIFY)|DEPTH_ZERO_SELF_SIGNED|SELF_SIGNED_CERT|CERT_|INVALID_CA|HOSTNAME_MISMATCH|ERR_TLS_CERT_ALTNAME_INVALID$)/.test(
      code,
    )
  )
    return "server";
  if (/SSL alert number (4[2-6]|48|116)\b/.test(e.message)) return "client";
  return undefined;
}

export function kubeClient(endpoint: KubeEndpoint): KubeClient {
  const server = endpoint.server.replace(/\/+$/, "");
  const timeoutMs = endpoint.timeoutMs ?? 30_000;
  const secure = new URL(server).protocol === "https:";
  // One agent per client for fixed TLS material; `authorize` sets its own (client-node makes one per request, with
  // the kubeconfig's proxy).
  const agent =
    secure && endpoint.tls ? new https.Agent({ ...endpoint.tls, keepAlive: endpoint.keepAlive === true }) : undefined;

  const send = async (
    method: string,
    path: string,
    body?: unknown,
    contentType?: string,
  ): Promise<KubeAnswer & { retryAfterSeconds: number }> => {
    const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
    const headers: http.OutgoingHttpHeaders = { Accept: "application/json" };
    if (endpoint.token) headers.Authorization = `Bearer ${endpoint.token}`;
    if (payload !== undefined) {
      headers["Content-Type"] =
        contentType ?? (method === "PATCH" ? "application/merge-patch+json" : "application/json");
      // Always: Node sends a DELETE's body with neither Content-Length nor chunked encoding, and the API server then
      // reads no body (a pod's grace-period-0 DeleteOptions was silently ignored; found by test/e2e/day2.e2e.ts).
      headers["Content-Length"] = payload.length;
    }
    const options: https.RequestOptions = { method, headers, agent, timeout: timeoutMs };
    if (endpoint.authorize) {
      // A kubeconfig's exec credential plugin is spawned with no time limit (client-node exec_auth.ts), and one
      // waiting at an interactive (SSO) login never answers a non-interactive run: the same time limit as a request.
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<never>((_resolve, reject) => {
        timer = setTimeout(
          () =>
            reject(
              finalError(
                `${method} ${path} on ${server}: the kubeconfig's credentials were not ready within ${timeoutMs} ms ` +
                  `(an exec credential plugin, users[].user.exec, that does not answer may be waiting for an ` +
                  `interactive login: log in with it once by hand, then run again)`,
              ),
            ),
          timeoutMs,
        );
      });
      try {
        await Promise.race([endpoint.authorize(options), late]);
      } finally {
        clearTimeout(timer);
      }
    }
    const url = new URL(server + path);
    return new Promise((resolve, reject) => {
      // A connection lost, before the answer or in the middle of its body, is the API unreachable (retried as such).
      const lost = (e: Error, why: string) =>
        reject(isUnreachable(e) ? e : unreachableError(`${method} ${path}: ${why}`));
      const req = (secure ? https : http).request(url, options, (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        // An answer that stops half-way (its socket timed out or closed): Node says only "aborted".
        res.on("error", (e) =>
          lost(e, `the answer of the Kubernetes API at ${server} broke off (${res.statusCode}): ${e.message}`),
        );
        res.on("end", () => {
          const text = Buffer.concat(chunks).toString("utf8");
          let parsed: unknown;
          try {
            parsed = text ? parseJson(text) : undefined;
          } catch {
            parsed = undefined;
          }
          // Retry-After in seconds (the API server sends whole seconds), 1 s when absent, at most 10 s.
          const after = Number(res.headers["retry-after"] ?? "1");
          resolve({
            status: res.statusCode ?? 0,
            body: parsed,
            text,
            retryAfterSeconds: Number.isFinite(after) && after >= 0 ? Math.min(after, 10) : 1,
          });
        });
      });
      req.on("timeout", () =>
        req.destroy(unreachableError(`${method} ${path} on ${server} timed out after ${timeoutMs} ms`)),
      );
      req.on("error", (e) => {
        const code = codeOf(e);
        const cert = certificateProblem(e);
        if (cert)
          return reject(
            finalError(
              `${method} ${path}: a certificate problem with the Kubernetes API at ${server} (${code}: ${e.message.trim()}): ` +
                (cert === "server"
                  ? `the server's certificate is not verified by the CA the kubeconfig trusts; set the cluster's ` +
                    `certificate-authority-data to the CA that signed the API server's certificate (for the address ` +
                    `in its server field)`
                  : `the server refused the client certificate; set the user's client-certificate-data and ` +
                    `client-key-data to a certificate signed by the cluster's client CA`),
            ),
          );
        lost(e, `cannot reach the Kubernetes API at ${server}: ${code ?? e.message}`);
      });
      req.end(payload);
    });
  };

  return {
    server,
    /**
     * A GET answered 429 is asked again after the server's Retry-After, up to GET_RETRIES_ON_429 times, as client-go
     * does (rest/request.go `checkWait`, `maxRetries` 10): an API server answers 429 "storage is (re)initializing"
     * while a resource's watch cache starts, and under API Priority and Fairness. Other verbs keep their 429 (an
     * eviction's 429 is a PodDisruptionBudget's answer, which the drain reads).
     */
    async request(method, path, body, contentType) {
      for (let attempt = 1; ; attempt++) {
        const { retryAfterSeconds, ...answer } = await send(method, path, body, contentType);
        if (method !== "GET" || answer.status !== 429 || attempt >= GET_RETRIES_ON_429) return answer;
        await new Promise((r) => setTimeout(r, retryAfterSeconds * 1000));
      }
    },
  };
}
