import { spawn } from "child_process";
import * as fs from "fs";
import * as net from "net";
import { LabError } from "./errors";

/** A process the lab started and `stop` must end. */
export interface Started {
  name: string;
  pid: number;
  log: string;
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
  return { name, pid: child.pid, log };
}

export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
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

/** Ends a process group: SIGTERM, then SIGKILL after `graceMs` if it is still there. Resolves when it is gone. */
export async function endGroup(pid: number, graceMs = 10_000): Promise<void> {
  const signal = (s: NodeJS.Signals) => {
    try {
      process.kill(-pid, s);
    } catch {
      try {
        process.kill(pid, s);
      } catch {
        /* already gone */
      }
    }
  };
  if (!alive(pid)) return;
  signal("SIGTERM");
  const deadline = Date.now() + graceMs;
  while (alive(pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  if (alive(pid)) signal("SIGKILL");
  while (alive(pid)) await new Promise((r) => setTimeout(r, 50));
}
