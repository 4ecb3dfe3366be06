/**
 * Counts type assertions (`x as T`, `<T>x`; `as const` excluded) per file in the project's non-test TypeScript, with
 * the TypeScript compiler's own parser. `npm run casts` prints the figures; `.ci/run` fails above the limit.
 */
import * as fs from "fs";
import * as path from "path";
import * as ts from "typescript";
import { execFileSync } from "child_process";
import { checkOptions } from "./cli";

export const CAST_LIMIT = 20;

const HELP = `npm run casts -- [--check]

Counts type assertions (\`x as T\`, \`<T>x\`; \`as const\` excluded) in the project's non-test TypeScript (git ls-files),
with the TypeScript compiler's parser, and prints them per file, then the total and the limit (${CAST_LIMIT}).

Options:
  --check      fail at the limit or above, or on any cast to string (what .ci/run runs)
  -h, --help   this text

Exit codes: 0 counted (and, with --check, under the limit), 1 --check failed, 2 a wrong command line.
`;

export function countCasts(file: string, text: string): { total: number; toString: number } {
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  let total = 0;
  let toString = 0;
  const visit = (n: ts.Node) => {
    if (ts.isAsExpression(n) || ts.isTypeAssertionExpression(n)) {
      const t = n.type.getText(sf);
      if (t !== "const") {
        total++;
        if (t === "string") toString++;
      }
    }
    ts.forEachChild(n, visit);
  };
  visit(sf);
  return { total, toString };
}

function main(): void {
  const values = checkOptions("casts", HELP);
  if (!values) return;
  const root = path.resolve(__dirname, "..", "..");
  const files = execFileSync("git", ["ls-files", "*.ts"], { cwd: root, encoding: "utf8" })
    .split("\n")
    .filter((f) => f && !f.startsWith("test/") && !f.endsWith(".d.ts"));
  let total = 0;
  let toString = 0;
  const rows: [string, number][] = [];
  for (const f of files) {
    const c = countCasts(f, fs.readFileSync(path.join(root, f), "utf8"));
    total += c.total;
    toString += c.toString;
    if (c.total > 0) rows.push([f, c.total]);
  }
  for (const [f, n] of rows.sort((a, b) => b[1] - a[1])) console.log(`${String(n).padStart(4)}  ${f}`);
  console.log(`casts: ${total} (to string: ${toString}), limit ${CAST_LIMIT}`);
  if (values.check && (total >= CAST_LIMIT || toString > 0)) process.exit(1);
}

if (require.main === module) main();
