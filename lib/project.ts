/**
 * Where the project is, and whether `npm run build` compiled exactly its current sources. The program and the dynamic
 * providers run from bin/ (plain JavaScript, nothing to transpile) only when bin/.source-hash matches the sources now;
 * otherwise from the TypeScript sources, so a stale build never runs.
 */
import { createHash } from "crypto";
import * as fs from "fs";
import * as path from "path";

/** What the program is made of (the build compiles these; a change to any of them makes bin/ stale). */
export const PROGRAM_SOURCES = [
  "index.ts",
  "program.ts",
  "library",
  "components",
  "providers",
  "stacks",
  "facts",
  "lib",
];
/** What the dynamic providers are made of (their code version, providers/thin.ts). */
export const PROVIDER_SOURCES = ["providers", "facts", "lib"];
/** Where `npm run build` writes the hash of the sources it compiled. */
export const BUILD_STAMP = path.join("bin", ".source-hash");
/** And the hash of the providers' sources alone: their code version once installed without sources (providers/thin.ts). */
export const PROVIDER_STAMP = path.join("bin", ".provider-hash");

/** The project's root: the nearest directory up from `from` with a package.json (bin/ has none). */
export function projectRoot(from: string = __dirname): string {
  let dir = path.resolve(from);
  while (!fs.existsSync(path.join(dir, "package.json"))) {
    const up = path.dirname(dir);
    if (up === dir) throw new Error(`no package.json above ${from}: the windows-estate project was not found`);
    dir = up;
  }
  return dir;
}

/**
 * A hash of the .ts and .js files under `entries` (files or directories relative to `root`): paths and contents. The
 * .js ones are code too: providers/host-loader.js (the providers' code version) and what the build copies into bin/.
 */
export function sourceHash(root: string, entries: readonly string[]): string {
  const files: string[] = [];
  const walk = (p: string) => {
    if (!fs.existsSync(p)) return;
    if (fs.statSync(p).isDirectory()) for (const e of fs.readdirSync(p)) walk(path.join(p, e));
    else if ((p.endsWith(".ts") && !p.endsWith(".d.ts")) || p.endsWith(".js")) files.push(p);
  };
  for (const e of entries) walk(path.join(root, e));
  const h = createHash("sha256");
  for (const f of files.sort()) h.update(path.relative(root, f)).update("\0").update(fs.readFileSync(f)).update("\0");
  return h.digest("hex");
}

/**
 * Whether `root` is the package as installed from its tarball (`npm pack`): bin/ and its stamp, no TypeScript
 * sources. Its bin/ is what was packed, so it is always the one to run.
 */
export function isPackaged(root: string): boolean {
  return !fs.existsSync(path.join(root, "program.ts")) && fs.existsSync(path.join(root, BUILD_STAMP));
}

/**
 * bin/<module>.js when the build is current, or the package was installed from its tarball (no program.ts: isPackaged,
 * inlined because this function travels in every dynamic resource's `__provider`); else undefined (run from the
 * sources). WINDOWS_ESTATE_FROM_SOURCES=1 always chooses the sources (debugging, and the benchmark's comparison).
 */
export function builtModule(root: string, module: string): string | undefined {
  if (process.env.WINDOWS_ESTATE_FROM_SOURCES === "1") return undefined;
  const stamp = path.join(root, BUILD_STAMP);
  if (!fs.existsSync(stamp)) return undefined;
  const packaged = !fs.existsSync(path.join(root, "program.ts"));
  if (!packaged && fs.readFileSync(stamp, "utf8").trim() !== sourceHash(root, PROGRAM_SOURCES)) return undefined;
  const file = path.join(root, "bin", `${module}.js`);
  return fs.existsSync(file) ? file : undefined;
}
