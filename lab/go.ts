import { spawn, spawnSync } from "child_process";
import * as fs from "fs";
import * as path from "path";
import { LabError } from "./errors";
import { Program, TOOLS_DIR } from "./programs";
import { compareVersions } from "../facts/kubernetes";

/** The environment every go command of the lab runs with. */
export function goEnv(): NodeJS.ProcessEnv {
  return {
    ...process.env,
    // Static binaries: nothing of the machine's C libraries is needed where they run.
    CGO_ENABLED: "0",
    // Never let go fetch a different toolchain through the proxy: the one on PATH builds, or we say so.
    GOTOOLCHAIN: "local",
  };
}

/** The oldest Go the lab's modules accept: the highest `go` line of their go.mod files. */
export function requiredGo(): string {
  let best = "0";
  for (const m of fs.readdirSync(TOOLS_DIR)) {
    const mod = path.join(TOOLS_DIR, m, "go.mod");
    if (!fs.existsSync(mod)) continue;
    const v = /^go (\d+\.\d+(?:\.\d+)?)\s*$/m.exec(fs.readFileSync(mod, "utf8"))?.[1];
    if (v && compareVersions(v, best) > 0) best = v;
  }
  return best;
}

/**
 * The Go toolchain's version (e.g. `1.26.8`), after checking there is one and that it is recent enough. Part of
 * every cache key: a new Go builds anew.
 */
export function checkGo(): string {
  const r = spawnSync("go", ["env", "GOVERSION"], { env: goEnv(), encoding: "utf8", timeout: 30_000 });
  if (r.error && "code" in r.error && r.error.code === "ENOENT")
    throw new LabError(
      "Go is not on PATH: the lab builds the Pulumi CLI, the Kubernetes provider and the API server from Go modules; " +
        `install Go ${requiredGo()} or later (https://go.dev/dl/) and run \`npm run lab -- build\` again`,
    );
  if (r.status !== 0) throw new LabError(`\`go env GOVERSION\` failed: ${(r.stderr || r.stdout).trim()}`);
  const version = r.stdout.trim().replace(/^go/, "");
  const need = requiredGo();
  if (!/^\d+\.\d+/.test(version) || compareVersions(version.replace(/[^\d.].*$/, ""), need) < 0)
    throw new LabError(
      `Go ${version} is too old for the lab's modules (they need Go ${need} or later, lab/tools/*/go.mod): ` +
        `install a newer Go and run \`npm run lab -- build\` again`,
    );
  return version;
}

/** Where a module of the lab's tools modules sits in the module cache (downloading it if needed). */
export function moduleDir(toolsModule: string, modulePath: string): string {
  const cwd = path.join(TOOLS_DIR, toolsModule);
  const r = spawnSync("go", ["mod", "download", "-json", modulePath], {
    cwd,
    env: goEnv(),
    encoding: "utf8",
    timeout: 600_000,
  });
  let dir: string | undefined;
  try {
    dir = (JSON.parse(r.stdout) as { Dir?: string; Error?: string }).Dir;
  } catch {
    dir = undefined;
  }
  if (r.status !== 0 || !dir)
    throw new LabError(
      `cannot download ${modulePath} for lab/tools/${toolsModule}: ${lastLine(r.stdout + r.stderr) || "go mod download failed"}`,
    );
  return dir;
}

export function lastLine(text: string): string {
  const lines = text
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith("go: downloading"));
  return lines[lines.length - 1] ?? "";
}

/**
 * Runs `go build` for one program (in its module, with its link stamps and tags) into `output`, reporting the elapsed
 * time every 30 s through `progress`. The binary is written under a temporary name and renamed, so a failed or
 * interrupted build leaves nothing that looks built. The full go output goes to `logFile`.
 */
export async function goBuild(
  program: Program,
  opts: { output: string; logFile: string; progress: (elapsedSeconds: number) => void },
): Promise<void> {
  const ldflags = ["-s", "-w", ...Object.entries(program.stamps).map(([k, v]) => `-X ${k}=${v}`)].join(" ");
  fs.mkdirSync(path.dirname(opts.output), { recursive: true });
  fs.mkdirSync(path.dirname(opts.logFile), { recursive: true });
  const tmp = `${opts.output}.${process.pid}.partial`;
  fs.rmSync(tmp, { force: true });
  const log = fs.openSync(opts.logFile, "w");
  const started = Date.now();
  const ticker = setInterval(() => opts.progress(Math.round((Date.now() - started) / 1000)), 30_000);
  try {
    const code = await new Promise<number>((resolve, reject) => {
      const child = spawn(
        "go",
        [
          "build",
          "-trimpath",
          ...(program.tags?.length ? ["-tags", program.tags.join(",")] : []),
          "-ldflags",
          ldflags,
          "-o",
          tmp,
          program.target,
        ],
        {
          cwd: path.join(TOOLS_DIR, program.module),
          env: goEnv(),
          stdio: ["ignore", log, log],
        },
      );
      child.on("error", reject);
      child.on("exit", (c, signal) => resolve(c ?? (signal ? 128 : 1)));
    });
    if (code !== 0) {
      fs.rmSync(tmp, { force: true });
      const tail = lastLine(fs.readFileSync(opts.logFile, "utf8"));
      throw new LabError(
        `building ${program.name} failed: go build ${program.target} (${tail || `exit ${code}`}); full output: ${opts.logFile}`,
      );
    }
    fs.renameSync(tmp, opts.output);
  } finally {
    clearInterval(ticker);
    fs.closeSync(log);
  }
}
