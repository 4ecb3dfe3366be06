import { spawnSync, SpawnSyncReturns } from "child_process";
import * as path from "path";
import type { LabInfo } from "../../lab/record";

export const PROJECT_DIR = path.resolve(__dirname, "..", "..");

/** Runs `npm run lab -- <args>` as a user does (through ts-node, from the project folder). */
export function labCommand(
  args: string[],
  env: NodeJS.ProcessEnv = process.env,
  timeoutMs = 180_000,
): SpawnSyncReturns<string> {
  return spawnSync(process.execPath, ["-r", "ts-node/register/transpile-only", "lab/cli.ts", ...args], {
    cwd: PROJECT_DIR,
    encoding: "utf8",
    env,
    timeout: timeoutMs,
  });
}

/** Starts a lab and returns its JSON line; throws with the lab's own message when it cannot start. */
export function startLab(platform: string, name: string, extra: string[] = []): LabInfo {
  const r = labCommand(["start", "--platform", platform, "--name", name, "--json", ...extra]);
  if (r.status !== 0) throw new Error(`lab start failed (exit ${r.status}): ${r.stderr.trim()}`);
  return JSON.parse(r.stdout.trim().split("\n").pop() ?? "") as LabInfo;
}

export function stopLab(name: string): void {
  labCommand(["stop", "--name", name]);
}

/** Runs a command with the lab's environment (PATH with the built programs first, KUBECONFIG, PULUMI_*). */
export function withLab(info: LabInfo, command: string, args: string[], cwd = PROJECT_DIR, timeoutMs = 600_000) {
  return spawnSync(command, args, { cwd, encoding: "utf8", env: { ...process.env, ...info.env }, timeout: timeoutMs });
}
