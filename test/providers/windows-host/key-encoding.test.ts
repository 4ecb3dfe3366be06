import * as fs from "fs";
import * as path from "path";
import { windowsHostProvider, WindowsHostInputs } from "../../../providers/windows-host/provider";
import { parseProbe, prepareScript, probeScript } from "../../../providers/windows-host/scripts";
import { withSession } from "../../../providers/ssh/session";
import { withPowerShell } from "../../../providers/ssh/powershell-runner";
import { labWindows, LabWindows } from "../../lab/lab-windows";
import { newEd25519Key } from "../../helpers/fixture-keys";

// Audit row 5 (issue 31): an administrators_authorized_keys that Windows PowerShell 5.1 wrote with `>` or Out-File is
// UTF-16LE with a BOM. Get-Content reads the WMCO key back from it; Win32-OpenSSH's sshd never sees it. The lab host's
// key list is a real sshd's file, written in the file's encoding, so the real OpenSSH decides whether the key logs in.
// The program's own way in is a second file of that sshd (on Windows: the administrator's password), so that it can
// reach a host whose key file sshd cannot read.
jest.setTimeout(60_000);
const win = require("../../lab/windows-51");

const WMCO = newEd25519Key();
const OTHER = newEd25519Key();

let w: LabWindows;
beforeAll(async () => {
  w = await labWindows(undefined, "win-enc-1");
  // The administrator's own way in: a second authorized-keys file of this sshd, holding the lab's user key.
  const config = path.join(path.dirname(w.host.authorizedKeysFile), "sshd_config");
  const access = w.host.authorizedKeysFile + ".access";
  fs.writeFileSync(access, w.host.publicKey + "\n", { mode: 0o600 });
  fs.writeFileSync(
    config,
    fs
      .readFileSync(config, "utf8")
      .replace(/^AuthorizedKeysFile (.*)$/m, (_l, f: string) => `AuthorizedKeysFile ${f} ${access}`),
  );
  await w.host.down();
  await w.host.up();
});
afterAll(() => w?.stop());

/** The host's key file holds `keys` as 5.1 wrote it with this Set-Content -Encoding (`>`/Out-File: unicode). */
function keyFile(keys: string[], encoding: string): void {
  const s = JSON.parse(fs.readFileSync(w.state, "utf8"));
  fs.writeFileSync(
    w.state,
    JSON.stringify({
      ...s,
      authorizedKeys: keys,
      authorizedKeysEncoding: encoding,
      authorizedKeysFile: w.host.authorizedKeysFile,
    }),
  );
  const text = keys.map((k) => k + "\n").join("");
  fs.writeFileSync(w.host.authorizedKeysFile, win.sshdStream(win.encodeText(text, encoding)), { mode: 0o600 });
}

const connection = (priv: string) => ({
  host: w.host.host,
  port: w.host.port,
  user: w.host.user,
  privateKey: priv,
  hostKey: w.host.hostKeyFingerprint,
  deadlineSeconds: 5,
});
const inputs = (): WindowsHostInputs => ({
  connection: connection(w.host.privateKey),
  wmcoPublicKey: WMCO.pub,
  wmcoPrivateKey: WMCO.priv,
});
async function logsIn(priv: string): Promise<boolean> {
  return withSession({ ...connection(priv), pathStyle: "posix" }, undefined, async () => true).catch(() => false);
}
/** The probe, run on the host as the provider runs it. */
async function probe() {
  return withSession(connection(w.host.privateKey), undefined, (s) =>
    withPowerShell(s, "win-enc-1", async (ps) => parseProbe(await ps.run("the probe", probeScript(WMCO.pub)))),
  );
}

test("the stand-in's rule: Get-Content reads the key back from a UTF-16LE file, sshd reads no key from it", () => {
  expect(win.rule("files.sshd-reads-bytes").rows).toContain(5);
  const bytes = win.encodeText(WMCO.pub + "\r\n", "unicode");
  expect(win.getContentLines(bytes)).toEqual([WMCO.pub]);
  expect(win.sshdKeyLines(bytes)).not.toContain(WMCO.pub);
  // A UTF-8 BOM is skipped by Win32-OpenSSH's fopen: that file works.
  expect(win.sshdKeyLines(win.encodeText(WMCO.pub + "\r\n", "utf8"))).toEqual([WMCO.pub]);
});

test("a UTF-16LE key file with the WMCO key: the probe says not authorized, preparation rewrites it keeping the other keys, and the real sshd then accepts the WMCO key", async () => {
  keyFile([OTHER.pub, WMCO.pub], "unicode");
  // The real sshd ignores the file: neither key in it logs in.
  expect(await logsIn(WMCO.priv)).toBe(false);
  expect(await logsIn(OTHER.priv)).toBe(false);
  const before = await probe();
  expect(before).toMatchObject({ keyAuthorized: false, keyFileEncoding: "utf-16le" });

  const r = await windowsHostProvider.create(inputs());
  expect(r.outs).toMatchObject({ keyAuthorized: true, keyFileEncoding: "ascii" });
  expect(await logsIn(WMCO.priv)).toBe(true);
  expect(await logsIn(OTHER.priv)).toBe(true);
  expect(fs.readFileSync(w.host.authorizedKeysFile, "latin1").trim().split("\n")).toEqual([OTHER.pub, WMCO.pub]);
});

test("a readable key file that has the WMCO key (UTF-8 with a BOM, which Win32-OpenSSH skips) is left as it is", async () => {
  keyFile([WMCO.pub], "utf8");
  expect(await logsIn(WMCO.priv)).toBe(true);
  await windowsHostProvider.create(inputs());
  expect(JSON.parse(fs.readFileSync(w.state, "utf8")).authorizedKeysEncoding).toBe("utf8");
});

// The key file's ACL, as the script's icacls lines leave it (rule files.icacls-acl): the stand-in no longer reports it
// restricted whatever icacls was given.
test("the ACL is what the icacls lines make it: without /inheritance:r the inherited readers stay and the check after preparation refuses", async () => {
  expect(win.rule("files.icacls-acl").rows).toContain(5);
  keyFile([w.host.publicKey], "ascii");
  const prepare = prepareScript(WMCO.pub);
  const unprotected = prepare.replace("/inheritance:r ", "");
  expect(unprotected).not.toBe(prepare);
  const after = async (script: string) =>
    withSession(connection(w.host.privateKey), undefined, (s) =>
      withPowerShell(s, "win-enc-1", async (ps) => {
        await ps.run("preparing", script);
        return parseProbe(await ps.run("the probe", probeScript(WMCO.pub)));
      }),
    );
  expect((await after(unprotected)).keyFileAclOk).toBe(false);
  expect((await after(prepare)).keyFileAclOk).toBe(true);
});

test("a key file that already has the key but an extra explicit ACE (Authenticated Users) is repaired, not refused", async () => {
  keyFile([WMCO.pub], "ascii");
  const s = JSON.parse(fs.readFileSync(w.state, "utf8"));
  const stray = { protected: false, explicit: ["S-1-5-11"], inherited: ["S-1-5-18", "S-1-5-32-544"] };
  fs.writeFileSync(w.state, JSON.stringify({ ...s, keyFileAclOk: false, keyFileAcl: stray }));
  const r = await windowsHostProvider.create(inputs());
  expect(r.outs).toMatchObject({ keyAuthorized: true, keyFileAclOk: true });
  expect(JSON.parse(fs.readFileSync(w.state, "utf8")).keyFileAcl).toEqual({
    protected: true,
    explicit: ["S-1-5-32-544", "S-1-5-18"],
    inherited: [],
  });
});
