/**
 * Installs updates on one host (day2-facts §3.4, the install part): start the SYSTEM task, poll it, read its result,
 * and fail naming the WUA result code and HRESULT. Reboots are the rollout's (reboot.ts); this says whether one is due.
 */
import { messageOf } from "../../lib/errors";
import { isUnreachable } from "../errors";
import { PowerShell, withPowerShell } from "../ssh/powershell-runner";
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

/**
 * Starts the Windows Update task and polls it to its result in one connection and one PowerShell process; `then` runs
 * in that same process afterwards (a restart, so that patching a node costs two launches: this one and the one that
 * sees the new boot time). The task runs on the host on its own: a connection lost while polling is reopened (one
 * more launch) and the polling goes on, within the timeout.
 */
export async function installUpdates<T>(
  c: SshConnection,
  hostKey: string,
  node: string,
  o: PatchOptions,
  then: (ps: PowerShell, outcome: { result: PatchResult; rebootDue: boolean }) => Promise<T>,
): Promise<{ result: PatchResult; rebootDue: boolean; value: T }> {
  const started = Date.now();
  let taskStarted = false;
  for (;;) {
    try {
      return await withSession(c, hostKey, (s) =>
        withPowerShell(s, `node ${node}`, async (ps) => {
          if (!taskStarted) {
            await ps.run(
              "starting the Windows Update task",
              startPatchTaskScript(windowsUpdateTaskScript(o.categories)),
            );
            taskStarted = true;
            o.progress?.(`node ${node}: Windows Update task started`);
          }
          for (;;) {
            const status = parsePatchStatus(await ps.run("reading the Windows Update task", patchStatusScript()));
            if (status.result) {
              const failure = patchFailure(status.result);
              if (failure) throw new Error(failure);
              const n = status.result.updates.length;
              o.progress?.(
                `node ${node}: ${n === 0 ? "no updates to install" : `${n} update(s) installed (${status.result.updates.map((u) => (u.kb ? `KB${u.kb}` : u.title)).join(", ")})`}, ${Math.round((Date.now() - started) / 1000)}s`,
              );
              const outcome = {
                result: status.result,
                rebootDue: status.result.rebootRequired || status.rebootPending,
              };
              return { ...outcome, value: await then(ps, outcome) };
            }
            if (status.state !== "Running" && status.state !== "Queued")
              throw new Error(
                `the Windows Update task is ${status.state || "gone"} without a result (last task result ${hex(status.lastTaskResult)})`,
              );
            if (Date.now() - started + o.pollMs > o.timeoutMs)
              throw new Error(
                `the Windows Update task was still running after ${Math.round(o.timeoutMs / 60_000)} minutes`,
              );
            o.progress?.(`node ${node}: installing updates, ${Math.round((Date.now() - started) / 1000)}s`);
            await pause(o.pollMs);
          }
        }),
      );
    } catch (e) {
      // The task goes on without us: reconnect and read it again, unless it never started or time is up.
      if (!taskStarted || !isUnreachable(e) || Date.now() - started + o.pollMs > o.timeoutMs) throw e;
      o.progress?.(`node ${node}: ${messageOf(e)}; reconnecting to read the Windows Update task`);
      await pause(o.pollMs);
    }
  }
}
