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
