import * as path from "path";
import type { ProgramRun } from "../../scripts/synth/mock-run";
import { writeStack } from "./stack";

const PROJECT = path.resolve(__dirname, "..", "..");

/**
 * The real program (index.ts) run under Pulumi's mocks with this stack config (keys without a namespace get
 * `windows-estate:`), its stack file written to `dir`: every resource with its inputs, parent and dependencies.
 */
export async function runUnderMocks(dir: string, stack: string, config: Record<string, unknown>): Promise<ProgramRun> {
  const file = writeStack(dir, stack, { "pulumi:disable-default-providers": ["kubernetes", "aws"], ...config });
  // A fresh module registry per program run, as each `pulumi up` runs in a fresh process.
  jest.resetModules();
  const { readStackFile } =
    require("../../scripts/synth/stack-file") as typeof import("../../scripts/synth/stack-file");
  const { runProgram } = require("../../scripts/synth/mock-run") as typeof import("../../scripts/synth/mock-run");
  const cwd = process.cwd();
  process.chdir(PROJECT);
  const warn = jest.spyOn(console, "warn").mockImplementation(() => undefined);
  try {
    return await runProgram(path.join(PROJECT, "index.ts"), "windows-estate", stack, readStackFile(file).raw);
  } finally {
    warn.mockRestore();
    process.chdir(cwd);
  }
}
