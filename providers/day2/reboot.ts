/**
 * A graceful reboot's SSH part for one node: remember the boot time, `Restart-Computer -Force`, then wait until the
 * host answers again with a new boot time (WMCO's SafeReboot waits for SSH to go down and come back; comparing the
 * boot time also covers a host that was back before the first check). The host key is verified on every
 * reconnection: a host that comes back with another key is refused, never trusted.
 */
import { messageOf, isFinal, isUnreachable } from "../../lib/errors";
import { PowerShell, withPowerShell } from "../ssh/powershell-runner";
import { Session, withSession } from "../ssh/session";
import { SshConnection } from "../ssh/types";
import { bootTimeScript, rebootScript } from "./scripts";

export interface RebootOptions {
  /** How long the host may take to come back. WMCO allows 10 minutes. */
  upTimeoutMs: number;
  /** Pause between reconnection attempts. */
  pollMs: number;
  /** Deadline of one reconnection attempt, in seconds. */
  attemptSeconds: number;
  progress?: (line: string) => void;
}

export const REBOOT_DEFAULTS: RebootOptions = { upTimeoutMs: 10 * 60_000, pollMs: 10_000, attemptSeconds: 20 };

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function bootTime(ps: PowerShell, node: string): Promise<string> {
  const out = await ps.run(`reading the boot time of node ${node}`, bootTimeScript());
  const value = out.replace(/^\uFEFF/, "").trim();
  if (!/^\d{4}-\d\d-\d\dT/.test(value))
    throw new Error(`reading the boot time of node ${node} gave ${JSON.stringify(value.slice(0, 80))}, not a time`);
  return value;
}

/**
 * In an open PowerShell process: the boot time, then `Restart-Computer -Force`. The process and the connection end
 * as Windows shuts down, which is the restart (WMCO treats a dropped session so); a script error is not.
 */
export async function restartFrom(ps: PowerShell, node: string, o: Pick<RebootOptions, "progress">): Promise<string> {
  const before = await bootTime(ps, node);
  o.progress?.(`node ${node}: restarting (booted ${before})`);
  try {
    await ps.run(`Restart-Computer on node ${node}`, rebootScript());
  } catch (e) {
    if (!isUnreachable(e)) throw e;
  }
  return before;
}

/**
 * Waits until the host answers with another boot time than `before`, then runs `then` in that same connection and
 * PowerShell process (so the work after a restart costs no second launch). A failure of `then` is its own, never
 * retried as if the host were not back.
 */
export async function whenBack<T>(
  c: SshConnection,
  hostKey: string,
  node: string,
  before: string,
  o: RebootOptions,
  then: (ps: PowerShell, s: Session) => Promise<T>,
): Promise<{ after: string; value: T }> {
  const deadline = Date.now() + o.upTimeoutMs;
  let last = "not tried yet";
  for (;;) {
    let failed: { error: unknown } | undefined;
    try {
      const back = await withSession({ ...c, deadlineSeconds: o.attemptSeconds }, hostKey, (s) =>
        withPowerShell(s, `node ${node}`, async (ps) => {
          const after = await bootTime(ps, node);
          if (after === before) return undefined;
          o.progress?.(`node ${node}: back (booted ${after})`);
          try {
            return { after, value: await then(ps, s) };
          } catch (error) {
            failed = { error };
            return undefined;
          }
        }),
      );
      if (failed) throw failed.error;
      if (back) return back;
      last = "it still reports the old boot time";
    } catch (e) {
      // Refusals (a changed host key, refused credentials) are final: never retried into acceptance.
      if (failed || isFinal(e)) throw e;
      last = messageOf(e);
    }
    if (Date.now() + o.pollMs > deadline) {
      throw new Error(
        `node ${node} did not come back within ${Math.round(o.upTimeoutMs / 1000)}s after Restart-Computer (last: ${last}); it stays cordoned`,
      );
    }
    await pause(o.pollMs);
  }
}

/**
 * A restart and back: two PowerShell launches (one before, one after), the least a reboot allows. `then` runs on the
 * host once it is back, in the second.
 */
export async function rebootHost<T = undefined>(
  c: SshConnection,
  hostKey: string,
  node: string,
  o: RebootOptions,
  then?: (ps: PowerShell) => Promise<T>,
): Promise<{ before: string; after: string; value?: T }> {
  const before = await withSession(c, hostKey, (s) =>
    withPowerShell(s, `node ${node}`, (ps) => restartFrom(ps, node, o)),
  );
  const back = await whenBack(c, hostKey, node, before, o, async (ps) => (then ? then(ps) : undefined));
  return { before, after: back.after, value: back.value };
}
