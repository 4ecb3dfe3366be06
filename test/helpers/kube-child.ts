import { ChildProcess, spawn } from "child_process";
import * as path from "path";

const ROOT = path.resolve(__dirname, "..", "..");

/** What a call made in the child answered: its value or its error's message, and the progress lines it wrote. */
export interface ChildResult {
  ok: boolean;
  value: unknown;
  lines: string[];
}

// The child's side: for each message, a fresh client (connectKube) for that call's kubeconfig and the call over it,
// answered with its own progress lines. It leaves with the test file's process (its IPC channel closing).
const CHILD = `
  const { connectKube } = require(${JSON.stringify(path.join(ROOT, "providers/kube-wait/api"))});
  const drain = require(${JSON.stringify(path.join(ROOT, "providers/day2/drain-run"))});
  process.on("disconnect", () => process.exit(0));
  process.on("message", ({ id, kubeconfig, call }) => {
    const lines = [];
    const progress = (l) => lines.push(l);
    const out = (o) => process.send({ id, ...o, lines });
    connectKube({ kubeconfig }, 5000)
      .then((api) => eval(call))
      .then((v) => out({ ok: true, value: v === undefined ? null : v }), (e) => out({ ok: false, value: e.message }));
  });
  process.send({ ready: true });`;

/** How long one call may take: under jest's 60 s (jest.config.js testTimeout), so a hang is named, not a test timeout. */
export const KUBE_CALL_TIMEOUT_MS = 45_000;

let child: ChildProcess | undefined;
let started: Promise<ChildProcess> | undefined;
let nextId = 0;
const waiting = new Map<number, { resolve: (r: ChildResult) => void; reject: (e: Error) => void }>();

/** One child per test file: starting Node with ts-node and loading @kubernetes/client-node is the slow part. */
function kubeChild(): Promise<ChildProcess> {
  if (started) return started;
  let stderr = "";
  const c = spawn(process.execPath, ["-r", "ts-node/register/transpile-only", "-e", CHILD], {
    cwd: ROOT,
    stdio: ["ignore", "ignore", "pipe", "ipc"],
  });
  c.stderr?.on("data", (d: Buffer) => (stderr = (stderr + d.toString()).slice(-4000)));
  started = new Promise((resolve, reject) => {
    c.on("message", (m: { ready?: boolean; id?: number } & ChildResult) => {
      if (m.ready) return resolve(c);
      const w = waiting.get(m.id ?? -1);
      waiting.delete(m.id ?? -1);
      w?.resolve({ ok: m.ok, value: m.value, lines: m.lines });
    });
    c.once("exit", (code, signal) => {
      const e = new Error(`the kube child exited (${code ?? signal})\n${stderr}`);
      reject(e);
      for (const w of waiting.values()) w.reject(e);
      waiting.clear();
      child = undefined;
      started = undefined;
    });
  });
  child = c;
  return started;
}

// jest's globals exist while a test file loads its imports; the e2e and unit files both end their child here.
if (typeof afterAll === "function") afterAll(() => void child?.kill());

/**
 * Runs `call` (a JavaScript expression over `api`, the production client from `connectKube`, `drain`, the module
 * providers/day2/drain-run, and `progress`, a sink for progress lines) in a Node child process against the API at
 * `kubeconfig`. @kubernetes/client-node 1.x does not load under jest's module system, so the production client runs
 * where it runs in the dynamic-provider host: in plain Node, one long-lived process serving call after call.
 */
export async function withConnectKube(
  kubeconfig: string,
  call: string,
  timeoutMs = KUBE_CALL_TIMEOUT_MS,
): Promise<ChildResult> {
  const c = await kubeChild();
  const id = nextId++;
  return new Promise((resolve, reject) => {
    // A call that never answers fails naming itself; the child, which serves each call on its own, goes on serving
    // the others (its late answer to this one finds nobody waiting).
    const timer = setTimeout(() => {
      waiting.delete(id);
      reject(new Error(`the kube child's call did not answer within ${timeoutMs} ms: ${call.slice(0, 300)}`));
    }, timeoutMs);
    const done =
      <T>(f: (v: T) => void) =>
      (v: T) => {
        clearTimeout(timer);
        f(v);
      };
    waiting.set(id, { resolve: done(resolve), reject: done(reject) });
    c.send({ id, kubeconfig, call });
  });
}
