/**
 * A graceful reboot's SSH part for one node: remember the boot time, `Restart-Computer -Force`, then wait until the
 * host answers again with a new boot time (WMCO's SafeReboot waits for SSH to go down and come back; comparing the
 * boot time also covers a host that was back before the first check). The host key is verified on every
 * reconnection: a host that comes back with another key is refused, never trusted.
 */
import { messageOf } from "../../lib/errors";
import { isFinal, isUnreachable } from "../errors";
import { powershellCommand } from "../ssh/powershell";
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

async function bootTime(s: Session, node: string): Promise<string> {
  const r = await s.exec(powershellCommand(bootTimeScript()));
  const value = r.stdout.replace(/^\uFEFF/, "").trim();
  if (r.code !== 0 || !/^\d{4}-\d\d-\d\dT/.test(value))
    throw new Error(`reading the boot time of node ${node} failed (exit ${r.code}): ${r.stderr.trim().slice(-200)}`);
  return value;
}

export async function rebootHost(
  c: SshConnection,
  hostKey: string,
  node: string,
  o: RebootOptions,
): Promise<{ before: string; after: string }> {
  const before = await withSession(c, hostKey, (s) => bootTime(s, node));
  o.progress?.(`node ${node}: restarting (booted ${before})`);
  await withSession(c, hostKey, async (s) => {
    try {
      const r = await s.exec(powershellCommand(rebootScript()));
      // The session may close without an exit status as Windows shuts down: that is the reboot (WMCO treats it so).
      if (r.code !== 0 && r.code !== -1)
        throw new Error(`Restart-Computer on node ${node} failed (exit ${r.code}): ${r.stderr.trim().slice(-200)}`);
    } catch (e) {
      if (!isUnreachable(e)) throw e;
    }
  });
  const deadline = Date.now() + o.upTimeoutMs;
  let last = "not tried yet";
  for (;;) {
    try {
      const after = await withSession({ ...c, deadlineSeconds: o.attemptSeconds }, hostKey, (s) => bootTime(s, node));
      if (after !== before) {
        o.progress?.(`node ${node}: back (booted ${after})`);
        return { before, after };
      }
      last = "it still reports the old boot time";
    } catch (e) {
      // Refusals (a changed host key, refused credentials) are final: never retried into acceptance.
      if (isFinal(e)) throw e;
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
