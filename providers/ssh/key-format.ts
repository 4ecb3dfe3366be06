import { createPrivateKey, randomBytes } from "crypto";
import { sshString } from "../../lib/ssh-wire";

/**
 * ssh2 reads OpenSSH and traditional PEM keys but not PKCS#8, which WMCO (and so our key validation) accepts.
 * PKCS#8 keys are re-encoded for it: RSA as PKCS#1, ECDSA as SEC1, Ed25519 in the OpenSSH container.
 */
export function keyForSsh2(pem: string): string {
  if (!pem.includes("BEGIN PRIVATE KEY")) return pem;
  const key = createPrivateKey({ key: pem, format: "pem" });
  if (key.asymmetricKeyType === "rsa") return key.export({ type: "pkcs1", format: "pem" }).toString();
  if (key.asymmetricKeyType === "ec") return key.export({ type: "sec1", format: "pem" }).toString();
  if (key.asymmetricKeyType === "ed25519") {
    const jwk = key.export({ format: "jwk" });
    return openSshEd25519(Buffer.from(jwk.d ?? "", "base64url"), Buffer.from(jwk.x ?? "", "base64url"));
  }
  return pem;
}

/** The `openssh-key-v1` container (unencrypted) for one Ed25519 key (PROTOCOL.key in OpenSSH). */
function openSshEd25519(seed: Buffer, pub: Buffer): string {
  const type = Buffer.from("ssh-ed25519");
  const pubBlob = Buffer.concat([sshString(type), sshString(pub)]);
  const check = randomBytes(4);
  let priv = Buffer.concat([
    check,
    check,
    sshString(type),
    sshString(pub),
    sshString(Buffer.concat([seed, pub])),
    sshString(Buffer.alloc(0)),
  ]);
  const pad = (8 - (priv.length % 8)) % 8;
  priv = Buffer.concat([priv, Buffer.from(Array.from({ length: pad }, (_, i) => i + 1))]);
  const oneKey = Buffer.from([0, 0, 0, 1]);
  const body = Buffer.concat([
    Buffer.from("openssh-key-v1\0"),
    sshString(Buffer.from("none")),
    sshString(Buffer.from("none")),
    sshString(Buffer.alloc(0)),
    oneKey,
    sshString(pubBlob),
    sshString(priv),
  ]);
  const lines = body.toString("base64").match(/.{1,70}/g) ?? [];
  return `-----BEGIN OPENSSH PRIVATE KEY-----\n${lines.join("\n")}\n-----END OPENSSH PRIVATE KEY-----\n`;
}
