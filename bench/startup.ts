/**
 * (d) Program start-up: a `pulumi preview` equivalent through the runtime harness (the real Node language host
 * running the program against the engine stand-in, the real dynamic-provider plugin answering Check and Diff), for the
 * dev stack and for a large estate (20 MachineSets, 200 BYOH hosts, 100 mirror entries), against a bare program that
 * declares the same Kubernetes objects directly (bench/bare-program.ts), started the same way. Ours runs from bin/
 * (the benchmark runs `npm run build` first) and from the TypeScript sources (WINDOWS_ESTATE_FROM_SOURCES=1). Cold is
 * the first run of each in this process's life (the OS file cache may already hold the files); warm is the median
 * of the others.
 */
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { stringify } from "yaml";
import { PROJECT_DIR } from "../test/harness/dynamic-plugin";
import { runProgram, stackConfig } from "../test/harness/program";
import { reveal } from "../test/harness/wire";
import { PROVIDERS } from "../providers/registry";
import { median, ratio, secs, timed } from "./stats";

export interface StartupFigures {
  /** Ours from bin/ (`npm run build` current), first run and the median of the others. */
  ours_cold_s: number;
  ours_warm_s: number;
  /** Ours from the TypeScript sources (no build, or sources changed since): what a run right after an edit costs. */
  ours_sources_cold_s: number;
  ours_sources_warm_s: number;
  sources_ratio: number;
  bare_cold_s: number;
  bare_warm_s: number;
  /** Warm ours ÷ warm bare. */
  ratio: number;
  cold_ratio: number;
  /** The bare program declaring our dynamic resources too (no-op providers): warm seconds, and warm ours ÷ it. */
  bare_same_resources_warm_s: number;
  overhead_ratio: number;
  resources: number;
  bare_resources: number;
}

/** The large estate: the dev stack's cluster and operator, with 20 MachineSets, 200 BYOH hosts, 100 mirrors. */
export function largeEstate(dir: string): string {
  const file = path.join(dir, "Pulumi.large.yaml");
  fs.writeFileSync(
    file,
    stringify({
      config: {
        "pulumi:disable-default-providers": ["kubernetes", "aws"],
        "windows-estate:cluster": { platform: "Azure", infrastructureId: "win-tmk9g", region: "westus" },
        "windows-estate:privateKeyPath": ".dev/wmco-dev-key.pem",
        "windows-estate:machineSets": Array.from({ length: 20 }, (_, i) => ({
          name: `win${i}`,
          replicas: 1,
          windowsServer: "2022",
          azure: { vmSize: "Standard_D2s_v3", zone: String((i % 3) + 1), publicLoadBalancer: "win-tmk9g" },
        })),
        "windows-estate:byoh": Array.from({ length: 200 }, (_, i) => ({
          address: `10.20.${Math.floor(i / 250)}.${(i % 250) + 1}`,
          username: "Administrator",
          trustOnFirstUse: true,
        })),
        "windows-estate:mirrors": {
          digest: Array.from({ length: 100 }, (_, i) => ({
            source: `registry${i % 10}.example.com/team${i}/app`,
            mirrors: [`mirror.corp.example:5000/r${i % 10}/team${i}/app`],
          })),
        },
      },
    }),
  );
  return file;
}

async function previewOurs(stack: string, file: string, nodeArgs: string[], fromSources: boolean) {
  const raw = stackConfig(file).config["windows-estate:cluster"];
  const cluster = { ...JSON.parse(raw), discovery: false };
  const env = fromSources ? { WINDOWS_ESTATE_FROM_SOURCES: "1" } : {};
  const [ms, r] = await timed(() =>
    runProgram({ ...stackConfig(file, { cluster }), stack, preview: true, timeoutMs: 600_000, nodeArgs, env }),
  );
  if (r.exitCode !== 0) throw new Error(`the ${stack} preview failed: ${r.stderr.slice(-1500)}`);
  return { ms, r };
}

async function previewBare(objects: string, dynamic?: string) {
  const [ms, r] = await timed(() =>
    runProgram({
      config: {},
      secretKeys: [],
      stack: "bare",
      preview: true,
      program: path.relative(PROJECT_DIR, path.join(__dirname, "bare-program.ts")),
      env: { BENCH_OBJECTS: objects, ...(dynamic ? { BENCH_DYNAMIC: dynamic } : {}) },
      timeoutMs: 600_000,
    }),
  );
  if (r.exitCode !== 0) throw new Error(`the bare program failed: ${r.stderr.slice(-1500)}`);
  return { ms, r };
}

/**
 * `profileDir`: when set, the language host of each of our previews writes a V8 CPU profile there (`--cpu-prof`), the
 * evidence behind docs/benchmarks.md's account of where start-up time goes.
 */
export async function startupFigures(
  stacks: [string, string][],
  runs: number,
  log: (l: string) => void,
  profileDir?: string,
): Promise<Record<string, StartupFigures>> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "bench-startup-"));
  const out: Record<string, StartupFigures> = {};
  try {
    for (const [stack, file] of stacks) {
      const ours: number[] = [];
      const sources: number[] = [];
      const bare: number[] = [];
      const same: number[] = [];
      const dynamic = path.join(dir, `${stack}.dynamic.json`);
      let resources = 0;
      let bareResources = 0;
      const objects = path.join(dir, `${stack}.objects.json`);
      for (let r = 0; r < Math.max(runs, 2); r++) {
        const o = await previewOurs(
          stack,
          file,
          profileDir ? ["--cpu-prof", `--cpu-prof-dir=${profileDir}`] : [],
          false,
        );
        ours.push(o.ms);
        const fromSources = await previewOurs(stack, file, [], true);
        sources.push(fromSources.ms);
        resources = o.r.engine.registrations.length;
        if (r === 0) {
          const k8s = o.r.engine.registrations.filter((x) => x.custom && x.type.startsWith("kubernetes:"));
          fs.writeFileSync(objects, JSON.stringify(k8s.map((x) => ({ name: x.name, inputs: reveal(x.inputs) }))));
          const counts = new Map<string, number>();
          for (const x of o.r.engine.registrations)
            if (x.type.startsWith("pulumi-nodejs:dynamic/windows-estate:")) {
              const t = x.type.split(":").pop() ?? "";
              counts.set(t, (counts.get(t) ?? 0) + 1);
            }
          fs.writeFileSync(
            dynamic,
            JSON.stringify([...counts].map(([t, count]) => ({ count, check: PROVIDERS[t].methods.includes("check") }))),
          );
        }
        const b = await previewBare(objects);
        bare.push(b.ms);
        bareResources = b.r.engine.registrations.length;
        const sameRun = await previewBare(objects, dynamic);
        same.push(sameRun.ms);
        log(
          `run ${r + 1}: ${stack} preview ${secs(o.ms)}s built, ${secs(fromSources.ms)}s from sources (${resources} resources); bare ${secs(b.ms)}s (${bareResources}), bare with our dynamic resources ${secs(sameRun.ms)}s (${sameRun.r.engine.registrations.length})`,
        );
      }
      const warm = (xs: number[]) => median(xs.slice(1));
      out[stack] = {
        ours_cold_s: secs(ours[0]),
        ours_warm_s: secs(warm(ours)),
        ours_sources_cold_s: secs(sources[0]),
        ours_sources_warm_s: secs(warm(sources)),
        sources_ratio: ratio(warm(sources), warm(bare)),
        bare_cold_s: secs(bare[0]),
        bare_warm_s: secs(warm(bare)),
        ratio: ratio(warm(ours), warm(bare)),
        cold_ratio: ratio(ours[0], bare[0]),
        bare_same_resources_warm_s: secs(warm(same)),
        overhead_ratio: ratio(warm(ours), warm(same)),
        resources,
        bare_resources: bareResources,
      };
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  return out;
}
