import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { LabError } from "./errors";
import { endGroup } from "./processes";
import { LabRecord, readRecord, removeRecord, starting } from "./record";

/** The folders `start` makes: removed by `stop`, and nothing else is. */
export function isRunDir(dir: string): boolean {
  return path.dirname(dir) === os.tmpdir() && path.basename(dir).startsWith("windows-estate-lab-");
}

/** Ends a lab's processes, newest first, and removes its folder and record. */
export async function teardown(r: LabRecord): Promise<void> {
  for (const p of [...r.processes].reverse()) await endGroup(p);
  if (isRunDir(r.runDir)) fs.rmSync(r.runDir, { recursive: true, force: true });
  removeRecord(r.name);
}

/** `npm run lab -- stop`: ends exactly what `start` started, by the process ids it recorded. */
export async function stop(name: string, log: (line: string) => void): Promise<void> {
  const r = readRecord(name);
  if (!r)
    throw new LabError(
      `no lab named "${name}" is running, so there is nothing to stop (start one with \`npm run lab -- start\`)`,
    );
  if (starting(r))
    throw new LabError(`lab "${name}" is still starting (pid ${r.starter.pid}): stop it once its start has ended`);
  await teardown(r);
  log(`lab "${name}" stopped: ${r.processes.map((p) => `${p.name} (${p.pid})`).join(", ")} ended, ${r.runDir} removed`);
}
