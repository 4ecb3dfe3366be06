import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { prepareScript, retireKeysScript } from "../../../providers/windows-host/scripts";
import { newHost, runScript } from "../../lab/windows-51-run";

// Review finding 3 (issue 31, audit row 5): sshd refuses administrators_authorized_keys while anyone but
// Administrators and SYSTEM may read it ("bad permissions"), so neither prepare nor key retirement may ever leave the
// live file with a looser ACL, not even between two icacls calls. The stand-in runs the script's ACL steps in order
// (windows-51/files.js aclThroughSteps, rules files.icacls-acl and files.rename-keeps-acl) and counts in
// `keyFileAclLoosened` each step that left the live file readable by others where it was restricted or absent.
const win = require("../../lab/windows-51");
const KEY = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIKeyFileAclTestKeyOnlyAAAAAAAAAAAAAAAAAAAAAAA wmco";
const OLD = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOldKeyForKeyFileAclTestsOnlyAAAAAAAAAAAAAAAAAAA old";
const RESTRICTED = { protected: true, explicit: ["S-1-5-32-544", "S-1-5-18"], inherited: [] };
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "key-file-acl-"));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/**
 * Prepare's key-file handling as it was before this fix (957c016): the file moved into place with the ACL it was
 * created with, then `/reset` and the restricting icacls run on the live file on every prepare.
 */
function resetOnLiveFile(): string {
  const lines = prepareScript(KEY).split("\n");
  const restrict = lines.find((l) => /^ {2}icacls\.exe \$tmp /.test(l));
  expect(restrict).toBeDefined();
  const out = lines
    .filter((l) => !/^ {2}(icacls\.exe \$tmp|if \(\$LASTEXITCODE)/.test(l))
    .map((l) => l.replace(" -or -not $aclOk) {", ") {"));
  const end = out.findIndex((l, i) => i > out.findIndex((x) => x.startsWith("if (-not ($sshdLines")) && l === "}");
  out.splice(
    end + 1,
    0,
    "icacls.exe $keyFile /reset | Out-Null",
    (restrict as string).trim().replace("$tmp", "$keyFile"),
  );
  return out.join("\n");
}

test("prepare on a host whose key file is already right leaves it alone: its ACL is never loosened", async () => {
  expect(win.rule("files.rename-keeps-acl").rows).toContain(5);
  const h = newHost(dir, "right", { authorizedKeys: [KEY], keyFileAclOk: true, keyFileAcl: RESTRICTED });
  expect((await runScript(prepareScript(KEY), h.state)).ok).toBe(true);
  expect(h.read()).toMatchObject({ keyFileAcl: RESTRICTED, keyFileAclOk: true });
  expect(h.read().keyFileAclLoosened).toBeUndefined();

  // The same host under the old prepare: /reset put the inherited readers back on the live file.
  const old = newHost(dir, "right-old", { authorizedKeys: [KEY], keyFileAclOk: true, keyFileAcl: RESTRICTED });
  expect((await runScript(resetOnLiveFile(), old.state)).ok).toBe(true);
  expect(old.read()).toMatchObject({ keyFileAclOk: true, keyFileAclLoosened: 1 });
});

test("a first key file comes into place already restricted (set on the temporary file before the move)", async () => {
  const h = newHost(dir, "first", { authorizedKeys: [] });
  expect((await runScript(prepareScript(KEY), h.state)).ok).toBe(true);
  expect(h.read()).toMatchObject({ authorizedKeys: [KEY], keyFileAcl: RESTRICTED, keyFileAclOk: true });
  expect(h.read().keyFileAclLoosened).toBeUndefined();

  const old = newHost(dir, "first-old", { authorizedKeys: [] });
  expect((await runScript(resetOnLiveFile(), old.state)).ok).toBe(true);
  expect(old.read().keyFileAclLoosened).toBe(1);
});

test("a key file with a stray explicit reader (Authenticated Users) is replaced by a restricted one, not reset in place", async () => {
  const stray = { protected: false, explicit: ["S-1-5-11"], inherited: ["S-1-5-18", "S-1-5-32-544"] };
  const h = newHost(dir, "stray", { authorizedKeys: [OLD, KEY], keyFileAclOk: false, keyFileAcl: stray });
  expect((await runScript(prepareScript(KEY), h.state)).ok).toBe(true);
  expect(h.read()).toMatchObject({ authorizedKeys: [OLD, KEY], keyFileAcl: RESTRICTED, keyFileAclOk: true });
});

test("icacls refusing the temporary file stops prepare with the live file as it was", async () => {
  const h = newHost(dir, "refused", { authorizedKeys: [OLD], keyFileAclOk: true, keyFileAcl: RESTRICTED });
  const bad = prepareScript(KEY).replace(/^( {2}icacls\.exe \$tmp .*)'\*S-1-5-18:F'/m, "$1'*S-1-5-18'");
  expect(bad).not.toBe(prepareScript(KEY));
  const r = await runScript(bad, h.state);
  expect(r.ok).toBe(false);
  // The script's own words: what failed, that the live file is unchanged, and the fix.
  expect(r.error).toMatch(
    /icacls could not restrict the new administrators_authorized_keys \(exit \d+\); the live file is unchanged\. Fix: connect as a member of Administrators/,
  );
  expect(h.read()).toMatchObject({ authorizedKeys: [OLD], keyFileAcl: RESTRICTED });
});

test("retiring a key replaces the file restricted before the move: its ACL is never loosened", async () => {
  const h = newHost(dir, "retire", { authorizedKeys: [OLD, KEY], keyFileAclOk: true, keyFileAcl: RESTRICTED });
  const r = await runScript(retireKeysScript(KEY, [OLD]), h.state);
  expect(r).toMatchObject({ ok: true, output: expect.stringContaining("retired 1") });
  expect(h.read()).toMatchObject({ authorizedKeys: [KEY], keyFileAcl: RESTRICTED, keyFileAclOk: true });
  expect(h.read().keyFileAclLoosened).toBeUndefined();
});
