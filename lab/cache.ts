import { createHash } from "crypto";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { Program, TOOLS_DIR } from "./programs";

/**
 * Where built programs live: outside the repository, so a clean clone on the same machine reuses them. Each program
 * sits in a folder named by a hash of what decides its bytes (the Go version, its module's go.mod and go.sum, the
 * module's own Go sources, the target and its link stamps): a second build finds it and costs nothing, a change
 * to any of those builds a new one beside it. `WINDOWS_ESTATE_LAB_CACHE` moves the whole cache.
 */
export function cacheRoot(): string {
  const override = process.env.WINDOWS_ESTATE_LAB_CACHE;
  if (override) return path.resolve(override);
  const base = process.env.XDG_CACHE_HOME || path.join(os.homedir(), ".cache");
  return path.join(base, "windows-estate-lab");
}

function hashFiles(hash: ReturnType<typeof createHash>, dir: string, rel = ""): void {
  const entries = fs
    .readdirSync(path.join(dir, rel), { withFileTypes: true })
    .sort((a, b) => (a.name < b.name ? -1 : 1));
  for (const e of entries) {
    const r = path.join(rel, e.name);
    if (e.isDirectory()) hashFiles(hash, dir, r);
    // Go sources, go.mod and go.sum decide the binary; the provider's generated *-embed.json files follow from go.sum.
    else if (e.name.endsWith(".go") || e.name === "go.mod" || e.name === "go.sum") {
      hash
        .update(r)
        .update("\0")
        .update(fs.readFileSync(path.join(dir, r)))
        .update("\0");
    }
  }
}

/** The cache key of one program: 16 hex digits of SHA-256 over everything that decides the binary. */
export function programKey(program: Program, goVersion: string): string {
  const hash = createHash("sha256");
  hash.update(`${goVersion}\0${program.name}\0${program.target}\0${JSON.stringify(program.stamps)}\0`);
  // Only programs built with tags hash them, so that the keys of the others stay what they were.
  if (program.tags?.length) hash.update(`tags:${program.tags.join(",")}\0`);
  hashFiles(hash, path.join(TOOLS_DIR, program.module));
  return hash.digest("hex").slice(0, 16);
}

/** The built executable of a program for the current sources, whether or not it exists yet. */
export function programPath(program: Program, goVersion: string): string {
  return path.join(cacheRoot(), "programs", `${program.name}-${programKey(program, goVersion)}`, program.name);
}

/** The cache key of the CRD set: the go.mod/go.sum of the tools modules it comes from and the list of files taken. */
export function crdsKey(selection: readonly string[], modules: readonly string[]): string {
  const hash = createHash("sha256");
  hash.update(JSON.stringify(selection));
  for (const m of modules) hashFiles(hash, path.join(TOOLS_DIR, m));
  return hash.digest("hex").slice(0, 16);
}

export function crdsDir(selection: readonly string[], modules: readonly string[]): string {
  return path.join(cacheRoot(), "crds", crdsKey(selection, modules));
}

/** Running labs: one record per lab name, holding what `stop` must end and remove. */
export function labsDir(): string {
  return path.join(cacheRoot(), "labs");
}

/** Writes a file so that no reader ever sees half of it: a temporary name in the same folder, then a rename. */
export function writeAtomically(file: string, content: string | Buffer, mode = 0o644): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, content, { mode });
  fs.renameSync(tmp, file);
}
