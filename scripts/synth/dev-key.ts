import { generateKeyPairSync } from "crypto";
import * as fs from "fs";
import * as path from "path";
import { codeOf } from "../../lib/errors";
import { RawConfig } from "../../stacks/load";
import { NAMESPACE } from "../../stacks/schema";

/** The folder for throwaway material of the built-in `dev` stack; git ignores it. */
export const DEV_DIR = ".dev";

/**
 * The `dev` stack needs no key of the user's: when its `privateKeyPath` points into `.dev/` and the file is
 * missing, a throwaway RSA key is generated there (mode 0600). Keys anywhere else are never created.
 * Returns the path it created, if any.
 */
export function ensureDevKey(raw: RawConfig, projectDir: string): string | undefined {
  const configured = raw.values[`${NAMESPACE}:privateKeyPath`];
  if (!configured) return undefined;
  const abs = path.resolve(projectDir, configured);
  const devDir = path.resolve(projectDir, DEV_DIR);
  if (!abs.startsWith(devDir + path.sep) || fs.existsSync(abs)) return undefined;
  const { privateKey } = generateKeyPairSync("rsa", {
    modulusLength: 3072,
    publicKeyEncoding: { type: "spki", format: "pem" },
    privateKeyEncoding: { type: "pkcs1", format: "pem" },
  });
  fs.mkdirSync(path.dirname(abs), { recursive: true, mode: 0o700 });
  // Written beside the target and linked into place: two runs starting at once (parallel test workers, two
  // terminals) never see a half-written key, and the first one to link wins; the other keeps that key.
  const tmp = `${abs}.${process.pid}.${Date.now()}.tmp`;
  fs.writeFileSync(tmp, privateKey, { mode: 0o600 });
  try {
    fs.linkSync(tmp, abs);
  } catch (e) {
    if (codeOf(e) !== "EEXIST") throw e;
    return undefined;
  } finally {
    fs.unlinkSync(tmp);
  }
  return abs;
}
