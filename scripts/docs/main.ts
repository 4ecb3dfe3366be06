import * as fs from "fs";
import * as path from "path";
import { generated, ROOT } from "./config-docs";
import { messageOf } from "../../lib/errors";
import { scriptOptions } from "../options";

export const USAGE = `usage: npm run docs:config [-- --check]

Generates the configuration reference (docs/configuration.md) and the stack-file JSON Schema
(schema/stack-config.schema.json) from the zod schemas in stacks/schema/ and their TSDoc, and the
PowerShell stand-in's rules table in docs/windows-hosts.md from test/lab/windows-51.
  --check   write nothing; exit 1 naming each file that is not what the schemas generate
Exit codes: 0 ok (or up to date), 1 stale files or a generator error, 2 bad arguments.`;

function main(argv: string[]): number {
  const args = scriptOptions("docs:config", USAGE, argv, {
    check: { type: "boolean", default: false },
    help: { type: "boolean", default: false },
  });
  if (typeof args === "number") return args;
  let files;
  try {
    files = generated();
  } catch (e) {
    console.error(`docs:config: ${messageOf(e)}`);
    return 1;
  }
  const stale: string[] = [];
  for (const [rel, text] of files) {
    const file = path.join(ROOT, rel);
    const current = fs.existsSync(file) ? fs.readFileSync(file, "utf8") : undefined;
    if (current === text) continue;
    stale.push(rel);
    if (!args.check) {
      fs.mkdirSync(path.dirname(file), { recursive: true });
      fs.writeFileSync(file, text);
    }
  }
  if (args.check && stale.length > 0) {
    console.error(`docs:config: out of date: ${stale.join(", ")}; run npm run docs:config`);
    return 1;
  }
  console.log(stale.length === 0 ? "docs:config: up to date" : `docs:config: wrote ${stale.join(", ")}`);
  return 0;
}

process.exitCode = main(process.argv.slice(2));
