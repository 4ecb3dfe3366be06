import type { Client, ClientChannel, ConnectConfig, SFTPWrapper } from "ssh2";
import { hostKeyAlgorithms, hostKeyMatches, keyLine, pinnedFingerprint } from "./host-key";
import { fingerprint } from "../../lib/ssh-wire";
import { openClusterTunnel, TunnelInfo } from "./cluster-tunnel";
import { keyForSsh2 } from "./key-format";
import { processSemaphore, sshCounters, within } from "./limits";
import { toSftpPath } from "./paths";
import { commandLineProblem } from "./powershell";
import { DEFAULTS, describeTarget, SshConnection } from "./types";
import { codeOf, messageOf, finalError as permanent, isFinal as isPermanent, unreachableError } from "../../lib/errors";
import { get } from "../../lib/json";

/** The outcome of one remote command. */
export interface CommandResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** A remote process started by `Session.start`: lines in, lines out. */
export interface RemoteProcess {
  /** Writes to the process's standard input. */
  write(text: string): void;
  /**
   * The next line the process prints (without its line break), or undefined once its output has ended. Rejects after
   * the command timeout (closing the connection) or when the connection is lost; `what` names the wait in the error.
   */
  nextLine(what: string): Promise<string | undefined>;
  /** What the process printed on standard error since the last call. */
  takeStderr(): string;
  /**
   * Closes standard input and waits for the process to exit; resolves with its exit code (-1 when none came). A
   * process that must end even when the server does not pass the EOF on is told so first (the runner's empty line).
   */
  end(): Promise<number>;
}

/** One connection to one host, shared by every step of an operation. */
export interface Session {
  /** The host key the server presented, as an OpenSSH line: what trust-on-first-use records. */
  readonly hostKey: string;
  readonly hostKeyFingerprint: string;
  readonly style: "windows" | "posix";
  /** Runs a command line with the connection's command timeout. */
  exec(command: string): Promise<CommandResult>;
  /**
   * Starts a command whose standard input stays open, for a process that takes its work line by line (the PowerShell
   * runner, `powershell-runner.ts`). Each wait for output has the connection's command timeout.
   */
  start(command: string): Promise<RemoteProcess>;
  /** Writes a file so that no reader ever sees it half-written: a temp file beside it, then a rename over it. */
  writeFileAtomic(path: string, data: Buffer): Promise<void>;
  mkdirp(dir: string): Promise<void>;
  unlink(path: string): Promise<void>;
}

function secs(v: number | undefined, d: number): number {
  return (v ?? d) * 1000;
}

/**
 * Connects once (through the jump host if any) with the host key checked before authentication completes.
 * `recorded` is a key pinned in state by trust-on-first-use; it wins over `trustOnFirstUse` once it exists.
 */
function connectOnce(
  c: SshConnection,
  recorded: string | undefined,
  sock?: ConnectConfig["sock"],
): Promise<{ client: Client; presented: Buffer }> {
  const { Client: SshClient }: typeof import("ssh2") = require("ssh2");
  const target = describeTarget(c);
  const pin = c.hostKey ?? recorded;
  const hostKeyAlgs = hostKeyAlgorithms(pin);
  return new Promise((resolve, reject) => {
    const client = new SshClient();
    let presented: Buffer | undefined;
    let mismatch: Error | undefined;
    const cfg: ConnectConfig = {
      host: c.host,
      port: c.port ?? DEFAULTS.port,
      username: c.user,
      readyTimeout: secs(c.connectTimeoutSeconds, DEFAULTS.connectTimeoutSeconds),
      keepaliveInterval: 10_000,
      ...(hostKeyAlgs ? { algorithms: { serverHostKey: hostKeyAlgs } } : {}),
      hostVerifier: (key: Buffer) => {
        presented = key;
        if (pin ? hostKeyMatches(pin, key) : c.trustOnFirstUse === true) return true;
        mismatch = permanent(
          pin
            ? `host key mismatch for ${target}: it presented ${fingerprint(key)}, but ${pinnedFingerprint(pin)} is pinned. Nothing was written. ` +
                `If the host was rebuilt, update its hostKey; otherwise someone may be intercepting the connection.`
            : `no host key to verify ${target} against: set hostKey (e.g. ${fingerprint(key)} after checking it out of band) or trustOnFirstUse`,
        );
        return false;
      },
      ...(c.password ? { password: c.password } : {}),
      ...(sock ? { sock } : {}),
    };
    let settled = false;
    client.once("ready", () => {
      settled = true;
      // ssh2 verifies the host key before "ready", so the key is always there; be explicit rather than assume.
      if (presented) resolve({ client, presented });
      else reject(permanent(`${target} completed the handshake without presenting a host key`));
    });
    // `on`, not `once`: ssh2 can emit more than one error for one failure, and an unheard one crashes the process.
    client.on("error", (e: Error & { level?: string }) => {
      if (settled) return;
      settled = true;
      client.end();
      if (mismatch) return reject(mismatch);
      // Only say what failed, never echo the configuration (it holds the key or password).
      if (e.level === "client-authentication")
        return reject(permanent(`authentication to ${target} was refused; check the user and its key or password`));
      reject(
        unreachableError(
          `cannot connect to ${target}: ${/timed out/i.test(e.message) ? `no SSH handshake within ${cfg.readyTimeout! / 1000}s` : e.message}`,
        ),
      );
    });
    try {
      client.connect(c.privateKey ? { ...cfg, privateKey: keyForSsh2(c.privateKey) } : cfg);
    } catch {
      // ssh2, and the PKCS#8 conversion before it, throw synchronously on unparsable keys; their message can quote
      // the key, so it is replaced.
      reject(
        permanent(
          `cannot use the credentials for ${target}: the private key could not be parsed (passphrase-protected or corrupt)`,
        ),
      );
    }
  });
}

/** Connects directly, or through the cluster's relay or a jump host: SSH to the target runs over that hop. */
async function connectVia(
  c: SshConnection,
  recorded: string | undefined,
): Promise<{ client: Client; presented: Buffer; jump?: Client; tunnel?: TunnelInfo }> {
  // A failure after the first hop closes that hop: nothing else would (ssh2's keepalive holds a jump connection open).
  const over = async (sock: ConnectConfig["sock"] | Promise<ConnectConfig["sock"]>, closeHop: () => void) => {
    try {
      return await connectOnce(c, recorded, await sock);
    } catch (e) {
      closeHop();
      throw e;
    }
  };
  if (c.cluster) {
    const sock = await openClusterTunnel(c.cluster, c.host, c.port ?? DEFAULTS.port, c.host);
    return { ...(await over(sock, () => sock.destroy())), tunnel: sock.tunnel };
  }
  if (!c.proxy) return connectOnce(c, recorded);
  const jump = await connectOnce(c.proxy, undefined);
  return { ...(await over(forwardThrough(jump.client, c.proxy, c), () => jump.client.end())), jump: jump.client };
}

/**
 * Asks the jump host to open a TCP connection to the target (`direct-tcpip`, RFC 4254 section 7.2). OpenSSH answers
 * only once its own connect() ends, so a target that drops packets leaves the request unanswered for the kernel's
 * SYN retries (about two minutes): the wait is bounded by the target's connect timeout. A refusal by the jump host's
 * policy (reason 1, administratively prohibited: `no-port-forwarding`, AllowTcpForwarding, PermitOpen) will not
 * change by retrying; any other failure is the target being unreachable from the jump host.
 */
function forwardThrough(jump: Client, proxy: SshConnection, c: SshConnection): Promise<ClientChannel> {
  const via = `jump host ${describeTarget(proxy)}`;
  const ms = secs(c.connectTimeoutSeconds, DEFAULTS.connectTimeoutSeconds);
  const port = c.port ?? DEFAULTS.port;
  let late = false;
  const opening = new Promise<ClientChannel>((resolve, reject) =>
    jump.forwardOut("127.0.0.1", 0, c.host, port, (err, ch) => {
      // A channel the jump host opens after this side gave up on it would stay open with nobody using it.
      if (late) return void ch?.close();
      if (!err) return resolve(ch);
      // ssh2 sets the channel-open failure's reason code on the error (RFC 4254 5.1: 1 administratively prohibited).
      const reason = "reason" in err && typeof err.reason === "number" ? err.reason : undefined;
      reject(
        reason === 1
          ? permanent(
              `${via} refuses to forward a connection to ${describeTarget(c)} (${err.message}): allow TCP forwarding for this user and key on the jump host (sshd_config AllowTcpForwarding and PermitOpen, no no-port-forwarding or permitopen option in its authorized_keys)`,
            )
          : unreachableError(`${via} cannot reach ${describeTarget(c)}: ${err.message}`),
      );
    }),
  );
  return within(
    ms,
    opening,
    () =>
      unreachableError(
        `${via} opened no connection to ${describeTarget(c)} within ${ms / 1000}s: from the jump host, the address does not answer on port ${port} (a firewall or security group dropping it, or a wrong address)`,
      ),
    () => (late = true),
  );
}

/** What a long connection wait says: the host, how long of how long, and why the last attempt failed. */
export function waitingLine(target: string, waitedMs: number, deadlineMs: number, lastError: string): string {
  const m = (ms: number) => `${Math.floor(ms / 60_000)}m${String(Math.floor((ms % 60_000) / 1000)).padStart(2, "0")}s`;
  return `${target}: not reachable over SSH yet, still trying (${m(waitedMs)} of ${m(deadlineMs)}): ${lastError}`;
}

/** How `withSession` treats the step it runs. */
export interface SessionOptions {
  /**
   * How many more times (at most 2) the whole step runs, from its start on a new session, when the session through
   * the cluster relay was lost under it: the relay's port-forward closed or failed while the step ran (the relay pod
   * deleted or evicted, its node drained, the API server restarting). Only for steps that are safe to run again
   * after being cut off anywhere (a probe, a preparation that converges, writing declared files atomically); never
   * a reboot, a join or anything that must not happen twice. Other failures are never retried. Default 0.
   */
  retriesOnRelayLoss?: number;
}

/**
 * Runs `fn` with one connection to the host, retrying the connection with backoff until the deadline, and always
 * closing it. At most a bounded number of connections per process are open at once. A session through the cluster
 * relay that is lost under `fn` fails naming the relay pod and what became of it, or, where the caller allows it
 * (`retriesOnRelayLoss`), runs `fn` again on a new session.
 */
export async function withSession<T>(
  c: SshConnection,
  recordedHostKey: string | undefined,
  fn: (s: Session) => Promise<T>,
  options: SessionOptions = {},
): Promise<T> {
  const release = await processSemaphore().acquire();
  const target = describeTarget(c);
  const retries = Math.max(0, Math.min(2, Math.floor(options.retriesOnRelayLoss ?? 0)));
  try {
    for (let run = 1; ; run++) {
      const conn = await connectWithin(c, recordedHostKey, target);
      try {
        return await fn(makeSession(conn.client, c, conn.presented, target, conn.tunnel?.relay));
      } catch (e) {
        const what = conn.tunnel?.lost;
        if (!conn.tunnel || what === undefined) throw e;
        // The step's own error says where it was cut off, unless it is only the session's "connection lost".
        const cut = get(e, "sessionLost") === true ? "" : `; the step failed with: ${messageOf(e).slice(0, 300)}`;
        const lost = `the SSH session to ${target} through ${conn.tunnel.relay} was lost: ${what}; ${await conn.tunnel.diagnose()}${cut}`;
        if (run <= retries) {
          console.error(
            `${lost}. The step is safe to run again: it runs again from its start on a new session (${run} of ${retries})`,
          );
          continue;
        }
        const relay = c.cluster ? `kubectl -n ${c.cluster.namespace} get pods -l ${c.cluster.selector}` : "the relay";
        throw Object.assign(
          unreachableError(
            `${lost}. ${
              retries > 0
                ? `The step ran ${run} times, each lost`
                : "The step was not run again: it is not one that is safe to repeat after being cut off"
            }; check the relay pods (${relay}) and run pulumi up again`,
          ),
          { relayLost: true as const },
        );
      } finally {
        conn.client.end();
        conn.jump?.end();
      }
    }
  } finally {
    release();
  }
}

/** Connects (retrying with backoff until the deadline, saying how it goes every progressSeconds) and counts the login. */
async function connectWithin(
  c: SshConnection,
  recordedHostKey: string | undefined,
  target: string,
): Promise<Awaited<ReturnType<typeof connectVia>>> {
  const started = Date.now();
  const deadlineMs = secs(c.deadlineSeconds, DEFAULTS.deadlineSeconds);
  let reported = started;
  for (let attempt = 0; ; attempt++) {
    try {
      const conn = await connectVia(c, recordedHostKey);
      sshCounters().logins++;
      return conn;
    } catch (e) {
      if (isPermanent(e)) throw e;
      const wait = Math.min(500 * 2 ** attempt, 10_000);
      if (Date.now() + wait >= started + deadlineMs)
        throw unreachableError(
          `${messageOf(e)} (gave up after ${attempt + 1} attempts within the ${deadlineMs / 1000}s deadline)`,
        );
      // A long wait says how it goes (the dynamic provider's stderr is the engine's diagnostics for the resource).
      if (Date.now() - reported >= secs(c.progressSeconds, DEFAULTS.progressSeconds)) {
        reported = Date.now();
        console.error(waitingLine(target, reported - started, deadlineMs, messageOf(e)));
      }
      await new Promise((r) => setTimeout(r, wait));
    }
  }
}

function makeSession(client: Client, c: SshConnection, presented: Buffer, target: string, relay?: string): Session {
  const style = c.pathStyle ?? "windows";
  const commandMs = secs(c.commandTimeoutSeconds, DEFAULTS.commandTimeoutSeconds);
  let sftp: Promise<SFTPWrapper> | undefined;
  // A dropped connection fails whatever is in flight at once, instead of leaving it to the command timeout, and
  // whatever starts afterwards (ssh2 would only say "Not connected").
  let closed = false;
  const lostError = () =>
    Object.assign(unreachableError(`the connection to ${target}${relay ? ` through ${relay}` : ""} was lost`), {
      sessionLost: true as const,
    });
  const lost = new Promise<never>((_, reject) =>
    client.once("close", () => {
      closed = true;
      reject(lostError());
    }),
  );
  lost.catch(() => undefined);
  /** One SFTP call; a failure that `accepted` does not take is `cannot <doing> on <target>: <why>`. */
  const sftpCall = (
    doing: string,
    call: (done: (err?: Error | null) => void) => void,
    accepted?: (err: Error) => boolean | Promise<boolean>,
  ) =>
    new Promise<void>((resolve, reject) =>
      call((err) =>
        err
          ? void Promise.resolve(accepted?.(err)).then((ok) =>
              ok ? resolve() : reject(new Error(`cannot ${doing} on ${target}: ${err.message}`)),
            )
          : resolve(),
      ),
    );
  // Every step is bounded by the command timeout, SFTP's too (ssh2 has no timeout of its own on SFTP requests: a
  // subsystem that never answers its version, a stat or a mkdir would hold the operation for ever). What timed out
  // leaves the connection in an unknown state, so it is always closed; `closeFirst` closes a channel before it.
  const timed = <T>(what: string, p: Promise<T>, closeFirst?: () => void): Promise<T> =>
    within(
      commandMs,
      Promise.race([p, lost]),
      () => new Error(`${what} on ${target} timed out after ${commandMs / 1000}s`),
      () => {
        closeFirst?.();
        client.end();
      },
    );
  const getSftp = () =>
    timed(
      "opening SFTP",
      (sftp ??= new Promise((resolve, reject) =>
        client.sftp((err, s) =>
          err ? reject(new Error(`SFTP is not available on ${target}: ${err.message}`)) : resolve(s),
        ),
      )),
    );
  /** Runs `command` on a new channel; `use` takes the channel at once, before any of its events can pass unheard. */
  const open = <T>(command: string, use: (channel: ClientChannel) => T | Promise<T>): Promise<T> => {
    const tooLong = style === "windows" ? commandLineProblem(command, target) : undefined;
    if (tooLong) return Promise.reject(permanent(tooLong));
    if (closed) return Promise.reject(lostError());
    return new Promise((resolve, reject) =>
      client.exec(command, (err, channel) =>
        err ? reject(new Error(`cannot run a command on ${target}: ${err.message}`)) : resolve(use(channel)),
      ),
    );
  };

  return {
    hostKey: keyLine(presented),
    hostKeyFingerprint: fingerprint(presented),
    style,
    exec(command) {
      let channel: ClientChannel | undefined;
      const run = open(command, (stream) => {
        channel = stream;
        const out: Buffer[] = [];
        const errOut: Buffer[] = [];
        stream.on("data", (d: Buffer) => out.push(d));
        stream.stderr.on("data", (d: Buffer) => errOut.push(d));
        return new Promise<CommandResult>((resolve) =>
          stream.on("close", (code: number | null) =>
            resolve({
              code: code ?? -1,
              stdout: Buffer.concat(out).toString("utf8"),
              stderr: Buffer.concat(errOut).toString("utf8"),
            }),
          ),
        );
      });
      return timed("a command", run, () => channel?.close());
    },
    start(command) {
      return open(command, (stream): RemoteProcess => {
        const { StringDecoder }: typeof import("string_decoder") = require("string_decoder");
        const decoder = new StringDecoder("utf8");
        const lines: string[] = [];
        let partial = "";
        let ended = false;
        let exitCode = -1;
        let errText = "";
        let wake: (() => void) | undefined;
        const notify = () => {
          wake?.();
          wake = undefined;
        };
        stream.on("data", (d: Buffer) => {
          const parts = (partial + decoder.write(d)).split("\n");
          partial = parts.pop() ?? "";
          for (const l of parts) lines.push(l.replace(/\r$/, ""));
          notify();
        });
        stream.stderr.on("data", (d: Buffer) => (errText += d.toString("utf8")));
        stream.on("exit", (code: number | null) => (exitCode = code ?? -1));
        const closed = new Promise<void>((res) =>
          stream.once("close", () => {
            partial += decoder.end();
            if (partial) lines.push(partial.replace(/\r$/, ""));
            ended = true;
            notify();
            res();
          }),
        );
        const abort = () => stream.close();
        return {
          write: (text) => void stream.write(text),
          nextLine(what) {
            const next = async (): Promise<string | undefined> => {
              for (;;) {
                const l = lines.shift();
                if (l !== undefined) return l;
                if (ended) return undefined;
                await new Promise<void>((w) => (wake = w));
              }
            };
            return timed(what, next(), abort);
          },
          takeStderr() {
            const t = errText;
            errText = "";
            return t;
          },
          async end() {
            stream.end();
            await timed("waiting for the remote process to exit", closed, abort);
            return exitCode;
          },
        };
      });
    },
    async writeFileAtomic(path, data) {
      const s = await getSftp();
      const remote = toSftpPath(path, style);
      const slash = remote.lastIndexOf("/");
      const tmp = `${remote.slice(0, slash + 1)}.${remote.slice(slash + 1)}.tmp-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
      await timed(
        `writing ${path}`,
        sftpCall(`write ${path}`, (done) => s.writeFile(tmp, data, done)),
      );
      // Plain SFTP rename refuses an existing target, so the OpenSSH `posix-rename` extension (atomic replace) is used
      // when the server offers it; otherwise the old file is removed first, which leaves a moment with no file but
      // never a partial one.
      const renameOver = (done: (err?: Error | null) => void) => {
        const fallback = () => s.unlink(remote, () => s.rename(tmp, remote, done));
        try {
          s.ext_openssh_rename(tmp, remote, (err) => (err ? fallback() : done()));
        } catch {
          // ssh2 throws at once when the server does not offer the extension.
          fallback();
        }
      };
      await timed(`renaming into ${path}`, sftpCall(`move the new ${path} into place`, renameOver));
    },
    async mkdirp(dir) {
      const s = await getSftp();
      const remote = toSftpPath(dir, style);
      const parts = remote.split("/");
      const each = async () => {
        for (let i = 2; i <= parts.length; i++) {
          const p = parts.slice(0, i).join("/");
          if (p === "" || /^\/[A-Za-z]:$/.test(p)) continue;
          const isDir = () =>
            new Promise<boolean>((resolve) => s.stat(p, (err, st) => resolve(!err && st.isDirectory())));
          if (!(await isDir()))
            // Another session to the same host (the node's other file sets, converged at once) may create it between
            // our stat and our mkdir: as `mkdir -p`, a directory that exists afterwards is success.
            await sftpCall(`create ${p}`, (done) => s.mkdir(p, done), isDir);
        }
      };
      await timed(`creating ${dir}`, each());
    },
    async unlink(path) {
      const s = await getSftp();
      // SFTP status 2, SSH_FX_NO_SUCH_FILE: already gone.
      await timed(
        `removing ${path}`,
        sftpCall(
          `remove ${path}`,
          (done) => s.unlink(toSftpPath(path, style), done),
          (err) => codeOf(err) === 2,
        ),
      );
    },
  };
}
