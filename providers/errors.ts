/**
 * An error that retrying or waiting longer will not fix (a host key mismatch, refused credentials, a failed CSV).
 * A flagged plain Error, not a subclass: provider code is serialized into state, and serialized classes lose
 * their constructor arguments (and so their messages).
 */
export type FinalError = Error & { final: true };

export function finalError(message: string): FinalError {
  return Object.assign(new Error(message), { final: true as const });
}

export function isFinal(e: unknown): e is FinalError {
  return e instanceof Error && "final" in e && e.final === true;
}

// Unreachable (timed out, refused, a 5xx) is lib/errors.ts's, where the Kubernetes API client (lib/kube-api.ts) flags it.
export { isUnreachable, unreachableError, type UnreachableError } from "../lib/errors";
