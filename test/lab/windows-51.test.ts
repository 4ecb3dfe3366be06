// The stand-in's rules table (test/lab/windows-51): every rule is named once, says what Windows does and cites the
// upstream source it follows, so a test that relies on one can name it and a reader can check it.
import { pruneEmptyDirsScript } from "../../providers/node-files/scripts";
import { joinScript } from "../../providers/vanilla-node/scripts";
const win = require("./windows-51");

interface Rule {
  id: string;
  area: string;
  rule: string;
  source: string;
  rows: number[];
}

test("each rule has a unique id in its area's namespace, a statement, a source and its audit rows", () => {
  const rules: Rule[] = win.RULES;
  const ids = rules.map((r) => r.id);
  expect(new Set(ids).size).toBe(ids.length);
  for (const r of rules) {
    expect(win.AREAS).toContain(r.area);
    expect(r.id.startsWith(`${r.area}.`)).toBe(true);
    expect(r.rule.length).toBeGreaterThan(20);
    expect(r.source.length).toBeGreaterThan(10);
    expect(Array.isArray(r.rows)).toBe(true);
  }
});

test("a rule that does not exist cannot be cited", () => {
  expect(() => win.rule("web.no-such-rule")).toThrow("no stand-in rule web.no-such-rule");
});

// The stand-in's one statement reader (windows-51/statements.js), on PowerShell's grammar (about_Parsing,
// about_If, about_Try_Catch_Finally): what every handler sees of a script.
describe("the statement reader", () => {
  const ps = win.reader;

  test("a statement ends at a line break or `;` outside quotes and blocks; else, elseif and catch continue it", () => {
    const script = [
      '$a = \'x; y\'; $b = "`"}"',
      "if ($a) { $c = 1; $d = 2 }",
      "elseif ($b) { $c = 3 }",
      "else { $c = 4 }",
      "try { Stop-Service -Name s }",
      "catch { throw ('failed: ' + $_.Exception.Message) }",
    ].join("\n");
    expect(ps.statements(script)).toEqual([
      "$a = 'x; y'",
      '$b = "`"}"',
      "if ($a) { $c = 1; $d = 2 } elseif ($b) { $c = 3 } else { $c = 4 }",
      "try { Stop-Service -Name s } catch { throw ('failed: ' + $_.Exception.Message) }",
    ]);
    expect(ps.leaves(script)).toEqual([
      "$a = 'x; y'",
      '$b = "`"}"',
      "$c = 1",
      "$d = 2",
      "$c = 3",
      "$c = 4",
      "Stop-Service -Name s",
      "throw ('failed: ' + $_.Exception.Message)",
    ]);
    expect(ps.thrown(script, "failed", { "_.Exception.Message": "Access is denied." })).toBe(
      "failed: Access is denied.",
    );
  });

  // PowerShell src/System.Management.Automation/engine/parser/CharTraits.cs `IsSingleQuote`/`IsDoubleQuote` and
  // tokenizer.cs `ScanStringLiteral`: U+2018-U+201B end a single-quoted string, two in a row are the second.
  test("typographic quotes are quotes: they end strings, doubled they are one character, a lone one is refused", () => {
    expect(ps.value("'Anna’’s ‘‘x’’ ‚‚y‛‛'")).toBe("Anna’s ‘x’ ‚y‛");
    expect(ps.value("‘it’’s’")).toBe("it’s");
    expect(ps.statements("$a = 'x’; $b = “d; e”")).toEqual(["$a = 'x’", "$b = “d; e”"]);
    expect(() => ps.value("'Anna’s laptop'")).toThrow();
    expect(() => ps.unquote("'Anna’s laptop'")).toThrow();
  });

  // about_Try_Catch_Finally: a try has catches (typed or not) and/or a finally; about_If: the `{` may follow a line
  // break; about_Reserved_Words: keywords are case-insensitive.
  test("try with typed and several catches and a finally, `{` on the next line, keywords in any case", () => {
    const script = [
      "TRY {",
      "  & kubeadm.exe join",
      "} Catch [System.Net.WebException], [System.IO.IOException] {",
      "  $a = 1",
      "} catch {",
      "  $a = 2",
      "} FINALLY {",
      "  Remove-Item -LiteralPath $join",
      "}",
      "If ($b)",
      "{",
      "  Throw ('b was set')",
      "}",
      "else",
      "{ $c = 3 }",
    ].join("\n");
    expect(ps.statements(script)).toHaveLength(2);
    expect(ps.leaves(script)).toEqual([
      "& kubeadm.exe join",
      "$a = 1",
      "$a = 2",
      "Remove-Item -LiteralPath $join",
      "Throw ('b was set')",
      "$c = 3",
    ]);
    const t = ps.block(ps.statements(script)[0], "try");
    expect(t.catches.map((c: { types: string[] }) => c.types)).toEqual([
      ["[System.Net.WebException]", "[System.IO.IOException]"],
      [],
    ]);
    expect(t.finally.trim()).toBe("Remove-Item -LiteralPath $join");
    // Not one catch of any error: no `otherwise` a handler could take for it.
    expect(t.otherwise).toBeUndefined();
    expect(ps.thrown(script, "b was set")).toBe("b was set");
  });

  // about_Comments, about_Pipelines (a line ending in `|` continues), about_Special_Characters (a backtick outside
  // strings escapes the next character; before a line break it continues the line).
  test("comments are left out; a trailing `|` and a backtick continue the line; an escaped `;` ends nothing", () => {
    const script = [
      "# it's a comment; $x = 1",
      "$a = 'a' # trailing",
      "<# a block",
      "   comment; $x = 2 #>",
      "Get-ChildItem -Force |",
      "  Remove-Item",
      "Write-Output `",
      "  'x'",
      "Write-Output a`;b",
    ].join("\n");
    expect(ps.statements(script)).toEqual([
      "$a = 'a'",
      "Get-ChildItem -Force |\n  Remove-Item",
      "Write-Output `\n  'x'",
      "Write-Output a`;b",
    ]);
    expect(ps.assigned(script, "x")).toBeUndefined();
    expect(() => ps.statements("$h = @'\nit's\n'@")).toThrow();
    // pruneEmptyDirsScript (providers/node-files/scripts.ts) continues its pipeline with a trailing `|`.
    const prune = pruneEmptyDirsScript("C:\\k\\a", "windows");
    expect(ps.leaves(prune)).toHaveLength(2);
  });

  test("joinScript's throw inside try…finally is read (providers/vanilla-node/scripts.ts)", () => {
    const join = joinScript("C:\\k\\kubeadm\\join.yaml", { nodeName: "win-a", labels: {}, taints: [] });
    expect(ps.thrown(join, "kubeadm join failed", { LASTEXITCODE: 1 })).toBe("kubeadm join failed with 1");
  });

  test("an assignment spelled otherwise than `$name = ` is unmodelled, never passed over", () => {
    expect(ps.assigned("$v = 'a'", "v")).toBe("a");
    expect(ps.assigned("$vv = 'a'", "v")).toBeUndefined();
    for (const near of ["$v='a'", "[string]$v = 'a'", "$V = 'a'"]) expect(() => ps.assigned(near, "v")).toThrow();
  });

  test("values: literals with doubled quotes, arrays, hash tables, -join and concatenation; anything else unmodelled", () => {
    expect(ps.value("'it''s' + ' ' + ($xs -join ', ')", { xs: ["a", "b"] })).toBe("it's a, b");
    expect(ps.value("@(\n  'k1',\n  'k2'\n)")).toEqual(["k1", "k2"]);
    expect(ps.value("@{ name = 'x'; strip = $false; n = 3 }")).toEqual({ name: "x", strip: false, n: 3 });
    expect(ps.assigned("if ($true) { $v = Join-Path $a 'b' }\n$v = 'c'", "v")).toBe("c");
    expect(() => ps.value("Get-Date")).toThrow();
  });
});
