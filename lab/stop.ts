import * as fs from "fs";
import { LabError } from "./errors";
import { endGroup } from "./processes";
import { LabRecord, readRecord, removeRecord } from "./record";

/** Ends a lab's processes, newest first, and removes its folder and record. */
export async function teardown(r: LabRecord): Promise<void> {
  for (const p of [...r.processes].reverse()) await endGroup(p.pid);
  fs.rmSync(r.runDir, { recursive: true, force: true });
  removeRecord(r.name);
}

/** `npm run lab -- stop`: ends exactly what `start` started, by the process ids it recorded. */
export async function stop(name: string, log: (line: string) => void): Promise<void> {
  const r = readRecord(name);
  if (!r)
    throw new LabError(
      `no lab named "${name}" is running, so there is nothing to stop (start one with \`npm run lab -- start\`)`,
    );
  await teardown(r);
  log(`lab "${name}" stopped: ${r.processes.map((p) => `${p.name} (${p.pid})`).join(", ")} ended, ${r.runDir} removed`);
}
