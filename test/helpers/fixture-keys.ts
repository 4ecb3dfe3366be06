import * as fs from "fs";
import * as path from "path";

/**
 * Five OpenSSH RSA-4096 public key lines (`ssh-rsa <base64>`), test-only and committed (test/fixtures/keys/README.md):
 * generating RSA-4096 keys took seconds of CPU on every run where only their length matters.
 */
export const RSA_4096_PUBLIC_KEYS: readonly string[] = fs
  .readFileSync(path.join(__dirname, "..", "fixtures", "keys", "rsa-4096.pub"), "utf8")
  .split("\n")
  .filter((l) => l !== "");

/** The modulus size of an `ssh-rsa` authorized_keys line (RFC 4253 6.6: string "ssh-rsa", mpint e, mpint n). */
export function rsaBits(line: string): number {
  const blob = Buffer.from(line.split(" ")[1], "base64");
  let at = 0;
  const next = () => {
    const len = blob.readUInt32BE(at);
    const v = blob.subarray(at + 4, at + 4 + len);
    at += 4 + len;
    return v;
  };
  if (next().toString("latin1") !== "ssh-rsa") throw new Error(`not an ssh-rsa key: ${line.slice(0, 20)}…`);
  next(); // e
  const n = next();
  const significant = n[0] === 0 ? n.subarray(1) : n; // mpint: a leading zero byte keeps it positive
  return significant.length * 8 - Math.clz32(significant[0]) + 24;
}
