/**
 * Installs updates on one host (day2-facts §3.4, the install part): start the SYSTEM task, poll it, read its result,
 * and fail naming the WUA result code and HRESULT. Reboots are the rollout's (reboot.ts); this says whether one is due.
 */
import { powershellCommand } from "../ssh/powershell";
import { withSession } from "../ssh/session";
import { SshConnection } from "../ssh/types";
import {
  hex,
  parsePatchStatus,
  PatchResult,
  patchStatusScript,
  startPatchTaskScript,
  WUA_RESULT_CODES,
} from "./patch-scripts";
import { windowsUpdateTaskScript } from "./patch-scripts";

export interface PatchOptions {
  categories: readonly string[];
  /** How long the task may run (search, download, install). */
  timeoutMs: number;
  pollMs: number;
  progress?: (line: string) => void;
}

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

const code = (n: number) => `${n} (${WUA_RESULT_CODES[n] ?? "unknown"})`;

/** Whether a finished task's result is a failure, and the message naming it. */
export function patchFailure(r: PatchResult): string | undefined {
  if (r.error) return `the Windows Update task failed: ${r.error} (HRESULT ${hex(r.hResult)})`;
  if (r.resultCode === 2 || r.resultCode === 3) return undefined;
  const failed = r.updates
    .filter((u) => u.resultCode !== 2)
    .map((u) => `${u.kb ? `KB${u.kb}` : u.title}: ${code(u.resultCode)}, HRESULT ${hex(u.hResult)}`);
  return `Windows Update result code ${code(r.resultCode)}, HRESULT ${hex(r.hResult)}${failed.length ? `; ${failed.join("; ")}` : ""}`;
}

export async function installUpdates(
  c: SshConnection,
  hostKey: string,
  node: string,
  o: PatchOptions,
): Promise<{ result: PatchResult; rebootDue: boolean }> {
  const started = Date.now();
  await withSession(c, hostKey, async (s) => {
    const r = await s.exec(powershellCommand(startPatchTaskScript(windowsUpdateTaskScript(o.categories))));
    if (r.code !== 0)
      throw new Error(`starting the Windows Update task failed (exit ${r.code}): ${r.stderr.trim().slice(-300)}`);
  });
  o.progress?.(`node ${node}: Windows Update task started`);
  for (;;) {
    const status = await withSession(c, hostKey, async (s) => {
      const r = await s.exec(powershellCommand(patchStatusScript()));
      if (r.code !== 0)
        throw new Error(`reading the Windows Update task failed (exit ${r.code}): ${r.stderr.trim().slice(-300)}`);
      return parsePatchStatus(r.stdout);
    });
    if (status.result) {
      const failure = patchFailure(status.result);
      if (failure) throw new Error(failure);
      const n = status.result.updates.length;
      o.progress?.(
        `node ${node}: ${n === 0 ? "no updates to install" : `${n} update(s) installed (${status.result.updates.map((u) => (u.kb ? `KB${u.kb}` : u.title)).join(", ")})`}, ${Math.round((Date.now() - started) / 1000)}s`,
      );
      return { result: status.result, rebootDue: status.result.rebootRequired || status.rebootPending };
    }
    if (status.state !== "Running" && status.state !== "Queued")
      throw new Error(
        `the Windows Update task is ${status.state || "gone"} without a result (last task result ${hex(status.lastTaskResult)})`,
      );
    if (Date.now() - started + o.pollMs > o.timeoutMs)
      throw new Error(`the Windows Update task was still running after ${Math.round(o.timeoutMs / 60_000)} minutes`);
    o.progress?.(`node ${node}: installing updates, ${Math.round((Date.now() - started) / 1000)}s`);
    await pause(o.pollMs);
  }
}
