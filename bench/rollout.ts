/**
 * (c) A rolling reboot of N nodes through the real rollout engine (providers/day2/rollout.ts: cordon, drain, restart
 * over SSH, back with a new boot time, Ready with a fresh heartbeat, uncordon), its Nodes behind the local Kubernetes
 * API stand-in, with maxUnavailable 1 (WMCO's model: one node at a time, the same work per node) and larger. Each
 * simulated host takes `bootSeconds` to start after its restart, as Windows does (`WINDOWS_BOOT`, scaled), so that the
 * figure is about the rollout's concurrency, not about how fast the lab restarts.
 *
 * Each width is set against its ideal: batches run one after another and a batch lasts as long as one node's restart,
 * so ceil(N / maxUnavailable) × (boot time + the rollout's own work on one node). That work (cordon, drain, the SSH
 * restart, the reconnect, Ready, uncordon) is measured on one node alone with no boot time; the ratio measured ÷ ideal
 * is then what running nodes side by side costs.
 */
import * as fs from "fs";
import { planRollout } from "../providers/day2/batches";
import { DRAIN_RUN_DEFAULTS } from "../providers/day2/drain-run";
import { runRollingReboot } from "../providers/day2/rollout";
import { connectKube } from "../providers/kube-wait/api";
import { FakeKube } from "../test/helpers/fake-kube";
import { FakeNodes } from "../test/helpers/fake-nodes";
import { freshWindowsState } from "../test/lab/windows-state";
import { BenchHost, resetHosts } from "./hosts";
import { median, ratio, secs, timed } from "./stats";

/**
 * How long a Windows Server node takes to come back after `Restart-Computer`, and the factor the benchmark scales it
 * down by so that a rollout runs in seconds. Three minutes is a model, not a measurement: minutes, inside the budgets
 * the tools that reboot Windows allow for it (WMCO 10 minutes, pkg/windows/windows.go `RebootAndReinitialize`, as
 * providers/day2/reboot.ts `REBOOT_DEFAULTS`; Ansible's win_reboot `reboot_timeout` 600 s; Packer's windows-restart
 * `restart_timeout` 5 minutes). Scaled by 60 it is 3 s, 3 to 60 times the rollout's own work on one node here.
 */
export const WINDOWS_BOOT = { seconds: 180, scale: 60 };

/** One node's rollout, in ms: from its batch's start to its restart, from its boot's end to being seen back, after. */
interface NodePhases {
  beforeMs: number;
  lagMs: number;
  afterMs: number;
  /** How much later its batch's slowest node was done (the batch waits for it). */
  behindSlowestMs: number;
}

interface RolloutRun {
  ms: number;
  phases: NodePhases[];
}

/**
 * When each node's batch started, its restart began, it was seen back and it was done, from the rollout's progress
 * lines (providers/day2/rollout.ts, reboot.ts).
 */
class Timeline {
  private readonly at = new Map<string, { start: number; restart?: number; back?: number; done?: number }>();
  note(line: string): void {
    const now = Date.now();
    const batch = /^batch \d+\/\d+: (.*)$/.exec(line);
    if (batch) {
      for (const n of batch[1].split(", ")) this.at.set(n, { start: now });
      return;
    }
    const m = /^node (\S+): (restarting|back|done)\b/.exec(line);
    const t = m ? this.at.get(m[1]) : undefined;
    if (!m || !t) return;
    if (m[2] === "restarting") t.restart = now;
    else if (m[2] === "back") t.back = now;
    else t.done = now;
  }
  /** Each node's phases; `upAt` is when its boot ended (NaN: no boot time, it was up at the restart). */
  phases(upAt: Map<string, number>): NodePhases[] {
    const slowest = new Map<number, number>();
    for (const t of this.at.values()) slowest.set(t.start, Math.max(slowest.get(t.start) ?? 0, t.done ?? 0));
    return [...this.at.entries()].map(([n, t]) => {
      const restart = t.restart ?? t.start;
      const up = upAt.get(n);
      const end = up !== undefined && Number.isFinite(up) ? up : restart;
      const back = t.back ?? end;
      const done = t.done ?? back;
      return {
        beforeMs: restart - t.start,
        lagMs: back - end,
        afterMs: done - back,
        behindSlowestMs: (slowest.get(t.start) ?? done) - done,
      };
    });
  }
}

export interface RolloutFigures {
  boot_seconds: number;
  /** The rollout's own work on one node (no boot time, one node alone), median seconds. */
  overhead_seconds: number;
  /** maxUnavailable → median seconds for the whole rollout. */
  seconds: Record<string, number>;
  /** maxUnavailable → ceil(N / maxUnavailable) × (boot + overhead), seconds. */
  ideal_seconds: Record<string, number>;
  /** maxUnavailable → measured ÷ ideal (1.10 is the target). */
  ratio_to_ideal: Record<string, number>;
  /**
   * maxUnavailable → the same ratio with the boot unscaled (× `WINDOWS_BOOT.scale`) and everything else as measured:
   * what is lost beyond the ideal does not grow with the boot time (the run at a longer boot shows it), so this is
   * the ratio this machine would reach at Windows Server's boot time. A projection, not a measurement.
   */
  ratio_at_unscaled_boot: Record<string, number>;
  /** maxUnavailable → one-at-a-time seconds ÷ these seconds. */
  speedup: Record<string, number>;
}

export async function rolloutFigures(
  hosts: BenchHost[],
  widths: number[],
  runs: number,
  bootSeconds: number,
  log: (l: string) => void,
): Promise<RolloutFigures> {
  const kube = new FakeKube();
  await kube.start();
  try {
    const nodes = new FakeNodes(kube);
    const name = (i: number) => `win-${String(i).padStart(3, "0")}`;
    hosts.forEach((h, i) => nodes.add(name(i), { address: h.host.host }));
    const byName = new Map(hosts.map((h, i) => [name(i), h]));
    const api = await connectKube({ kubeconfig: kube.kubeconfig() }, 30_000);
    const reach = (n: { name: string }) => {
      const h = byName.get(n.name);
      if (!h) return { problem: "not a benchmark host" };
      const connection = {
        host: h.host.host,
        port: h.host.port,
        user: h.host.user,
        privateKey: h.host.privateKey,
        hostKey: h.host.hostKeyFingerprint,
        deadlineSeconds: 30,
      };
      return { connection, hostKey: h.host.hostKeyFingerprint };
    };
    /** One rolling reboot of the first `count` hosts, `k` at a time, each taking `boot` seconds to start. */
    const rollout = async (count: number, k: number, boot: number, token: string): Promise<RolloutRun> => {
      const some = hosts.slice(0, count);
      resetHosts(some, (_h, i) => ({
        ...freshWindowsState(name(i)),
        bootTime: "2026-11-01T00:00:00.0000000Z",
        rebootSeconds: boot,
      }));
      const plan = planRollout(
        some.map((_h, i) => ({ name: name(i) })),
        token,
        k,
      );
      const seen = new Timeline();
      const progress = (line: string) => seen.note(line);
      const [ms, result] = await timed(() =>
        runRollingReboot(api, plan.batches, reach, {
          token,
          aws: false,
          drain: { ...DRAIN_RUN_DEFAULTS, retryDelayMs: 50 },
          reboot: { upTimeoutMs: 120_000, pollMs: 100, attemptSeconds: 10, progress },
          readyTimeoutMs: 30_000,
          readyPollMs: 50,
          progress,
        }),
      );
      if (result.rebooted.length !== count)
        throw new Error(`the rollout rebooted ${result.rebooted.length} of ${count} nodes`);
      // When each host's boot ended, as the stand-in set it at the restart (test/lab/fake-powershell.js `upAt`).
      const upAt = new Map(some.map((h, i) => [name(i), Number(JSON.parse(fs.readFileSync(h.state, "utf8")).upAt)]));
      return { ms, phases: seen.phases(upAt) };
    };
    const times: Record<string, number[]> = {};
    const phases: Record<string, NodePhases[]> = {};
    const alone: RolloutRun[] = [];
    for (let r = 0; r < runs; r++) {
      alone.push(await rollout(1, 1, 0, `bench-alone-${r}`));
      for (const k of widths) {
        const run = await rollout(hosts.length, k, bootSeconds, `bench-${k}-${r}`);
        (times[k] ??= []).push(run.ms);
        (phases[k] ??= []).push(...run.phases);
        log(`run ${r + 1}: rolling reboot of ${hosts.length} nodes, maxUnavailable ${k}: ${secs(run.ms)}s`);
      }
    }
    const overhead = median(alone.map((a) => a.ms));
    const alonePhases = alone.flatMap((a) => a.phases);
    const seconds = Object.fromEntries(widths.map((k) => [String(k), secs(median(times[k]))]));
    const ideal = (k: number) => Math.ceil(hosts.length / k) * (bootSeconds * 1000 + overhead);
    const ideal_seconds = Object.fromEntries(widths.map((k) => [String(k), secs(ideal(k))]));
    const ratio_to_ideal = Object.fromEntries(widths.map((k) => [String(k), ratio(median(times[k]), ideal(k))]));
    const unscaled = bootSeconds * WINDOWS_BOOT.scale * 1000;
    const ratio_at_unscaled_boot = Object.fromEntries(
      widths.map((k) => {
        const batches = Math.ceil(hosts.length / k);
        const lost = median(times[k]) - ideal(k);
        return [String(k), ratio(batches * (unscaled + overhead) + lost, batches * (unscaled + overhead))];
      }),
    );
    const one = median(times[widths[0]]);
    const speedup = Object.fromEntries(widths.map((k) => [String(k), ratio(one, median(times[k]))]));
    log(`rolling reboot, ${bootSeconds}s boot, one node's own work ${secs(overhead)}s (alone, no boot):`);
    const phase = (ps: NodePhases[], p: keyof NodePhases) => secs(median(ps.map((x) => x[p])));
    for (const k of widths) {
      log(
        `  maxUnavailable ${k}: measured ${seconds[k]}s, ideal ${ideal_seconds[k]}s (${Math.ceil(hosts.length / k)} × (${bootSeconds} + ${secs(overhead)})s), ratio ${ratio_to_ideal[k]}`,
      );
      // Where the time beyond the ideal goes, per node (median), against the same node alone.
      log(
        `    per node, alone → here: before its restart ${phase(alonePhases, "beforeMs")} → ${phase(phases[k], "beforeMs")}s, ` +
          `boot end to seen back ${phase(alonePhases, "lagMs")} → ${phase(phases[k], "lagMs")}s, ` +
          `after ${phase(alonePhases, "afterMs")} → ${phase(phases[k], "afterMs")}s; ` +
          `its batch's slowest node ended ${phase(phases[k], "behindSlowestMs")}s after it`,
      );
      log(
        `    with the boot unscaled (${secs(unscaled)}s) and the rest as measured: ratio ${ratio_at_unscaled_boot[k]} (a projection)`,
      );
    }
    return {
      boot_seconds: bootSeconds,
      overhead_seconds: secs(overhead),
      seconds,
      ideal_seconds,
      ratio_to_ideal,
      ratio_at_unscaled_boot,
      speedup,
    };
  } finally {
    await kube.stop();
  }
}
