/**
 * Windows Update on one host (day2-facts §3.4): before the node is cordoned, a search (what is applicable, whether a
 * restart is pending) and the decision whether draining it can bring it to the level; after the drain, the install.
 * Both run the SYSTEM task (patch-scripts.ts), poll it, read its result, and fail naming the WUA result code and
 * HRESULT. Reboots are the rollout's (reboot.ts); this says whether one is due.
 */
import { messageOf, isUnreachable } from "../../lib/errors";
import { PowerShell, withPowerShell } from "../ssh/powershell-runner";
import { withSession } from "../ssh/session";
import { SshConnection } from "../ssh/types";
import {
  hex,
  parsePatchStatus,
  PatchResult,
  patchStatusScript,
  startPatchTaskScript,
  stopPatchTaskScript,
  WUA_CRITERIA,
  WUA_RESULT_CODES,
  WuaProxy,
} from "./patch-scripts";
import { windowsUpdateTaskScript } from "./patch-scripts";
import { MinimumRevisions, patchLevel } from "./patch-plan";

export interface PatchOptions {
  categories: readonly string[];
  /** How long the task may run (search, download, install); also the task's own ExecutionTimeLimit. */
  timeoutMs: number;
  pollMs: number;
  /** The proxy WUA goes through (IUpdateSession.WebProxy, set in the task). */
  proxy?: WuaProxy;
  progress?: (line: string) => void;
}

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

const code = (n: number) => `${n} (${WUA_RESULT_CODES[n] ?? "unknown"})`;

/** `KB5066782 (2026-10 Cumulative Update …)`, or the title alone when WUA lists no KB. */
const updateName = (u: { kb: string; title: string }) => (u.kb ? `KB${u.kb} (${u.title})` : u.title);

/**
 * Whether a finished task's result is a failure, and the message naming it. Only `OperationResultCode` 2
 * (orcSucceeded) is success: 3 (orcSucceededWithErrors) means some updates failed (MS "OperationResultCode
 * enumeration"), so it fails too, listing each update whose own result (`GetUpdateResult(i)`) is not 2 with its HRESULT.
 */
export function patchFailure(r: PatchResult): string | undefined {
  if (r.error)
    return `the Windows Update task failed${r.stage ? ` at the ${r.stage}` : ""}: ${r.error} (HRESULT ${hex(r.hResult)})`;
  if (r.resultCode === 2) return undefined;
  const failed = r.updates
    .filter((u) => u.resultCode !== 2)
    .map((u) => `${updateName(u)}: ${code(u.resultCode)}, HRESULT ${hex(u.hResult)}`);
  const what = r.stage === "download" ? "Windows Update download" : "Windows Update";
  return `${what} result code ${code(r.resultCode)}, HRESULT ${hex(r.hResult)}${failed.length ? `; ${failed.join("; ")}` : ""}`;
}

/**
 * Starts the task and polls it to its result in one connection and one PowerShell process; a failed result fails
 * (`patchFailure`), else `then` runs in that same process afterwards (a restart, so that patching a node costs two
 * launches: this one and the one that sees the new boot time). The task runs on the host on its own: a connection lost while polling is reopened (one more launch) and
 * the polling goes on, within the timeout. When the timeout passes the task is stopped (Task Scheduler does not
 * enforce ExecutionTimeLimit on a task started on demand).
 */
async function runTask<T>(
  c: SshConnection,
  hostKey: string,
  node: string,
  o: PatchOptions,
  searchOnly: boolean,
  then: (ps: PowerShell, result: PatchResult, rebootPending: boolean) => Promise<T>,
): Promise<T> {
  const started = Date.now();
  const what = searchOnly ? "Windows Update search" : "Windows Update task";
  let taskStarted = false;
  const timeUp = () => Date.now() - started + o.pollMs > o.timeoutMs;
  const timedOut = (stopped: string) =>
    new Error(
      `the ${what} was still running after ${o.timeoutMs >= 60_000 ? `${Math.round(o.timeoutMs / 60_000)} minutes` : `${Math.round(o.timeoutMs / 1000)} seconds`} (windows-estate:patching.installTimeoutMinutes); ${stopped}`,
    );
  for (;;) {
    try {
      return await withSession(c, hostKey, (s) =>
        withPowerShell(s, `node ${node}`, async (ps) => {
          if (!taskStarted) {
            await ps.run(
              `starting the ${what}`,
              startPatchTaskScript(
                windowsUpdateTaskScript(o.categories, { searchOnly, ...(o.proxy ? { proxy: o.proxy } : {}) }),
                o.timeoutMs / 60_000,
              ),
            );
            taskStarted = true;
            o.progress?.(`node ${node}: ${what} started`);
          }
          for (;;) {
            const status = parsePatchStatus(await ps.run(`reading the ${what}`, patchStatusScript()));
            if (status.result) {
              const failure = patchFailure(status.result);
              if (failure) throw new Error(failure);
              return then(ps, status.result, status.rebootPending);
            }
            if (status.state !== "Running" && status.state !== "Queued")
              throw new Error(
                `the ${what} is ${status.state || "gone"} without a result (last task result ${hex(status.lastTaskResult)})`,
              );
            if (timeUp()) {
              await ps.run(`stopping the ${what}`, stopPatchTaskScript());
              throw timedOut(
                "it was stopped (Stop-ScheduledTask); raise the timeout or look at the host's WindowsUpdate log",
              );
            }
            o.progress?.(
              `node ${node}: ${searchOnly ? "searching" : "installing"} updates, ${Math.round((Date.now() - started) / 1000)}s`,
            );
            await pause(o.pollMs);
          }
        }),
      );
    } catch (e) {
      // The task goes on without us: reconnect and read it again, unless it never started or time is up.
      if (!taskStarted || !isUnreachable(e)) throw e;
      if (timeUp())
        throw timedOut(
          `the host did not answer to stop it (${messageOf(e)}); stop the task ${"windows-estate-patch"} by hand`,
        );
      o.progress?.(`node ${node}: ${messageOf(e)}; reconnecting to read the ${what}`);
      await pause(o.pollMs);
    }
  }
}

/** Runs the install and, in the same PowerShell process, `then` (the restart when one is due). */
export async function installUpdates<T>(
  c: SshConnection,
  hostKey: string,
  node: string,
  o: PatchOptions,
  then: (ps: PowerShell, outcome: { result: PatchResult; rebootDue: boolean }) => Promise<T>,
): Promise<{ result: PatchResult; rebootDue: boolean; value: T }> {
  const started = Date.now();
  return runTask(c, hostKey, node, o, false, async (ps, result, rebootPending) => {
    const n = result.updates.length;
    o.progress?.(
      `node ${node}: ${n === 0 ? "no updates to install" : `${n} update(s) installed (${result.updates.map((u) => (u.kb ? `KB${u.kb}` : u.title)).join(", ")})`}, ${Math.round((Date.now() - started) / 1000)}s`,
    );
    const outcome = { result, rebootDue: result.rebootRequired || rebootPending };
    return { ...outcome, value: await then(ps, outcome) };
  });
}

export interface SearchOutcome {
  /** What the search found to install (after the categories). */
  applicable: { title: string; kb: string }[];
  /** Whether a restart is pending already (ISystemInformation.RebootRequired, or the registry markers). */
  rebootPending: boolean;
}

/** The search before a node is cordoned: the task with `searchOnly`; a failed search fails, naming its HRESULT. */
export async function searchUpdates(
  c: SshConnection,
  hostKey: string,
  node: string,
  o: PatchOptions,
): Promise<SearchOutcome> {
  return runTask(c, hostKey, node, o, true, async (_ps, result, rebootPending) => ({
    applicable: result.applicable,
    rebootPending: result.rebootRequired || rebootPending,
  }));
}

export type PatchDecision = { go: string } | { skip: string } | { fail: string };

/**
 * Whether a node is worth draining, from its kubelet-reported level and the search: updates to install, or a restart
 * already pending (which the rollout then does: Windows applies staged updates at a restart), go; at the level
 * already, skip; below it with nothing applicable and nothing pending, fail: draining it would end at the check with
 * the node cordoned, on every `up`. Pure.
 */
export function decidePatch(
  node: string,
  kernelVersion: string | undefined,
  minimum: MinimumRevisions,
  search: SearchOutcome,
  categories: readonly string[],
): PatchDecision {
  const level = patchLevel(kernelVersion);
  const want = level ? minimum[level.build] : undefined;
  const below = level !== undefined && want !== undefined && level.revision < want;
  if (search.applicable.length > 0)
    return { go: `${search.applicable.length} update(s) to install: ${search.applicable.map(updateName).join(", ")}` };
  if (search.rebootPending) return { go: "no update to install, but a restart is pending" };
  if (!below) return { skip: `already at the level (kernelVersion ${kernelVersion ?? "unknown"}), nothing to install` };
  return {
    fail:
      `node ${node} is at build ${level.build} revision ${level.revision} (kernelVersion ${kernelVersion}), below the minimum ${want}, ` +
      `and Windows Update offers it nothing applicable (${WUA_CRITERIA}${categories.length ? `, categories ${categories.join(", ")}` : ""}) with no restart pending. ` +
      `Likely cause: the host's update source does not offer the update reaching ${want}: ` +
      `approve it in WSUS (or check the host's Windows Update policy and proxy), widen windows-estate:patching.categories, ` +
      `or lower windows-estate:patching.minimumUpdateRevision`,
  };
}
