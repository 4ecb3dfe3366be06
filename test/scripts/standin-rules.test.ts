import * as fs from "fs";
import * as path from "path";
import {
  RULES_BEGIN,
  RULES_END,
  rulesTable,
  WINDOWS_HOSTS_FILE,
  withRulesTable,
} from "../../scripts/docs/standin-rules";
import { standIn } from "../../scripts/windows-ci/stand-in";

// docs/windows-hosts.md's stand-in rules table is generated from test/lab/windows-51 (config-docs.test.ts fails when
// the page is stale); these check the table itself.

const rule = { id: "x.y", area: "x", rule: "sc.exe create|config <svc> reads `a|b`", source: "s", rows: [2, 6] };

test("one row per rule: id, what Windows does, source, audit rows; pipes and HTML-looking text escaped", () => {
  expect(rulesTable([rule]).split("\n")).toEqual([
    "| rule | what Windows does | source | audit rows |",
    "| --- | --- | --- | --- |",
    "| `x.y` | sc.exe create\\|config &lt;svc&gt; reads `a\\|b` | s | 2, 6 |",
  ]);
});

test("only the text between the markers is replaced; a page without them is an error", () => {
  const page = `intro\n${RULES_BEGIN}\nold table\n${RULES_END}\nafter\n`;
  expect(withRulesTable(page, [rule])).toBe(`intro\n${RULES_BEGIN}\n${rulesTable([rule])}\n${RULES_END}\nafter\n`);
  expect(() => withRulesTable("intro\n", [rule])).toThrow(/lost its stand-in rules markers/);
});

test("the page lists every rule of the stand-in", () => {
  const page = fs.readFileSync(path.join(__dirname, "..", "..", WINDOWS_HOSTS_FILE), "utf8");
  for (const r of standIn().RULES) expect(page).toContain(`| \`${r.id}\` |`);
});
