import { execFileSync } from "child_process";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";

/**
 * Five OpenSSH RSA-4096 public key lines (`ssh-rsa <base64>`), test-only and committed (test/fixtures/keys/README.md):
 * generating RSA-4096 keys took seconds of CPU on every run where only their length matters.
 */
export const RSA_4096_PUBLIC_KEYS: readonly string[] = fs
  .readFileSync(path.join(__dirname, "..", "fixtures", "keys", "rsa-4096.pub"), "utf8")
  .split("\n")
  .filter((l) => l !== "");

/**
 * A new ed25519 key pair, `ssh-keygen -t ed25519 -N "" -C ""` (milliseconds, unlike RSA): for a test whose lab hosts
 * must accept or refuse a login with it, so the private half is needed and nothing committed may serve.
 */
export function newEd25519Key(): { priv: string; pub: string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ed25519-"));
  try {
    const file = path.join(dir, "key");
    execFileSync("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-C", "", "-f", file]);
    return { priv: fs.readFileSync(file, "utf8"), pub: fs.readFileSync(`${file}.pub`, "utf8").trim() };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
