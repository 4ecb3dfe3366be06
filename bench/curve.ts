/**
 * The cost curve (issue 45 part 3, docs/benchmarks.md): for each N, through the real CLI against a fresh lab
 * (`npm run lab -- build` first), `pulumi preview`, a first `pulumi up`, a no-op `pulumi up` and a `pulumi refresh`
 * of an estate with N BYOH hosts (loopback sshd hosts on port 22, one address each, whose `powershell` is the Windows
 * stand-in of test/lab) and N/10 MachineSets, beside the bare program (bench/bare-program.ts) declaring the same
 * Kubernetes objects and as many do-nothing dynamic resources, the same four operations. Each operation's wall time
 * and the peak resident memory of the language host and the dynamic-provider plugin (bench/proc-memory.ts).
 *
 * One lab per point: the API server holds only that point's objects, and the bare program's objects (the same names)
 * are destroyed before ours are created. `waitForNodes` is off: the wait measures the lab's played WMCO configuring
 * nodes, not the program. Every `up` and `refresh` runs with `--skip-preview`, so each operation is one pass of the
 * engine.
 */
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { labWindows, LabWindows, trustingOwnKey } from "../test/lab/lab-windows";
import { startLab, stopLab } from "../test/e2e/lab";
import { exampleConfig, projectCopy, Stack, writeWmcoKey } from "../test/e2e/project";
import { newEd25519Key } from "../test/helpers/fixture-keys";
import { CurvePoint, Op, OpFigure, OPS } from "./curve-report";
import { sampleTree } from "./proc-memory";
import { stateSize, stateSizeLines } from "./state-size";
import { secs } from "./stats";
import { bareProject, baseline, planOf, run } from "./startup";

/**
 * Host `i`'s loopback address: 127.1.x.y (y from 1 to 250), so each host has port 22 of its own (WMCO dials 22 only,
 * pkg/windows/connectivity.go) on an address no other part of the lab uses. 127.0.0.0/8 is all loopback on Linux, so
 * addresses are not what limits N.
 */
export function hostAddress(i: number): string {
  return `127.1.${Math.floor(i / 250)}.${(i % 250) + 1}`;
}

/** The estate at N hosts: the dev stack's cluster and operator, N/10 MachineSets (at least 1), N BYOH hosts. */
function estateConfig(dir: string, hosts: LabWindows[]): Record<string, unknown> {
  return {
    ...exampleConfig(dir, "Pulumi.dev.yaml"),
    "windows-estate:waitForNodes": false,
    "windows-estate:machineSets": Array.from({ length: Math.max(1, Math.floor(hosts.length / 10)) }, (_, i) => ({
      name: `win${i}`,
      replicas: 1,
      windowsServer: "2022",
      azure: { vmSize: "Standard_D2s_v3", zone: String((i % 3) + 1), publicLoadBalancer: "win-tmk9g" },
    })),
    "windows-estate:byoh": hosts.map((w, i) => ({
      address: w.host.host,
      username: w.host.user,
      hostKey: w.host.hostKeyFingerprint,
      bootstrap: { privateKeyPath: `.dev/curve-bootstrap-${i}` },
    })),
  };
}

/** Starts `n` hosts, at most `width` at a time (each start is two ssh-keygen runs and an sshd waiting for its banner). */
async function startHosts(dir: string, n: number, width = 16): Promise<LabWindows[]> {
  const hosts: LabWindows[] = [];
  for (let i = 0; i < n; i += width) {
    const batch = await Promise.all(
      Array.from({ length: Math.min(width, n - i) }, (_, j) => labWindows(hostAddress(i + j), `win-curve-${i + j}`)),
    );
    for (const [j, w] of batch.entries()) {
      trustingOwnKey(w);
      fs.writeFileSync(path.join(dir, ".dev", `curve-bootstrap-${i + j}`), w.host.privateKey, { mode: 0o600 });
    }
    hosts.push(...batch);
  }
  return hosts;
}

/** One operation's CLI command with its peak memory and CPU time per role. */
async function measured(stack: Stack, op: Op, env: NodeJS.ProcessEnv): Promise<{ figure: OpFigure; stdout: string }> {
  // The CLI's own Go CPU profile beside the Node ones (pulumi's global --profiling flag: sdk/go/common/util/cmdutil
  // profile.go InitProfiling writes <prefix>.<pid>.cpu), read by bench/cpu-profile.ts summariseCliProfiles.
  const dir = env.BENCH_CPU_PROF_DIR;
  if (dir) fs.mkdirSync(dir, { recursive: true });
  const args = dir ? [...COMMANDS[op], "--profiling", path.join(dir, `cli-${op}`)] : COMMANDS[op];
  let sampler: ReturnType<typeof sampleTree> | undefined;
  try {
    const r = await run(stack, args, env, (pid) => (sampler = sampleTree(pid)));
    const peaks = sampler?.stop();
    return {
      figure: {
        s: secs(r.ms),
        language_mb: peaks?.mb.language ?? 0,
        plugin_mb: peaks?.mb.plugin ?? 0,
        cpu_s: peaks?.cpu_s ?? { cli: 0, language: 0, plugin: 0, kubernetes: 0 },
      },
      stdout: r.stdout,
    };
  } finally {
    sampler?.stop();
  }
}

const COMMANDS: Record<Op, string[]> = {
  preview: ["preview", "--json"],
  up: ["up", "--yes", "--skip-preview"],
  noop_up: ["up", "--yes", "--skip-preview", "--expect-no-changes"],
  refresh: ["refresh", "--yes", "--skip-preview"],
};

/**
 * The four operations on one stack, in order; the repeatable ones (all but the first `up`) `runs` times, the run of
 * median wall time reported. `onPreview` sees the first preview's output.
 */
async function operations(
  stack: Stack,
  runs: number,
  env: (run: number) => NodeJS.ProcessEnv,
  log: (l: string) => void,
  onPreview: (stdout: string) => void = () => undefined,
): Promise<Record<Op, OpFigure>> {
  const out: Partial<Record<Op, OpFigure>> = {};
  for (const op of OPS) {
    const figures: OpFigure[] = [];
    for (let r = 0; r < (op === "up" ? 1 : runs); r++) {
      const m = await measured(stack, op, env(r));
      if (op === "preview" && r === 0) onPreview(m.stdout);
      figures.push(m.figure);
    }
    // The run of median wall time, whole (its memory and CPU with it).
    const f = [...figures].sort((a, b) => a.s - b.s)[Math.floor(figures.length / 2)];
    out[op] = f;
    const c = f.cpu_s;
    log(
      `  ${stack.dir.includes("bench-bare") ? "bare" : "ours"} ${op}: ${f.s}s, language host ${f.language_mb} MB, plugin ${f.plugin_mb} MB; CPU s: CLI ${c.cli}, language host ${c.language}, plugin ${c.plugin}, kubernetes ${c.kubernetes}`,
    );
  }
  return out as Record<Op, OpFigure>;
}

/** Load averages now (os.loadavg, as `uptime` prints them), to two decimals. */
const load = (): [number, number, number] => {
  const [a, b, c] = os.loadavg().map((l) => Math.round(l * 100) / 100);
  return [a, b, c];
};

/** How the curve is run (bench/run.ts options). */
export interface CurveOptions {
  /** V8 CPU profiles of each operation's first run under this folder. */
  cpuProfDir?: string;
  /**
   * The WMCO key the estate holds: an Ed25519 key by default, the kind the README, the examples and the program's
   * messages suggest; `rsa` the RSA-3072 PEM the e2e suites use. Each host's state holds the key's ciphertext four
   * times (WindowsHost and RetiredWmcoKeys, inputs and outputs), so the key's size weighs on every checkpoint write.
   */
  wmcoKey?: "ed25519" | "rsa";
  /** Both programs with PULUMI_SKIP_CHECKPOINTS (pulumi pkg/backend/snapshot.go `unsafeServiceLoop`). */
  skipCheckpoints?: boolean;
}

export async function curveFigures(
  sizes: number[],
  runs: number,
  log: (l: string) => void,
  opts: CurveOptions = {},
): Promise<CurvePoint[]> {
  const dir = projectCopy();
  writeWmcoKey(dir, opts.wmcoKey === "rsa" ? undefined : newEd25519Key().priv);
  // Only to measure what the engine's per-step checkpoint costs: PULUMI_SKIP_CHECKPOINTS gives up crash safety.
  const engineEnv: NodeJS.ProcessEnv = opts.skipCheckpoints ? { PULUMI_SKIP_CHECKPOINTS: "true" } : {};
  const bareDir = bareProject();
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "bench-curve-"));
  const points: CurvePoint[] = [];
  for (const n of sizes) {
    const name = `curve-${n}`;
    log(`cost curve, N = ${n}: starting the lab and ${n} hosts (load ${load().join(" ")})`);
    const lab = startLab("azure", `bench-${name}`);
    let hosts: LabWindows[] = [];
    try {
      hosts = await startHosts(dir, n);
      const profiled = (who: string) => (r: number) =>
        opts.cpuProfDir && r === 0
          ? {
              // Node refuses --cpu-prof in NODE_OPTIONS; --require is allowed (bench/cpu-prof-hook.js).
              NODE_OPTIONS: `--require ${path.join(__dirname, "cpu-prof-hook.js")}`,
              BENCH_CPU_PROF_DIR: path.join(opts.cpuProfDir, `${n}-${who}`),
            }
          : {};
      const ours = new Stack(dir, name, lab, engineEnv);
      ours.init(estateConfig(dir, hosts));
      const bare = new Stack(bareDir, name, lab, engineEnv);
      bare.init({});
      // Ours' preview first: the bare program declares what it planned.
      const oursPreview = await measured(ours, "preview", profiled("ours-preview")(0));
      const plan = planOf(oursPreview.stdout);
      const resources = plan.length;
      const files = baseline(plan, scratch, name);
      const bareEnv = { BENCH_OBJECTS: files.objects, BENCH_DYNAMIC: files.dynamic };
      let bareResources = 0;
      const bareOps = await operations(
        bare,
        runs,
        (r) => ({ ...bareEnv, ...profiled("bare")(r) }),
        log,
        (stdout) => (bareResources = planOf(stdout).length),
      );
      const bareState = stateSize(JSON.parse((await run(bare, ["stack", "export"], bareEnv)).stdout));
      // The same object names as ours: gone before ours creates them.
      await run(bare, ["destroy", "--yes", "--skip-preview"], bareEnv);
      const oursOps = await operations(ours, runs, profiled("ours"), log);
      const oursState = stateSize(JSON.parse((await run(ours, ["stack", "export"])).stdout));
      for (const l of [...stateSizeLines("ours", oursState), ...stateSizeLines("bare", bareState)]) log(l);
      points.push({
        hosts: n,
        machine_sets: Math.max(1, Math.floor(n / 10)),
        resources,
        bare_resources: bareResources,
        load: load(),
        checkpoint_kb: { ours: Math.round(oursState.bytes / 1024), bare: Math.round(bareState.bytes / 1024) },
        ours: oursOps,
        bare: bareOps,
      });
      log(`  N = ${n}: ${resources} resources ours, ${bareResources} bare; load ${load().join(" ")}`);
    } finally {
      await Promise.all(hosts.map((h) => h.stop()));
      stopLab(`bench-${name}`);
    }
  }
  return points;
}
