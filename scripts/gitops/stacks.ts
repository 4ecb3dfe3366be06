/**
 * Which stacks a workflow runs, and the GitHub secret holding each one's kubeconfig. Pure functions, plus a command:
 *
 *   npm run --silent gitops:stacks -- [--changed <file with one changed path per line>]
 *
 * prints the matrix as one JSON line: `[{"stack":"prod-east","secret":"KUBECONFIG_PROD_EAST"}, …]`.
 */
import * as fs from "fs";
import * as path from "path";
import { parseArgs } from "util";

/**
 * The secret name for a stack: `KUBECONFIG_` and the stack name upper-cased with every character outside A–Z, 0–9
 * turned into `_` (GitHub secret names allow only alphanumerics and underscores, docs "Naming your secrets";
 * `prod-east` → `KUBECONFIG_PROD_EAST`).
 */
export function secretName(stack: string): string {
  return `KUBECONFIG_${stack.toUpperCase().replace(/[^A-Z0-9]/g, "_")}`;
}

/** The stacks of a project folder: one per `Pulumi.<stack>.yaml` beside `Pulumi.yaml`. */
export function projectStacks(files: readonly string[]): string[] {
  return files
    .map((f) => /^Pulumi\.(.+)\.yaml$/.exec(f)?.[1])
    .filter((s): s is string => s !== undefined)
    .sort();
}

/**
 * The stacks a change touches: a changed `Pulumi.<stack>.yaml` touches that stack; any other changed file (the
 * program) touches every stack. Without a change list, every stack.
 */
export function touchedStacks(stacks: readonly string[], changed?: readonly string[]): string[] {
  if (!changed) return [...stacks];
  const own = changed.map((f) => /^Pulumi\.(.+)\.yaml$/.exec(f)?.[1]);
  if (own.some((s) => s === undefined)) return [...stacks];
  return stacks.filter((s) => own.includes(s));
}

/** Two stacks whose names map to one secret cannot both have a kubeconfig: an error naming them. */
export function secretClashes(stacks: readonly string[]): string[] {
  const by = new Map<string, string[]>();
  for (const s of stacks) by.set(secretName(s), [...(by.get(secretName(s)) ?? []), s]);
  return [...by]
    .filter(([, ss]) => ss.length > 1)
    .map(([k, ss]) => `stacks ${ss.join(", ")} would share the secret ${k}: rename one`);
}

const HELP = `npm run --silent gitops:stacks -- [--changed <file>]

Which stacks a workflow runs: every Pulumi.<stack>.yaml beside Pulumi.yaml, or with --changed only those the change
touches (a changed Pulumi.<stack>.yaml touches its stack, any other changed file every stack). Prints the matrix as
one JSON line: [{"stack":"prod-east","secret":"KUBECONFIG_PROD_EAST"}, …], each stack's kubeconfig secret named
KUBECONFIG_ and the stack name upper-cased, every character outside A-Z and 0-9 turned into _.

Options:
  --changed FILE   a file with one changed path per line
  -h, --help       this text

Exit codes: 0 printed, 2 a wrong command line, an unreadable --changed file, or two stacks that would share a secret.
`;

/** A wrong command line or input: one line naming it, exit 2. */
function fail(message: string): never {
  process.stderr.write(`gitops: ${message.replace(/\s*\n\s*/g, " ")}\n`);
  process.exit(2);
}

function main(): void {
  let parsed;
  try {
    parsed = parseArgs({ options: { changed: { type: "string" }, help: { type: "boolean", short: "h" } } });
  } catch (e) {
    fail(`${e instanceof Error ? e.message : String(e)} (see \`npm run gitops:stacks -- --help\`)`);
  }
  const { values } = parsed;
  if (values.help) {
    process.stdout.write(HELP);
    return;
  }
  const root = path.resolve(__dirname, "..", "..");
  const stacks = projectStacks(fs.readdirSync(root));
  const clashes = secretClashes(stacks);
  if (clashes.length > 0) fail(clashes.join("; "));
  let changed: string[] | undefined;
  if (values.changed) {
    let text = "";
    try {
      text = fs.readFileSync(values.changed, "utf8");
    } catch (e) {
      fail(`cannot read the --changed file: ${e instanceof Error ? e.message : String(e)}`);
    }
    changed = text
      .split("\n")
      .map((l) => l.trim())
      .filter(Boolean);
  }
  process.stdout.write(
    JSON.stringify(touchedStacks(stacks, changed).map((stack) => ({ stack, secret: secretName(stack) }))) + "\n",
  );
}

if (require.main === module) main();
