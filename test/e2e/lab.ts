import { spawn, spawnSync, SpawnSyncReturns } from "child_process";
import * as path from "path";
import type { LabInfo } from "../../lab/record";

export const PROJECT_DIR = path.resolve(__dirname, "..", "..");

/** Runs `npm run lab -- <args>` as a user does (through ts-node, from the project folder). */
export function labCommand(
  args: string[],
  env: NodeJS.ProcessEnv = process.env,
  timeoutMs = 600_000,
): SpawnSyncReturns<string> {
  return spawnSync(process.execPath, ["-r", "ts-node/register/transpile-only", "lab/cli.ts", ...args], {
    cwd: PROJECT_DIR,
    encoding: "utf8",
    env,
    timeout: timeoutMs,
  });
}

/** The processes `pid` started, and theirs, as /proc lists them now (parent ids, field 4 of /proc/<pid>/stat). */
function descendants(pid: number): number[] {
  const fs = require("fs") as typeof import("fs");
  const parent = new Map<number, number>();
  for (const d of fs.readdirSync("/proc").filter((x) => /^\d+$/.test(x)))
    try {
      const stat = fs.readFileSync(`/proc/${d}/stat`, "utf8");
      parent.set(Number(d), Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]));
    } catch {
      /* gone */
    }
  const out: number[] = [];
  const walk = (p: number) => {
    for (const [child, ppid] of parent)
      if (ppid === p) {
        out.push(child);
        walk(child);
      }
  };
  walk(pid);
  return out;
}

/** A command's exit status and output, run without blocking this process (so it can do other work meanwhile). */
export function runAsync(
  command: string,
  args: string[],
  opts: { cwd: string; env?: NodeJS.ProcessEnv; timeoutMs?: number; onOutput?: (text: string) => void },
): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: opts.cwd,
      env: opts.env ?? process.env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    // `onOutput` sees everything printed so far each time more arrives: a test waits for a line, not for a time.
    child.stdout.on("data", (d: Buffer) => {
      stdout += d.toString("utf8");
      opts.onOutput?.(stdout + stderr);
    });
    child.stderr.on("data", (d: Buffer) => {
      stderr += d.toString("utf8");
      opts.onOutput?.(stdout + stderr);
    });
    // At the timeout, SIGTERM; a command that ignores it (the Pulumi CLI cancelling waits for the operations in
    // flight, for ever when one hangs) is killed 30 s later with everything it started, so no suite waits on it.
    let kill: NodeJS.Timeout | undefined;
    const timer = setTimeout(() => {
      child.kill("SIGTERM");
      kill = setTimeout(() => {
        for (const pid of [...descendants(child.pid ?? 0), child.pid ?? 0].filter((p) => p > 0))
          try {
            process.kill(pid, "SIGKILL");
          } catch {
            /* gone */
          }
      }, 30_000);
    }, opts.timeoutMs ?? 600_000);
    child.on("error", reject);
    child.on("close", (status) => {
      clearTimeout(timer);
      clearTimeout(kill);
      resolve({ status, stdout, stderr });
    });
  });
}

const startArgs = (platform: string, name: string, extra: string[]) => [
  "start",
  "--platform",
  platform,
  "--name",
  name,
  "--json",
  ...extra,
];
function startedLab(r: { status: number | null; stdout: string; stderr: string }): LabInfo {
  if (r.status !== 0) throw new Error(`lab start failed (exit ${r.status}): ${r.stderr.trim()}`);
  return JSON.parse(r.stdout.trim().split("\n").pop() ?? "") as LabInfo;
}

/** Starts a lab and returns its JSON line; throws with the lab's own message when it cannot start. */
export function startLab(platform: string, name: string, extra: string[] = []): LabInfo {
  return startedLab(labCommand(startArgs(platform, name, extra)));
}

/** The same as `startLab`, without blocking this process (e.g. while the project copy builds). */
export async function startLabAsync(platform: string, name: string, extra: string[] = []): Promise<LabInfo> {
  return startedLab(
    await runAsync(
      process.execPath,
      ["-r", "ts-node/register/transpile-only", "lab/cli.ts", ...startArgs(platform, name, extra)],
      {
        cwd: PROJECT_DIR,
      },
    ),
  );
}

export function stopLab(name: string): void {
  labCommand(["stop", "--name", name]);
}

/** Runs a command with the lab's environment (PATH with the built programs first, KUBECONFIG, PULUMI_*). */
export function withLab(info: LabInfo, command: string, args: string[], cwd = PROJECT_DIR, timeoutMs = 600_000) {
  return spawnSync(command, args, { cwd, encoding: "utf8", env: { ...process.env, ...info.env }, timeout: timeoutMs });
}

/** A JSON answer as the tests read it: any shape, checked by the assertions that use it. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- answers of many kinds, asserted field by field
type Json = any;

/**
 * Requests to the lab's API server with the kubeconfig it printed (embedded CA and admin certificate).
 * `@kubernetes/client-node` 1.x does not load under jest's module system, hence this small client.
 */
export function labApi(info: LabInfo) {
  const { parse } = require("yaml") as typeof import("yaml");
  const https = require("https") as typeof import("https");
  const kc = parse(require("fs").readFileSync(info.kubeconfig, "utf8")) as {
    clusters: { cluster: { server: string; "certificate-authority-data": string } }[];
    users: { user: { "client-certificate-data": string; "client-key-data": string } }[];
  };
  const b64 = (s: string) => Buffer.from(s, "base64");
  const url = new URL(kc.clusters[0].cluster.server);
  const agent = new https.Agent({
    ca: b64(kc.clusters[0].cluster["certificate-authority-data"]),
    cert: b64(kc.users[0].user["client-certificate-data"]),
    key: b64(kc.users[0].user["client-key-data"]),
  });
  const request = (
    method: string,
    p: string,
    body?: unknown,
    contentType = "application/json",
  ): Promise<{ status: number; body: Json }> =>
    new Promise((resolve, reject) => {
      const data = body === undefined ? undefined : JSON.stringify(body);
      const req = https.request(
        {
          host: url.hostname,
          port: url.port,
          path: p,
          method,
          agent,
          timeout: 30_000,
          // Content-Length: Node sends a DELETE's body without it otherwise, and the API server reads none.
          headers: data ? { "Content-Type": contentType, "Content-Length": Buffer.byteLength(data) } : {},
        },
        (res) => {
          let text = "";
          res.on("data", (c: Buffer) => (text += c.toString("utf8")));
          res.on("end", () => {
            let parsed: unknown = text;
            try {
              parsed = JSON.parse(text);
            } catch {
              /* text */
            }
            resolve({ status: res.statusCode ?? 0, body: parsed });
          });
        },
      );
      req.on("timeout", () => req.destroy(new Error(`${method} ${p} timed out`)));
      req.on("error", reject);
      req.end(data);
    });
  return {
    request,
    /** The status an object's GET answers (200, 404, …). */
    async status(p: string): Promise<number> {
      return (await request("GET", p)).status;
    },
    async get(p: string): Promise<Json> {
      const r = await request("GET", p);
      if (r.status !== 200) throw new Error(`GET ${p} answered ${r.status}: ${JSON.stringify(r.body).slice(0, 300)}`);
      return r.body;
    },
    /**
     * Polls `GET p` until `done` holds for its answer (a condition, not a time): the players act asynchronously.
     * Fails after `timeoutMs` with `what` and the last answer.
     */
    async until(p: string, done: (body: Json) => boolean, what: string, timeoutMs = 120_000): Promise<Json> {
      const deadline = Date.now() + timeoutMs;
      let last: { status: number; body: Json } = { status: 0, body: undefined };
      while (Date.now() < deadline) {
        last = await request("GET", p);
        if (last.status === 200 && done(last.body)) return last.body;
        await new Promise((r) => setTimeout(r, 500));
      }
      throw new Error(
        `${what}: not within ${timeoutMs / 1000}s; last GET ${p}: ${last.status} ${JSON.stringify(last.body).slice(0, 500)}`,
      );
    },
  };
}
