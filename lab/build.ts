import * as fs from "fs";
import * as path from "path";
import { cacheRoot, programPath, writeAtomically } from "./cache";
import { collectCrds } from "./crds";
import { checkGo, goBuild, moduleDir } from "./go";
import { PROGRAMS, Program, TOOLS_DIR } from "./programs";

export interface BuildResult {
  goVersion: string;
  programs: { name: string; path: string; cached: boolean; seconds: number }[];
  crds: string;
  seconds: number;
}

function duration(seconds: number): string {
  return seconds < 60 ? `${seconds}s` : `${Math.floor(seconds / 60)}m${String(seconds % 60).padStart(2, "0")}s`;
}

/**
 * pulumi-kubernetes' release build generates schema-embed.json and terraform-mapping-embed.json from the module's
 * schema.json and terraform-mapping.json, setting the schema's version (provider/cmd/pulumi-resource-kubernetes/
 * generate.go). The same step, into the wrapper's folder, from the module go.sum pins.
 */
function prepareKubernetesSchema(program: Program, version: string): void {
  const dir = moduleDir("pulumi-kubernetes", "github.com/pulumi/pulumi-kubernetes/provider/v4");
  const cmd = path.join(dir, "cmd", "pulumi-resource-kubernetes");
  const schema = JSON.parse(fs.readFileSync(path.join(cmd, "schema.json"), "utf8")) as Record<string, unknown>;
  schema.version = version;
  const wrapper = path.join(TOOLS_DIR, program.module, program.target);
  writeAtomically(path.join(wrapper, "schema-embed.json"), JSON.stringify(schema));
  const mapping: unknown = JSON.parse(fs.readFileSync(path.join(cmd, "terraform-mapping.json"), "utf8"));
  writeAtomically(path.join(wrapper, "terraform-mapping-embed.json"), JSON.stringify(mapping));
}

/** Builds every program the lab runs into the cache (those already there for the current sources are kept). */
export async function build(log: (line: string) => void, only?: readonly string[]): Promise<BuildResult> {
  const started = Date.now();
  const goVersion = checkGo();
  log(`Go ${goVersion}; cache ${cacheRoot()}`);
  const selected = PROGRAMS.filter((p) => !only || only.includes(p.name));
  const programs: BuildResult["programs"] = [];
  for (const [i, p] of selected.entries()) {
    const out = programPath(p, goVersion);
    const step = `[${i + 1}/${selected.length}] ${p.what}`;
    if (fs.existsSync(out)) {
      log(`${step}: cached`);
      programs.push({ name: p.name, path: out, cached: true, seconds: 0 });
      continue;
    }
    log(`${step}: building`);
    const t = Date.now();
    if (p.prepare === "kubernetes-schema")
      prepareKubernetesSchema(p, p.stamps["github.com/pulumi/pulumi-kubernetes/provider/v4/pkg/version.Version"] ?? "");
    await goBuild(p, {
      output: out,
      logFile: path.join(cacheRoot(), "logs", `${p.name}.log`),
      progress: (s) => log(`${step}: still building, ${duration(s)}`),
    });
    const seconds = Math.round((Date.now() - t) / 1000);
    const mb = Math.round(fs.statSync(out).size / 1e6);
    log(`${step}: built in ${duration(seconds)} (${mb} MB)`);
    programs.push({ name: p.name, path: out, cached: false, seconds });
  }
  const crds = collectCrds();
  log(`CRDs from OLM and openshift/api: ${crds.cached ? "cached" : "collected"}`);
  const seconds = Math.round((Date.now() - started) / 1000);
  log(`lab built in ${duration(seconds)}`);
  const result = { goVersion, programs, crds: crds.dir, seconds };
  writeAtomically(path.join(cacheRoot(), "last-build.json"), JSON.stringify(result, null, 2) + "\n");
  return result;
}
