/**
 * WMCO's uses of the private key, written anew: the public key it derives (pkg/signer/signer.go `Create`, which
 * parses with golang.org/x/crypto/ssh `ParsePrivateKey` and wraps failures as `unable to parse private key: ...`), the
 * node annotation hash of it (pkg/nodeconfig/nodeconfig.go `CreatePubKeyHashAnnotation`: SHA-256 hex of the
 * authorized_keys line without its newline), and the username encryption (pkg/crypto/crypto.go
 * `EncryptToJSONString`: OpenPGP symmetric encryption with the private key's bytes as passphrase, armored as
 * `ENCRYPTED DATA`, begin/end lines and outer newlines cut, inner newlines replaced by `<wmcoMarker>`).
 */
import * as crypto from "crypto";
import { utils } from "ssh2";

/** SSH wire string: uint32 length + bytes (RFC 4251). */
function sshString(b: Buffer): Buffer {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(b.length);
  return Buffer.concat([len, b]);
}
function mpint(b: Buffer): Buffer {
  let i = 0;
  while (i < b.length - 1 && b[i] === 0) i++;
  const trimmed = b.subarray(i);
  return sshString(trimmed[0] & 0x80 ? Buffer.concat([Buffer.from([0]), trimmed]) : trimmed);
}
const b64url = (s: unknown) => Buffer.from(typeof s === "string" ? s : "", "base64url");

/** A PKCS#8 or SEC1 key (which ssh2 does not read but x/crypto/ssh does) as an authorized_keys line. */
function fromPkcs8(pem: string): string {
  const jwk = crypto.createPublicKey(crypto.createPrivateKey(pem)).export({ format: "jwk" });
  if (jwk.kty === "RSA")
    return `ssh-rsa ${Buffer.concat([sshString(Buffer.from("ssh-rsa")), mpint(b64url(jwk.e)), mpint(b64url(jwk.n))]).toString("base64")}`;
  if (jwk.kty === "OKP" && jwk.crv === "Ed25519")
    return `ssh-ed25519 ${Buffer.concat([sshString(Buffer.from("ssh-ed25519")), sshString(b64url(jwk.x))]).toString("base64")}`;
  const curve = { "P-256": "nistp256", "P-384": "nistp384", "P-521": "nistp521" }[String(jwk.crv)];
  if (jwk.kty === "EC" && curve) {
    const type = `ecdsa-sha2-${curve}`;
    const point = Buffer.concat([Buffer.from([4]), b64url(jwk.x), b64url(jwk.y)]);
    return `${type} ${Buffer.concat([sshString(Buffer.from(type)), sshString(Buffer.from(curve)), sshString(point)]).toString("base64")}`;
  }
  throw new Error("ssh: unsupported key type");
}

/** The authorized_keys line (`<type> <base64>`) of a private key, or x/crypto/ssh's error for it. */
export function authorizedKey(pem: Buffer): string {
  const text = pem.toString("utf8");
  const parsed = utils.parseKey(pem);
  if (!(parsed instanceof Error)) {
    const key = Array.isArray(parsed) ? parsed[0] : parsed;
    return `${key.type} ${key.getPublicSSH().toString("base64")}`;
  }
  if (/encrypted|passphrase/i.test(parsed.message) || /Proc-Type: 4,ENCRYPTED|BEGIN ENCRYPTED PRIVATE KEY/.test(text))
    throw new Error("unable to parse private key: ssh: this private key is passphrase protected");
  try {
    return fromPkcs8(text);
  } catch {
    throw new Error("unable to parse private key: ssh: no key found");
  }
}

/** `windowsmachineconfig.openshift.io/pub-key-hash` of an authorized_keys line. */
export const pubKeyHash = (line: string) => crypto.createHash("sha256").update(line).digest("hex");

/** OpenPGP packet with a new-format header and a definite length (RFC 4880 4.2.2). */
function packet(tag: number, body: Buffer): Buffer {
  const n = body.length;
  const len =
    n < 192
      ? Buffer.from([n])
      : n < 8384
        ? Buffer.from([((n - 192) >> 8) + 192, (n - 192) & 0xff])
        : Buffer.concat([Buffer.from([255]), Buffer.from([n >>> 24, (n >> 16) & 0xff, (n >> 8) & 0xff, n & 0xff])]);
  return Buffer.concat([Buffer.from([0xc0 | tag]), len, body]);
}

/** Iterated and salted S2K, SHA-256, count byte 0x60 (65536 bytes): x/crypto/openpgp's defaults (RFC 4880 3.7.1.3). */
function s2k(passphrase: Buffer, salt: Buffer, keyLen: number): Buffer {
  const count = (16 + (0x60 & 15)) << ((0x60 >> 4) + 6);
  const data = Buffer.concat([salt, passphrase]);
  const h = crypto.createHash("sha256");
  let left = Math.max(count, data.length);
  while (left > 0) {
    const take = Math.min(left, data.length);
    h.update(data.subarray(0, take));
    left -= take;
  }
  return h.digest().subarray(0, keyLen);
}

/** CRC-24 of the armor checksum line (RFC 4880 6.1). */
function crc24(data: Buffer): number {
  let crc = 0xb704ce;
  for (const byte of data) {
    crc ^= byte << 16;
    for (let i = 0; i < 8; i++) {
      crc <<= 1;
      if (crc & 0x1000000) crc ^= 0x1864cfb;
    }
  }
  return crc & 0xffffff;
}

/**
 * `EncryptToJSONString`: AES-128 session key wrapped by the S2K key (symmetric-key encrypted session key packet),
 * a literal data packet in an integrity-protected (MDC) encrypted packet, ASCII-armored, then cut and marked.
 */
export function encryptToJSONString(plaintext: string, passphrase: Buffer): string {
  const zeroIv = Buffer.alloc(16);
  const salt = crypto.randomBytes(8);
  const kek = s2k(passphrase, salt, 16);
  const sessionKey = crypto.randomBytes(16);
  const wrap = crypto.createCipheriv("aes-128-cfb", kek, zeroIv);
  const wrapped = Buffer.concat([wrap.update(Buffer.concat([Buffer.from([7]), sessionKey])), wrap.final()]);
  const skesk = packet(3, Buffer.concat([Buffer.from([4, 7, 3, 8]), salt, Buffer.from([0x60]), wrapped]));
  const literal = packet(11, Buffer.concat([Buffer.from([0x74, 0, 0, 0, 0, 0]), Buffer.from(plaintext, "utf8")]));
  const prefix = crypto.randomBytes(16);
  const prefixed = Buffer.concat([prefix, prefix.subarray(14), literal, Buffer.from([0xd3, 0x14])]);
  const mdc = crypto.createHash("sha1").update(prefixed).digest();
  const enc = crypto.createCipheriv("aes-128-cfb", sessionKey, zeroIv);
  const body = Buffer.concat([enc.update(Buffer.concat([prefixed, mdc])), enc.final()]);
  const message = Buffer.concat([skesk, packet(18, Buffer.concat([Buffer.from([1]), body]))]);
  const lines = message.toString("base64").match(/.{1,64}/g) ?? [];
  const crc = Buffer.from([crc24(message) >> 16, (crc24(message) >> 8) & 0xff, crc24(message) & 0xff]);
  const armored = `${lines.join("\n")}\n=${crc.toString("base64")}`;
  return armored.replace(/\n/g, "<wmcoMarker>");
}
