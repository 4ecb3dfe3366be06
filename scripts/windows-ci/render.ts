/**
 * `npm run windows-ci:render -- --out <dir> [--dns-host-name <name>]`: writes the sample stack's scripts and the
 * stand-in's predictions (predictions.json) for scripts/windows-ci/check.ps1, which Windows PowerShell 5.1 runs on the
 * Windows workflow's runner (.github/workflows/windows-powershell.yml; docs/windows-hosts.md). Needs the network: each
 * checksum file's real Content-Type is part of the prediction.
 */
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { messageOf } from "../../lib/errors";
import { scriptOptions } from "../options";
import { asciiJson, httpFetch, Predictions, renderChecks, RenderOptions } from "./checks";
import { standIn } from "./stand-in";

export const USAGE = `usage: npm run windows-ci:render -- --out <dir> [--dns-host-name <name>]

Renders the sample stack's generated scripts and what the PowerShell stand-in predicts Windows PowerShell 5.1 does
with them into <dir> (predictions.json, install.ps1, kubelet-service.ps1, prepare.ps1), for
scripts/windows-ci/check.ps1. --dns-host-name: the name to predict from (default: this machine's host name as Node
reads it, which check.ps1 compares with two other readings on Windows). Exit codes: 0 written, 1 a failure (named), 2 bad arguments.`;

const ROOT = path.resolve(__dirname, "..", "..");

/** Renders into `out`: the scripts and predictions.json (ASCII: Windows PowerShell reads it). Returns the file names. */
export async function renderTo(
  out: string,
  o: RenderOptions,
): Promise<{ predictions: Predictions; written: string[] }> {
  const { predictions, files } = await renderChecks(o);
  fs.mkdirSync(out, { recursive: true });
  for (const [name, text] of files) fs.writeFileSync(path.join(out, name), text);
  fs.writeFileSync(path.join(out, "predictions.json"), asciiJson(predictions) + "\n");
  return { predictions, written: [...files.keys(), "predictions.json"] };
}

async function main(argv: string[]): Promise<number> {
  const args = scriptOptions("windows-ci:render", USAGE, argv, {
    out: { type: "string" },
    "dns-host-name": { type: "string" },
    help: { type: "boolean", default: false },
  });
  if (typeof args === "number") return args;
  if (!args.out) {
    console.error(`windows-ci:render: --out is required\n${USAGE}`);
    return 2;
  }
  try {
    const { written } = await renderTo(args.out, {
      root: ROOT,
      standIn: standIn(),
      dnsHostName: args["dns-host-name"] ?? os.hostname(),
      fetch: httpFetch,
    });
    console.log(`windows-ci:render: wrote ${written.join(", ")} to ${args.out}`);
    return 0;
  } catch (e) {
    console.error(`windows-ci:render: ${messageOf(e)}`);
    return 1;
  }
}

if (require.main === module) void main(process.argv.slice(2)).then((code) => (process.exitCode = code));
