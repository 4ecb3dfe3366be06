import { execFileSync } from "child_process";
import { generateKeyPairSync } from "crypto";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { KeyRejected, parsePrivateKey } from "../../stacks/key";

// Real keys: ssh-keygen for the OpenSSH container (the format people actually have), Node's crypto for PEM and
// PKCS#8. Those that take long to make (RSA, DSA, a passphrase's KDF) are test-only keys made once the same way and
// committed (test/fixtures/keys/README.md); the quick ones are made here. Either way the fingerprint compared is
// what ssh-keygen derives now. ssh-keygen comes with openssh-client, which .ci/run installs with the test lab.
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "wmco-keys-"));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
const FIXTURES = path.join(__dirname, "..", "fixtures", "keys");

/** A key ssh-keygen makes with `args`, or the committed fixture of that name (made with the arguments it names). */
function sshKeygen(
  name: string,
  args: string[] | { fixture: string },
): { priv: string; pub: string; fingerprint: string } {
  let file = path.join(dir, name);
  if ("fixture" in args) file = path.join(FIXTURES, args.fixture);
  else execFileSync("ssh-keygen", ["-q", "-C", "test", "-f", file, ...args], { stdio: "pipe" });
  const fingerprint = execFileSync("ssh-keygen", ["-l", "-E", "sha256", "-f", `${file}.pub`], {
    encoding: "utf8",
  }).split(" ")[1];
  return { priv: fs.readFileSync(file, "utf8"), pub: fs.readFileSync(`${file}.pub`, "utf8"), fingerprint };
}

/** A committed test-only private key (test/fixtures/keys). */
const fixture = (file: string) => fs.readFileSync(path.join(FIXTURES, file), "utf8");

function rejection(text: string): KeyRejected {
  try {
    parsePrivateKey(text);
  } catch (e) {
    if (e instanceof KeyRejected) return e;
    throw e;
  }
  throw new Error("key was accepted");
}

describe("accepted keys match what ssh-keygen derives", () => {
  test.each([
    ["ed25519, OpenSSH", ["-t", "ed25519", "-N", ""], "ed25519", 256],
    ["ecdsa P-256, OpenSSH", ["-t", "ecdsa", "-b", "256", "-N", ""], "ecdsa", 256],
    ["ecdsa P-521, OpenSSH", ["-t", "ecdsa", "-b", "521", "-N", ""], "ecdsa", 521],
    // ssh-keygen -t rsa -b 3072 -N ""; -b 2048 -m PEM; -b 2048 -m PKCS8
    ["rsa 3072, OpenSSH", { fixture: "rsa-3072-openssh" }, "rsa", 3072],
    ["rsa 2048, PEM (PKCS#1)", { fixture: "rsa-2048-pkcs1.pem" }, "rsa", 2048],
    ["rsa 2048, PKCS#8", { fixture: "rsa-2048-pkcs8.pem" }, "rsa", 2048],
    ["ecdsa P-384, PEM (SEC1)", ["-t", "ecdsa", "-b", "384", "-m", "PEM", "-N", ""], "ecdsa", 384],
  ])("%s", (name, args, algorithm, bits) => {
    const k = sshKeygen(name.replace(/\W+/g, "-"), args);
    const parsed = parsePrivateKey(k.priv);
    expect(parsed.algorithm).toBe(algorithm);
    expect(parsed.bits).toBe(bits);
    expect(parsed.fingerprint).toBe(k.fingerprint);
    // authorized_keys form: exactly the type and blob ssh-keygen wrote, without its comment.
    expect(parsed.publicKey).toBe(k.pub.split(" ").slice(0, 2).join(" "));
  });

  test("ed25519 in PKCS#8 PEM (as openssl writes it)", () => {
    const { privateKey, publicKey } = generateKeyPairSync("ed25519", {
      privateKeyEncoding: { type: "pkcs8", format: "pem" },
      publicKeyEncoding: { type: "spki", format: "der" },
    });
    const parsed = parsePrivateKey(privateKey);
    expect(parsed.algorithm).toBe("ed25519");
    // The last 32 bytes of the SPKI DER are the raw Ed25519 public key, which must be the blob's payload.
    const raw = publicKey.subarray(publicKey.length - 32);
    expect(Buffer.from(parsed.publicKey.split(" ")[1], "base64").subarray(-32).equals(raw)).toBe(true);
  });

  test("CRLF line endings and surrounding blank lines are tolerated", () => {
    const k = sshKeygen("crlf", ["-t", "ed25519", "-N", ""]);
    expect(parsePrivateKey(`\n\n${k.priv.replace(/\n/g, "\r\n")}\n`).fingerprint).toBe(k.fingerprint);
  });
});

describe("refused keys, each with its own reason", () => {
  test("passphrase-protected OpenSSH key", () => {
    // ssh-keygen -t ed25519 -N "correct horse"
    const e = rejection(fixture("ed25519-passphrase-openssh"));
    expect(e.code).toBe("passphrase");
    expect(e.message).toMatch(/passphrase/);
    expect(e.message).toMatch(/ssh-keygen -p/);
  });

  test("passphrase-protected PKCS#8 key", () => {
    // generateKeyPairSync("rsa", { modulusLength: 2048, privateKeyEncoding: { type: "pkcs8", format: "pem",
    // cipher: "aes-256-cbc", passphrase: "pw" } })
    expect(rejection(fixture("rsa-2048-pkcs8-passphrase.pem")).code).toBe("passphrase");
  });

  test("passphrase-protected legacy PEM key", () => {
    // generateKeyPairSync("rsa", { modulusLength: 2048, privateKeyEncoding: { type: "pkcs1", format: "pem",
    // cipher: "aes-128-cbc", passphrase: "pw" } })
    expect(rejection(fixture("rsa-2048-pkcs1-passphrase.pem")).code).toBe("passphrase");
  });

  test("weak RSA (1024 bits), in both containers", () => {
    const openssh = sshKeygen("weak", ["-t", "rsa", "-b", "1024", "-N", ""]);
    expect(rejection(openssh.priv).code).toBe("weak-rsa");
    const { privateKey } = generateKeyPairSync("rsa", {
      modulusLength: 1024,
      publicKeyEncoding: { type: "spki", format: "pem" },
      privateKeyEncoding: { type: "pkcs1", format: "pem" },
    });
    const e = rejection(privateKey);
    expect(e.code).toBe("weak-rsa");
    expect(e.message).toMatch(/1024 bits; at least 2048/);
  });

  test("DSA", () => {
    // generateKeyPairSync("dsa", { modulusLength: 2048, divisorLength: 256, privateKeyEncoding: { type: "pkcs8" } })
    expect(rejection(fixture("dsa-2048-pkcs8.pem")).code).toBe("dsa");
  });

  test("ECDSA on a curve SSH cannot use", () => {
    const { privateKey } = generateKeyPairSync("ec", {
      namedCurve: "secp256k1",
      publicKeyEncoding: { type: "spki", format: "pem" },
      privateKeyEncoding: { type: "pkcs8", format: "pem" },
    });
    expect(rejection(privateKey).code).toBe("unsupported-curve");
  });

  test("a public key given by mistake", () => {
    const k = sshKeygen("pub", ["-t", "ed25519", "-N", ""]);
    expect(rejection(k.pub).code).toBe("public-key");
  });

  test.each([
    ["empty", "", "empty"],
    ["whitespace", "  \n ", "empty"],
    ["random text", "hello world", "garbage"],
    ["a certificate", "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----", "garbage"],
    ["truncated PEM", "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA\n-----END RSA PRIVATE KEY-----", "garbage"],
    ["PuTTY", "PuTTY-User-Key-File-3: ssh-ed25519\nEncryption: none\n", "putty"],
  ])("%s", (_name, text, code) => {
    expect(rejection(text).code).toBe(code);
  });

  test("a truncated OpenSSH key", () => {
    const k = sshKeygen("trunc", ["-t", "ed25519", "-N", ""]);
    const lines = k.priv.trim().split("\n");
    const cut = [lines[0], lines[1], lines[lines.length - 1]].join("\n");
    expect(rejection(cut).code).toBe("garbage");
  });

  test("messages never contain key material", () => {
    const k = sshKeygen("leak", ["-t", "rsa", "-b", "1024", "-N", ""]);
    const e = rejection(k.priv);
    const body = k.priv.split("\n").slice(1, -2).join("");
    for (let i = 0; i + 16 <= body.length; i += 16) expect(e.message).not.toContain(body.slice(i, i + 16));
  });
});
