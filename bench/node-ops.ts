/**
 * (a) BYOH preparation and refresh, (b) vanilla node convergence and a no-op refresh: ours (the real providers, all
 * hosts in parallel as the engine runs them) against the lower bound replaying the same round trips, and for (b)
 * against Ansible doing the same steps. Each run starts from the same simulated host state.
 */
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import type * as pulumi from "@pulumi/pulumi";
import { windowsHostProvider, WindowsHostInputs, WindowsHostOutputs } from "../providers/windows-host/provider";
import { vanillaNodeProvider, VanillaNodeInputs, VanillaNodeOutputs } from "../providers/vanilla-node/provider";
import { offlineJoinConfig, releaseDownloads } from "../test/helpers/vanilla-fixtures";
import { freshWindowsState } from "../test/lab/windows-state";
import { BenchHost, HostCost, resetHosts, withCosts, worst } from "./hosts";
import { replay } from "./lower-bound";
import { AnsibleCost, ansibleSetup } from "./ansible";
import { median, peakGrowthMb, ratio, secs, timed } from "./stats";

export interface OpFigures {
  ours_s: number;
  lower_bound_s: number;
  ratio: number;
  logins: number;
  launches: number;
  commands: number;
  transfers: number;
  peak_mb_per_host: number;
}

interface Run {
  oursMs: number;
  boundMs: number;
  costs: HostCost[];
  mb: number;
}

function figures(runs: Run[], hosts: number): OpFigures {
  const ours = median(runs.map((r) => r.oursMs));
  const bound = median(runs.map((r) => r.boundMs));
  const w = worst(runs[runs.length - 1].costs);
  return {
    ours_s: secs(ours),
    lower_bound_s: secs(bound),
    ratio: ratio(ours, bound),
    logins: w.logins,
    launches: w.launches,
    commands: w.commands,
    transfers: w.transfers,
    peak_mb_per_host: Math.round((median(runs.map((r) => r.mb)) / hosts) * 1000) / 1000,
  };
}

/** The most of each count any host needed in one Ansible run. */
const ansibleWorst = (costs: AnsibleCost[]): AnsibleCost => ({
  logins: Math.max(...costs.map((c) => c.logins)),
  launches: Math.max(...costs.map((c) => c.launches)),
  transfers: Math.max(...costs.map((c) => c.transfers)),
});

/** Ours timed (with memory), its per-host costs read, then the lower bound replaying them from the same state. */
async function measure<T>(
  hosts: BenchHost[],
  state: (h: BenchHost, i: number) => Record<string, unknown>,
  ours: () => Promise<T>,
  files: (i: number) => { path: string; data: Buffer }[] = () => [],
): Promise<Run & { result: T }> {
  resetHosts(hosts, state);
  const [oursMs, [mb, { result, costs }]] = await timed(() => peakGrowthMb(() => withCosts(hosts, ours)));
  const after = hosts.map((h) => fs.readFileSync(h.state, "utf8"));
  resetHosts(hosts, state);
  const [boundMs] = await timed(() =>
    replay(
      hosts.map((h) => h.host),
      costs,
      files,
    ),
  );
  // Leave the hosts as ours left them, so that a following operation (a refresh) starts from there.
  hosts.forEach((h, i) => fs.writeFileSync(h.state, after[i]));
  return { oursMs, boundMs, costs, mb, result };
}

/**
 * A refresh as `pulumi refresh` then `pulumi preview` do it: read the host, then diff against the declaration, which
 * must find nothing (otherwise the benchmark measures something else).
 */
async function refreshFindsNothing(
  provider: pulumi.dynamic.ResourceProvider,
  outs: unknown,
  declared: unknown,
  what: string,
): Promise<void> {
  if (!provider.read || !provider.diff) throw new Error(`the provider of a ${what} has no read or diff`);
  const read = await provider.read("id", outs);
  if ((await provider.diff("id", read.props, declared)).changes)
    throw new Error(`the refresh of a ${what} found changes: the benchmark is wrong`);
}

/** Every host's refresh measured from the state the operation before left it in (`measure` leaves it so). */
async function measureRefresh(
  hosts: BenchHost[],
  provider: pulumi.dynamic.ResourceProvider,
  outs: unknown[],
  declared: (h: BenchHost) => unknown,
  what: string,
): Promise<Run> {
  const left = hosts.map((h) => JSON.parse(fs.readFileSync(h.state, "utf8")));
  return measure(
    hosts,
    (_h, i) => left[i],
    () => Promise.all(hosts.map((h, i) => refreshFindsNothing(provider, outs[i], declared(h), what))),
  );
}

/** A bench host's connection, its key pinned, as both kinds of node take it. */
function connectionOf(h: BenchHost) {
  return {
    host: h.host.host,
    port: h.host.port,
    user: h.host.user,
    privateKey: h.host.privateKey,
    hostKey: h.host.hostKeyFingerprint,
    deadlineSeconds: 60,
  };
}

function byohInputs(h: BenchHost): WindowsHostInputs {
  return {
    connection: connectionOf(h),
    wmcoPublicKey: h.host.publicKey,
    wmcoPrivateKey: h.host.privateKey,
  };
}

export async function byohFigures(hosts: BenchHost[], runs: number, log: (l: string) => void) {
  const prepare: Run[] = [];
  const refresh: Run[] = [];
  const fresh = (_h: BenchHost, i: number) => freshWindowsState(`byoh-${i}`);
  for (let r = 0; r < runs; r++) {
    const p = await measure(hosts, fresh, () =>
      Promise.all(hosts.map((h) => windowsHostProvider.create(byohInputs(h)))),
    );
    prepare.push(p);
    const outs: WindowsHostOutputs[] = p.result.map((c) => c.outs);
    const f = await measureRefresh(hosts, windowsHostProvider, outs, byohInputs, "prepared host");
    refresh.push(f);
    log(
      `run ${r + 1}: BYOH prepare ${secs(p.oursMs)}s (lower bound ${secs(p.boundMs)}s), refresh ${secs(f.oursMs)}s (${secs(f.boundMs)}s)`,
    );
  }
  return { prepare: figures(prepare, hosts.length), refresh: figures(refresh, hosts.length) };
}

function vanillaInputs(h: BenchHost): VanillaNodeInputs {
  return {
    connection: { ...connectionOf(h), pathStyle: "posix" },
    downloads: releaseDownloads("1.36.2"),
    vxlanPort: 4789,
    containerdConfigPath: "C:\\k\\containerd\\config.toml",
    joinConfigPath: path.join(h.dir, "kubeadm", "join.yaml"),
    joinConfig: offlineJoinConfig(),
  };
}

export async function vanillaFigures(hosts: BenchHost[], runs: number, log: (l: string) => void, withAnsible: boolean) {
  const converge: Run[] = [];
  const noop: Run[] = [];
  const ansible: { converge: number; noop: number; convergeCost: AnsibleCost[]; noopCost: AnsibleCost[] }[] = [];
  const fresh = (h: BenchHost, i: number) => {
    fs.mkdirSync(path.join(h.dir, "kubeadm"), { recursive: true });
    return freshWindowsState(`node-${i}`);
  };
  const joinFile = (i: number) => [
    { path: vanillaInputs(hosts[i]).joinConfigPath, data: Buffer.from(vanillaInputs(hosts[i]).joinConfig) },
  ];
  const work = fs.mkdtempSync(path.join(os.tmpdir(), "bench-ansible-"));
  try {
    for (let r = 0; r < runs; r++) {
      const c = await measure(
        hosts,
        fresh,
        () => Promise.all(hosts.map((h) => vanillaNodeProvider.create(vanillaInputs(h)))),
        joinFile,
      );
      converge.push(c);
      const outs: VanillaNodeOutputs[] = c.result.map((x) => x.outs);
      const converged = hosts.map((h) => JSON.parse(fs.readFileSync(h.state, "utf8")));
      const n = await measureRefresh(hosts, vanillaNodeProvider, outs, vanillaInputs, "converged node");
      noop.push(n);
      let line = `run ${r + 1}: vanilla converge ${secs(c.oursMs)}s (lower bound ${secs(c.boundMs)}s), no-op ${secs(n.oursMs)}s (${secs(n.boundMs)}s)`;
      if (withAnsible) {
        // The same steps: what our converge ran, without its two probes (Ansible reads nothing first).
        const dir = path.join(work, `run-${r}`);
        const { play, stop } = ansibleSetup(dir, hosts, (i) => ({
          scripts: c.costs[i].launches.flat().slice(1, -1),
          file: { path: vanillaInputs(hosts[i]).joinConfigPath, text: vanillaInputs(hosts[i]).joinConfig },
        }));
        resetHosts(hosts, fresh);
        try {
          const first = play();
          // Ansible must have done the same work: every host as our converge left it (otherwise the figure is wrong).
          hosts.forEach((h, i) => {
            const theirs = fs.readFileSync(h.state, "utf8");
            if (theirs !== JSON.stringify(converged[i]))
              throw new Error(`ansible-playbook left host ${i} otherwise than our converge: ${theirs.slice(0, 400)}`);
          });
          const again = play();
          ansible.push({ converge: first.ms, noop: again.ms, convergeCost: first.costs, noopCost: again.costs });
        } finally {
          stop();
        }
        const [first, again] = [ansible[ansible.length - 1].converge, ansible[ansible.length - 1].noop];
        line += `; ansible converge ${secs(first)}s, no-op ${secs(again)}s`;
      }
      log(line);
    }
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
  return {
    converge: figures(converge, hosts.length),
    noop: figures(noop, hosts.length),
    ansible: withAnsible
      ? {
          converge_s: secs(median(ansible.map((a) => a.converge))),
          noop_s: secs(median(ansible.map((a) => a.noop))),
          converge: ansibleWorst(ansible[ansible.length - 1].convergeCost),
          noop: ansibleWorst(ansible[ansible.length - 1].noopCost),
        }
      : undefined,
  };
}
