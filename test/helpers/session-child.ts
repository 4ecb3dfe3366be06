import { ChildProcess, fork } from "child_process";
import * as path from "path";
import type { SessionOptions } from "../../providers/ssh/session";
import type { SshConnection } from "../../providers/ssh/types";

/**
 * `withSession` run in a plain Node child, as the dynamic-provider host runs it: @kubernetes/client-node 1.x (the
 * cluster tunnel's port-forward) does not load under jest's module system. The step runs `commands` one after another
 * on the session; before the commands named in `pauseAt` (`attempt:index`, attempts counted from 1) it stops and
 * reports, and goes on when the test's `onPause` resolves: synchronisation by event, never by time.
 */
export interface SessionRun {
  conn: SshConnection;
  recordedHostKey?: string;
  commands: string[];
  pauseAt?: string[];
  options?: SessionOptions;
  /**
   * The child stays after its outcome for as long as anything the session left open keeps it alive (a leaked
   * port-forward does); `stopSessionChildren` ends it.
   */
  stay?: boolean;
}

export interface SessionOutcome {
  ok: boolean;
  /** The commands' standard output (ok), or the error's message. */
  value: string[] | string;
  /** The error's flags (final, unreachable, relayLost). */
  flags: Record<string, unknown>;
  /** How many times the step ran. */
  attempts: number;
  /** What the child wrote on standard error (withSession's progress and retry lines). */
  stderr: string;
}

const children = new Set<ChildProcess>();

/** Ends the children still running (those started with `stay`). */
export async function stopSessionChildren(): Promise<void> {
  await Promise.all(
    [...children].map((c) => {
      const exited = new Promise((r) => c.once("exit", r));
      if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
      else return undefined;
      return exited;
    }),
  );
  children.clear();
}

export function runSession(run: SessionRun, onPause?: (at: string) => Promise<void>): Promise<SessionOutcome> {
  const child = fork(__filename, [], {
    execArgv: ["-r", "ts-node/register/transpile-only"],
    cwd: path.resolve(__dirname, "..", ".."),
    stdio: ["ignore", "ignore", "pipe", "ipc"],
  });
  children.add(child);
  child.once("exit", () => children.delete(child));
  let stderr = "";
  child.stderr?.on("data", (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve, reject) => {
    child.on("message", (m: { paused?: string; outcome?: Omit<SessionOutcome, "stderr"> }) => {
      if (m.paused !== undefined)
        void (onPause ? onPause(m.paused) : Promise.resolve()).then(
          () => child.send({ resume: m.paused }),
          (e: unknown) => {
            child.kill();
            reject(e);
          },
        );
      if (m.outcome) {
        if (child.connected) child.disconnect();
        resolve({ ...m.outcome, stderr });
      }
    });
    child.once("exit", (code) => reject(new Error(`the session child exited (${code}) without an outcome: ${stderr}`)));
    child.send({ run });
  });
}

async function main(): Promise<void> {
  const { withSession }: typeof import("../../providers/ssh/session") = require("../../providers/ssh/session");
  const run = await new Promise<SessionRun>((resolve) =>
    process.once("message", (m: { run: SessionRun }) => resolve(m.run)),
  );
  const resumed = new Map<string, () => void>();
  process.on("message", (m: { resume?: string }) => m.resume !== undefined && resumed.get(m.resume)?.());
  let attempts = 0;
  const send = (m: unknown) => new Promise<void>((r) => process.send!(m, undefined, {}, () => r()));
  try {
    const value = await withSession(
      run.conn,
      run.recordedHostKey,
      async (s) => {
        attempts++;
        const out: string[] = [];
        for (const [i, command] of run.commands.entries()) {
          const at = `${attempts}:${i}`;
          if (run.pauseAt?.includes(at)) {
            const go = new Promise<void>((r) => resumed.set(at, r));
            await send({ paused: at });
            await go;
          }
          const r = await s.exec(command);
          if (r.code !== 0) throw new Error(`${command} exited ${r.code}: ${r.stderr}`);
          out.push(r.stdout);
        }
        return out;
      },
      run.options,
    );
    await send({ outcome: { ok: true, value, flags: {}, attempts } });
  } catch (e) {
    const err = e as Error & Record<string, unknown>;
    const flags = Object.fromEntries(Object.entries(err).filter(([k]) => k !== "message" && k !== "stack"));
    await send({ outcome: { ok: false, value: err.message, flags, attempts } });
  }
  // Idle keep-alive sockets to the API would hold the child open.
  if (!run.stay) process.exit(0);
}

if (require.main === module) void main();
