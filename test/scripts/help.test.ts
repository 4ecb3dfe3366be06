import { execFile } from "child_process";
import * as fs from "fs";
import * as path from "path";
import * as ts from "typescript";

// Every package.json script that takes arguments answers `--help` with its usage (what it does, its options, its exit
// codes) and exit 0, and an unknown option with one line naming it, pointing at the usage, and exit 2: never a stack
// trace. Run as users run them, `npm run -s <script> -- …`; neither answer starts a benchmark, a lab or the Pulumi CLI.
const ROOT = path.resolve(__dirname, "..", "..");
const scripts = (
  JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8")) as { scripts: Record<string, string> }
).scripts;

// `npm run build -- x` hands x to build-stamp.ts, which reads no arguments; `start` is synth with fixed ones.
const TAKES_NO_ARGUMENTS = ["build"];

/** The scripts whose command ends with one of our TypeScript entry files: npm appends the user's arguments to it. */
const withArguments = Object.entries(scripts)
  .map(([name, command]) => ({ name, entry: /(\S+\.ts)$/.exec(command.trim())?.[1] }))
  .filter((s): s is { name: string; entry: string } => s.entry !== undefined && !TAKES_NO_ARGUMENTS.includes(s.name));

/** The `--name`s of the options object of every `parseArgs({ options: … })` call in a file. */
function parseArgsOptions(file: string): string[] {
  const sf = ts.createSourceFile(file, fs.readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true);
  const optionNames = (o: ts.ObjectLiteralExpression) =>
    o.properties.map((p) => `--${p.name?.getText(sf).replace(/^"|"$/g, "")}`);
  const names: string[] = [];
  const visit = (n: ts.Node) => {
    const callee = ts.isCallExpression(n) ? n.expression.getText(sf) : "";
    if (ts.isCallExpression(n) && callee === "parseArgs") {
      const arg = n.arguments[0];
      const options =
        arg && ts.isObjectLiteralExpression(arg)
          ? arg.properties.find((p) => p.name?.getText(sf) === "options")
          : undefined;
      if (options && ts.isPropertyAssignment(options) && ts.isObjectLiteralExpression(options.initializer))
        names.push(...optionNames(options.initializer));
    }
    // scripts/options.ts scriptOptions(name, usage, argv, options, io) hands its options to parseArgs.
    if (ts.isCallExpression(n) && callee === "scriptOptions") {
      const options = n.arguments[3];
      if (options && ts.isObjectLiteralExpression(options)) names.push(...optionNames(options));
    }
    ts.forEachChild(n, visit);
  };
  visit(sf);
  return names;
}

/**
 * The options a script's command line accepts: its entry file's `parseArgs` options or, for an entry that hands the
 * command line to a module (scripts/synth.ts → scripts/synth/main.ts), that module's.
 */
function optionsOf(entry: string): string[] {
  const file = path.join(ROOT, entry);
  const own = parseArgsOptions(file);
  if (own.length > 0) return own;
  const imports = [...fs.readFileSync(file, "utf8").matchAll(/from "(\.{1,2}\/[^"]+)"/g)].map((m) =>
    path.join(path.dirname(file), `${m[1]}.ts`),
  );
  return imports.filter((f) => fs.existsSync(f)).flatMap(parseArgsOptions);
}

function npmRun(script: string, args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile("npm", ["run", "-s", script, "--", ...args], { cwd: ROOT, timeout: 60_000 }, (e, stdout, stderr) =>
      resolve({ code: e ? (typeof e.code === "number" ? e.code : null) : 0, stdout, stderr }),
    );
  });
}

const STACK_FRAME = /^\s+at .+[(:]\d+/m;
const usageLine = (name: string) => new RegExp(`npm run (-s |--silent )?${name.replace(/[:]/g, "\\$&")}\\b`);

// Each answer is a ts-node start-up (1–4 s of CPU); all of them are run up front, a few at a time.
type Run = Awaited<ReturnType<typeof npmRun>>;
const runs = new Map<string, Run>();
beforeAll(async () => {
  const queue = withArguments.flatMap(({ name }) => [
    [name, "--help"],
    [name, "--no-such-option"],
  ]);
  const next = async (): Promise<void> => {
    for (let job = queue.shift(); job; job = queue.shift()) runs.set(job.join(" "), await npmRun(job[0], [job[1]]));
  };
  await Promise.all([next(), next(), next()]);
}, 180_000);

test("the scripts that take arguments are the ones issue 25 names, and each parses its command line", () => {
  expect(withArguments.map((s) => s.name)).toEqual(
    expect.arrayContaining(["synth", "bench", "casts", "lab", "gitops", "gitops:stacks"]),
  );
  for (const { name, entry } of withArguments) expect(`${name}: ${optionsOf(entry).length > 0}`).toBe(`${name}: true`);
});

describe.each(withArguments)("npm run $name", ({ name, entry }) => {
  test("--help prints the usage naming every option and the exit codes, and exits 0", () => {
    const r = runs.get(`${name} --help`);
    expect(r?.stderr).toBe("");
    expect(r?.code).toBe(0);
    expect(r?.stdout).toMatch(usageLine(name));
    expect(r?.stdout).toMatch(/exit codes/i);
    for (const option of optionsOf(entry).filter((o) => o !== "--help"))
      expect(`${option}: ${r?.stdout.includes(option)}`).toBe(`${option}: true`);
  });

  test("an unknown option is one line naming it, pointing at the usage, and exit 2", () => {
    const r = runs.get(`${name} --no-such-option`);
    expect(r?.code).toBe(2);
    expect(r?.stdout).toBe("");
    expect(r?.stderr).not.toMatch(STACK_FRAME);
    const [first, ...rest] = (r?.stderr ?? "").trimEnd().split("\n");
    expect(first).toMatch(/^[\w:-]+: .*'--no-such-option'/);
    // Either the hint on that line, or (synth's way) the usage itself after it.
    if (rest.length === 0) expect(first).toContain(`npm run ${name} -- --help`);
    else expect(rest.join("\n")).toMatch(new RegExp(`^usage: ${usageLine(name).source}`, "m"));
  });
});
