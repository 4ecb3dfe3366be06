import { spawnSync, SpawnSyncReturns } from "child_process";
import * as fs from "fs";
import * as path from "path";
import { parse } from "yaml";

/** The parts of a GitHub workflow the tests read (GitHub docs, "Workflow syntax for GitHub Actions"). */
export interface Step {
  name?: string;
  if?: string;
  uses?: string;
  run?: string;
  with?: Record<string, string>;
  env?: Record<string, string>;
}
export interface Job {
  if?: string;
  needs?: string | string[];
  permissions?: Record<string, string>;
  strategy?: { matrix?: Record<string, unknown> };
  steps: Step[];
}
export interface Workflow {
  on: Record<string, unknown>;
  permissions?: Record<string, string>;
  concurrency?: { group: string; "cancel-in-progress": boolean };
  jobs: Record<string, Job>;
}

export const WORKFLOWS_DIR = path.resolve(__dirname, "..", "..", ".github", "workflows");

export function workflow(file: string): Workflow {
  return parse(fs.readFileSync(path.join(WORKFLOWS_DIR, file), "utf8")) as Workflow;
}

/** The step of a job whose name starts with `prefix` (names carry `${{ matrix.stack }}` after it). */
export function step(job: Job, prefix: string): Step {
  const s = job.steps.find((x) => x.name?.startsWith(prefix));
  if (!s) throw new Error(`no step named ${prefix}… in the job`);
  return s;
}

/**
 * Runs a step's `run:` script as GitHub's default bash does on Linux runners (`bash --noprofile --norc -eo pipefail`,
 * GitHub docs "Workflow syntax": defaults.run.shell), with the given environment on top of this process's.
 */
export function runStep(s: Step, env: NodeJS.ProcessEnv): SpawnSyncReturns<string> {
  return spawnSync("bash", ["--noprofile", "--norc", "-eo", "pipefail", "-c", s.run ?? ""], {
    encoding: "utf8",
    env: { ...process.env, ...env },
  });
}
