/**
 * The SSH wire format's two pieces that both key readers (stacks/key.ts) and writers (providers/ssh) need: a
 * length-prefixed string (RFC 4251 section 5 `string`: a uint32 length, then the bytes) and OpenSSH's fingerprint of a
 * public key blob.
 */
import { createHash } from "crypto";

/** `b` as an SSH `string`: its length as a big-endian uint32, then its bytes (text as Latin-1, as key type names are). */
export function sshString(b: Buffer | string): Buffer {
  const bytes = typeof b === "string" ? Buffer.from(b, "latin1") : b;
  const len = Buffer.alloc(4);
  len.writeUInt32BE(bytes.length);
  return Buffer.concat([len, bytes]);
}

/** OpenSSH's fingerprint of a public key blob: `SHA256:` + unpadded base64 of its SHA-256 (ssh-keygen -l). */
export function fingerprint(blob: Buffer): string {
  return "SHA256:" + createHash("sha256").update(blob).digest("base64").replace(/=+$/, "");
}
