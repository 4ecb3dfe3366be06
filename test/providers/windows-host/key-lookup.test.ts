import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { parseProbe, prepareScript, probeScript } from "../../../providers/windows-host/scripts";
import { newHost, runScript } from "../../lab/windows-51-run";

// Audit row 5 (issue 31): whether the WMCO key is authorized is asked of the key file as sshd reads it (bytes), not as
// Get-Content decodes it. The stand-in takes the lines from the variable the script's own lookup reads (the probe's
// `keyAuthorized =` line, prepare's rewrite test) and from how the script fills it, so going back to Get-Content's
// lines shows here (review finding 1).
const win = require("../../lab/windows-51");
const KEY = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIKeyLookupTestKeyOnlyAAAAAAAAAAAAAAAAAAAAAA wmco";
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "key-lookup-"));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/**
 * A host whose key file holds KEY as Out-File/`>` writes it in Windows PowerShell 5.1 (UTF-16LE): sshd reads no key. Its
 * ACL is already sshd's, so only the key lookup can make prepare replace it.
 */
const utf16Host = (name: string) =>
  newHost(dir, name, { authorizedKeys: [KEY], authorizedKeysEncoding: "unicode", keyFileAclOk: true });

/** The probe as it was before issue 31: the key looked up in Get-Content's lines. */
function getContentProbe(): string {
  const probe = probeScript(KEY);
  const lookup = /^ {2}keyAuthorized = .*$/m;
  expect(probe).toMatch(lookup);
  return probe
    .replace(lookup, "  keyAuthorized = [bool]($lines | Where-Object { $_.Trim() -eq $key })")
    .replace(
      /^(\$keyFile = .*)$/m,
      "$1\n$lines = @()\nif (Test-Path -LiteralPath $keyFile) { $lines = @(Get-Content -LiteralPath $keyFile) }",
    );
}

test("the probe reports a key in a UTF-16 file as not authorized; a probe that looks in Get-Content's lines would not", async () => {
  expect(win.rule("files.get-content-decodes-bom").rows).toContain(5);
  expect(win.rule("files.sshd-reads-bytes").rows).toContain(5);
  const h = utf16Host("probe");
  const probed = await runScript(probeScript(KEY), h.state);
  expect(probed.ok).toBe(true);
  expect(parseProbe(probed.output)).toMatchObject({ keyAuthorized: false, keyFileEncoding: "utf-16le" });

  const mutated = await runScript(getContentProbe(), h.state);
  expect(mutated.ok).toBe(true);
  expect(parseProbe(mutated.output).keyAuthorized).toBe(true);
});

test("prepare rewrites a UTF-16 key file that holds the key; one that looked in Get-Content's lines only would keep it", async () => {
  const lookup = /^if \(-not \(\$sshdLines \| Where-Object \{ \$_ -eq \$key \}\)/m;
  const prepare = prepareScript(KEY);
  expect(prepare).toMatch(lookup);
  // Without the encoding test too, the lookup alone decides.
  const bare = prepare.replace(/ -or \(@\('utf-16le'[^)]*\)\) -contains \$keyFileEncoding/, "");
  expect(bare).not.toBe(prepare);
  const viaGetContent = bare.replace(lookup, "if (-not ($lines | Where-Object { $_.Trim() -eq $key })");

  const a = utf16Host("prepare-bytes");
  expect((await runScript(bare, a.state)).ok).toBe(true);
  expect(a.read().authorizedKeysEncoding).toBe("ascii");

  const b = utf16Host("prepare-get-content");
  expect((await runScript(viaGetContent, b.state)).ok).toBe(true);
  expect(b.read().authorizedKeysEncoding).toBe("unicode");
});
