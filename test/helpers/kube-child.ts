import { execFile } from "child_process";
import * as path from "path";

const ROOT = path.resolve(__dirname, "..", "..");

/** What a call made in the child answered: its value or its error's message, and the progress lines it wrote. */
export interface ChildResult {
  ok: boolean;
  value: unknown;
  lines: string[];
}

/**
 * Runs `call` (a JavaScript expression over `api`, the production client from `connectKube`, `drain`, the module
 * providers/day2/drain-run, and `progress`, a sink for progress lines) in a Node child process against the API at
 * `kubeconfig`. @kubernetes/client-node 1.x does not load under jest's module system, so the production client runs
 * where it runs in the dynamic-provider host: in plain Node.
 */
export function withConnectKube(kubeconfig: string, call: string): Promise<ChildResult> {
  const code = `
    const { connectKube } = require(${JSON.stringify(path.join(ROOT, "providers/kube-wait/api"))});
    const drain = require(${JSON.stringify(path.join(ROOT, "providers/day2/drain-run"))});
    const lines = [];
    const progress = (l) => lines.push(l);
    const out = (o) => console.log(JSON.stringify({ ...o, lines }));
    connectKube({ kubeconfig: process.env.KC }, 5000)
      .then((api) => ${call})
      .then((v) => out({ ok: true, value: v === undefined ? null : v }), (e) => out({ ok: false, value: e.message }));`;
  return new Promise((resolve, reject) =>
    execFile(
      process.execPath,
      ["-r", "ts-node/register/transpile-only", "-e", code],
      { env: { ...process.env, KC: kubeconfig }, cwd: ROOT },
      (err, stdout, stderr) => {
        if (err) return reject(new Error(`${err.message}\n${stderr}`));
        resolve(JSON.parse(stdout.trim().split("\n").pop() ?? "{}"));
      },
    ),
  );
}
