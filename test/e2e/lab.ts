import { spawn, spawnSync, SpawnSyncReturns } from "child_process";
import * as path from "path";
import type { LabInfo } from "../../lab/record";
import { answerError, kubeClient } from "../../lib/kube-api";

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

/** The lab's admin kubeconfig (embedded CA and admin certificate) read as TLS material for lib/kube-api.ts. */
export function labCredentials(info: LabInfo): { server: string; tls: { ca: Buffer; cert: Buffer; key: Buffer } } {
  const { parse } = require("yaml") as typeof import("yaml");
  const kc = parse(require("fs").readFileSync(info.kubeconfig, "utf8")) as {
    clusters: { cluster: { server: string; "certificate-authority-data": string } }[];
    users: { user: { "client-certificate-data": string; "client-key-data": string } }[];
  };
  const b64 = (s: string) => Buffer.from(s, "base64");
  return {
    server: kc.clusters[0].cluster.server,
    tls: {
      ca: b64(kc.clusters[0].cluster["certificate-authority-data"]),
      cert: b64(kc.users[0].user["client-certificate-data"]),
      key: b64(kc.users[0].user["client-key-data"]),
    },
  };
}

/**
 * Requests to the lab's API server as its admin, through the program's own client (lib/kube-api.ts; its KubeConfig
 * side, @kubernetes/client-node 1.x, does not load under jest's module system, so the kubeconfig is read here).
 * The body is the JSON, or the text when it is not JSON.
 */
export function labApi(info: LabInfo) {
  const client = kubeClient(labCredentials(info));
  const request = async (
    method: string,
    p: string,
    body?: unknown,
    contentType?: string,
  ): Promise<{ status: number; body: Json }> => {
    const r = await client.request(method, p, body, contentType);
    return { status: r.status, body: r.body ?? r.text };
  };
  /** The body of a 2xx answer; any other fails naming the call, its status and the API's message (lib/kube-api.ts). */
  const must = async (method: string, p: string, body?: unknown, contentType?: string): Promise<Json> => {
    const r = await client.request(method, p, body, contentType);
    if (r.status < 200 || r.status >= 300) throw new Error(answerError(method, p, r));
    return r.body ?? r.text;
  };
  return {
    request,
    /** The status an object's GET answers (200, 404, …). */
    async status(p: string): Promise<number> {
      return (await request("GET", p)).status;
    },
    async get(p: string): Promise<Json> {
      return must("GET", p);
    },
    must,
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
