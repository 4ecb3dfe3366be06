import { spawn } from "child_process";
import * as fs from "fs";
import * as http from "http";
import * as https from "https";
import * as net from "net";
import { LabError } from "./errors";

/** A process the lab started and `stop` must end. */
export interface Started {
  name: string;
  pid: number;
  /**
   * When it started (/proc/<pid>/stat field 22, clock ticks since boot) and the boot it started in: a pid alone may
   * belong to another process after a reboot or once it is reused; both must match for the process to be ours.
   */
  startTime: string;
  bootId: string;
  log: string;
  /** How it was started (so `npm run lab -- apiserver start` can start it again the same way). */
  command?: string;
  args?: string[];
}

/** This boot's id (/proc/sys/kernel/random/boot_id). */
export function bootId(): string {
  try {
    return fs.readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim();
  } catch {
    return "";
  }
}

/** A process's start time in clock ticks since boot, or undefined when there is no such process. */
export function startTimeOf(pid: number): string | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    // The command name (field 2) is in parentheses and may hold spaces: count fields after its closing one.
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19];
  } catch {
    return undefined;
  }
}

/** Is this recorded process still the one the lab started? */
export function ours(p: Pick<Started, "pid" | "startTime" | "bootId">): boolean {
  return p.bootId === bootId() && startTimeOf(p.pid) === p.startTime;
}

/** A port bound for as long as the caller holds it. */
export interface HeldPort {
  port: number;
  release(): Promise<void>;
}

/** Port 0 on 127.0.0.1 bound: the kernel's choice of a free port, held until released. */
function kernelPort(): Promise<HeldPort> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const a = s.address();
      resolve({
        port: typeof a === "object" && a ? a.port : 0,
        release: () => new Promise<void>((done) => s.close(() => done())),
      });
    });
  });
}

/**
 * A `freePort` over `bind` (a port bound, held until released) that never hands out one port twice in this process.
 * Binding port 0 and closing it frees the port again at once, and the kernel may give the same one to the next bind
 * before the first caller's process listens on it: two parts of the lab starting side by side (OLM and machine-api,
 * lab/start.ts) would both get it. A port already handed out is kept bound while the next is asked for, so the kernel
 * must choose another.
 */
export function portAllocator(bind: () => Promise<HeldPort>, tries = 100): () => Promise<number> {
  const handedOut = new Set<number>();
  return async () => {
    const held: HeldPort[] = [];
    try {
      for (let i = 0; i < tries; i++) {
        const p = await bind();
        held.push(p);
        if (!handedOut.has(p.port)) {
          handedOut.add(p.port);
          return p.port;
        }
      }
      throw new LabError(`no port on 127.0.0.1 this lab has not handed out already, after ${tries} tries`);
    } finally {
      await Promise.all(held.map((p) => p.release()));
    }
  };
}

/** A free TCP port on 127.0.0.1, as the kernel hands one out, and never one this process was given before. */
export const freePort = portAllocator(kernelPort);

/**
 * Awaits parts of the lab started side by side, each named: a part that fails is logged as soon as it does (not after
 * the others' waits), and once every part is settled (so that every process any of them started is in the record
 * teardown stops) the failure is thrown, every part that failed named in it.
 */
export async function allParts(parts: Record<string, Promise<unknown>>, log: (line: string) => void): Promise<void> {
  const names = Object.keys(parts);
  const results = await Promise.allSettled(
    names.map((name) =>
      parts[name].catch((e: unknown) => {
        log(`${name} failed: ${e instanceof Error ? e.message : String(e)}`);
        throw e;
      }),
    ),
  );
  const failed = names.flatMap((name, i) => {
    const r = results[i];
    return r.status === "rejected" ? [{ name, reason: r.reason }] : [];
  });
  // One failure is thrown as it is (its name is logged above); several in one error naming each, a LabError (one line)
  // only when each is one, else a plain Error (printed with its stack: a bug in the lab).
  if (failed.length === 1) throw failed[0].reason;
  if (failed.length === 0) return;
  const message = failed
    .map((f) => `${f.name} failed: ${f.reason instanceof Error ? f.reason.message : String(f.reason)}`)
    .join("; ");
  throw failed.every((f) => f.reason instanceof LabError) ? new LabError(message) : new Error(message);
}

/** Does something accept connections on 127.0.0.1:port (within a second)? */
export function connects(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.connect(port, "127.0.0.1");
    s.setTimeout(1_000);
    s.once("connect", () => {
      s.destroy();
      resolve(true);
    });
    s.once("timeout", () => {
      s.destroy();
      resolve(false);
    });
    s.once("error", () => resolve(false));
  });
}

/**
 * The status of GET http(s)://127.0.0.1:<port><path>: a local component's health probe (over HTTPS its certificate
 * unverified, as kubelet probes are).
 */
export function localStatus(port: number, path: string, secure = false): Promise<number> {
  return new Promise((resolve, reject) => {
    const options = { host: "127.0.0.1", port, path, timeout: 5_000, rejectUnauthorized: false };
    const answered = (res: http.IncomingMessage) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    };
    const req = secure ? https.get(options, answered) : http.get(options, answered);
    req.on("timeout", () => req.destroy(new Error("timed out")));
    req.on("error", reject);
  });
}

/** Refuses a port some other process listens on, naming it, before anything is started. */
export function checkPortFree(port: number, what: string, option: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once("error", (e: NodeJS.ErrnoException) =>
      reject(
        new LabError(
          e.code === "EADDRINUSE"
            ? `port ${port} on 127.0.0.1 (${what}) is already in use: stop what listens there or choose another with ${option}`
            : `cannot listen on 127.0.0.1:${port} (${what}): ${e.message}`,
        ),
      ),
    );
    s.listen(port, "127.0.0.1", () => s.close(() => resolve()));
  });
}

/**
 * Starts a long-running program in its own process group (so `stop` ends it and its children with one signal), its
 * output in `log`, detached from the lab command that started it.
 */
export function startDetached(
  name: string,
  command: string,
  args: string[],
  log: string,
  env?: NodeJS.ProcessEnv,
): Started {
  const out = fs.openSync(log, "a");
  const child = spawn(command, args, { detached: true, stdio: ["ignore", out, out], env: env ?? process.env });
  fs.closeSync(out);
  if (child.pid === undefined) throw new LabError(`could not start ${name} (${command})`);
  child.unref();
  return {
    name,
    pid: child.pid,
    startTime: startTimeOf(child.pid) ?? "",
    bootId: bootId(),
    log,
    command,
    args,
  };
}

/** Is there a process with this id (a zombie counts as gone)? */
export function alive(pid: number): boolean {
  try {
    return !/^\S+ \(.*\) Z /s.test(fs.readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return false;
  }
}

/** The last lines of a log, for an error message. */
export function logTail(file: string, lines = 3): string {
  try {
    return fs.readFileSync(file, "utf8").trim().split("\n").slice(-lines).join(" | ");
  } catch {
    return "";
  }
}

/**
 * Waits until `ready()` says yes, polling every 200 ms, failing early when the process died (with its log's last
 * lines) or after `timeoutMs`.
 */
export async function waitFor(
  p: Started,
  what: string,
  ready: () => Promise<boolean>,
  timeoutMs: number,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (!alive(p.pid))
      throw new LabError(`${p.name} exited while starting: ${logTail(p.log) || "no output"} (log: ${p.log})`);
    if (await ready().catch(() => false)) return;
    if (Date.now() > deadline)
      throw new LabError(
        `${p.name} did not become ${what} within ${timeoutMs / 1000}s: ${logTail(p.log)} (log: ${p.log})`,
      );
    await new Promise((r) => setTimeout(r, 200));
  }
}

/**
 * Ends the process group the lab started (each program leads its own group: started detached): SIGTERM, SIGKILL
 * after `graceMs`, then waits at most 10 s more. A recorded process that is no longer ours is left alone.
 */
export async function endGroup(
  p: Pick<Started, "name" | "pid" | "startTime" | "bootId">,
  graceMs = 10_000,
): Promise<void> {
  if (!ours(p)) return;
  const signal = (s: NodeJS.Signals) => {
    try {
      process.kill(-p.pid, s);
    } catch {
      /* the group is gone */
    }
  };
  signal("SIGTERM");
  let deadline = Date.now() + graceMs;
  while (ours(p) && alive(p.pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  if (!ours(p) || !alive(p.pid)) return;
  signal("SIGKILL");
  deadline = Date.now() + 10_000;
  while (ours(p) && alive(p.pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  if (ours(p) && alive(p.pid)) throw new LabError(`${p.name} (pid ${p.pid}) did not end after SIGKILL`);
}
