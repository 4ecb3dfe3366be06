import { fingerprint } from "../../lib/ssh-wire";
import type { ServerHostKeyAlgorithm } from "ssh2";

/** Key types whose algorithm name is the key type itself. */
const SINGLE_KEY_ALGORITHMS: ServerHostKeyAlgorithm[] = [
  "ssh-ed25519",
  "ecdsa-sha2-nistp256",
  "ecdsa-sha2-nistp384",
  "ecdsa-sha2-nistp521",
];

/** The key line OpenSSH would print for a blob (`<type> <base64>`), read from the blob's own type field. */
export function keyLine(blob: Buffer): string {
  const len = blob.length >= 4 ? blob.readUInt32BE(0) : 0;
  const type = blob.subarray(4, 4 + len).toString("latin1");
  return `${type} ${blob.toString("base64")}`;
}

/** The key blob of an `authorized_keys`-style line (options and comments ignored), or undefined when it has none. */
export function keyBlob(line: string): Buffer | undefined {
  const b64 = line.split(/\s+/).find((part) => /^AAAA[A-Za-z0-9+/]+=*$/.test(part));
  return b64 === undefined ? undefined : Buffer.from(b64, "base64");
}

/** The `SHA256:` fingerprint a pin stands for, for messages. */
export function pinnedFingerprint(pin: string): string {
  const blob = keyBlob(pin);
  return pin.trim().startsWith("SHA256:") ? pin.trim() : blob ? fingerprint(blob) : "an unreadable key";
}

/**
 * Whether a host's presented key matches what we pinned: an `authorized_keys`-style line or a `SHA256:`
 * fingerprint. Anything else never matches: an unreadable pin must not pass silently.
 */
export function hostKeyMatches(expected: string, presented: Buffer): boolean {
  const pin = expected.trim();
  if (pin.startsWith("SHA256:")) return pin.replace(/=+$/, "") === fingerprint(presented);
  return keyBlob(pin)?.equals(presented) ?? false;
}

/** Whether a pin is one we can check at all (so config errors surface before connecting). */
export function isUsablePin(expected: string): boolean {
  const pin = expected.trim();
  return /^SHA256:[A-Za-z0-9+/]{43}=?$/.test(pin) || keyBlob(pin) !== undefined;
}

/**
 * The host-key algorithms to offer when the pin is a key line: only the pinned key's own. Go's SSH client (WMCO)
 * prefers ECDSA and ssh2 prefers Ed25519 (x/crypto/ssh `defaultHostKeyAlgos`, ssh2 `DEFAULT_SERVER_HOST_KEY`), so a
 * host with both would otherwise present a key other than the one WMCO pinned. An RSA key may sign with SHA-2.
 * Undefined for a fingerprint pin (the type is not known) or no pin.
 */
export function hostKeyAlgorithms(pin: string | undefined): ServerHostKeyAlgorithm[] | undefined {
  if (!pin || pin.trim().startsWith("SHA256:")) return undefined;
  const blob = keyBlob(pin);
  if (!blob) return undefined;
  const type = keyLine(blob).split(" ")[0];
  if (type === "ssh-rsa") return ["rsa-sha2-512", "rsa-sha2-256", "ssh-rsa"];
  const known = SINGLE_KEY_ALGORITHMS.find((a) => a === type);
  return known ? [known] : undefined;
}
