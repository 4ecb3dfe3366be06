/**
 * The benchmark of what the program really does (docs/benchmarks.md), in one run, side by side:
 *   (a) BYOH preparation and refresh, (b) vanilla node convergence and no-op refresh, each against the lower bound
 *       for the same round trips and (b) against ansible-playbook; (c) a rolling reboot at several maxUnavailable
 *       against one node at a time; (d) start-up and plan time through the real CLI against the lab, against a bare
 *       program, and a no-op `pulumi up` of N BYOH hosts (needs `npm run lab -- build`); (e) per host:
 *       logins, remote commands, PowerShell launches per operation and peak memory.
 * Figures are medians of --runs runs; ratios are computed within one run. The last line is one JSON object.
 *
 *   npm run bench -- --hosts 20 [--runs 3] [--json] [--skip nodes,ansible,rollout,startup] [--boot-seconds 3]
 *                    [--memory-hosts 200]   (BYOH prepare and refresh once more on that many hosts, for memory per host)
 *   npm run bench -- --scale 20,100 [--runs 1] [--out bench-results] [--cpu-prof]   (the cost curve alone, bench/curve.ts)
 */
import { execFileSync } from "child_process";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { parseArgs } from "util";
import { PROJECT_DIR } from "../test/e2e/lab";
import { ensureAnsible } from "./ansible";
import { startHosts, stopHosts } from "./hosts";
import { curveFigures } from "./curve";
import { summariseCliProfiles, summariseProfiles } from "./cpu-profile";
import { curveSvg, curveTable, marginalTable } from "./curve-report";
import { byohFigures, vanillaFigures } from "./node-ops";
import { rolloutFigures, WINDOWS_BOOT } from "./rollout";
import { startupFigures } from "./startup";
import { ratio } from "./stats";

const HELP = `npm run bench -- [options]

The benchmark of what the program really does (docs/benchmarks.md), side by side with the lower bound for the same
round trips: BYOH preparation and refresh, vanilla node convergence and no-op refresh (and ansible-playbook), a
rolling reboot at several maxUnavailable, start-up and plan time through the real CLI (needs \`npm run lab -- build\`),
and per host: logins, remote commands, PowerShell launches and peak memory. The hosts are sshd on 127.0.1.x port 22
(root, or net.ipv4.ip_unprivileged_port_start=22: CONTRIBUTING.md). Figures are medians of --runs runs; the last
line printed is one JSON object.

Options:
  --hosts N          hosts to start (default 20)
  --runs N           runs of each figure, the median is reported (default 3)
  --skip a,b         leave out any of: nodes, ansible, rollout, startup
  --boot-seconds N   how long a simulated host takes to start after its restart (default 3: Windows Server's
                     3 minutes scaled by 1/60, bench/rollout.ts WINDOWS_BOOT)
  --memory-hosts N   BYOH prepare and refresh once more on N hosts, for memory per host
  --scale N,M,...    only the cost curve (needs the lab): preview, first up, no-op up and refresh through the real
                     CLI of an estate of N BYOH hosts and N/10 MachineSets beside a bare program declaring the same
                     resources, per N; prints the table and writes curve.svg and curve.json to --out
  --out DIR          where --scale writes its plot and figures (default bench-results/, not tracked)
  --cpu-prof         with --scale: V8 CPU profiles of every Node process of the first run of each operation (the
                     language host, the dynamic-provider plugin) and the CLI's Go profile under --out/profiles/
  --wmco-key KIND    with --scale: the estate's WMCO key, ed25519 (default, what the README suggests) or rsa
                     (RSA-3072, as the e2e suites use; its ciphertext is stored four times per host)
  --skip-checkpoints with --scale: both programs run with PULUMI_SKIP_CHECKPOINTS=true, to measure what the
                     engine's checkpoint after every step costs (never for real stacks: it gives up crash safety)
  --json             progress on stderr, only the JSON line on stdout
  --verbose          also print the providers' own progress (stderr)
  -h, --help         this text

Exit codes: 0 done, 1 the benchmark failed, 2 a wrong command line.
`;

/** A wrong command line: one line naming it and where the usage is, exit 2. */
function usage(message: string): never {
  process.stderr.write(`bench: ${message.replace(/\s*\n\s*/g, " ")} (see \`npm run bench -- --help\`)\n`);
  process.exit(2);
}

let parsed;
try {
  parsed = parseArgs({
    options: {
      hosts: { type: "string", default: "20" },
      runs: { type: "string", default: "3" },
      json: { type: "boolean", default: false },
      skip: { type: "string", default: "" },
      "boot-seconds": { type: "string", default: String(WINDOWS_BOOT.seconds / WINDOWS_BOOT.scale) },
      "memory-hosts": { type: "string" },
      scale: { type: "string" },
      out: { type: "string", default: path.join(PROJECT_DIR, "bench-results") },
      "cpu-prof": { type: "boolean", default: false },
      "wmco-key": { type: "string", default: "ed25519" },
      "skip-checkpoints": { type: "boolean", default: false },
      verbose: { type: "boolean", default: false },
      help: { type: "boolean", short: "h", default: false },
    },
  });
} catch (e) {
  usage(e instanceof Error ? e.message : String(e));
}
const { values } = parsed;
if (values.help) {
  process.stdout.write(HELP);
  process.exit(0);
}
const N = Number(values.hosts);
const RUNS = Number(values.runs);
const BOOT = Number(values["boot-seconds"]);
const skip = new Set(values.skip.split(",").filter(Boolean));
for (const s of skip)
  if (!["ansible", "rollout", "startup", "nodes"].includes(s))
    usage(`--skip takes ansible, rollout, startup or nodes, not ${JSON.stringify(s)}`);
if (!Number.isInteger(N) || N < 1) usage(`--hosts must be a whole number of at least 1, not ${values.hosts}`);
if (!Number.isInteger(RUNS) || RUNS < 1) usage(`--runs must be a whole number of at least 1, not ${values.runs}`);
if (!(BOOT >= 0)) usage(`--boot-seconds must be a number of seconds, not ${values["boot-seconds"]}`);
const MEMORY_HOSTS = Number(values["memory-hosts"] ?? 0);
if (!Number.isInteger(MEMORY_HOSTS) || MEMORY_HOSTS < 0)
  usage(`--memory-hosts must be a whole number, not ${values["memory-hosts"]}`);
const SCALE = (values.scale ?? "").split(",").filter(Boolean).map(Number);
if (SCALE.some((n) => !Number.isInteger(n) || n < 1))
  usage(`--scale takes whole numbers of hosts separated by commas, not ${values.scale}`);
if (!["ed25519", "rsa"].includes(values["wmco-key"]))
  usage(`--wmco-key takes ed25519 or rsa, not ${JSON.stringify(values["wmco-key"])}`);
const WMCO_KEY = values["wmco-key"] === "rsa" ? "rsa" : "ed25519";
const log = (line: string) => (values.json ? process.stderr.write(line + "\n") : console.log(line));
// The providers report progress on stderr (Pulumi shows it); here it would bury the figures.
const reportError = console.error;
if (!values.verbose) console.error = () => undefined;

/** The cost curve alone (--scale): the table, the marginal cost per host, the plot and the figures' JSON. */
async function curve(): Promise<void> {
  execFileSync("bash", [path.join(PROJECT_DIR, "test", "lab", "ensure-sshd.sh")], { stdio: "ignore" });
  const out = values.out;
  const machine = `${os.cpus().length} cores, ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}`;
  const skipCheckpoints = values["skip-checkpoints"];
  log(
    `machine: ${machine}; cost curve at ${SCALE.join(", ")} hosts, ${RUNS} run(s), WMCO key ${WMCO_KEY}${skipCheckpoints ? ", PULUMI_SKIP_CHECKPOINTS" : ""}`,
  );
  const points = await curveFigures(SCALE, RUNS, log, {
    wmcoKey: WMCO_KEY,
    skipCheckpoints,
    ...(values["cpu-prof"] ? { cpuProfDir: path.join(out, "profiles") } : {}),
  });
  fs.mkdirSync(out, { recursive: true });
  const svg = path.join(out, "curve.svg");
  fs.writeFileSync(svg, curveSvg(points, `${new Date().toISOString().slice(0, 10)}, ${machine}, ${RUNS} run(s)`));
  fs.writeFileSync(path.join(out, "curve.json"), JSON.stringify(points, null, 2));
  log(curveTable(points));
  if (points.length > 1) log(marginalTable(points));
  log(`plot: ${svg}`);
  if (values["cpu-prof"])
    for (const line of [
      ...summariseProfiles(path.join(out, "profiles")),
      ...summariseCliProfiles(path.join(out, "profiles")),
    ])
      log(line);
  console.log(JSON.stringify({ scale: points }));
}

async function main(): Promise<void> {
  if (SCALE.length > 0) return curve();
  execFileSync("bash", [path.join(PROJECT_DIR, "test", "lab", "ensure-sshd.sh")], { stdio: "ignore" });
  if (!skip.has("ansible") && !skip.has("nodes")) ensureAnsible(log);
  log(
    `machine: ${os.cpus().length} cores (${os.cpus()[0]?.model ?? "?"}), ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}; ${N} hosts, ${RUNS} runs`,
  );
  const result: Record<string, unknown> = { hosts: N, runs: RUNS, cores: os.cpus().length };
  const hosts = await startHosts(N);
  try {
    if (!skip.has("nodes")) {
      const byoh = await byohFigures(hosts, RUNS, log);
      const vanilla = await vanillaFigures(hosts, RUNS, log, !skip.has("ansible"));
      const counts = (c: { logins: number; launches: number; transfers: number }) =>
        `${c.logins} / ${c.launches} / ${c.transfers}`.padEnd(12);
      log("per host (the most any host needed): logins / PowerShell launches / files transferred");
      for (const [what, ours, theirs] of [
        ["converge", vanilla.converge, vanilla.ansible?.converge],
        ["no-op", vanilla.noop, vanilla.ansible?.noop],
      ] as const)
        log(`  vanilla ${what.padEnd(9)} ours ${counts(ours)}${theirs ? ` ansible-playbook ${counts(theirs)}` : ""}`);
      Object.assign(result, {
        byoh_prepare_ratio: byoh.prepare.ratio,
        byoh_refresh_ratio: byoh.refresh.ratio,
        vanilla_converge_ratio: vanilla.converge.ratio,
        vanilla_noop_ratio: vanilla.noop.ratio,
        vanilla_ansible_speedup: vanilla.ansible ? ratio(vanilla.ansible.converge_s, vanilla.converge.ours_s) : null,
        vanilla_ansible_noop_speedup: vanilla.ansible ? ratio(vanilla.ansible.noop_s, vanilla.noop.ours_s) : null,
        powershell_launches_per_host: Math.max(
          byoh.prepare.launches,
          byoh.refresh.launches,
          vanilla.converge.launches,
          vanilla.noop.launches,
        ),
        peak_rss_mb_per_host: Math.max(
          byoh.prepare.peak_mb_per_host,
          byoh.refresh.peak_mb_per_host,
          vanilla.converge.peak_mb_per_host,
          vanilla.noop.peak_mb_per_host,
        ),
        byoh_prepare: byoh.prepare,
        byoh_refresh: byoh.refresh,
        vanilla_converge: vanilla.converge,
        vanilla_noop: vanilla.noop,
        ...(vanilla.ansible ? { ansible: vanilla.ansible } : {}),
      });
    }
    if (!skip.has("rollout")) {
      const widths = [...new Set([1, Math.min(5, N), Math.max(1, Math.floor(N / 4))])].sort((a, b) => a - b);
      const rollout = await rolloutFigures(hosts, widths, RUNS, BOOT, log);
      const widest = String(widths[widths.length - 1]);
      Object.assign(result, {
        rollout_speedup: rollout.speedup[widest],
        rollout_max_unavailable: Number(widest),
        rollout,
      });
    }
  } finally {
    await stopHosts(hosts);
  }
  // Memory per host at a larger fleet: BYOH prepare and refresh once on M hosts (at most 32 connections at a time,
  // providers/ssh/limits.ts), peak growth of this process's RSS ÷ M.
  const M = MEMORY_HOSTS;
  if (M > 0) {
    const many = await startHosts(M);
    try {
      const byoh = await byohFigures(many, 1, log);
      Object.assign(result, {
        memory_hosts: M,
        peak_rss_mb_per_host_at_memory_hosts: Math.max(byoh.prepare.peak_mb_per_host, byoh.refresh.peak_mb_per_host),
      });
    } finally {
      await stopHosts(many);
    }
  }
  if (!skip.has("startup")) {
    const startup = await startupFigures(RUNS, N, log);
    Object.assign(result, { startup_ratio: startup.stacks.large.ratio, startup });
  }
  console.log(JSON.stringify(result));
}

main().catch((e: Error) => {
  reportError(`bench failed: ${e.message}`);
  process.exit(1);
});
