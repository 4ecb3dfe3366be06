/** The message of anything thrown (an Error's message, or the value as text). */
export function messageOf(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/**
 * `e` with `prefix` before its message, keeping its flags (`unreachable`, `final`, `sessionLost`): a caller that adds
 * what it was doing must not turn a lost connection into a failure nobody retries.
 */
export function prefixed(prefix: string, e: unknown): Error {
  return Object.assign(new Error(prefix + messageOf(e)), e instanceof Error ? { ...e } : {});
}

/** The `code` of a Node.js system error (`ENOENT`, `ECONNREFUSED`), if it has one. */
export function codeOf(e: unknown): string | number | undefined {
  if (typeof e !== "object" || e === null || !("code" in e)) return undefined;
  const code = e.code;
  return typeof code === "string" || typeof code === "number" ? code : undefined;
}

/**
 * A failure to reach a host or the API at all (refused, timed out, connection lost, a 5xx), as opposed to an answer.
 * Flagged where the network call fails, so callers decide on the flag instead of matching messages: a refresh
 * keeps the last known state for these, a reboot expects its own connection to drop. A flagged plain Error, not a
 * subclass: provider code is serialized into state, and serialized classes lose their constructor arguments.
 */
export type UnreachableError = Error & { unreachable: true };

export function unreachableError(message: string): UnreachableError {
  return Object.assign(new Error(message), { unreachable: true as const });
}

export function isUnreachable(e: unknown): e is UnreachableError {
  return e instanceof Error && "unreachable" in e && e.unreachable === true;
}

/**
 * An error that retrying or waiting longer will not fix (a host key mismatch, refused credentials, a failed CSV, a
 * server certificate the kubeconfig does not trust). A flagged plain Error, not a subclass: provider code is
 * serialized into state, and serialized classes lose their constructor arguments (and so their messages).
 */
export type FinalError = Error & { final: true };

export function finalError(message: string): FinalError {
  return Object.assign(new Error(message), { final: true as const });
}

export function isFinal(e: unknown): e is FinalError {
  return e instanceof Error && "final" in e && e.final === true;
}
