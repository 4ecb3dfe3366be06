import * as fs from "fs";
import * as https from "https";
import * as net from "net";
import * as os from "os";
import * as path from "path";
import { WebSocket } from "ws";
import { makePki, LabPki } from "../../lab/certs";
import { KubeletServer } from "../../lab/players/kubelet-server";
import type { Kube } from "../../lab/players/kube";

// lab/players/kube.ts loads @kubernetes/client-node (ES modules jest does not transform); the server is handed its
// Kube here, so the library itself is not needed.
jest.mock("@kubernetes/client-node", () => ({}));

// The played Linux kubelet's port-forward endpoint (lab/players/kubelet-server.ts) as the API server meets it:
// client-certificate authentication, the SubjectAccessReview on nodes/proxy, the pod lookup, and the WebSocket
// port-forward framing of k8s.io/cri-streaming portforward/websocket.go. relay.e2e.ts drives it through the real API
// server; these are the cases that server never sends.

let pki: LabPki;
let dir: string;
let server: KubeletServer;
let port: number;
let echo: net.Server;
let echoPort: number;
/** The SubjectAccessReviews the kubelet asked, and whether the next ones are allowed. */
const reviews: unknown[] = [];
let allow = true;

const kube = {
  create: async (_path: string, body: unknown) => {
    reviews.push(body);
    return { status: { allowed: allow } };
  },
} as unknown as Kube;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "kubelet-server-"));
  pki = makePki(dir, "10.96.0.1");
  echo = net.createServer((s) => s.pipe(s));
  await new Promise<void>((r) => echo.listen(0, "127.0.0.1", () => r()));
  echoPort = (echo.address() as net.AddressInfo).port;
  server = new KubeletServer({
    player: "test",
    node: "lab-worker-0",
    kube,
    cert: pki.kubeletServingCert,
    key: pki.kubeletServingKey,
    clientCa: pki.caCert,
    pod: (namespace, name) =>
      namespace === "ns" && name === "relay-1" ? { uid: "uid-1", ports: new Map([[2222, echoPort]]) } : undefined,
  });
  port = await server.listen();
}, 60_000);
afterAll(() => {
  server.close();
  echo.close();
  fs.rmSync(dir, { recursive: true, force: true });
});
beforeEach(() => {
  reviews.length = 0;
  allow = true;
});

/** A WebSocket to the kubelet as the API server opens it (its kubelet client certificate, unless `anonymous`). */
function open(
  p: string,
  protocols: string[] = ["v5.channel.k8s.io", "v4.channel.k8s.io"],
  anonymous = false,
): Promise<{ ws?: WebSocket; status?: number; body?: string; frames: Buffer[] }> {
  const frames: Buffer[] = [];
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`wss://127.0.0.1:${port}${p}`, protocols, {
      ca: fs.readFileSync(pki.caCert),
      ...(anonymous
        ? {}
        : { cert: fs.readFileSync(pki.kubeletClientCert), key: fs.readFileSync(pki.kubeletClientKey) }),
    });
    ws.on("message", (d: Buffer) => {
      frames.push(Buffer.from(d));
      arrived.get(frames)?.();
    });
    ws.on("open", () => resolve({ ws, frames }));
    ws.on("unexpected-response", (_req, res) => {
      let body = "";
      res.on("data", (c: Buffer) => (body += c.toString("utf8")));
      res.on("end", () => resolve({ status: res.statusCode, body, frames }));
    });
    ws.on("error", reject);
  });
}

/** Per socket's frames, told when one arrives. */
const arrived = new WeakMap<Buffer[], () => void>();

/** Waits until `frames` holds `n` frames (the kubelet's answers arrive asynchronously): on their arrival, not a bound. */
async function until(frames: Buffer[], n: number): Promise<void> {
  while (frames.length < n) await new Promise<void>((r) => arrived.set(frames, r));
}

test("no client certificate: 401 Unauthorized, and nothing is asked of the authorizer", async () => {
  const r = await open("/portForward/ns/relay-1?port=2222", undefined, true);
  expect([r.status, r.body]).toEqual([401, "Unauthorized"]);
  expect(reviews).toEqual([]);
});

test("the API server's certificate is authorized with a SubjectAccessReview for get on nodes/proxy; a denial is the kubelet's 403", async () => {
  allow = false;
  const r = await open("/portForward/ns/relay-1?port=2222");
  expect([r.status, r.body]).toEqual([
    403,
    "Forbidden (user=kube-apiserver-kubelet-client, verb=get, resource=nodes, subresource(s)=[proxy])\n",
  ]);
  expect(reviews).toEqual([
    {
      apiVersion: "authorization.k8s.io/v1",
      kind: "SubjectAccessReview",
      spec: {
        user: "kube-apiserver-kubelet-client",
        groups: [],
        resourceAttributes: {
          verb: "get",
          version: "v1",
          resource: "nodes",
          subresource: "proxy",
          name: "lab-worker-0",
        },
      },
    },
  ]);
});

test("a pod that is not this node's, another uid, a missing or bad port: the kubelet's 404s and 400s", async () => {
  expect(await open("/portForward/ns/other?port=2222")).toMatchObject({ status: 404, body: "pod does not exist" });
  expect(await open("/portForward/ns/relay-1/uid-2?port=2222")).toMatchObject({ status: 404, body: "pod not found" });
  expect(await open("/portForward/ns/relay-1")).toMatchObject({
    status: 400,
    body: 'query parameter "port" is required',
  });
  expect(await open("/portForward/ns/relay-1?port=0")).toMatchObject({ status: 400, body: 'port "0" must be > 0' });
  expect(await open("/portForward/ns/relay-1?port=x")).toMatchObject({ status: 400 });
});

test("v4 binary: the client's first supported subprotocol; data and error channels each open with the port, little-endian; bytes both ways", async () => {
  const r = await open("/portForward/ns/relay-1/uid-1?port=2222");
  const ws = r.ws as WebSocket;
  expect(ws.protocol).toBe("v4.channel.k8s.io");
  await until(r.frames, 2);
  const portBytes = [2222 & 0xff, 2222 >> 8];
  expect(r.frames.slice(0, 2).map((f) => [...f])).toEqual([
    [0, ...portBytes],
    [1, ...portBytes],
  ]);
  ws.send(Buffer.concat([Buffer.from([0]), Buffer.from("ping")]));
  // Frames for the error channel are not read (a write-only channel).
  ws.send(Buffer.concat([Buffer.from([1]), Buffer.from("ignored")]));
  await until(r.frames, 3);
  expect(r.frames[2]).toEqual(Buffer.concat([Buffer.from([0]), Buffer.from("ping")]));
  ws.close();
});

test("v4 base64: text frames, the channel as a digit, the data in base64", async () => {
  const r = await open("/portForward/ns/relay-1?port=2222", ["v4.base64.channel.k8s.io"]);
  const ws = r.ws as WebSocket;
  expect(ws.protocol).toBe("v4.base64.channel.k8s.io");
  await until(r.frames, 2);
  const port64 = Buffer.from([2222 & 0xff, 2222 >> 8]).toString("base64");
  expect(r.frames.slice(0, 2).map(String)).toEqual([`0${port64}`, `1${port64}`]);
  ws.send(`0${Buffer.from("hello").toString("base64")}`);
  await until(r.frames, 3);
  expect(String(r.frames[2])).toBe(`0${Buffer.from("hello").toString("base64")}`);
  ws.close();
});

test("no subprotocol offered is the '' protocol (binary); only unsupported ones offered: 403", async () => {
  const none = await open("/portForward/ns/relay-1?port=2222", []);
  expect(none.ws?.protocol).toBe("");
  none.ws?.close();
  const r = await open("/portForward/ns/relay-1?port=2222", ["v5.channel.k8s.io"]);
  expect(r.status).toBe(403);
});

test("a port the pod does not listen on: the error channel says so and the WebSocket closes", async () => {
  const r = await open("/portForward/ns/relay-1?port=2223");
  const closed = new Promise<void>((resolve) => r.ws?.on("close", () => resolve()));
  await until(r.frames, 3);
  expect(r.frames[2][0]).toBe(1);
  expect(r.frames[2].subarray(1).toString()).toMatch(
    /^error forwarding port 2223 to pod relay-1, uid uid-1: failed to connect to localhost:2223 inside the pod/,
  );
  await closed;
});

test("SPDY (and KEP-4006's tunnelled SPDY) is not played: 400 saying so", async () => {
  // The `ws` client refuses a subprotocol with a slash, so the upgrade is sent by hand, as kubectl 1.31+ sends it.
  const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = https.request({
      host: "127.0.0.1",
      port,
      path: "/portForward/ns/relay-1?port=2222",
      ca: fs.readFileSync(pki.caCert),
      cert: fs.readFileSync(pki.kubeletClientCert),
      key: fs.readFileSync(pki.kubeletClientKey),
      headers: {
        Connection: "Upgrade",
        Upgrade: "websocket",
        "Sec-WebSocket-Version": "13",
        "Sec-WebSocket-Key": Buffer.from("0123456789abcdef").toString("base64"),
        "Sec-WebSocket-Protocol": "SPDY/3.1+portforward.k8s.io",
      },
    });
    req.on("response", (res) => {
      let body = "";
      res.on("data", (c: Buffer) => (body += c.toString("utf8")));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on("upgrade", (res, socket) => {
      socket.destroy();
      resolve({ status: res.statusCode ?? 0, body: "" });
    });
    req.on("error", reject);
    req.end();
  });
  expect(answer).toEqual({ status: 400, body: "lab kubelet: SPDY port-forwarding is not played; use a WebSocket" });
});
