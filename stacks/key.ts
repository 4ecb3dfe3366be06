import { createPrivateKey, createPublicKey, KeyObject } from "crypto";
import { fingerprint, sshString } from "../lib/ssh-wire";

/** What WMCO can use, learned from a private key without ever echoing it. */
export interface ParsedKey {
  /** `rsa`, `ecdsa` or `ed25519`. */
  algorithm: "rsa" | "ecdsa" | "ed25519";
  /** Key size in bits (RSA modulus, ECDSA curve size, 256 for Ed25519). */
  bits: number;
  /** The public key as one `authorized_keys` line: `<type> <base64>`. */
  publicKey: string;
  /** OpenSSH-style fingerprint of the public key, `SHA256:<base64 without padding>`. */
  fingerprint: string;
}

/** Why a key was refused; `code` lets callers and tests tell the cases apart without matching prose. */
type KeyProblem =
  | "empty"
  | "garbage"
  | "public-key"
  | "putty"
  | "passphrase"
  | "dsa"
  | "weak-rsa"
  | "unsupported-curve"
  | "unsupported-type";

export class KeyRejected extends Error {
  constructor(
    readonly code: KeyProblem,
    message: string,
  ) {
    super(message);
    this.name = "KeyRejected";
  }
}

/** RSA below this is refused: WMCO only logs a warning, but a weak key guards every Windows node. */
const MIN_RSA_BITS = 2048;

const GENERATE_HINT = "generate one with `ssh-keygen -t ed25519 -N '' -f ~/.ssh/wmco` (no passphrase)";

/**
 * Parses a private key the way WMCO will (golang.org/x/crypto/ssh ParsePrivateKey) and refuses what WMCO cannot
 * use or what we consider unsafe. Accepts RSA (>= 2048 bits), ECDSA (P-256/384/521) and Ed25519 in PEM (PKCS#1,
 * SEC1), PKCS#8 or OpenSSH form. Messages never contain key material.
 */
export function parsePrivateKey(text: string): ParsedKey {
  const pem = text.replace(/\r\n/g, "\n").trim();
  if (pem === "") throw new KeyRejected("empty", `the key is empty; ${GENERATE_HINT}`);
  if (
    /^(ssh-(rsa|ed25519|dss)|ecdsa-sha2-\S+) AAAA/.test(pem) ||
    pem.includes("BEGIN SSH2 PUBLIC KEY") ||
    pem.includes("BEGIN PUBLIC KEY")
  ) {
    throw new KeyRejected(
      "public-key",
      "this is a public key; WMCO needs the matching private key (the file without .pub)",
    );
  }
  if (pem.startsWith("PuTTY-User-Key-File")) {
    throw new KeyRejected(
      "putty",
      "this is a PuTTY .ppk key, which WMCO cannot read; convert it with `puttygen key.ppk -O private-openssh -o key.pem`",
    );
  }
  if (pem.includes("BEGIN ENCRYPTED PRIVATE KEY") || /Proc-Type:\s*4,ENCRYPTED/.test(pem)) {
    throw passphraseProtected();
  }
  const header = /-----BEGIN ([A-Z0-9 ]+)-----/.exec(pem);
  if (!header)
    throw new KeyRejected("garbage", `this is not a private key (no PEM or OpenSSH header found); ${GENERATE_HINT}`);
  if (header[1] === "DSA PRIVATE KEY") throw dsaRefused();
  if (header[1] === "OPENSSH PRIVATE KEY") return describe(openSshPublicBlob(pem));
  if (!["RSA PRIVATE KEY", "EC PRIVATE KEY", "PRIVATE KEY"].includes(header[1])) {
    throw new KeyRejected("garbage", `a '${header[1]}' block is not a private key WMCO can read; ${GENERATE_HINT}`);
  }
  let key: KeyObject;
  try {
    key = createPrivateKey({ key: pem, format: "pem" });
  } catch {
    throw new KeyRejected("garbage", `the private key is corrupt or truncated and cannot be parsed; ${GENERATE_HINT}`);
  }
  return describe(publicBlobFromKeyObject(key));
}

function passphraseProtected(): KeyRejected {
  return new KeyRejected(
    "passphrase",
    "the key is protected by a passphrase, which WMCO cannot use (windows-user-data would never be created); " +
      "remove it with `ssh-keygen -p -N '' -f <key file>` or generate a new key without one",
  );
}

function dsaRefused(): KeyRejected {
  return new KeyRejected("dsa", `DSA keys are obsolete and refused; ${GENERATE_HINT}`);
}

/** Reads the public key blob out of an `openssh-key-v1` container, refusing encrypted ones. */
function openSshPublicBlob(pem: string): Buffer {
  const body = pem.replace(/-----(BEGIN|END) OPENSSH PRIVATE KEY-----/g, "").replace(/\s+/g, "");
  const raw = Buffer.from(body, "base64");
  const magic = Buffer.from("openssh-key-v1\0", "latin1");
  if (raw.length < magic.length || !raw.subarray(0, magic.length).equals(magic)) {
    throw new KeyRejected("garbage", `the OpenSSH private key is corrupt (bad magic); ${GENERATE_HINT}`);
  }
  const r = new WireReader(raw, magic.length);
  try {
    const cipher = r.string().toString("latin1");
    r.string(); // kdf name
    r.string(); // kdf options
    const count = r.uint32();
    if (cipher !== "none") throw passphraseProtected();
    if (count !== 1) throw new KeyRejected("garbage", `the OpenSSH file holds ${count} keys; WMCO needs exactly one`);
    const blob = r.string();
    // The private section repeats the public key; a file whose halves disagree or stop short is corrupt.
    const priv = r.string();
    const pr = new WireReader(priv, 0);
    const check1 = pr.uint32();
    const check2 = pr.uint32();
    if (check1 !== check2) throw new KeyRejected("garbage", "the OpenSSH private key is corrupt (check bytes differ)");
    return blob;
  } catch (e) {
    if (e instanceof KeyRejected) throw e;
    throw new KeyRejected("garbage", `the OpenSSH private key is corrupt or truncated; ${GENERATE_HINT}`);
  }
}

/** Builds the SSH wire-format public key blob (RFC 4253 §6.6, RFC 5656, RFC 8709) from a Node key. */
function publicBlobFromKeyObject(key: KeyObject): Buffer {
  const type = key.asymmetricKeyType;
  if (type === "dsa") throw dsaRefused();
  const jwk = createPublicKey(key).export({ format: "jwk" });
  const b64u = (s: string | undefined) => Buffer.from(s ?? "", "base64url");
  if (type === "rsa") return Buffer.concat([sshString("ssh-rsa"), mpint(b64u(jwk.e)), mpint(b64u(jwk.n))]);
  if (type === "ed25519") return Buffer.concat([sshString("ssh-ed25519"), sshString(b64u(jwk.x))]);
  if (type === "ec") {
    const curve = { "P-256": "nistp256", "P-384": "nistp384", "P-521": "nistp521" }[jwk.crv ?? ""];
    if (!curve) {
      throw new KeyRejected(
        "unsupported-curve",
        `ECDSA curve ${jwk.crv ?? "unknown"} is not usable over SSH; use P-256, P-384 or P-521, or Ed25519`,
      );
    }
    const point = Buffer.concat([Buffer.from([4]), b64u(jwk.x), b64u(jwk.y)]);
    return Buffer.concat([sshString(`ecdsa-sha2-${curve}`), sshString(curve), sshString(point)]);
  }
  throw new KeyRejected(
    "unsupported-type",
    `${type ?? "this"} keys cannot be used by WMCO; use RSA (>= ${MIN_RSA_BITS} bits), ECDSA or Ed25519`,
  );
}

/** Classifies a public key blob and applies our strength rules. */
function describe(blob: Buffer): ParsedKey {
  const r = new WireReader(blob, 0);
  const type = r.string().toString("latin1");
  let algorithm: ParsedKey["algorithm"];
  let bits: number;
  if (type === "ssh-rsa") {
    r.string(); // e
    const n = r.string();
    bits = bitLength(n);
    algorithm = "rsa";
    if (bits < MIN_RSA_BITS) {
      throw new KeyRejected(
        "weak-rsa",
        `the RSA key has ${bits} bits; at least ${MIN_RSA_BITS} are required. ${capitalize(GENERATE_HINT)}`,
      );
    }
  } else if (type === "ssh-ed25519") {
    algorithm = "ed25519";
    bits = 256;
  } else if (type.startsWith("ecdsa-sha2-nistp")) {
    algorithm = "ecdsa";
    bits = Number(type.slice("ecdsa-sha2-nistp".length));
  } else if (type === "ssh-dss") {
    throw dsaRefused();
  } else {
    throw new KeyRejected(
      "unsupported-type",
      `${type} keys cannot be used by WMCO; use RSA (>= ${MIN_RSA_BITS} bits), ECDSA or Ed25519`,
    );
  }
  return { algorithm, bits, publicKey: `${type} ${blob.toString("base64")}`, fingerprint: fingerprint(blob) };
}

function capitalize(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

function bitLength(mp: Buffer): number {
  let i = 0;
  while (i < mp.length && mp[i] === 0) i++;
  if (i === mp.length) return 0;
  return (mp.length - i - 1) * 8 + (32 - Math.clz32(mp[i]));
}

function mpint(b: Buffer): Buffer {
  let i = 0;
  while (i < b.length - 1 && b[i] === 0) i++;
  const v = b.subarray(i);
  return sshString(v[0] & 0x80 ? Buffer.concat([Buffer.from([0]), v]) : v);
}

/** Minimal reader for SSH wire-format strings and integers; throws on truncation. */
class WireReader {
  constructor(
    private readonly buf: Buffer,
    private pos: number,
  ) {}
  uint32(): number {
    if (this.pos + 4 > this.buf.length) throw new RangeError("truncated");
    const v = this.buf.readUInt32BE(this.pos);
    this.pos += 4;
    return v;
  }
  string(): Buffer {
    const len = this.uint32();
    if (this.pos + len > this.buf.length) throw new RangeError("truncated");
    const v = this.buf.subarray(this.pos, this.pos + len);
    this.pos += len;
    return v;
  }
}
