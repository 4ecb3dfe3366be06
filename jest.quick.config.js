const fs = require("fs");
const path = require("path");
const base = require("./jest.config");

// `npm run test:quick`: the suites that need no sshd, no root and no other process: pure functions, builders,
// validation, PowerShell parsed by tree-sitter, the program under Pulumi's mocks. Left out, so that the SSH lab's
// sshd is not needed (no globalSetup):
//   - every test file that imports the SSH lab (test/lab/), a helper that does or that starts processes, or
//     child_process itself (real sshd on loopback, dynamic-provider plugins, ts-node/npm/ssh-keygen runs);
//   - test/scripts/ (whole-estate synth runs of every example, the scripts' command lines) and test/e2e/;
//   - every test file that compiles a whole TypeScript program (imports `typescript` or Pulumi's component analyzer,
//     `@pulumi/pulumi/provider/experimental`): 15–20 s of CPU each, a third of the rest together.
// Found by reading the imports, so a new test that starts the lab is left out without being listed here.
const TEST_DIR = path.join(__dirname, "test");
const SOURCE_DIRS = [
  "bench",
  "lab",
  "scripts",
  "components",
  "providers",
  "stacks",
  "lib",
  "library",
  "policy",
  "facts",
];
const files = (dir) =>
  fs
    .readdirSync(dir, { withFileTypes: true })
    .flatMap((e) => (e.isDirectory() ? files(path.join(dir, e.name)) : [path.join(dir, e.name)]))
    .filter((f) => /\.(ts|js)$/.test(f));
// Each file read and parsed once: the loop below asks again on every pass.
const parsed = new Map();
const importsOf = (file) => {
  if (!parsed.has(file))
    parsed.set(
      file,
      [...fs.readFileSync(file, "utf8").matchAll(/(?:from\s+|require\(|import\()\s*["']([^"']+)["']/g)].map((m) =>
        m[1].startsWith(".") ? path.resolve(path.dirname(file), m[1]).replace(/\.(ts|js)$/, "") : m[1],
      ),
    );
  return parsed.get(file);
};

// test/lab/ and, until nothing changes, every module of ours (test helpers, bench, lab, scripts and the program) that
// imports it, child_process, or such a module: a test reaches a process through any of them.
const needsProcesses = new Set(files(path.join(TEST_DIR, "lab")).map((f) => f.replace(/\.(ts|js)$/, "")));
const helpers = [
  ...[path.join(TEST_DIR, "helpers"), ...SOURCE_DIRS.map((d) => path.join(__dirname, d))].flatMap(files),
  ...["program.ts", "index.ts"].map((f) => path.join(__dirname, f)),
];
const starts = (file) => importsOf(file).some((i) => i === "child_process" || needsProcesses.has(i));
for (let changed = true; changed;) {
  changed = false;
  for (const h of helpers) {
    const id = h.replace(/\.(ts|js)$/, "");
    if (needsProcesses.has(id) || !starts(h)) continue;
    needsProcesses.add(id);
    changed = true;
  }
}

const COMPILERS = new Set(["typescript", "@pulumi/pulumi/provider/experimental"]);
const compiles = (file) => importsOf(file).some((i) => COMPILERS.has(i));
const notQuick = files(TEST_DIR)
  .filter((f) => f.endsWith(".test.ts") && (starts(f) || compiles(f)))
  .map((f) => `^${f.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}$`);

/** @type {import('jest').Config} */
module.exports = {
  ...base,
  globalSetup: undefined,
  testPathIgnorePatterns: ["/node_modules/", "<rootDir>/test/scripts/", "<rootDir>/test/e2e/", ...notQuick],
};
