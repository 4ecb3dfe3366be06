import * as fs from "fs";
import * as net from "net";
import { withSession } from "../../../providers/ssh/session";
import { attemptsUntilGivenUp } from "../../helpers/lab-host";
import { freePort as unusedPort } from "../../../lab/processes";
import { SshConnection } from "../../../providers/ssh/types";
import { Blackhole, blackhole } from "../../helpers/blackhole";
import { LabHost, startLabHost } from "../../lab/sshd";

// Sessions through a jump host (nodeAccess.via: jumpHost), against real OpenSSH servers on 127.0.0.1 (audit row 8).
// The jump host is reached through a small TCP relay here so the test sees every connection to it open and close.
jest.setTimeout(30_000);

let jump: LabHost;
let target: LabHost;
let hole: Blackhole;
let watched: Watched;

/** A TCP relay in front of a port that counts the connections through it and says when none is left open. */
interface Watched {
  port: number;
  opened: number;
  /** Resolves once no connection through the relay is open. */
  idle(): Promise<void>;
  close(): Promise<void>;
}
async function watch(port: number): Promise<Watched> {
  const open = new Set<net.Socket>();
  let waiters: (() => void)[] = [];
  const srv = net.createServer((client) => {
    w.opened++;
    open.add(client);
    const up = net.connect(port, "127.0.0.1");
    client.pipe(up).pipe(client);
    const gone = () => {
      up.destroy();
      client.destroy();
      if (open.delete(client) && open.size === 0) {
        for (const wake of waiters) wake();
        waiters = [];
      }
    };
    client.on("close", gone).on("error", gone);
    up.on("close", gone).on("error", gone);
  });
  await new Promise<void>((r) => srv.listen(0, "127.0.0.1", r));
  const w: Watched = {
    port: (srv.address() as net.AddressInfo).port,
    opened: 0,
    idle: () => (open.size === 0 ? Promise.resolve() : new Promise<void>((r) => waiters.push(r))),
    close: () =>
      new Promise<void>((r) => {
        for (const s of open) s.destroy();
        srv.close(() => r());
      }),
  };
  return w;
}

beforeAll(async () => {
  [jump, target, hole] = await Promise.all([startLabHost(), startLabHost(), blackhole()]);
  watched = await watch(jump.port);
});
afterAll(async () => {
  await watched?.close();
  await Promise.all([jump?.stop(), target?.stop(), hole?.close()]);
});

const conn = (h: { host: string; port: number }, over: Partial<SshConnection> = {}): SshConnection => ({
  host: h.host,
  port: h.port,
  user: target.user,
  privateKey: target.privateKey,
  hostKey: target.hostKeyFingerprint,
  pathStyle: "posix",
  connectTimeoutSeconds: 1,
  deadlineSeconds: 2,
  ...over,
});
const viaJump = (over: Partial<SshConnection> = {}): SshConnection => ({
  host: "127.0.0.1",
  port: watched.port,
  user: jump.user,
  privateKey: jump.privateKey,
  hostKey: jump.hostKeyFingerprint,
  pathStyle: "posix",
  connectTimeoutSeconds: 5,
  ...over,
});

test("through the jump host: the target's command runs and the jump connection is closed afterwards", async () => {
  const r = await withSession(conn(target, { proxy: viaJump() }), undefined, (s) => s.exec("echo via jump"));
  expect(r.stdout).toBe("via jump\n");
  await watched.idle();
});

test("a target the jump host cannot reach (refused): named, and no jump connection is left open", async () => {
  const port = await unusedPort();
  const before = watched.opened;
  const attempts = await attemptsUntilGivenUp(
    conn({ host: "127.0.0.1", port }, { proxy: viaJump() }),
    `jump host ${jump.user}@127\\.0\\.0\\.1:${watched.port} cannot reach ${target.user}@127\\.0\\.0\\.1:${port}: .*Connection refused`,
  );
  // Every attempt (withSession retries until its deadline; how many fit depends on the machine's speed) opened one
  // jump connection, and each is closed.
  expect(watched.opened - before).toBe(attempts);
  await watched.idle();
});

test("a target that never answers the jump host's connection: the forward times out, named, and the jump connection is closed", async () => {
  // The forward's own timeout is what ends this (the hole never answers): without it the test would not finish.
  const outcome = await withSession(
    conn(hole, { proxy: viaJump(), deadlineSeconds: 1 }),
    undefined,
    async () => "never",
  ).then(
    () => "connected",
    (e: Error) => e,
  );
  expect(outcome).toBeInstanceOf(Error);
  expect((outcome as Error).message).toMatch(
    new RegExp(
      `jump host ${jump.user}@127\\.0\\.0\\.1:${watched.port} opened no connection to ${target.user}@127\\.0\\.0\\.1:${hole.port} within 1s`,
    ),
  );
  expect(outcome).toMatchObject({ unreachable: true });
  await watched.idle();
});

test("a jump host that forbids forwarding for the key: refused at once, final, the jump host's setting named", async () => {
  const strict = await startLabHost();
  try {
    fs.writeFileSync(strict.authorizedKeysFile, `no-port-forwarding ${strict.publicKey}\n`);
    // At once is final: a final error ends the connection loop at its first attempt (session.ts connectWithin).
    await expect(
      withSession(
        conn(target, {
          deadlineSeconds: 10,
          proxy: viaJump({ port: strict.port, privateKey: strict.privateKey, hostKey: strict.hostKeyFingerprint }),
        }),
        undefined,
        async () => "never",
      ),
    ).rejects.toMatchObject({
      final: true,
      message: expect.stringMatching(/forwarding.*AllowTcpForwarding/),
    });
  } finally {
    await strict.stop();
  }
});
