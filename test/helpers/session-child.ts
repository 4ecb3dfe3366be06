import { fork } from "child_process";
import * as path from "path";
import { format } from "util";
import type { SessionOptions } from "../../providers/ssh/session";
import type { SshConnection } from "../../providers/ssh/types";

/**
 * `withSession` run in a plain Node child, as the dynamic-provider host runs it: @kubernetes/client-node 1.x (the
 * cluster tunnel's port-forward) does not load under jest's module system. One child serves a whole test file
 * (`startSessionChild` in beforeAll, `stop` in afterAll): starting ts-node and loading client-node costs seconds, and
 * a child that lives on keeps whatever a session leaves open (a leaked port-forward is not closed by the child's
 * exit). A run's step runs `commands` one after another on the session; before the commands named in `pauseAt`
 * (`attempt:index`, attempts counted from 1) it stops and reports, and goes on when the test's `onPause` resolves:
 * synchronisation by event, never by time.
 */
export interface SessionRun {
  conn: SshConnection;
  recordedHostKey?: string;
  commands: string[];
  pauseAt?: string[];
  options?: SessionOptions;
}

export interface SessionOutcome {
  ok: boolean;
  /** The commands' standard output (ok), or the error's message. */
  value: string[] | string;
  /** The error's flags (final, unreachable, relayLost). */
  flags: Record<string, unknown>;
  /** How many times the step ran. */
  attempts: number;
  /** What the run wrote with console.error (withSession's progress and retry lines). */
  stderr: string;
}

export interface SessionChild {
  /** Runs one session; one at a time. */
  run(run: SessionRun, onPause?: (at: string) => Promise<void>): Promise<SessionOutcome>;
  /** Ends the child. */
  stop(): Promise<void>;
}

type ToChild = { id: number; run: SessionRun } | { id: number; resume: string };
type FromChild = { id: number; paused: string } | { id: number; outcome: SessionOutcome };

export function startSessionChild(): SessionChild {
  const child = fork(__filename, [], {
    execArgv: ["-r", "ts-node/register/transpile-only"],
    cwd: path.resolve(__dirname, "..", ".."),
    stdio: ["ignore", "ignore", "pipe", "ipc"],
  });
  let stderr = "";
  child.stderr?.on("data", (d: Buffer) => (stderr += d.toString()));
  let exitCode: number | null | undefined;
  const exited = new Promise<void>((r) =>
    child.once("exit", (code) => {
      exitCode = code;
      r();
    }),
  );
  const send = (m: ToChild) => child.send(m);
  let runs = 0;
  let busy = false;
  return {
    async run(run, onPause) {
      if (busy) throw new Error("the session child runs one session at a time");
      busy = true;
      const id = ++runs;
      let onMessage: ((m: FromChild) => void) | undefined;
      try {
        return await Promise.race([
          new Promise<SessionOutcome>((resolve, reject) => {
            onMessage = (m) => {
              if (m.id !== id) return;
              if ("outcome" in m) return resolve(m.outcome);
              void (onPause ? onPause(m.paused) : Promise.resolve()).then(() => send({ id, resume: m.paused }), reject);
            };
            child.on("message", onMessage);
            send({ id, run });
          }),
          exited.then(() => {
            throw new Error(`the session child exited (${exitCode}) without an outcome: ${stderr}`);
          }),
        ]);
      } finally {
        if (onMessage) child.off("message", onMessage);
        busy = false;
      }
    },
    async stop() {
      if (exitCode === undefined) child.kill("SIGKILL");
      await exited;
    },
  };
}

async function main(): Promise<void> {
  const { withSession }: typeof import("../../providers/ssh/session") = require("../../providers/ssh/session");
  let written = "";
  const consoleError = console.error;
  console.error = (...args: unknown[]) => {
    written += `${format(...args)}\n`;
    consoleError(...args);
  };
  const resumed = new Map<string, () => void>();
  const send = (m: FromChild) => new Promise<void>((r) => process.send!(m, undefined, {}, () => r()));
  const runOne = async (id: number, run: SessionRun) => {
    written = "";
    let attempts = 0;
    const outcome = (o: Omit<SessionOutcome, "attempts" | "stderr">) =>
      send({ id, outcome: { ...o, attempts, stderr: written } });
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
              const go = new Promise<void>((r) => resumed.set(`${id}/${at}`, r));
              await send({ id, paused: at });
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
      await outcome({ ok: true, value, flags: {} });
    } catch (e) {
      const err = e as Error & Record<string, unknown>;
      const flags = Object.fromEntries(Object.entries(err).filter(([k]) => k !== "message" && k !== "stack"));
      await outcome({ ok: false, value: err.message, flags });
    }
  };
  process.on("message", (m: ToChild) => {
    if ("run" in m) void runOne(m.id, m.run);
    else resumed.get(`${m.id}/${m.resume}`)?.();
  });
}

if (require.main === module) void main();
