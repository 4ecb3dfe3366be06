import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { BUILD_STAMP, PROGRAM_SOURCES, sourceHash } from "../../lib/project";
import { BUILT_COPY, endRun, RUN_DIR, startRun, withBuildOf } from "./project";

// The e2e run's project copy built once (project.ts BUILT_COPY), on folders made here: the suites' copies take its
// bin/ only when it is a build of their own sources, and the run removes it at the end.
describe("test/e2e/project.ts, the copy built once", () => {
  const saved = process.env[BUILT_COPY];
  let tmp: string;
  beforeEach(() => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), "e2e-project-test-"));
  });
  afterEach(() => {
    fs.rmSync(tmp, { recursive: true, force: true });
    if (saved === undefined) delete process.env[BUILT_COPY];
    else process.env[BUILT_COPY] = saved;
  });

  /** A project folder with one source file, and a built copy whose stamp is `stamp` (or that of the sources). */
  function folders(stamp?: string): { dir: string; from: string } {
    const dir = path.join(tmp, "copy");
    const from = path.join(tmp, "built");
    fs.mkdirSync(dir);
    fs.writeFileSync(path.join(dir, "program.ts"), "export = 1;\n");
    fs.mkdirSync(path.join(from, "bin"), { recursive: true });
    fs.writeFileSync(path.join(from, "bin", "program.js"), "module.exports = 1;\n");
    fs.writeFileSync(path.join(from, BUILD_STAMP), stamp ?? sourceHash(dir, PROGRAM_SOURCES));
    return { dir, from };
  }

  it("gives a copy the bin/ built of its own sources", () => {
    const { dir, from } = folders();
    process.env[BUILT_COPY] = from;
    expect(withBuildOf(dir)).toBe(true);
    expect(fs.existsSync(path.join(dir, "bin", "program.js"))).toBe(true);
  });

  it("fails on a bin/ of other sources (a stale value), rather than let the program run from its sources", () => {
    const { dir, from } = folders("0".repeat(64));
    process.env[BUILT_COPY] = from;
    expect(() => withBuildOf(dir)).toThrow(`${BUILT_COPY}=${from} is not a build of this copy's sources`);
    expect(fs.existsSync(path.join(dir, "bin"))).toBe(false);
  });

  it("removes the run's folder with every copy in it at the end of the run, and nothing but such a folder", () => {
    startRun();
    const run = process.env[RUN_DIR] ?? "";
    expect(path.dirname(run)).toBe(path.resolve(os.tmpdir()));
    fs.mkdirSync(path.join(run, "e2e-project-abcdef", "windows-estate"), { recursive: true });
    process.env[BUILT_COPY] = path.join(run, "e2e-project-abcdef", "windows-estate");
    endRun();
    expect(fs.existsSync(run)).toBe(false);
    expect(process.env[RUN_DIR]).toBeUndefined();
    expect(process.env[BUILT_COPY]).toBeUndefined();

    const elsewhere = path.join(tmp, "e2e-run-abcdef");
    fs.mkdirSync(elsewhere);
    process.env[RUN_DIR] = elsewhere;
    endRun();
    expect(fs.existsSync(elsewhere)).toBe(true);
  });
});
