/**
 * Which stacks a workflow runs, the GitHub secret holding each one's kubeconfig, and the clouds each one needs
 * credentials for. Pure functions, plus a command:
 *
 *   npm run --silent gitops:stacks -- [--changed <file with one changed path per line>]
 *
 * prints the matrix as one JSON line: `[{"stack":"prod-east","secret":"KUBECONFIG_PROD_EAST","aws":true,"azure":false}, …]`.
 */
import * as fs from "fs";
import * as path from "path";
import { parseArgs } from "util";
import { StackFacts, StackFileError, stackFacts } from "./stack-file";

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

/** One row of the workflows' matrix: `if: matrix.aws` / `matrix.azure` gate the cloud-credential steps. */
export interface MatrixEntry {
  stack: string;
  secret: string;
  aws: boolean;
  azure: boolean;
}

/**
 * The matrix: the touched stacks meant for the pipeline (`windows-estate:pipeline` not false: the built-in `dev`
 * stack is rendered offline by `npm start` and has no cluster, so a fresh clone lists none), each with its secret and
 * clouds.
 */
export function matrix(stacks: readonly string[], facts: ReadonlyMap<string, StackFacts>): MatrixEntry[] {
  return stacks.flatMap((stack) => {
    const f = facts.get(stack);
    if (!f?.pipeline) return [];
    return [{ stack, secret: secretName(stack), aws: f.aws, azure: f.azure }];
  });
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

Which stacks a workflow runs: every Pulumi.<stack>.yaml beside Pulumi.yaml whose windows-estate:pipeline is not
false, or with --changed only those the change touches (a changed Pulumi.<stack>.yaml touches its stack, any other
changed file every stack). Prints the matrix as one JSON line:
[{"stack":"prod-east","secret":"KUBECONFIG_PROD_EAST","aws":true,"azure":false}, …], each stack's kubeconfig secret
named KUBECONFIG_ and the stack name upper-cased, every character outside A-Z and 0-9 turned into _; aws and azure
say whether the stack's program calls that cloud (created BYOH VMs or vanilla nodes; an AWS MachineSet without
aws.ami), so the workflow asks for those credentials (docs/gitops.md). Settings a GitHub-hosted runner cannot use
are printed as warnings on stderr.

Options:
  --changed FILE   a file with one changed path per line
  -h, --help       this text

Exit codes: 0 printed, 2 a wrong command line, an unreadable --changed file, a stack file that cannot be read or has
a windows-estate:pipeline other than true or false, or two stacks that would share a secret.
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
  const facts = new Map<string, StackFacts>();
  for (const stack of projectStacks(fs.readdirSync(root))) {
    const file = `Pulumi.${stack}.yaml`;
    try {
      facts.set(stack, stackFacts(file, stack, fs.readFileSync(path.join(root, file), "utf8")));
    } catch (e) {
      fail(
        e instanceof StackFileError ? e.message : `cannot read ${file}: ${e instanceof Error ? e.message : String(e)}`,
      );
    }
  }
  // Only the stacks that run: a stack kept out of the pipeline needs no secret, so it cannot clash.
  const stacks = [...facts].filter(([, f]) => f.pipeline).map(([s]) => s);
  const clashes = secretClashes(stacks);
  if (clashes.length > 0) fail(clashes.join("; "));
  // GitHub turns `::warning::` lines into annotations on the run (docs: "Workflow commands for GitHub Actions").
  for (const w of stacks.flatMap((s) => facts.get(s)?.warnings ?? [])) process.stderr.write(`::warning::${w}\n`);
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
  process.stdout.write(JSON.stringify(matrix(touchedStacks(stacks, changed), facts)) + "\n");
}

if (require.main === module) main();
