import { spawn } from "child_process";
import * as fs from "fs";
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

/** A free TCP port on 127.0.0.1, as the kernel hands one out. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const a = s.address();
      const port = typeof a === "object" && a ? a.port : 0;
      s.close(() => resolve(port));
    });
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
