import * as http from "http";
import * as net from "net";
import WebSocket from "ws";
import { FakeKube } from "./fake-kube";

// The API stand-in's port-forward holds clients to what a real 1.36 API server and kubelet accept and refuse
// (audit row 2): the tests of the tunnel are only as strict as this. Sources are cited in fake-kube.ts.
const NS = "relay-ns";
const POD = "relay-0";
jest.setTimeout(10_000);
let kube: FakeKube;
let echo: net.Server;

beforeAll(async () => {
  echo = net.createServer((s) => s.pipe(s));
  await new Promise<void>((r) => echo.listen(0, "127.0.0.1", r));
  kube = new FakeKube();
  kube.portForwards.set(`${NS}/${POD}:2222`, (echo.address() as net.AddressInfo).port);
  await kube.start();
});
afterAll(async () => {
  await kube.stop();
  await new Promise((r) => echo.close(r));
});

const path = (pod = POD) => `/api/v1/namespaces/${NS}/pods/${pod}/portforward?ports=2222`;

type Opened = { ws?: WebSocket; status?: number; body?: string; frames: (n: number) => Promise<(Buffer | string)[]> };

/**
 * Opens the WebSocket as a client would; resolves with the socket, or with the HTTP refusal and its body. Frames are
 * collected from the start: the port frames can arrive in the same read as the upgrade's answer.
 */
function open(protocols: string[], token = kube.token, pod = POD): Promise<Opened> {
  const got: (Buffer | string)[] = [];
  let wake = () => {};
  const frames = async (n: number) => {
    while (got.length < n) await new Promise<void>((r) => (wake = r));
    return got.slice(0, n);
  };
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(kube.url.replace("http", "ws") + path(pod), protocols, {
      headers: { Authorization: `Bearer ${token}` },
    });
    ws.on("message", (d: Buffer, binary: boolean) => {
      got.push(binary ? d : d.toString());
      wake();
    });
    ws.once("open", () => resolve({ ws, frames }));
    ws.once("unexpected-response", (_req, res) => {
      let body = "";
      res.on("data", (d: Buffer) => (body += d.toString()));
      res.on("end", () => resolve({ status: res.statusCode, body, frames }));
    });
    ws.once("error", reject);
  });
}

test("client-node's offer (v5, v4, v3, v2, channel.k8s.io) gets v4.channel.k8s.io: port frames, then data", async () => {
  const { ws, frames } = await open(["v5.channel.k8s.io", "v4.channel.k8s.io", "v3.channel.k8s.io", "channel.k8s.io"]);
  expect(ws?.protocol).toBe("v4.channel.k8s.io");
  ws!.send(Buffer.concat([Buffer.from([0]), Buffer.from("ping")]));
  // 2222 = 0x08ae, little endian, on the data channel (0) and the error channel (1).
  expect(await frames(3)).toEqual([Buffer.from([0, 0xae, 0x08]), Buffer.from([1, 0xae, 0x08]), Buffer.from("\0ping")]);
  ws!.close();
});

test("no subprotocol is the binary protocol; v4.base64.channel.k8s.io is answered in base64 text frames", async () => {
  const plain = await open([]);
  expect(plain.ws?.protocol).toBe("");
  expect(await plain.frames(1)).toEqual([Buffer.from([0, 0xae, 0x08])]);
  plain.ws!.close();

  const b64 = await open(["v4.base64.channel.k8s.io"]);
  b64.ws!.send("0" + Buffer.from("ping").toString("base64"));
  expect(await b64.frames(3)).toEqual(["0rgg=", "1rgg=", "0" + Buffer.from("ping").toString("base64")]);
  b64.ws!.close();
});

test("a subprotocol the kubelet does not speak is refused 403 with no body, before any upgrade", async () => {
  expect(await open(["v5.channel.k8s.io"])).toMatchObject({ status: 403, body: "" });
});

test("RBAC: get from the GET, then create for the upgrade (1.35+), each a 403 Status naming what is missing", async () => {
  const none = await open(["v4.channel.k8s.io"], kube.identity("ci", []));
  expect(none.status).toBe(403);
  expect(JSON.parse(none.body!)).toEqual({
    kind: "Status",
    apiVersion: "v1",
    metadata: {},
    status: "Failure",
    message: `pods "${POD}" is forbidden: User "ci" cannot get resource "pods/portforward" in API group "" in the namespace "${NS}"`,
    reason: "Forbidden",
    details: { name: POD, kind: "pods" },
    code: 403,
  });
  const getOnly = await open(["v4.channel.k8s.io"], kube.identity("ci", ["get"]));
  expect(getOnly.status).toBe(403);
  expect(JSON.parse(getOnly.body!)).toMatchObject({ message: `pods "${POD}" is forbidden: `, reason: "Forbidden" });
  expect((await open(["v4.channel.k8s.io"], "wrong")).status).toBe(401);
  expect((await open(["v4.channel.k8s.io"], kube.token, "gone")).status).toBe(404);
});

test("without an upgrade: the same refusals, and with every grant the proxy's 400 Upgrade request required", async () => {
  const get = (token: string) =>
    new Promise<{ status?: number; body: unknown }>((resolve) =>
      http.get(kube.url + path(), { headers: { Authorization: `Bearer ${token}` } }, (res) => {
        let text = "";
        res.on("data", (d: Buffer) => (text += d.toString()));
        res.on("end", () => resolve({ status: res.statusCode, body: JSON.parse(text) }));
      }),
    );
  expect(await get(kube.token)).toMatchObject({ status: 400, body: { message: "Upgrade request required" } });
  expect(await get(kube.identity("ci", ["get"]))).toMatchObject({ status: 403, body: { reason: "Forbidden" } });
});
