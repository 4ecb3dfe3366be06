import { ChildProcess, spawn } from "child_process";
import * as net from "net";
import * as path from "path";
import { ClusterTunnel, SshConnection } from "../../../providers/ssh/types";
import { FakeKube } from "../../helpers/fake-kube";
import { Blackhole, blackhole } from "../../helpers/blackhole";
import { SessionChild, startSessionChild } from "../../helpers/session-child";
import { LabHost, startLabHost } from "../../lab/sshd";

// The stream under an SSH session through the cluster, byte for byte: withSession (in a plain Node child, where
// client-node loads, one for the whole file: test/helpers/session-child.ts) → openClusterTunnel →
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
let session: SessionChild;
const servers: net.Server[] = [];

const relayPod = (name: string) => ({
  metadata: { name, namespace: NS, labels: { "app.kubernetes.io/name": "windows-estate-node-relay" } },
  status: { phase: "Running", conditions: [{ type: "Ready", status: "True" }] },
});
let listed = [relayPod(POD)];

beforeAll(async () => {
  session = startSessionChild();
  node = await startLabHost();
  kube = new FakeKube();
  kube.route(`/api/v1/namespaces/${NS}/pods`, () => ({
    status: 200,
    body: { apiVersion: "v1", kind: "PodList", metadata: {}, items: listed },
  }));
  await kube.start();
  await relayAt(POD, answerWithBanner);
});
afterEach(() => {
  kube.portForwardReadBytes = 32 * 1024;
  kube.portForwardHold = undefined;
  listed = [relayPod(POD)];
});
afterAll(async () => {
  await session?.stop();
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
  test.each([
    ["in one frame", 32 * 1024],
    // The audit's reproduction: the answer's frame and the banner's frame back to back in one read.
    ["in two frames back to back, split where the answer ends", ANSWER.length],
    ["split every 16 bytes, the answer's end and the banner's start sharing a frame", 16],
  ])("answer and banner in one write, %s: the session opens and runs", async (_how, readBytes) => {
    kube.portForwardReadBytes = readBytes;
    const r = await session.run({ conn: conn(), commands: ["echo through the relay"] });
    expect(r).toMatchObject({ ok: true, value: ["through the relay\n"] });
  });
});

/** The relay program the Deployment runs, started with node on a free port (its env as the Deployment sets it). */
async function relayProgram(env: Record<string, string>): Promise<{ port: number; proc: ChildProcess }> {
  const script = path.join(__dirname, "..", "..", "..", "components", "node-access", "relay-proxy.js");
  const port = await new Promise<number>((resolve) => {
    const s = net.createServer().listen(0, "127.0.0.1", () => {
      const p = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(p));
    });
  });
  const proc = spawn(process.execPath, [script], {
    env: { ...process.env, RELAY_PORT: String(port), ...env },
    stdio: ["ignore", "pipe", "inherit"],
  });
  await new Promise<void>((resolve, reject) => {
    let out = "";
    proc.stdout?.on("data", (d: Buffer) => (out += d.toString()).includes("listening") && resolve());
    proc.once("exit", (c) => reject(new Error(`relay exited ${c}`)));
  });
  return { port, proc };
}

describe("row 9: the tunnel's timeouts, relay-aware, and nothing left open", () => {
  let hole: Blackhole;
  let relay: { port: number; proc: ChildProcess };
  const POD_504 = "windows-estate-node-relay-5c9d7-t1mzw";
  beforeAll(async () => {
    hole = await blackhole();
    // As the Deployment runs it with nodeAccess.connectTimeoutSeconds: 1 (and the hole's port allowed).
    relay = await relayProgram({ RELAY_CONNECT_TIMEOUT_MS: "1000", RELAY_ALLOWED_PORTS: String(hole.port) });
    kube.portForwards.set(`${NS}/${POD_504}:${RELAY_PORT}`, relay.port);
  });
  afterAll(async () => {
    relay?.proc.kill();
    await hole?.close();
  });

  test("a node that never answers: the relay's own 504 and its reason reach the user, and the port-forward is closed", async () => {
    listed = [relayPod(POD_504)];
    const before = kube.portForwardSessions.length;
    const r = await session.run({
      conn: conn({ host: hole.host, port: hole.port, deadlineSeconds: 1, cluster: tunnel({ timeoutSeconds: 1 }) }),
      commands: ["true"],
    });
    expect(r.ok).toBe(false);
    expect(r.value).toMatch(
      new RegExp(
        `relay pod ${NS}/${POD_504} would not connect to node 127\\.0\\.0\\.1 at 127\\.0\\.0\\.1:${hole.port}: 504 no TCP connection to 127\\.0\\.0\\.1:${hole.port} within 1s`,
      ),
    );
    expect(r.flags).toMatchObject({ unreachable: true });
    const opened = kube.portForwardSessions.slice(before);
    expect(opened.length).toBeGreaterThan(0);
    // Awaited, not raced against a timer: a port-forward left open never closes, and the test does not finish.
    await Promise.all(opened.map((s) => s.closed));
  });

  test("a port-forward the API opens only after the tunnel gave up on it is closed, not left open", async () => {
    const held: (() => void)[] = [];
    kube.portForwardHold = () => new Promise<void>((r) => held.push(r));
    const before = kube.portForwardSessions.length;
    const r = await session.run({
      conn: conn({ deadlineSeconds: 1, cluster: tunnel({ timeoutSeconds: 1 }) }),
      commands: ["true"],
    });
    expect(r).toMatchObject({ ok: false, flags: { unreachable: true } });
    expect(r.value).toMatch(
      new RegExp(`opening a port-forward to relay pod ${NS}/${POD} for node .* timed out after 1s`),
    );
    expect(held).toHaveLength(1);
    const late = kube.portForwardSessions[before];
    kube.portForwardHold = undefined;
    held[0]();
    await late.closed;
    expect(late.upgraded).toBe(true);
  });
});

describe("row 7: a session lost through the relay is named, and run again only where the caller says it is safe", () => {
  const A = "windows-estate-node-relay-5c9d7-aaaaa";
  const B = "windows-estate-node-relay-5c9d7-bbbbb";
  const relays: ChildProcess[] = [];
  /** Starts the relay program as pod `name` of the stand-in. */
  const relayPodAt = async (name: string) => {
    const r = await relayProgram({ RELAY_ALLOWED_PORTS: String(node.port) });
    relays.push(r.proc);
    kube.portForwards.set(`${NS}/${name}:${RELAY_PORT}`, r.port);
    return r.proc;
  };
  /** The relay pod is deleted: its process killed (what the end of its grace period does), gone from the list. */
  const deleteRelayPod = async (proc: ChildProcess, name: string) => {
    const exited = new Promise((r) => proc.once("exit", r));
    proc.kill("SIGKILL");
    await exited;
    listed = listed.filter((p) => p.metadata.name !== name);
  };
  afterEach(() => {
    for (const r of relays.splice(0)) if (r.exitCode === null && r.signalCode === null) r.kill();
  });

  test("not marked safe to retry: the error names the relay pod, what happened and that nothing was repeated", async () => {
    const a = await relayPodAt(A);
    listed = [relayPod(A)];
    const r = await session.run(
      { conn: conn({ commandTimeoutSeconds: 20 }), commands: ["echo one", "echo two"], pauseAt: ["1:1"] },
      () => deleteRelayPod(a, A),
    );
    expect(r).toMatchObject({ ok: false, attempts: 1, flags: { unreachable: true, relayLost: true } });
    expect(r.value).toMatch(
      new RegExp(
        `the SSH session to ${node.user}@127\\.0\\.0\\.1:${node.port} through relay pod ${NS}/${A} was lost: the port-forward .*relay pod ${NS}/${A} no longer exists .*not run again`,
      ),
    );
  });

  test("marked idempotent: the whole step runs again on a new session through another relay pod, and succeeds", async () => {
    const a = await relayPodAt(A);
    await relayPodAt(B);
    listed = [relayPod(A)];
    const before = kube.portForwardRequests.length;
    const r = await session.run(
      {
        conn: conn({ commandTimeoutSeconds: 20 }),
        commands: ["echo one", "echo two"],
        pauseAt: ["1:1"],
        options: { retriesOnRelayLoss: 1 },
      },
      async () => {
        // The Deployment has replaced the pod by the time the step is retried.
        listed = [relayPod(B)];
        await deleteRelayPod(a, A);
      },
    );
    expect(r).toMatchObject({ ok: true, attempts: 2, value: ["one\n", "two\n"] });
    expect(r.stderr).toMatch(
      new RegExp(`relay pod ${NS}/${A} was lost.*runs again from its start on a new session \\(1 of 1\\)`),
    );
    expect(kube.portForwardRequests.slice(before)).toEqual([`${NS}/${A}:${RELAY_PORT}`, `${NS}/${B}:${RELAY_PORT}`]);
  });

  test("lost again on every run: it gives up after its retries, saying so", async () => {
    const a = await relayPodAt(A);
    const b = await relayPodAt(B);
    listed = [relayPod(A)];
    const r = await session.run(
      {
        conn: conn({ commandTimeoutSeconds: 20 }),
        commands: ["echo one", "echo two"],
        pauseAt: ["1:1", "2:1"],
        options: { retriesOnRelayLoss: 1 },
      },
      async (at) => {
        if (at === "1:1") {
          listed = [relayPod(B)];
          await deleteRelayPod(a, A);
        } else await deleteRelayPod(b, B);
      },
    );
    expect(r).toMatchObject({ ok: false, attempts: 2, flags: { relayLost: true } });
    expect(r.value).toMatch(new RegExp(`through relay pod ${NS}/${B} was lost.*ran 2 times, each lost`));
  });

  test("a failure that is not a lost session is never retried, even when the step is marked idempotent", async () => {
    await relayPodAt(A);
    listed = [relayPod(A)];
    const r = await session.run({
      conn: conn(),
      commands: ["echo one", "exit 3"],
      options: { retriesOnRelayLoss: 2 },
    });
    expect(r).toMatchObject({ ok: false, attempts: 1, value: expect.stringMatching(/exit 3 exited 3/) });
    expect(r.flags.relayLost).toBeUndefined();
  });
});
