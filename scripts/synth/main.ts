import * as pulumi from "@pulumi/pulumi";
import * as path from "path";
import { ConfigErrors, formatIssue, loadAnyConfig } from "../../stacks/load";
import { DOMAIN_VALIDATORS } from "../../components/validators";
import { ensureDevKey } from "./dev-key";
import { runProgram } from "./mock-run";
import { render, writeRendered } from "./render";
import { readStackFile, StackFileError } from "./stack-file";
import { formatTree } from "./tree";
import { Io, scriptOptions } from "../options";

export const USAGE = `usage: npm run synth -- --stack <name> [--config-file <file>] [--out <dir>] [--reveal-secrets] [--quiet]

Runs the program offline under Pulumi's mock runtime with the stack's config and writes every Kubernetes object
it declares (renderYamlToDirectory layout: 0-crd/, 1-manifest/), a kustomization.yaml, stack-outputs.json and
windows-node-files/. Secret values are redacted unless --reveal-secrets. Exit codes: 0 ok, 2 bad input, 1 failure.`;

/** The project directory: where Pulumi.yaml, index.ts and the stack files live. */
export const PROJECT_DIR = path.resolve(__dirname, "..", "..");

/** Synth as a function, so tests can run it in-process; returns the exit code. */
export async function synth(argv: string[], io: Io): Promise<number> {
  const args = scriptOptions(
    "synth",
    USAGE,
    argv,
    {
      stack: { type: "string" },
      "config-file": { type: "string" },
      out: { type: "string" },
      "reveal-secrets": { type: "boolean", default: false },
      quiet: { type: "boolean", default: false },
      help: { type: "boolean", default: false },
    },
    io,
  );
  if (typeof args === "number") return args;
  const stack = args.stack;
  if (!stack || !/^[A-Za-z0-9_.-]+$/.test(stack)) {
    io.err(`synth: --stack <name> is required (letters, digits, '-', '_', '.'), e.g. --stack dev\n${USAGE}`);
    return 2;
  }
  const stackFile = path.resolve(args["config-file"] ?? path.join(PROJECT_DIR, `Pulumi.${stack}.yaml`));
  const outDir = path.resolve(args.out ?? path.join(PROJECT_DIR, "rendered", stack));

  let file;
  try {
    file = readStackFile(stackFile);
  } catch (e) {
    if (e instanceof StackFileError) {
      io.err(`synth: ${e.message}`);
      return 2;
    }
    throw e;
  }
  const created = ensureDevKey(file.raw, PROJECT_DIR);
  if (created) io.out(`note: generated a throwaway WMCO key for this stack at ${path.relative(PROJECT_DIR, created)}`);

  let config;
  try {
    config = loadAnyConfig(file.raw, {
      projectDir: PROJECT_DIR,
      offline: true,
      validators: DOMAIN_VALIDATORS,
      stackName: stack,
      stackFileIssues: file.issues,
    });
  } catch (e) {
    if (e instanceof ConfigErrors) {
      io.err(`synth: ${path.relative(process.cwd(), stackFile) || stackFile}: ${e.message}`);
      io.err("nothing was written.");
      return 2;
    }
    throw e;
  }
  for (const n of file.notes) io.out(`note: ${n}`);
  for (const w of config.warnings) io.out(`warning: ${formatIssue(w)}`);

  // The program resolves relative paths from the project directory, as under `pulumi up`.
  const cwd = process.cwd();
  process.chdir(PROJECT_DIR);
  let run;
  try {
    run = await runProgram(path.join(PROJECT_DIR, "index.ts"), "windows-estate", stack, file.raw);
  } catch (e) {
    // The program's RunErrors are problems the user fixes (what discovery or completion found), like the loader's.
    if (!pulumi.RunError.isInstance(e)) throw e;
    io.err(`synth: ${path.relative(cwd, stackFile) || stackFile}: ${e.message}`);
    io.err("nothing was written.");
    return 2;
  } finally {
    process.chdir(cwd);
  }
  const rendered = render(run, args["reveal-secrets"]);
  writeRendered(outDir, rendered.files);

  if (!args.quiet) io.out(formatTree(`windows-estate-${stack}`, run.resources));
  io.out(
    `wrote ${rendered.objects.length} Kubernetes objects and ${rendered.files.size - rendered.objects.length} other files to ${path.relative(cwd, outDir) || "."}` +
      (rendered.hadSecret ? (args["reveal-secrets"] ? " (secrets REVEALED)" : " (secrets redacted)") : "") +
      `; for review: ${rendered.withheld.size} object${rendered.withheld.size === 1 ? "" : "s"} with a placeholder left out of kustomization.yaml (its README.md says why)`,
  );
  return 0;
}
