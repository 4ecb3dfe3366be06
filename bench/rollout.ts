/**
 * (c) A rolling reboot of N nodes through the real rollout engine (providers/day2/rollout.ts: cordon, drain, restart
 * over SSH, back with a new boot time, Ready with a fresh heartbeat, uncordon), its Nodes behind the local Kubernetes
 * API stand-in, with maxUnavailable 1 (WMCO's model: one node at a time, the same work per node) and larger. Each
 * simulated host takes `bootSeconds` to start after its restart, as Windows does, so that the figure is about the
 * rollout's concurrency, not about how fast the lab restarts.
 */
import { planRollout } from "../providers/day2/batches";
import { DRAIN_RUN_DEFAULTS } from "../providers/day2/drain-run";
import { runRollingReboot } from "../providers/day2/rollout";
import { connectKube } from "../providers/kube-wait/api";
import { FakeKube } from "../test/helpers/fake-kube";
import { FakeNodes } from "../test/helpers/fake-nodes";
import { freshWindowsState } from "../test/lab/windows-state";
import { BenchHost, resetHosts } from "./hosts";
import { median, ratio, secs, timed } from "./stats";

export interface RolloutFigures {
  boot_seconds: number;
  /** maxUnavailable → median seconds for the whole rollout. */
  seconds: Record<string, number>;
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
    const times: Record<string, number[]> = {};
    for (let r = 0; r < runs; r++) {
      for (const k of widths) {
        resetHosts(hosts, (_h, i) => ({
          ...freshWindowsState(name(i)),
          bootTime: "2026-11-01T00:00:00.0000000Z",
          rebootSeconds: bootSeconds,
        }));
        const token = `bench-${k}-${r}`;
        const plan = planRollout(
          hosts.map((_h, i) => ({ name: name(i) })),
          token,
          k,
        );
        const [ms, result] = await timed(() =>
          runRollingReboot(api, plan.batches, reach, {
            token,
            aws: false,
            drain: { ...DRAIN_RUN_DEFAULTS, retryDelayMs: 50 },
            reboot: { upTimeoutMs: 120_000, pollMs: 100, attemptSeconds: 10 },
            readyTimeoutMs: 30_000,
            readyPollMs: 50,
          }),
        );
        if (result.rebooted.length !== hosts.length)
          throw new Error(`the rollout rebooted ${result.rebooted.length} of ${hosts.length} nodes`);
        (times[k] ??= []).push(ms);
        log(`run ${r + 1}: rolling reboot of ${hosts.length} nodes, maxUnavailable ${k}: ${secs(ms)}s`);
      }
    }
    const seconds = Object.fromEntries(widths.map((k) => [String(k), secs(median(times[k]))]));
    const one = median(times[widths[0]]);
    const speedup = Object.fromEntries(widths.map((k) => [String(k), ratio(one, median(times[k]))]));
    return { boot_seconds: bootSeconds, seconds, speedup };
  } finally {
    await kube.stop();
  }
}
