// Windows PowerShell 5.1's Invoke-WebRequest as the stand-in models it (test/lab/windows-51/web.js; audit row 1):
// `.Content` is a byte[] for a response that is not text, so the install script's checksum line must decode it. The
// rules are checked on their own, then the install script's old and current lines are evaluated under them, then the
// install step runs through the stand-in against a local HTTPS mirror serving GitHub's real content type.
import { createHash } from "crypto";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { Download, installScript } from "../../providers/vanilla-node/scripts";
import { ArtifactServer, startArtifactServer } from "../helpers/artifact-server";
import { newHost, runScript } from "./windows-51-run";

const win = require("./windows-51");
const network = require("./fake-windows-network.js");

const OCTET = "application/octet-stream";
const sha256 = (b: Buffer) => createHash("sha256").update(b).digest("hex");
/** The install script's checksum line before issue 26 (providers/vanilla-node/scripts.ts at c5bd4c5). */
const OLD_SUM_LINE =
  "    $published = ((Invoke-WebRequest @web -Uri $it.sum).Content -split '\\s+')[0].ToLowerInvariant()";
/** The install script with its current checksum lines (read, decode, split, shape check) replaced by the old one. */
function withOldSumLine(script: string): string {
  const lines = script.split("\n");
  const start = lines.findIndex((l) => l.includes("$content = (Invoke-WebRequest @web -Uri $it.sum).Content"));
  const end = lines.findIndex((l) => l.includes("$published -notmatch '^[0-9a-f]{64}$'"));
  expect(start).toBeGreaterThan(0);
  expect(end).toBe(start + 3);
  lines.splice(start, 4, OLD_SUM_LINE);
  return lines.join("\n");
}

describe("the rules (windows-51/web.js)", () => {
  test("text types are text/*, the XML and JSON types, +xml; octet-stream and no type are not", () => {
    expect(win.rule("web.text-types").source).toContain("ContentHelper.Common.cs");
    for (const t of [
      "text/plain",
      "text/plain; charset=utf-8",
      "TEXT/HTML",
      "application/json",
      "application/xml",
      "application/atom+xml",
      "application/javascript",
    ])
      expect([t, win.isTextContentType(t)]).toEqual([t, true]);
    for (const t of [OCTET, "application/x-gzip", "", undefined, "binary/octet-stream"])
      expect([t, win.isTextContentType(t)]).toEqual([t, false]);
  });

  test(".Content is the body's bytes for a non-text type, the decoded text otherwise (ISO-8859-1 without a charset)", () => {
    expect(win.rule("web.content-is-bytes").rule).toContain("byte[]");
    const body = Buffer.from("caf\u00e9", "utf8");
    const bytes = win.webContent(OCTET, body);
    expect(Buffer.isBuffer(bytes)).toBe(true);
    expect(bytes).toEqual(body);
    expect(win.webContent("text/plain; charset=utf-8", body)).toBe("caf\u00e9");
    expect(win.rule("web.text-decoding").rule).toContain("ISO-8859-1");
    expect(win.webContent("text/plain", body)).toBe(body.toString("latin1"));
  });
});

describe("the install script's checksum line under the rules (audit row 1)", () => {
  const asset = Buffer.from("containerd archive");
  const digest = sha256(asset);
  const sumFile = Buffer.from(`${digest}  containerd-2.1.4-windows-amd64.tar.gz\n`);
  const content = () => win.webContent(OCTET, sumFile);
  const items: Download[] = [
    {
      name: "containerd",
      url: "https://127.0.0.1/c.tgz",
      checksumUrl: "https://127.0.0.1/c.tgz.sha256sum",
      kind: "tgz",
      target: "C:\\Program Files\\containerd",
      strip: true,
      version: "2.1.4",
    },
  ];

  test("the old line makes $published the first byte in decimal for a GitHub (octet-stream) sum", () => {
    expect(win.rule("web.bytes-as-text").rule).toContain("-split");
    // `-split` on a byte[] splits each byte's decimal string: element 0 is the first byte, '3' or whatever it is.
    const published = network.publishedSum(content(), withOldSumLine(installScript(items)));
    expect(published).toBe(String(sumFile[0]));
    expect(published).not.toBe(digest);
    // Served as text, the same line was right: the bug shows only with the real content type.
    expect(network.publishedSum(win.webContent("text/plain", sumFile), withOldSumLine(installScript(items)))).toBe(
      digest,
    );
  });

  test("the current lines decode the byte[] and read the digest; without the decoding [string] gives numbers", () => {
    expect(network.publishedSum(content(), installScript(items))).toBe(digest);
    const undecoded = installScript(items)
      .split("\n")
      .filter((l) => !l.includes("-is [byte[]]"))
      .join("\n");
    expect(network.publishedSum(content(), undecoded)).toBe(String(sumFile[0]));
  });
});

describe("the install step through the stand-in, against a mirror serving GitHub's content type", () => {
  let dir: string;
  let mirror: ArtifactServer;
  const archive = (() => {
    const d = fs.mkdtempSync(path.join(os.tmpdir(), "web51-tar-"));
    fs.mkdirSync(path.join(d, "in", "bin"), { recursive: true });
    fs.writeFileSync(path.join(d, "in", "bin", "containerd.exe"), "MZ stand-in");
    require("child_process").execFileSync("tar", ["-czf", path.join(d, "c.tgz"), "-C", path.join(d, "in"), "bin"]);
    const b = fs.readFileSync(path.join(d, "c.tgz"));
    fs.rmSync(d, { recursive: true, force: true });
    return b;
  })();
  const items = (): Download[] => [
    {
      name: "containerd",
      url: `${mirror.baseUrl}/c.tgz`,
      checksumUrl: `${mirror.baseUrl}/c.tgz.sha256sum`,
      kind: "tgz",
      target: "C:\\Program Files\\containerd",
      strip: true,
      version: "2.1.4",
    },
  ];

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "web51-"));
    // GitHub serves release assets, checksum files included, as application/octet-stream (rule web.text-types).
    mirror = await startArtifactServer({
      "/c.tgz": { body: archive, contentType: OCTET },
      "/c.tgz.sha256sum": { body: Buffer.from(`${sha256(archive)}  c.tgz\n`), contentType: OCTET },
    });
  });
  afterAll(async () => {
    await mirror?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const host = (name: string) => newHost(dir, name, { trustedCaFiles: [mirror.caFile] });

  test("the current script installs; the old checksum line refuses the archive with a decimal 'published' sum", async () => {
    const good = host("web51-a");
    const r = await runScript(installScript(items()), good.state);
    expect(r).toMatchObject({ ok: true, error: "" });
    expect(good.read().versions).toEqual({ containerd: "2.1.4" });
    expect(fs.existsSync(good.drive("C:\\Program Files\\containerd\\containerd.exe"))).toBe(true);

    const old = host("web51-b");
    const o = await runScript(withOldSumLine(installScript(items())), old.state);
    expect(o.ok).toBe(false);
    const firstByte = Buffer.from(sha256(archive))[0];
    expect(o.error).toContain(`containerd: checksum mismatch, published ${firstByte}, downloaded ${sha256(archive)}`);
    expect(old.read().versions).toBeUndefined();
  });
});
