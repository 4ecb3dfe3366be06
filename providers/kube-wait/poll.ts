import type { Verdict } from "./conditions";
import { messageOf, finalError as fatal, isFinal as isFatal } from "../../lib/errors";

export interface PollOptions {
  /** Give up after this many seconds. */
  timeoutSeconds: number;
  /** Pause between checks, in seconds. */
  intervalSeconds: number;
  /** What the timeout message says to check, e.g. the operator's logs. */
  hint: string;
  /** Names the thing waited for in messages. */
  what: string;
  /** Told each new "waiting" reason (long waits report progress), once per change, and a done verdict's notice. */
  progress?: (reason: string) => void;
}

/**
 * Checks until the verdict is done or failed, or the deadline passes. Transient API errors (connection refused
 * while the API restarts) count as "waiting"; access errors end the wait at once, since time will not fix them.
 */
export async function pollUntil<T>(check: () => Promise<Verdict<T>>, o: PollOptions): Promise<T> {
  const started = Date.now();
  const deadline = started + o.timeoutSeconds * 1000;
  let last = "no answer yet";
  for (;;) {
    try {
      const v = await check();
      if (v.state === "done") {
        if (v.notice) o.progress?.(v.notice);
        return v.outputs;
      }
      if (v.state === "failed") throw fatal(v.message);
      if (v.reason !== last) o.progress?.(v.reason);
      last = v.reason;
    } catch (e) {
      if (isFatal(e)) throw e;
      last = messageOf(e);
    }
    const left = deadline - Date.now();
    if (left <= 0) {
      const waited = Math.round((Date.now() - started) / 1000);
      throw fatal(`timed out after ${waited}s waiting for ${o.what}; last seen: ${last}. ${o.hint}`);
    }
    await new Promise((r) => setTimeout(r, Math.min(o.intervalSeconds * 1000, left)));
  }
}
