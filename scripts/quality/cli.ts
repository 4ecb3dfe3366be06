import { parseArgs } from "util";

/**
 * The command line of a quality check (`npm run casts`, `npm run layers`): `--check` and `--help` only. Prints the
 * usage for `--help` and returns undefined; a wrong option is one line naming it and exit 2, never a stack trace.
 */
export function checkOptions(name: string, help: string): { check: boolean } | undefined {
  let parsed;
  try {
    parsed = parseArgs({ options: { check: { type: "boolean" }, help: { type: "boolean", short: "h" } } });
  } catch (e) {
    process.stderr.write(
      `${name}: ${(e instanceof Error ? e.message : String(e)).replace(/\s*\n\s*/g, " ")} (see \`npm run ${name} -- --help\`)\n`,
    );
    process.exit(2);
  }
  if (parsed.values.help) {
    process.stdout.write(help);
    return undefined;
  }
  return { check: parsed.values.check ?? false };
}
