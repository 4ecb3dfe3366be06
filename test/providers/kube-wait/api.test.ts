import { execFile } from "child_process";
import * as http from "http";
import * as path from "path";
import { GET_RETRIES_ON_429 } from "../../../providers/kube-wait/api";

// The API server answers 429 "storage is (re)initializing" while a resource's watch cache starts (seen from the
// real kube-apiserver v1.36 of the lab: a preview's discovery failed on GET …/machines answered 429). client-go asks
// again after Retry-After (rest/request.go checkWait, maxRetries 10); so does connectKube, for GETs only.

// @kubernetes/client-node 1.x does not load under jest's module system; the calls run in a Node child process, as
// they do in the dynamic-provider host, against a server in this process.
function inChild(call: string): Promise<{ ok: boolean; value: unknown }> {
  const code = `
    const { connectKube } = require(${JSON.stringify(path.resolve(__dirname, "../../../providers/kube-wait/api"))});
    connectKube({ kubeconfig: process.env.KC }, 5000)
      .then((api) => ${call})
      .then((v) => console.log(JSON.stringify({ ok: true, value: v })), (e) => console.log(JSON.stringify({ ok: false, value: e.message })));`;
  return new Promise((resolve, reject) =>
    execFile(
      process.execPath,
      ["-r", "ts-node/register/transpile-only", "-e", code],
      { env: { ...process.env, KC: kubeconfig() }, cwd: path.resolve(__dirname, "../../..") },
      (err, stdout) => (err ? reject(err) : resolve(JSON.parse(stdout.trim().split("\n").pop() ?? "{}"))),
    ),
  );
}

let server: http.Server;
let answers: { status: number; retryAfter?: string }[] = [];
const seen: string[] = [];
/** When each request arrived (ms), to measure the waits between them on the server's side. */
const arrived: number[] = [];

beforeAll(async () => {
  server = http.createServer((req, res) => {
    seen.push(`${req.method} ${req.url}`);
    arrived.push(Date.now());
    const a = answers.shift() ?? { status: 200 };
    res.writeHead(a.status, {
      "Content-Type": "application/json",
      ...(a.retryAfter ? { "Retry-After": a.retryAfter } : {}),
    });
    res.end(JSON.stringify(a.status === 200 ? { kind: "MachineList", items: [] } : { kind: "Status", code: a.status }));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
});
afterAll(() => server.close());
beforeEach(() => {
  seen.length = 0;
  arrived.length = 0;
});

function kubeconfig(): string {
  const port = (server.address() as { port: number }).port;
  return [
    "apiVersion: v1",
    "kind: Config",
    "clusters: [{name: c, cluster: {server: 'http://127.0.0.1:" + port + "', insecure-skip-tls-verify: true}}]",
    "users: [{name: u, user: {}}]",
    "contexts: [{name: x, context: {cluster: c, user: u}}]",
    "current-context: x",
  ].join("\n");
}

test("a GET answered 429 is sent again after Retry-After, and its answer is the one that counts", async () => {
  answers = [{ status: 429, retryAfter: "1" }, { status: 429 }, { status: 200 }];
  const list = await inChild('api.get("/apis/machine.openshift.io/v1beta1/namespaces/openshift-machine-api/machines")');
  expect(list).toEqual({ ok: true, value: { kind: "MachineList", items: [] } });
  expect(seen).toHaveLength(3);
  // 1 s after the first answer (its Retry-After), 1 s after the second (no header: the default).
  expect(arrived[1] - arrived[0]).toBeGreaterThanOrEqual(950);
  expect(arrived[2] - arrived[1]).toBeGreaterThanOrEqual(950);
});

test("a GET still answered 429 after the retries fails naming the path", async () => {
  answers = Array.from({ length: GET_RETRIES_ON_429 }, () => ({ status: 429, retryAfter: "0" }));
  expect(await inChild('api.get("/api/v1/nodes")')).toEqual({ ok: false, value: "GET /api/v1/nodes answered 429" });
  expect(seen).toHaveLength(GET_RETRIES_ON_429);
}, 30_000);

test("an eviction's 429 is the PodDisruptionBudget's answer: returned at once, never re-sent", async () => {
  answers = [{ status: 429, retryAfter: "1" }];
  const r = await inChild('api.request("POST", "/api/v1/namespaces/a/pods/p/eviction", { kind: "Eviction" })');
  expect(r).toMatchObject({ ok: true, value: { status: 429 } });
  expect(seen).toEqual(["POST /api/v1/namespaces/a/pods/p/eviction"]);
});
