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

function fail(message: string): never {
  process.stderr.write(`gitops: ${message}\n`);
  process.exit(2);
}

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: { stack: { type: "string" }, out: { type: "string" } },
  });
  const command = positionals[0];
  if (command !== "preview" && command !== "up")
    fail(`the first argument is preview or up, got ${command ?? "nothing"}`);
  if (!values.stack) fail("--stack <name> is required");
  const args = command === "preview" ? ["preview", "--diff"] : ["up", "--yes", "--skip-preview"];
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

void main();
