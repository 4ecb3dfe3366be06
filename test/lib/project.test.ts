import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { BUILD_STAMP, builtModule, PROGRAM_SOURCES, projectRoot, sourceHash } from "../../lib/project";

// The rule that decides whether the program and the dynamic providers run from bin/: only a build of exactly the
// current sources is used, so a stale bin/ never runs (a plausible bug: comparing mtimes, or trusting bin/ blindly).
let root: string;
beforeEach(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), "project-"));
  fs.writeFileSync(path.join(root, "package.json"), "{}");
  fs.writeFileSync(path.join(root, "program.ts"), "export = 1;\n");
  fs.mkdirSync(path.join(root, "providers", "ssh"), { recursive: true });
  fs.writeFileSync(path.join(root, "providers", "ssh", "session.ts"), "export const a = 1;\n");
  fs.mkdirSync(path.join(root, "bin", "providers"), { recursive: true });
  fs.writeFileSync(path.join(root, "bin", "program.js"), "module.exports = 1;\n");
});
afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

const stamp = () => fs.writeFileSync(path.join(root, BUILD_STAMP), sourceHash(root, PROGRAM_SOURCES) + "\n");

test("the project root is found from a source folder and from bin/ (which has no package.json)", () => {
  expect(projectRoot(path.join(root, "providers", "ssh"))).toBe(root);
  expect(projectRoot(path.join(root, "bin", "providers"))).toBe(root);
  expect(() => projectRoot(os.tmpdir() === "/" ? "/" : path.parse(root).root)).toThrow(/no package.json above/);
});

test("the source hash follows .ts and .js contents and paths, not other files", () => {
  const before = sourceHash(root, PROGRAM_SOURCES);
  fs.writeFileSync(path.join(root, "providers", "notes.md"), "not code");
  fs.writeFileSync(path.join(root, "providers", "types.d.ts"), "declare const x: number;");
  expect(sourceHash(root, PROGRAM_SOURCES)).toBe(before);
  fs.writeFileSync(path.join(root, "providers", "ssh", "session.ts"), "export const a = 2;\n");
  expect(sourceHash(root, PROGRAM_SOURCES)).not.toBe(before);
  const edited = sourceHash(root, PROGRAM_SOURCES);
  fs.writeFileSync(path.join(root, "providers", "host-loader.js"), "module.exports = {};\n");
  expect(sourceHash(root, PROGRAM_SOURCES)).not.toBe(edited);
  fs.rmSync(path.join(root, "providers", "host-loader.js"));
  fs.renameSync(path.join(root, "providers", "ssh", "session.ts"), path.join(root, "providers", "ssh", "other.ts"));
  fs.writeFileSync(path.join(root, "providers", "ssh", "other.ts"), "export const a = 1;\n");
  expect(sourceHash(root, PROGRAM_SOURCES)).not.toBe(before);
});

test("bin/ is used only when its stamp matches the sources now", () => {
  expect(builtModule(root, "program")).toBeUndefined(); // never built
  stamp();
  expect(builtModule(root, "program")).toBe(path.join(root, "bin", "program.js"));
  expect(builtModule(root, "providers/registry")).toBeUndefined(); // built, but no such module
  fs.appendFileSync(path.join(root, "providers", "ssh", "session.ts"), "// edited after the build\n");
  expect(builtModule(root, "program")).toBeUndefined(); // stale: the sources run
  stamp();
  expect(builtModule(root, "program")).toBe(path.join(root, "bin", "program.js"));
  process.env.WINDOWS_ESTATE_FROM_SOURCES = "1";
  try {
    expect(builtModule(root, "program")).toBeUndefined(); // asked for the sources
  } finally {
    delete process.env.WINDOWS_ESTATE_FROM_SOURCES;
  }
});
