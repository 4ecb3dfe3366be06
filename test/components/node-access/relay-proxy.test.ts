import { ChildProcess, spawn } from "child_process";
import * as net from "net";
import * as path from "path";

// The relay program itself (components/node-access/relay-proxy.js), run with node as the relay pod runs it, relaying
// to a TCP echo server on loopback in place of a node's sshd. What a drain or a rollout does to a relay pod is what
// the kubelet does: SIGTERM, then SIGKILL at the grace period.

const SCRIPT = path.join(__dirname, "..", "..", "..", "components", "node-access", "relay-proxy.js");

let echo: net.Server;
let echoPort: number;
beforeAll(async () => {
  echo = net.createServer((s) => s.pipe(s));
  await new Promise<void>((resolve) => echo.listen(0, "127.0.0.1", resolve));
  echoPort = (echo.address() as net.AddressInfo).port;
});
afterAll(() => new Promise<void>((resolve) => echo.close(() => resolve())));

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, "127.0.0.1", () => {
      const p = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(p));
    });
  });
}

interface Relay {
  proc: ChildProcess;
  port: number;
  log: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

const started: ChildProcess[] = [];
afterEach(() => {
  for (const p of started.splice(0)) if (p.exitCode === null && p.signalCode === null) p.kill("SIGKILL");
});

async function startRelay(env: Record<string, string> = {}): Promise<Relay> {
  const port = await freePort();
  const proc = spawn(process.execPath, [SCRIPT], {
    env: { ...process.env, RELAY_PORT: String(port), RELAY_ALLOWED_PORTS: String(echoPort), ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  started.push(proc);
  let out = "";
  proc.stdout?.on("data", (d: Buffer) => (out += d.toString()));
  proc.stderr?.on("data", (d: Buffer) => (out += d.toString()));
  // "close", not "exit": its output is all read by then, so the log holds the relay's last line.
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    proc.once("close", (code, signal) => resolve({ code, signal })),
  );
  // Started when it says so (an event, however long a loaded machine takes), or failed if it exits first.
  await new Promise<void>((resolve, reject) => {
    proc.stdout?.on("data", () => out.includes("listening") && resolve());
    void exited.then(() => reject(new Error(`the relay did not start: ${out}`)));
  });
  return { proc, port, log: () => out, exited };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A TCP connection to the relay, with everything it received so far. */
interface Conn {
  socket: net.Socket;
  received: () => string;
  closed: Promise<number>;
}

function connectTcp(port: number): Promise<Conn> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, "127.0.0.1");
    let data = "";
    socket.on("data", (d: Buffer) => (data += d.toString("latin1")));
    const closed = new Promise<number>((r) => socket.once("close", () => r(Date.now())));
    socket.once("connect", () => resolve({ socket, received: () => data, closed }));
    socket.once("error", reject);
  });
}

async function until(what: string, ok: () => boolean, ms = 5000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

/** The relay logs this once its listener is closed (relay-proxy.js drain): new connections are refused from then on. */
const STOPPED_LISTENING = /SIGTERM: refusing new connections/;

/** Sends SIGTERM and waits for the relay to say it has stopped listening: an event, not a guess at how long it takes. */
async function terminate(relay: Relay): Promise<void> {
  relay.proc.kill("SIGTERM");
  await until("the relay's SIGTERM line", () => STOPPED_LISTENING.test(relay.log()));
}

/** A tunnel through the relay to the echo server, as the SSH layer opens one. */
async function openTunnel(port: number): Promise<Conn> {
  const c = await connectTcp(port);
  c.socket.write(`CONNECT 127.0.0.1:${echoPort} HTTP/1.1\r\nHost: 127.0.0.1:${echoPort}\r\n\r\n`);
  await until("the relay's 200", () => c.received().includes("\r\n\r\n"));
  expect(c.received()).toMatch(/^HTTP\/1\.1 200 /);
  return c;
}

/** Sends a line through a tunnel and waits for the echo server to send it back. */
async function roundTrip(c: Conn, text: string): Promise<void> {
  c.socket.write(text);
  await until(`"${text}" echoed`, () => c.received().endsWith(text));
}

/** A new TCP connection to the relay: refused once it has stopped listening. */
function tryConnect(port: number): Promise<string> {
  return new Promise((resolve) => {
    const s = net.connect(port, "127.0.0.1");
    s.once("connect", () => {
      s.destroy();
      resolve("accepted");
    });
    s.once("error", (e: NodeJS.ErrnoException) => resolve(e.code ?? e.message));
  });
}

test("after SIGTERM new connections are refused; at the stop deadline the relay closes the tunnel still open, names it, and exits", async () => {
  const relay = await startRelay({ RELAY_DRAIN_SECONDS: "2" });
  const tunnel = await openTunnel(relay.port);
  await roundTrip(tunnel, "before ");
  const signalled = Date.now();
  await terminate(relay);
  expect(await tryConnect(relay.port)).toBe("ECONNREFUSED");
  // The relay's own deadline (just under the pod's grace period): the tunnel is closed, named in the log, and the
  // relay exits by itself rather than being killed. Nothing else ends the tunnel, so it is awaited, and only the lower
  // bound is timed (a slow machine only adds to it); that traffic flows meanwhile is the next tests' (drain 5 s, 30 s).
  const closedAt = await tunnel.closed;
  const exit = await relay.exited;
  expect(exit).toMatchObject({ code: 0, signal: null });
  expect(closedAt - signalled).toBeGreaterThanOrEqual(1900);
  expect(relay.log()).toContain(`stop deadline (2s) reached: closing the tunnel to 127.0.0.1:${echoPort}, open for `);
  expect(relay.log()).toContain("its session is lost");
}, 20_000);

test("a CONNECT whose request arrives after SIGTERM, on a connection accepted before, is answered 503 and not relayed", async () => {
  const relay = await startRelay({ RELAY_DRAIN_SECONDS: "5" });
  const keep = await openTunnel(relay.port); // keeps the relay draining rather than exiting at once
  const late = await connectTcp(relay.port);
  // Half a request line: the connection is busy (not idle), so stopping the server leaves it open.
  late.socket.write(`CONNECT 127.0.0.1:${echoPort} HTTP/1.1\r\n`);
  await sleep(200);
  await terminate(relay);
  late.socket.write(`Host: 127.0.0.1:${echoPort}\r\n\r\n`);
  await late.closed;
  expect(late.received()).toMatch(/^HTTP\/1\.1 503 Service Unavailable\r\nX-Relay-Error: the relay is stopping/);
  await roundTrip(keep, "unaffected ");
  keep.socket.end();
  expect(await relay.exited).toMatchObject({ code: 0, signal: null });
}, 20_000);

test("a stopping relay exits as soon as its last tunnel ends, and at once when none is open", async () => {
  const relay = await startRelay({ RELAY_DRAIN_SECONDS: "30" });
  const tunnel = await openTunnel(relay.port);
  await terminate(relay);
  // The session in flight goes on: its SSH traffic still flows both ways.
  await roundTrip(tunnel, "last words ");
  tunnel.socket.end();
  // As soon as: the tunnel's end is what the relay exits on, by its own word, not its 30 s deadline (which the test's
  // 20 s limit would not reach); read from its log rather than timed.
  const exit = await relay.exited;
  expect(exit).toMatchObject({ code: 0, signal: null });
  expect(relay.log()).toContain("relay: the last tunnel has ended; exiting");
  expect(relay.log()).not.toContain("stop deadline");

  const idle = await startRelay({ RELAY_DRAIN_SECONDS: "30" });
  idle.proc.kill("SIGTERM");
  const idleExit = await idle.exited;
  expect(idleExit).toMatchObject({ code: 0, signal: null });
  expect(idle.log()).toContain("relay: SIGTERM: no tunnel open; exiting");
}, 20_000);
