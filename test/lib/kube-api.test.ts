import * as http from "http";
import type { AddressInfo } from "net";
import { isFinal, isUnreachable } from "../../lib/errors";
import { answerError, GET_RETRIES_ON_429, kubeClient } from "../../lib/kube-api";

// The one Kubernetes API client (lib/kube-api.ts) against a server in this process: what arrives on the wire and
// what the caller is told. TLS with the lab's PKI: test/lab-cli/kube.test.ts.

interface Seen {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  at: number;
}
const seen: Seen[] = [];
/** The answers the server gives, in order; then 200 `{}`. `hang` never answers; `cut` and `stall` stop mid-body. */
let answers: {
  status: number;
  body?: unknown;
  text?: string;
  retryAfter?: string;
  hang?: boolean;
  cut?: boolean;
  stall?: boolean;
}[] = [];
let server: http.Server;
let base: string;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      seen.push({
        method: req.method ?? "",
        url: req.url ?? "",
        headers: req.headers,
        body: Buffer.concat(chunks).toString("utf8"),
        at: Date.now(),
      });
      const a = answers.shift() ?? { status: 200, body: {} };
      if (a.hang) return;
      res.writeHead(a.status, {
        "Content-Type": a.text === undefined ? "application/json" : "text/plain",
        ...(a.retryAfter ? { "Retry-After": a.retryAfter } : {}),
      });
      if (!a.cut && !a.stall) return void res.end(a.text ?? JSON.stringify(a.body));
      // Part of the body, then the connection drops (cut) or nothing more comes (stall).
      res.write('{"kind":"NodeList","items":[');
      if (a.cut) setImmediate(() => res.destroy());
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});
beforeEach(() => {
  seen.length = 0;
  answers = [];
});

test("a DELETE with DeleteOptions sends them with Content-Length, so the API server reads them", async () => {
  // Node sends a DELETE's body with neither Content-Length nor chunked encoding unless told: the API server then
  // reads no DeleteOptions (a pod's gracePeriodSeconds 0 was ignored before this was set).
  const options = { apiVersion: "v1", kind: "DeleteOptions", gracePeriodSeconds: 0 };
  const r = await kubeClient({ server: base }).request("DELETE", "/api/v1/namespaces/apps/pods/web", options);
  expect(r.status).toBe(200);
  const [d] = seen;
  expect(d.headers["content-length"]).toBe(String(Buffer.byteLength(JSON.stringify(options))));
  expect(d.headers["transfer-encoding"]).toBeUndefined();
  expect(d.headers["content-type"]).toBe("application/json");
  expect(JSON.parse(d.body)).toEqual(options);
});

test("a PATCH is a JSON merge patch unless the caller names another type; a GET has no body headers", async () => {
  const c = kubeClient({ server: base });
  await c.request("PATCH", "/api/v1/nodes/n", { metadata: { labels: { a: "b" } } });
  await c.request("PATCH", "/api/v1/nodes/n", [{ op: "add", path: "/x", value: 1 }], "application/json-patch+json");
  await c.request("GET", "/api/v1/nodes/n");
  expect(seen.map((s) => s.headers["content-type"])).toEqual([
    "application/merge-patch+json",
    "application/json-patch+json",
    undefined,
  ]);
  expect(seen[2].headers["content-length"]).toBeUndefined();
});

test("a bearer token is sent as Authorization on every request", async () => {
  await kubeClient({ server: base, token: "abcdef.0123456789abcdef" }).request("GET", "/api/v1/nodes");
  expect(seen[0].headers.authorization).toBe("Bearer abcdef.0123456789abcdef");
});

test("a request the server never answers fails after the timeout naming the call and the server, as unreachable", async () => {
  answers = [{ status: 0, hang: true }];
  const failed = await kubeClient({ server: base, timeoutMs: 300 })
    .request("GET", "/api/v1/namespaces/openshift-machine-api/secrets/windows-user-data")
    .catch((e: unknown) => e);
  expect(failed).toBeInstanceOf(Error);
  expect(isUnreachable(failed)).toBe(true);
  expect((failed as Error).message).toBe(
    `GET /api/v1/namespaces/openshift-machine-api/secrets/windows-user-data on ${base} timed out after 300 ms`,
  );
});

test("credentials that never come (an exec plugin at an SSO prompt) fail after the request timeout, naming the call and the server", async () => {
  const started = Date.now();
  const failed = await kubeClient({ server: base, timeoutMs: 300, authorize: () => new Promise<void>(() => {}) })
    .request("GET", "/api/v1/nodes")
    .catch((e: unknown) => e);
  expect(Date.now() - started).toBeLessThan(5_000);
  expect(isFinal(failed)).toBe(true);
  expect((failed as Error).message).toMatch(
    new RegExp(`^GET /api/v1/nodes on ${base}: the kubeconfig's credentials were not ready within 300 ms .*exec`),
  );
  expect(seen).toEqual([]);
});

test("a server that refuses the connection is unreachable, named with the call and the server", async () => {
  const closed = http.createServer();
  await new Promise<void>((r) => closed.listen(0, "127.0.0.1", () => r()));
  const port = (closed.address() as AddressInfo).port;
  await new Promise((r) => closed.close(r));
  const failed = await kubeClient({ server: `http://127.0.0.1:${port}/` })
    .request("GET", "/version")
    .catch((e: unknown) => e);
  expect(isUnreachable(failed)).toBe(true);
  expect((failed as Error).message).toBe(
    `GET /version: cannot reach the Kubernetes API at http://127.0.0.1:${port}: ECONNREFUSED`,
  );
});

test("a 4xx answer is returned as it is, and its wording quotes the API's Status message", async () => {
  // The Status the API server answers a create of an existing object with (apimachinery errors.NewAlreadyExists).
  const status = {
    kind: "Status",
    apiVersion: "v1",
    status: "Failure",
    message: 'namespaces "apps" already exists',
    reason: "AlreadyExists",
    code: 409,
  };
  answers = [
    { status: 409, body: status },
    { status: 404, text: "404 page not found\n" },
  ];
  const c = kubeClient({ server: base });
  const r = await c.request("POST", "/api/v1/namespaces", { apiVersion: "v1", kind: "Namespace" });
  expect(r).toMatchObject({ status: 409, body: status });
  expect(answerError("POST", "/api/v1/namespaces", r)).toBe(
    'POST /api/v1/namespaces answered 409: namespaces "apps" already exists',
  );
  // A body that is not JSON (an unknown path) is quoted as text.
  const text = await c.request("GET", "/apis/nothing");
  expect(text).toEqual({ status: 404, body: undefined, text: "404 page not found\n" });
  expect(answerError("GET", "/apis/nothing", text)).toBe("GET /apis/nothing answered 404: 404 page not found");
});

// The API server answers 429 "storage is (re)initializing" while a resource's watch cache starts (seen from the real
// kube-apiserver v1.36 of the lab: a preview's discovery failed on GET …/machines answered 429). client-go asks again
// after Retry-After (rest/request.go checkWait, maxRetries 10); so does this client, for GETs only.

test("a GET answered 429 is sent again after Retry-After (1 s when absent), and its last answer counts", async () => {
  answers = [{ status: 429, retryAfter: "1" }, { status: 429 }, { status: 200, body: { kind: "MachineList" } }];
  const r = await kubeClient({ server: base }).request("GET", "/apis/machine.openshift.io/v1beta1/machines");
  expect(r).toMatchObject({ status: 200, body: { kind: "MachineList" } });
  expect(seen).toHaveLength(3);
  expect(seen[1].at - seen[0].at).toBeGreaterThanOrEqual(950);
  expect(seen[2].at - seen[1].at).toBeGreaterThanOrEqual(950);
});

test("a GET still answered 429 after the retries returns that answer; other verbs are sent once", async () => {
  answers = Array.from({ length: GET_RETRIES_ON_429 + 1 }, () => ({ status: 429, retryAfter: "0" }));
  const c = kubeClient({ server: base });
  expect((await c.request("GET", "/api/v1/nodes")).status).toBe(429);
  expect(seen).toHaveLength(GET_RETRIES_ON_429);
  // An eviction's 429 is a PodDisruptionBudget's answer, which the drain reads.
  expect((await c.request("POST", "/api/v1/namespaces/apps/pods/web/eviction", {})).status).toBe(429);
  expect(seen).toHaveLength(GET_RETRIES_ON_429 + 1);
});

test("a connection lost or silent in the middle of an answer's body is unreachable, named with the call and the server", async () => {
  // A refresh keeps the last known state only for failures flagged unreachable (lib/errors.ts): losing the API half way
  // through a body is the same failure as losing it before the answer.
  answers = [{ status: 200, cut: true }];
  const cut = await kubeClient({ server: base })
    .request("GET", "/api/v1/nodes")
    .catch((e: unknown) => e);
  expect(isUnreachable(cut)).toBe(true);
  expect(String(cut)).toContain(`GET /api/v1/nodes`);
  expect(String(cut)).toContain(base);
  answers = [{ status: 200, stall: true }];
  const stalled = await kubeClient({ server: base, timeoutMs: 300 })
    .request("GET", "/api/v1/nodes")
    .catch((e: unknown) => e);
  expect(isUnreachable(stalled)).toBe(true);
  expect(String(stalled)).toContain("timed out after 300 ms");
});
