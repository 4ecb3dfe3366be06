/**
 * (d) Start-up and plan time through the real engine: `pulumi preview` (the real CLI v3.248.0, its Node language host,
 * pulumi-resource-kubernetes and the dynamic-provider plugin) against the lab's API server (`npm run lab -- build`
 * first), for the dev stack and a large estate (20 MachineSets, 200 BYOH hosts, 100 mirror entries), against a bare
 * program declaring the same Kubernetes objects with @pulumi/kubernetes (bench/bare-program.ts), run the same way;
 * and a no-op `pulumi up` of a stack with N BYOH hosts (loopback sshd hosts whose `powershell` is the Windows
 * stand-in of test/lab). Ours runs from bin/ (the project copy is built) and from the TypeScript sources
 * (WINDOWS_ESTATE_FROM_SOURCES=1). Cold is the first run of each, warm the median of the others.
 */
import { spawn } from "child_process";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { stringify } from "yaml";
import type { LabInfo } from "../lab/record";
import { PROVIDERS } from "../providers/registry";
import { LabWindows, labWindows, trustingOwnKey } from "../test/lab/lab-windows";
import { PROJECT_DIR, startLab, stopLab } from "../test/e2e/lab";
import { exampleConfig, PlanStep, projectCopy, Stack, writeWmcoKey } from "../test/e2e/project";
import { median, ratio, secs } from "./stats";

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
export function largeEstate(): Record<string, unknown> {
  return {
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
  };
}

/** One CLI command, timed; fails with the CLI's words. `started` sees the CLI's pid (the cost curve samples it). */
export function run(
  stack: Stack,
  args: string[],
  env: NodeJS.ProcessEnv = {},
  started?: (pid: number) => void,
): Promise<{ ms: number; stdout: string }> {
  const t0 = process.hrtime.bigint();
  return new Promise((resolve, reject) => {
    const child = spawn("pulumi", [...args, "--stack", stack.name, "--non-interactive"], {
      cwd: stack.dir,
      env: { ...process.env, ...stack.lab.env, ...stack.env, ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    if (child.pid) started?.(child.pid);
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    child.on("error", reject);
    child.on("close", (status) => {
      const ms = Number(process.hrtime.bigint() - t0) / 1e6;
      if (status !== 0)
        reject(new Error(`pulumi ${args[0]} of ${stack.name} failed: ${stdout.slice(-1500)}${stderr.slice(-800)}`));
      else resolve({ ms, stdout });
    });
  });
}

/** The steps of a `pulumi preview --json` (parsed as the e2e suite's Stack does). */
export function planOf(stdout: string): PlanStep[] {
  const parsed: { steps?: PlanStep[] } = JSON.parse(stdout);
  return parsed.steps ?? [];
}

/** A Pulumi project whose program is bench/bare-program.ts, beside the project's node_modules. */
export function bareProject(): string {
  const dir = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "bench-bare-")), "bare");
  fs.mkdirSync(dir);
  fs.copyFileSync(path.join(__dirname, "bare-program.ts"), path.join(dir, "index.ts"));
  // Run as ours is (Pulumi.yaml, tsconfig.pulumi.json): transpiled without type checking. With the plain tsconfig the
  // language host type-checked the bare program on every run (@pulumi/pulumi cmd/run: transpileOnly follows
  // compilerOptions.noCheck), seconds and hundreds of MB that ours does not spend.
  fs.writeFileSync(
    path.join(dir, "Pulumi.yaml"),
    stringify({
      name: "bench-bare",
      runtime: { name: "nodejs", options: { typescript: true, tsconfig: "tsconfig.pulumi.json" } },
      main: "index.ts",
    }),
  );
  fs.copyFileSync(path.join(PROJECT_DIR, "tsconfig.json"), path.join(dir, "tsconfig.json"));
  fs.writeFileSync(
    path.join(dir, "tsconfig.pulumi.json"),
    JSON.stringify({ extends: "./tsconfig.json", compilerOptions: { noCheck: true }, include: ["index.ts"] }),
  );
  fs.symlinkSync(path.join(PROJECT_DIR, "node_modules"), path.join(dir, "node_modules"));
  return dir;
}

/** Writes the Kubernetes objects and the dynamic-resource counts of our plan for the bare program. */
export function baseline(steps: PlanStep[], dir: string, stack: string): { objects: string; dynamic: string } {
  const objects = path.join(dir, `${stack}.objects.json`);
  const k8s = steps.filter((s) => s.newState?.custom && s.newState.type.startsWith("kubernetes:"));
  // The plan shows secret values as "[secret]": such a field is left out (the Secret is still declared).
  const visible = (v: unknown): unknown =>
    Array.isArray(v)
      ? v.filter((x) => x !== "[secret]").map(visible)
      : v && typeof v === "object"
        ? Object.fromEntries(
            Object.entries(v)
              .filter(([, x]) => x !== "[secret]")
              .map(([k, x]) => [k, visible(x)]),
          )
        : v;
  fs.writeFileSync(
    objects,
    JSON.stringify(k8s.map((s) => ({ name: s.urn.split("::").pop(), inputs: visible(s.newState?.inputs) }))),
  );
  const counts = new Map<string, number>();
  for (const s of steps)
    if (s.newState?.type.startsWith("pulumi-nodejs:dynamic/windows-estate:")) {
      const t = s.newState.type.split(":").pop() ?? "";
      counts.set(t, (counts.get(t) ?? 0) + 1);
    }
  const dynamic = path.join(dir, `${stack}.dynamic.json`);
  fs.writeFileSync(
    dynamic,
    JSON.stringify([...counts].map(([t, count]) => ({ count, check: PROVIDERS[t].methods.includes("check") }))),
  );
  return { objects, dynamic };
}

export async function startupFigures(
  runs: number,
  byohHosts: number,
  log: (l: string) => void,
): Promise<{
  stacks: Record<string, StartupFigures>;
  noop_up_byoh_hosts: number;
  noop_up_cold_s: number;
  noop_up_warm_s: number;
}> {
  const LAB = "bench-startup";
  log("starting the lab (azure) for the start-up figures");
  const lab: LabInfo = startLab("azure", LAB);
  const hosts: LabWindows[] = [];
  try {
    const dir = projectCopy();
    writeWmcoKey(dir);
    const bareDir = bareProject();
    const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "bench-startup-"));
    const out: Record<string, StartupFigures> = {};
    const configs: [string, Record<string, unknown>][] = [
      ["dev", exampleConfig(dir, "Pulumi.dev.yaml")],
      ["large", largeEstate()],
    ];
    for (const [name, config] of configs) {
      const ours = new Stack(dir, name, lab);
      ours.init(config);
      const bare = new Stack(bareDir, name, lab);
      bare.init({});
      const built: number[] = [];
      const sources: number[] = [];
      const bareMs: number[] = [];
      const same: number[] = [];
      let resources = 0;
      let bareResources = 0;
      let files = { objects: "", dynamic: "" };
      for (let r = 0; r < Math.max(runs, 2); r++) {
        const o = await run(ours, ["preview", "--json"]);
        built.push(o.ms);
        const steps = planOf(o.stdout);
        resources = steps.length;
        if (r === 0) files = baseline(steps, scratch, name);
        sources.push((await run(ours, ["preview", "--json"], { WINDOWS_ESTATE_FROM_SOURCES: "1" })).ms);
        const b = await run(bare, ["preview", "--json"], { BENCH_OBJECTS: files.objects });
        bareMs.push(b.ms);
        bareResources = planOf(b.stdout).length;
        same.push(
          (await run(bare, ["preview", "--json"], { BENCH_OBJECTS: files.objects, BENCH_DYNAMIC: files.dynamic })).ms,
        );
        log(
          `run ${r + 1}: ${name} preview ${secs(o.ms)}s built, ${secs(sources[r])}s from sources (${resources} resources); bare ${secs(b.ms)}s (${bareResources}), bare with our dynamic resources ${secs(same[r])}s`,
        );
      }
      const warm = (xs: number[]) => median(xs.slice(1));
      out[name] = {
        ours_cold_s: secs(built[0]),
        ours_warm_s: secs(warm(built)),
        ours_sources_cold_s: secs(sources[0]),
        ours_sources_warm_s: secs(warm(sources)),
        sources_ratio: ratio(warm(sources), warm(bareMs)),
        bare_cold_s: secs(bareMs[0]),
        bare_warm_s: secs(warm(bareMs)),
        ratio: ratio(warm(built), warm(bareMs)),
        cold_ratio: ratio(built[0], bareMs[0]),
        bare_same_resources_warm_s: secs(warm(same)),
        overhead_ratio: ratio(warm(built), warm(same)),
        resources,
        bare_resources: bareResources,
      };
    }

    // A no-op `pulumi up` of N BYOH hosts (each on its own loopback address, port 22 as WMCO requires).
    log(`no-op up: preparing ${byohHosts} BYOH hosts once`);
    const entries = [];
    for (let i = 0; i < byohHosts; i++) {
      const w = await labWindows(`127.0.1.${i + 1}`, `win-bench-${i}`);
      trustingOwnKey(w);
      fs.writeFileSync(path.join(dir, ".dev", `bench-bootstrap-${i}`), w.host.privateKey, { mode: 0o600 });
      hosts.push(w);
      entries.push({
        address: w.host.host,
        username: w.host.user,
        hostKey: w.host.hostKeyFingerprint,
        bootstrap: { privateKeyPath: `.dev/bench-bootstrap-${i}` },
      });
    }
    const byoh = new Stack(dir, "byoh", lab);
    byoh.init({
      ...exampleConfig(dir, "Pulumi.dev.yaml"),
      "windows-estate:machineSets": [],
      "windows-estate:byoh": entries,
    });
    await run(byoh, ["up", "--yes", "--skip-preview"]);
    const noop: number[] = [];
    for (let r = 0; r < Math.max(runs, 2); r++) {
      noop.push((await run(byoh, ["up", "--yes", "--expect-no-changes"])).ms);
      log(`run ${r + 1}: no-op up of ${byohHosts} BYOH hosts ${secs(noop[r])}s`);
    }
    return {
      stacks: out,
      noop_up_byoh_hosts: byohHosts,
      noop_up_cold_s: secs(noop[0]),
      noop_up_warm_s: secs(median(noop.slice(1))),
    };
  } finally {
    await Promise.all(hosts.map((h) => h.stop()));
    stopLab(LAB);
  }
}
