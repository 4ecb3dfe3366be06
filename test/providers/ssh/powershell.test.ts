import { checksumScript, pruneEmptyDirsScript, removeDirScript } from "../../../providers/node-files/scripts";
import { powershellCommand, psQuote } from "../../../providers/ssh/powershell";
import { powershellErrors } from "../../helpers/powershell-parser";

const tricky = "C:\\k\\it's a dir\\$(calc)";

test("the parser finds errors (the check can fail)", async () => {
  expect(await powershellErrors("if ($x { Write-Output 'a' ")).not.toEqual([]);
});

test.each([
  ["checksums", checksumScript(tricky, "windows")],
  ["remove directory", removeDirScript(tricky, "windows")],
  ["prune empty directories", pruneEmptyDirsScript(tricky, "windows")],
])("NodeFiles script parses cleanly: %s", async (_n, script) => {
  expect(await powershellErrors(script)).toEqual([]);
  // The path reaches PowerShell as one literal, never interpolated.
  expect(script).toContain(psQuote(tricky));
  expect(script).not.toContain(`"${tricky}"`);
});

test("encoded commands carry the script exactly, as UTF-16LE base64", () => {
  const script = "Write-Output 'héllo ✓'\n$x = 1";
  const cmd = powershellCommand(script);
  expect(cmd).toMatch(
    /^powershell -NoProfile -NonInteractive -ExecutionPolicy Bypass -EncodedCommand [A-Za-z0-9+/]+=*$/,
  );
  expect(Buffer.from(cmd.split(" ").pop() as string, "base64").toString("utf16le")).toBe(script);
});

// PowerShell's tokenizer: the ASCII quote and U+2018, U+2019, U+201A, U+201B all end a single-quoted string, and two
// in a row are the second (PowerShell src/System.Management.Automation/engine/parser/CharTraits.cs `IsSingleQuote`,
// tokenizer.cs `ScanStringLiteral`); the double quotes U+201C-U+201E are plain text there (about_Quoting_Rules).
test("psQuote doubles every character PowerShell takes as a single quote, and nothing else", () => {
  expect(psQuote("it's")).toBe("'it''s'");
  expect(psQuote("Anna\u2019s \u2018x\u2019 \u201ay\u201b")).toBe(
    "'Anna\u2019\u2019s \u2018\u2018x\u2019\u2019 \u201a\u201ay\u201b\u201b'",
  );
  expect(psQuote("\u201cq\u201d \u201e $x `n")).toBe("'\u201cq\u201d \u201e $x `n'");
});
