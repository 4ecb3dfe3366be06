import { spawnSync } from "child_process";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";

// The lab command's refusals that need no Go: each a one-line `lab: …` message naming the cause and the fix, a
// non-zero exit, and nothing left behind. The real builds and starts are in test/e2e/lab.e2e.ts.
const ROOT = path.resolve(__dirname, "..", "..");

function lab(args: string[], env: NodeJS.ProcessEnv) {
  return spawnSync(process.execPath, ["-r", "ts-node/register/transpile-only", "lab/cli.ts", ...args], {
    cwd: ROOT,
    encoding: "utf8",
    env,
    timeout: 60_000,
  });
}

/** A PATH holding only `node` and, when given, a `go` script: what a machine without Go looks like. */
function sandbox(goScript?: string) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "lab-cli-"));
  const bin = path.join(dir, "bin");
  fs.mkdirSync(bin);
  fs.symlinkSync(process.execPath, path.join(bin, "node"));
  if (goScript) fs.writeFileSync(path.join(bin, "go"), `#!/bin/sh\n${goScript}\n`, { mode: 0o755 });
  const cache = path.join(dir, "cache");
  sandboxes.push(dir);
  const env = { ...process.env, PATH: bin, WINDOWS_ESTATE_LAB_CACHE: cache };
  return { dir, cache, env };
}

const sandboxes: string[] = [];
afterAll(() => sandboxes.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

const oneLine = (s: string) =>
  s
    .trim()
    .split("\n")
    .filter((l) => l.startsWith("lab: "));

test("build without Go on PATH says so and how to fix it", () => {
  const { env } = sandbox();
  const r = lab(["build"], env);
  expect(r.status).toBe(1);
  expect(oneLine(r.stderr)).toEqual([expect.stringMatching(/^lab: Go is not on PATH: .*install Go 1\.26 or later/)]);
});

test("a Go older than the modules' go line is refused with the version needed", () => {
  const { env } = sandbox('[ "$1 $2" = "env GOVERSION" ] && echo go1.22.5 && exit 0; exit 3');
  const r = lab(["build"], env);
  expect(r.status).toBe(1);
  expect(oneLine(r.stderr)).toEqual([
    "lab: Go 1.22.5 is too old for the lab's modules (they need Go 1.26 or later, lab/tools/*/go.mod): install a newer Go and run `npm run lab -- build` again",
  ]);
});

test("a failed build names the program and go's error, and leaves nothing that looks built", () => {
  const { env, cache } = sandbox(
    '[ "$1 $2" = "env GOVERSION" ] && echo go1.26.8 && exit 0\n' +
      'if [ "$1" = build ]; then echo "cmd/etcd/main.go:9:2: undefined: etcdmain.Main" >&2; : > "$6"; exit 1; fi; exit 3',
  );
  const r = lab(["build"], env);
  expect(r.status).toBe(1);
  expect(oneLine(r.stderr)).toEqual([
    expect.stringMatching(
      /^lab: building etcd failed: go build \.\/cmd\/etcd \(cmd\/etcd\/main.go:9:2: undefined: etcdmain.Main\); full output: .*etcd\.log$/,
    ),
  ]);
  const programs = path.join(cache, "programs");
  const files = fs.existsSync(programs)
    ? fs.readdirSync(programs).flatMap((d) => fs.readdirSync(path.join(programs, d)))
    : [];
  expect(files).toEqual([]);
});

test("start before build says which programs are missing and the command that builds them", () => {
  const { env } = sandbox('[ "$1 $2" = "env GOVERSION" ] && echo go1.26.8 && exit 0; exit 3');
  const r = lab(["start"], env);
  expect(r.status).toBe(1);
  expect(oneLine(r.stderr)).toEqual([
    expect.stringMatching(
      /^lab: the lab is not built for the current sources \(missing: etcd, kube-apiserver, .*CRDs\): run `npm run lab -- build` first$/,
    ),
  ]);
});

test("stop with no lab running is an error, not a silent success", () => {
  const { env } = sandbox();
  const r = lab(["stop"], env);
  expect(r.status).toBe(1);
  expect(oneLine(r.stderr)).toEqual([
    'lab: no lab named "default" is running, so there is nothing to stop (start one with `npm run lab -- start`)',
  ]);
});

test("a wrong command line exits 2 naming the mistake", () => {
  const { env } = sandbox();
  const bad = lab(["start", "--platform", "openstack"], env);
  expect(bad.status).toBe(2);
  expect(oneLine(bad.stderr)).toEqual([
    'lab: --platform must be one of aws, azure, gcp, vsphere, nutanix, none, got "openstack" (see `npm run lab -- --help`)',
  ]);
  expect(lab(["launch"], env).status).toBe(2);
  expect(lab(["start", "--apiserver-port", "99999"], env).status).toBe(2);
  const help = lab(["--help"], env);
  expect(help.status).toBe(0);
  expect(help.stdout).toMatch(/^\s+build\s/m);
});
