/**
 * `npm run gitops -- preview|up --stack <name> [--out <file>]`: what the pull-request and main workflows run
 * (.github/workflows/preview.yml, up.yml). Runs the Pulumi CLI on PATH with the policy pack enforced, prints its
 * output as it comes, writes the Markdown report (scripts/gitops/report.ts) to --out (the comment to post, or
 * $GITHUB_STEP_SUMMARY), and exits with the CLI's status.
 */
import { spawn } from "child_process";
import * as fs from "fs";
import * as path from "path";
import { parseArgs } from "util";
import { report } from "./report";

const ROOT = path.resolve(__dirname, "..", "..");

const HELP = `npm run gitops -- preview|up --stack <name> [--out <file>]

What the pull-request and main workflows run (.github/workflows/preview.yml, up.yml): \`pulumi preview --diff\` or
\`pulumi up --yes --skip-preview --refresh\` of the stack, with the Pulumi CLI on PATH and the policy pack (policy/) enforced,
its output printed as it comes; then a one-line summary, and the Markdown report appended to --out.

Options:
  --stack NAME   the stack (required)
  --out FILE     append the Markdown report to this file (the comment to post, or $GITHUB_STEP_SUMMARY)
  -h, --help     this text

Exit codes: the Pulumi CLI's own (0: the preview or update succeeded and the policy pack passed), 127 the CLI could
not be started, 2 a wrong command line.
`;

/**
 * The CLI's command for each workflow. `up` refreshes first, as the Kubernetes Operator's Stack does (deploy/stack.yaml
 * `refresh: true`): what drifted on the hosts and in the cluster since the last run is converged by this one, and a
 * host that cannot be reached is named by this run rather than left to a later one (WindowsHost `unreachable`).
 */
export function pulumiCommand(command: "preview" | "up"): string[] {
  return command === "preview" ? ["preview", "--diff"] : ["up", "--yes", "--skip-preview", "--refresh"];
}

/** A wrong command line: one line naming it and where the usage is, exit 2. */
function fail(message: string): never {
  process.stderr.write(`gitops: ${message.replace(/\s*\n\s*/g, " ")} (see \`npm run gitops -- --help\`)\n`);
  process.exit(2);
}

async function main(): Promise<void> {
  let parsed;
  try {
    parsed = parseArgs({
      allowPositionals: true,
      options: { stack: { type: "string" }, out: { type: "string" }, help: { type: "boolean", short: "h" } },
    });
  } catch (e) {
    fail(e instanceof Error ? e.message : String(e));
  }
  const { values, positionals } = parsed;
  if (values.help) {
    process.stdout.write(HELP);
    return;
  }
  const command = positionals[0];
  if (command !== "preview" && command !== "up")
    fail(`the first argument is preview or up, got ${command ?? "nothing"}`);
  if (positionals.length > 1) fail(`one command at a time, got: ${positionals.join(" ")}`);
  if (!values.stack) fail("--stack <name> is required");
  const args = pulumiCommand(command);
  const cli = spawn(
    "pulumi",
    [
      ...args,
      "--policy-pack",
      path.join(ROOT, "policy"),
      "--stack",
      values.stack,
      "--non-interactive",
      "--color",
      "never",
    ],
    { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] },
  );
  let output = "";
  const take = (d: Buffer, to: NodeJS.WriteStream) => {
    output += d.toString("utf8");
    to.write(d);
  };
  cli.stdout.on("data", (d: Buffer) => take(d, process.stdout));
  cli.stderr.on("data", (d: Buffer) => take(d, process.stderr));
  const status = await new Promise<number>((resolve) => {
    cli.on("error", (e) => {
      output += `could not start the pulumi CLI: ${e.message}\n`;
      resolve(127);
    });
    cli.on("close", (code) => resolve(code ?? 1));
  });
  const r = report(command, values.stack, output, status);
  if (values.out) fs.appendFileSync(values.out, r.markdown);
  process.stderr.write(`gitops: ${command} of ${values.stack}: ${r.summary}\n`);
  process.exit(status);
}

if (require.main === module) void main();
