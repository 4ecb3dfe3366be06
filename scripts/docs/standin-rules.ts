/**
 * The PowerShell stand-in's rules table in docs/windows-hosts.md, generated from the rules themselves
 * (test/lab/windows-51: each area module's `RULES`), between the page's markers; the rest of the page is written by
 * hand. `npm run docs:config` writes it, `--check` and test/scripts/config-docs.test.ts fail when it is stale.
 */
import * as fs from "fs";
import * as path from "path";
import { standIn, StandInRule } from "../windows-ci/stand-in";

export const WINDOWS_HOSTS_FILE = "docs/windows-hosts.md";
export const RULES_BEGIN =
  "<!-- BEGIN stand-in rules: generated from test/lab/windows-51 by `npm run docs:config`; do not edit -->";
export const RULES_END = "<!-- END stand-in rules -->";

/** A table cell: one line, `|` escaped, and `<`/`>` outside code spans (`<service>` would be taken for HTML). */
function cell(text: string): string {
  return text
    .replace(/\s+/g, " ")
    .trim()
    .replace(/\|/g, "\\|")
    .split(/(`[^`]*`)/)
    .map((part) => (part.startsWith("`") ? part : part.replace(/</g, "&lt;").replace(/>/g, "&gt;")))
    .join("");
}

/** The rules as a Markdown table: id, what Windows does, its source, the audit rows it stands for. */
export function rulesTable(rules: readonly StandInRule[]): string {
  return [
    "| rule | what Windows does | source | audit rows |",
    "| --- | --- | --- | --- |",
    ...rules.map((r) => `| \`${r.id}\` | ${cell(r.rule)} | ${cell(r.source)} | ${r.rows.join(", ")} |`),
  ].join("\n");
}

/** `page` with the text between its markers replaced by the table; throws when a marker is missing. */
export function withRulesTable(page: string, rules: readonly StandInRule[]): string {
  const begin = page.indexOf(RULES_BEGIN);
  const end = page.indexOf(RULES_END);
  if (begin < 0 || end < begin)
    throw new Error(`${WINDOWS_HOSTS_FILE} has lost its stand-in rules markers (${RULES_BEGIN} … ${RULES_END})`);
  return `${page.slice(0, begin + RULES_BEGIN.length)}\n${rulesTable(rules)}\n${page.slice(end)}`;
}

/** docs/windows-hosts.md with the current rules table. */
export function windowsHostsPage(root: string): string {
  const file = path.join(root, WINDOWS_HOSTS_FILE);
  if (!fs.existsSync(file)) throw new Error(`${WINDOWS_HOSTS_FILE} is missing: it holds the stand-in rules table`);
  return withRulesTable(fs.readFileSync(file, "utf8"), standIn().RULES);
}
