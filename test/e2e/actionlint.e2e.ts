import { spawnSync } from "child_process";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { programPath } from "../../lab/cache";
import { checkGo } from "../../lab/go";
import { ACTIONLINT_VERSION, programNamed } from "../../lab/programs";
import { PROJECT_DIR } from "./lab";

// actionlint v1.7.12, built from its Go module by `npm run lab -- build` (lab/tools/actionlint), on every workflow:
// expressions, contexts and their types, action inputs (its popular-actions data), job needs, permission scopes,
// and each `run:` script through shellcheck (test/lab/ensure-shellcheck.sh puts it on PATH: global-setup.ts). Any
// finding fails, printed as actionlint prints it.

const bin = programPath(programNamed("actionlint"), checkGo());
const dir = path.join(PROJECT_DIR, ".github", "workflows");
const workflows = fs
  .readdirSync(dir)
  .filter((f) => /\.ya?ml$/.test(f))
  .map((f) => path.join(".github", "workflows", f));

test("the built actionlint is the pinned release, and shellcheck is there for it", () => {
  const v = spawnSync(bin, ["-version"], { encoding: "utf8" });
  expect(v.stdout.split("\n")[0]).toBe(ACTIONLINT_VERSION.replace(/^v/, ""));
  expect(spawnSync("shellcheck", ["--version"]).status).toBe(0);
});

test("actionlint finds nothing in any workflow", () => {
  expect(workflows).toEqual(expect.arrayContaining([".github/workflows/preview.yml", ".github/workflows/up.yml"]));
  const r = spawnSync(bin, ["-no-color", "-shellcheck", "shellcheck", ...workflows], {
    cwd: PROJECT_DIR,
    encoding: "utf8",
  });
  expect(r.stdout + r.stderr).toBe("");
  expect(r.status).toBe(0);
});

test("a finding fails: actionlint reports a wrong expression and a shellcheck warning in a workflow", () => {
  const bad = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "actionlint-")), "bad.yml");
  fs.writeFileSync(
    bad,
    [
      "on: push",
      "jobs:",
      "  a:",
      "    runs-on: ubuntu-latest",
      "    steps:",
      "      - run: echo ${{ matrix.nope }} $X",
      "",
    ].join("\n"),
  );
  const r = spawnSync(bin, ["-no-color", "-shellcheck", "shellcheck", bad], { encoding: "utf8" });
  expect(r.status).toBe(1);
  expect(r.stdout).toMatch(/property "nope" is not defined/);
  expect(r.stdout).toMatch(/SC2086/);
});
