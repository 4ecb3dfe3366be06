import * as net from "net";
import { ClusterTunnel, SshConnection } from "../../../providers/ssh/types";
import { FakeKube } from "../../helpers/fake-kube";
import { runSession } from "../../helpers/session-child";
import { LabHost, startLabHost } from "../../lab/sshd";

// The stream under an SSH session through the cluster, byte for byte: withSession (in a plain Node child, where
// client-node loads: test/helpers/session-child.ts) → openClusterTunnel →
// client-node's port-forward → the API stand-in (framing the pod's bytes as the kubelet does, fake-kube.ts) → a relay →
// a real sshd on 127.0.0.1. What the relay program itself does is tested in cluster-tunnel.test.ts; here the relays
// are small TCP servers that behave as a relay may.
jest.setTimeout(30_000);

const NS = "relay-ns";
const POD = "windows-estate-node-relay-5c9d7-x2k4q";
const RELAY_PORT = 2222;
const ANSWER = "HTTP/1.1 200 Connection established\r\n\r\n";
let kube: FakeKube;
let node: LabHost;
const servers: net.Server[] = [];

const relayPod = (name: string) => ({
  metadata: { name, namespace: NS, labels: { "app.kubernetes.io/name": "windows-estate-node-relay" } },
  status: { phase: "Running", conditions: [{ type: "Ready", status: "True" }] },
});
let listed = [relayPod(POD)];

beforeAll(async () => {
  node = await startLabHost();
  kube = new FakeKube();
  kube.route(`/api/v1/namespaces/${NS}/pods`, () => ({
    status: 200,
    body: { apiVersion: "v1", kind: "PodList", metadata: {}, items: listed },
  }));
  await kube.start();
});
afterEach(() => {
  kube.portForwardReadBytes = 32 * 1024;
  listed = [relayPod(POD)];
});
afterAll(async () => {
  for (const s of servers) s.close();
  await kube?.stop();
  await node?.stop();
});

/** Serves as the relay pod's port: `onConnect` gets the client and the CONNECT target once the request is read. */
async function relayAt(pod: string, onConnect: (client: net.Socket, host: string, port: number) => void) {
  const srv = net.createServer((client) => {
    let head = Buffer.alloc(0);
    const onData = (d: Buffer) => {
      head = Buffer.concat([head, d]);
      const m = /^CONNECT \[?([^\]\s]+?)\]?:(\d+) HTTP\/1\.1\r\n[\s\S]*?\r\n\r\n/.exec(head.toString("latin1"));
      if (!m) return;
      client.off("data", onData);
      client.pause();
      onConnect(client, m[1], Number(m[2]));
    };
    client.on("data", onData);
    client.on("error", () => undefined);
  });
  await new Promise<void>((r) => srv.listen(0, "127.0.0.1", r));
  servers.push(srv);
  kube.portForwards.set(`${NS}/${pod}:${RELAY_PORT}`, (srv.address() as net.AddressInfo).port);
  return srv;
}

/** A relay that answers only once the node has spoken: the 200 and the sshd banner leave it in one write. */
const answerWithBanner = (client: net.Socket, host: string, port: number) => {
  const up = net.connect(port, host);
  up.on("error", () => client.destroy());
  client.on("close", () => up.destroy());
  up.once("data", (banner: Buffer) => {
    client.write(Buffer.concat([Buffer.from(ANSWER), banner]));
    up.pipe(client);
    client.pipe(up);
    client.resume();
  });
};

const tunnel = (over: Partial<ClusterTunnel> = {}): ClusterTunnel => ({
  kubeconfig: kube.kubeconfig(),
  namespace: NS,
  selector: "app.kubernetes.io/name=windows-estate-node-relay",
  port: RELAY_PORT,
  timeoutSeconds: 5,
  ...over,
});
const conn = (over: Partial<SshConnection> = {}): SshConnection => ({
  host: node.host,
  port: node.port,
  user: node.user,
  privateKey: node.privateKey,
  hostKey: node.hostKeyLine,
  pathStyle: "posix",
  connectTimeoutSeconds: 3,
  deadlineSeconds: 4,
  cluster: tunnel(),
  ...over,
});

describe("row 1: nothing after the relay's answer is lost, however the bytes are framed", () => {
  beforeAll(() => relayAt(POD, answerWithBanner));

  test.each([
    ["in one frame", 32 * 1024],
    // The audit's reproduction: the answer's frame and the banner's frame back to back in one read.
    ["in two frames back to back, split where the answer ends", ANSWER.length],
    ["split every 16 bytes, the answer's end and the banner's start sharing a frame", 16],
  ])("answer and banner in one write, %s: the session opens and runs", async (_how, readBytes) => {
    kube.portForwardReadBytes = readBytes;
    const r = await runSession({ conn: conn(), commands: ["echo through the relay"] });
    expect(r).toMatchObject({ ok: true, value: ["through the relay\n"] });
  });
});
