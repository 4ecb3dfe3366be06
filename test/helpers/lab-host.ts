import * as fs from "fs";
import { SshConnection } from "../../providers/ssh/types";
import { withSession } from "../../providers/ssh/session";
import { launchLog } from "../lab/lab-windows";
import { LabHost, startLabHost } from "../lab/sshd";

/**
 * How many attempts a connection that cannot succeed made before its deadline, read from withSession's error, which
 * must name `failure` (a pattern) first: a count to hold against what the deadline allows, where a duration would
 * depend on the machine's speed.
 */
export async function attemptsUntilGivenUp(c: SshConnection, failure: string): Promise<number> {
  const e = await withSession(c, undefined, async () => "never").then(
    () => new Error("connected"),
    (err: Error) => err,
  );
  const given = new RegExp(`${failure}.*gave up after (\\d+) attempts`).exec(e.message);
  if (!given) throw new Error(`expected ${failure} … gave up after N attempts, got: ${e.message}`);
  return Number(given[1]);
}

/** How a test logs in to a lab host: its address and user, the user's key, its host key pinned by fingerprint. */
export function labConnection(h: LabHost, over: Partial<SshConnection> = {}): SshConnection {
  return {
    host: h.host,
    port: h.port,
    user: h.user,
    privateKey: h.privateKey,
    hostKey: h.hostKeyFingerprint,
    ...over,
  };
}

/**
 * One lab host for a whole test file, its `powershell` the stand-in in `bin` (test/lab/lab-windows.ts standInBin):
 * started before the file's tests and handed to `started`, stopped after them, `bin` removed.
 */
export function labHostPerFile(bin: string, started: (h: LabHost) => void): void {
  let host: LabHost | undefined;
  beforeAll(async () => {
    host = await startLabHost({ binDir: bin });
    started(host);
  }, 30_000);
  afterAll(async () => {
    await host?.stop();
    fs.rmSync(bin, { recursive: true, force: true });
  });
}

/**
 * Each PowerShell launch the stand-in at `state` saw, its scripts named by the first of `markers` (text → name, in
 * order) each contains, else "other".
 */
export function launchesNamed(state: string, markers: Record<string, string>): string[][] {
  const named = Object.entries(markers);
  return launchLog(state).map((scripts) =>
    scripts.map((x) => named.find(([marker]) => x.includes(marker))?.[1] ?? "other"),
  );
}
