import * as fs from "fs";
import * as path from "path";
import { labsDir, writeAtomically } from "./cache";
import { alive, ours, Started } from "./processes";

/** What `start` prints: everything a shell or a test needs to run the real `pulumi` against the lab. */
export interface LabInfo {
  kubeconfig: string;
  apiserver: string;
  version: string;
  pulumi: string;
  env: Record<string, string>;
}

/** What `start` leaves behind for `stop`: the processes it started (by id) and the folder it made. */
export interface LabRecord {
  name: string;
  platform: string;
  startedAt: string;
  runDir: string;
  /** The `start` command itself while it runs: a second start or a stop waits for it to finish or fail. */
  starter: Pick<Started, "pid" | "startTime" | "bootId">;
  processes: Started[];
  info?: LabInfo;
}

export function recordFile(name: string): string {
  return path.join(labsDir(), `${name}.json`);
}

export function readRecord(name: string): LabRecord | undefined {
  try {
    return JSON.parse(fs.readFileSync(recordFile(name), "utf8")) as LabRecord;
  } catch {
    return undefined;
  }
}

export function writeRecord(r: LabRecord): void {
  writeAtomically(recordFile(r.name), JSON.stringify(r, null, 2) + "\n", 0o600);
}

export function removeRecord(name: string): void {
  fs.rmSync(recordFile(name), { force: true });
}

/** Processes of a record that still run (and are still the ones the lab started). */
export function running(r: LabRecord): Started[] {
  return r.processes.filter((p) => ours(p) && alive(p.pid));
}

/** Is the record's `start` still at work (it has not printed its line yet)? */
export function starting(r: LabRecord): boolean {
  return r.info === undefined && ours(r.starter) && alive(r.starter.pid);
}

export function allRecords(): LabRecord[] {
  if (!fs.existsSync(labsDir())) return [];
  return fs
    .readdirSync(labsDir())
    .filter((f) => f.endsWith(".json"))
    .map((f) => readRecord(f.slice(0, -5)))
    .filter((r): r is LabRecord => r !== undefined);
}
