import { execFile } from "child_process";
import * as http from "http";
import * as path from "path";
import { GET_RETRIES_ON_429 } from "../../../lib/kube-api";

// connectKube: the kubeconfig's credentials on every request, and what an answer means to a provider. The requests
// themselves (Retry-After, Content-Length, timeouts): test/lib/kube-api.test.ts.

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
let answers: { status: number; retryAfter?: string; body?: unknown }[] = [];
const seen: string[] = [];
const authorization: (string | undefined)[] = [];

beforeAll(async () => {
  server = http.createServer((req, res) => {
    seen.push(`${req.method} ${req.url}`);
    authorization.push(req.headers.authorization);
    const a = answers.shift() ?? { status: 200 };
    res.writeHead(a.status, {
      "Content-Type": "application/json",
      ...(a.retryAfter ? { "Retry-After": a.retryAfter } : {}),
    });
    res.end(
      JSON.stringify(
        a.body ?? (a.status === 200 ? { kind: "MachineList", items: [] } : { kind: "Status", code: a.status }),
      ),
    );
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
});
afterAll(() => server.close());
beforeEach(() => {
  seen.length = 0;
  authorization.length = 0;
});

function kubeconfig(): string {
  const port = (server.address() as { port: number }).port;
  return [
    "apiVersion: v1",
    "kind: Config",
    "clusters: [{name: c, cluster: {server: 'http://127.0.0.1:" + port + "', insecure-skip-tls-verify: true}}]",
    "users: [{name: u, user: {token: kubeconfig-token}}]",
    "contexts: [{name: x, context: {cluster: c, user: u}}]",
    "current-context: x",
  ].join("\n");
}

test("every request carries the kubeconfig's credentials", async () => {
  const list = await inChild('api.get("/apis/machine.openshift.io/v1beta1/namespaces/openshift-machine-api/machines")');
  expect(list).toEqual({ ok: true, value: { kind: "MachineList", items: [] } });
  expect(authorization).toEqual(["Bearer kubeconfig-token"]);
});

test("a 5xx is unreachable, quoting the API's Status message; a refusal names the kubeconfig to fix", async () => {
  answers = [{ status: 500, body: { kind: "Status", message: "etcdserver: leader changed", code: 500 } }];
  expect(
    await inChild('api.request("PUT", "/api/v1/nodes/n", {}).catch((e) => e.unreachable + ": " + e.message)'),
  ).toEqual({
    ok: true,
    value: "true: PUT /api/v1/nodes/n answered 500: etcdserver: leader changed",
  });
  answers = [{ status: 403 }];
  expect((await inChild('api.get("/api/v1/nodes")')).value).toMatch(
    /refused GET \/api\/v1\/nodes \(403\); check the credentials and RBAC of the kubeconfig\/context/,
  );
});

test("a GET still answered 429 after the retries fails naming the path", async () => {
  answers = Array.from({ length: GET_RETRIES_ON_429 }, () => ({ status: 429, retryAfter: "0" }));
  expect(await inChild('api.get("/api/v1/nodes")')).toEqual({ ok: false, value: "GET /api/v1/nodes answered 429" });
  expect(seen).toHaveLength(GET_RETRIES_ON_429);
}, 30_000);
