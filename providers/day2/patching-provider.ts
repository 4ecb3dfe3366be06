import type * as pulumi from "@pulumi/pulumi";
import { connectKube, KubeApi } from "../kube-wait/api";
import { powershellCommand } from "../ssh/powershell";
import { withSession } from "../ssh/session";
import { messageOf, isFinal } from "../../lib/errors";
import { windowsNodes } from "./inventory";
import { hostStatusScript, parseHostStatus } from "./patch-scripts";
import { SshConnection } from "../ssh/types";
import { PATCHED_FOR_ANNOTATION, PATCHING_FOR_ANNOTATION } from "../../facts/day2";
import type { NodeApi } from "./drain-run";
import { NodeReachSettings, reachNode } from "./node-reach";
import { restartFrom, REBOOT_DEFAULTS, whenBack } from "./reboot";
import { awsMetadataRoute, BatchJobInputs, NodeWork, Reach, readMetadataRoute, runBatchJob } from "./rollout";
import { listWindowsNodes, readNode } from "./ready";
import { decidePatch, installUpdates, PatchOptions, searchUpdates } from "./patch";
import type { WuaProxy } from "./patch-scripts";
import { belowMinimum, MinimumRevisions, patchLevel, patchToken } from "./patch-plan";
import { readableStderr } from "../ssh/clixml";

/** `batches`: the managed nodes below the level, batch by batch. */
export interface WindowsPatchingInputs extends BatchJobInputs {
  /** Build → lowest accepted update revision. */
  minimumUpdateRevision: MinimumRevisions;
  /** Update categories (names or IDs); empty: every software update. */
  categories: string[];
  /** Nodes below the level this rollout does not patch, each with why (the policy pack's `windows-patch-level`). */
  belowNotPatched?: string[];
  /** Every managed node (BYOH, vanilla) by name: their uptime and pending restart are read over SSH. */
  managedNodes?: string[];
  /** How long Windows Update may take on one node (search, download, install), minutes. */
  installTimeoutMinutes: number;
  /** The proxy Windows Update goes through (IUpdateSession.WebProxy in the SYSTEM task); undefined: the host's own. */
  proxy?: WuaProxy;
  /** How long a host may take to answer SSH again after its restart, seconds. Default 600 (WMCO's 10 minutes). */
  restartTimeoutSeconds?: number;
  /** How BYOH nodes are reached (OpenShift stacks). */
  reach?: Omit<NodeReachSettings, "recordedHostKeys">;
  /** How vanilla nodes are reached: their connection by the Node's address (InternalIP/InternalDNS) or name. */
  connections?: Record<string, SshConnection>;
}

export interface WindowsPatchingOutputs extends WindowsPatchingInputs {
  /** Nodes patched by the last run, in order. */
  patched: string[];
  /** Why the last run stopped early without a failure (the window closed), if it did. */
  stoppedFor?: string;
  /** Per managed node, as last read over SSH (up and refresh): boot time, uptime and a pending restart. */
  hostStatus?: Record<string, NodeHostStatus>;
  recordedHostKeys: Record<string, string>;
}

const progress = (line: string) => console.error(`patching: ${line}`);

/**
 * Whether the nodes run on AWS, decided as for the rolling reboot (rolling-reboot-provider.ts): the cluster's platform
 * from the reach settings. After a restart there, the metadata route must be re-added (WMCO docs/TROUBLESHOOTING.md).
 */
export const onAws = (i: Pick<WindowsPatchingInputs, "reach">) => i.reach?.platform === "AWS";

/** The WUA task's settings: categories, the install timeout (also the task's own limit), the proxy. */
const wua = (i: WindowsPatchingInputs, pollMs: number): PatchOptions => ({
  categories: i.categories,
  timeoutMs: i.installTimeoutMinutes * 60_000,
  pollMs,
  progress,
  ...(i.proxy ? { proxy: i.proxy } : {}),
});

/** Install updates, restart when Windows asks (or a restart was already pending), then check the level reached. */
export function patchWork(i: WindowsPatchingInputs, pollMs: number): NodeWork {
  return {
    label: "patch rollout",
    readyAfter: "the updates",
    doingAnnotation: PATCHING_FOR_ANNOTATION,
    doneAnnotation: PATCHED_FOR_ANNOTATION,
    // Search first (audit-day2 §2.4): a node below the level that nothing can bring up is named and left alone,
    // never drained only to fail at the check.
    async precheck({ name, node, resuming, connection, hostKey }) {
      const search = await searchUpdates(connection, hostKey, name, wua(i, pollMs));
      const d = decidePatch(name, node.nodeInfo.kernelVersion, i.minimumUpdateRevision, search, i.categories);
      if ("fail" in d)
        throw new Error(
          `${d.fail}. ${resuming ? `An earlier run cordoned it; it stays cordoned until it is patched (or: kubectl uncordon ${name})` : "It was not cordoned"}`,
        );
      progress(`node ${name}: ${"go" in d ? d.go : d.skip}`);
      return "skip" in d ? d : undefined;
    },
    async run({ name, connection, hostKey, step }) {
      const reboot = {
        ...REBOOT_DEFAULTS,
        upTimeoutMs: (i.restartTimeoutSeconds ?? 600) * 1000,
        // One reconnection attempt never outlasts the whole restart budget.
        attemptSeconds: Math.min(REBOOT_DEFAULTS.attemptSeconds, i.restartTimeoutSeconds ?? 600),
        pollMs,
        progress,
      };
      // The restart is started in the install's PowerShell process; its outcome travels as a value, so that a
      // failure is named as the restart's.
      const { value: restart } = await step("install updates", () =>
        installUpdates(connection, hostKey, name, wua(i, pollMs), (ps, outcome) =>
          outcome.rebootDue
            ? restartFrom(ps, name, reboot).then(
                (before) => ({ before }),
                (error: unknown) => ({ error }),
              )
            : Promise.resolve(undefined),
        ),
      );
      if (!restart) return;
      const aws = onAws(i);
      const back = await step("restart", async () => {
        if ("error" in restart) throw restart.error;
        // On AWS the metadata route is read in the process that saw the new boot time, as the rolling reboot does.
        return whenBack(connection, hostKey, name, restart.before, reboot, (ps) =>
          aws ? readMetadataRoute(ps) : Promise.resolve(undefined),
        );
      });
      if (aws && back.value) await awsMetadataRoute(name, back.value, step, progress);
    },
    async verify(name: string, api: NodeApi) {
      const kernel = (await readNode(api, name)).nodeInfo.kernelVersion;
      const below = belowMinimum(kernel, i.minimumUpdateRevision);
      if (below)
        throw new Error(
          `after the updates the kubelet reports ${below} (kernelVersion ${kernel}): the update source offers nothing newer; check WSUS approvals or the categories; the node stays cordoned`,
        );
      progress(`node ${name}: at revision ${patchLevel(kernel)?.revision}`);
    },
  };
}

export type NodeHostStatus =
  { bootTime: string; uptimeHours: number; rebootPending: boolean } | { unreachable: string };

/**
 * How the rollout reaches a node: a vanilla node by its connection, pinned to its configured key, else (trust on first
 * use) to the key an earlier run recorded for it, so only the first contact trusts; a BYOH node by `reach`.
 */
export function reachFor(i: WindowsPatchingInputs, recorded: Record<string, string>): Reach {
  return (n) => {
    const byAddress = (n.address ? i.connections?.[n.address] : undefined) ?? i.connections?.[n.name];
    if (byAddress) {
      const hostKey = byAddress.hostKey ?? recorded[n.name];
      return { connection: byAddress, ...(hostKey ? { hostKey } : {}) };
    }
    if (i.reach) return reachNode(n, { ...i.reach, recordedHostKeys: recorded });
    return {
      problem: `is not a host this stack manages (no windows-estate:byoh or nodes entry at ${n.address ?? "no address"})`,
    };
  };
}

/**
 * Reads each managed node's boot time and pending restart over SSH, a few at a time; a node that cannot be reached is
 * reported so, never an error (refresh keeps working with a host down).
 */
async function hostStatuses(
  i: WindowsPatchingInputs,
  recorded: Record<string, string>,
  api: KubeApi,
): Promise<Record<string, NodeHostStatus>> {
  const names = i.managedNodes ?? [];
  if (names.length === 0) return {};
  const nodes = new Map(windowsNodes(await listWindowsNodes(api), undefined, []).map((n) => [n.name, n]));
  const reach = reachFor(i, recorded);
  const out: Record<string, NodeHostStatus> = {};
  for (let k = 0; k < names.length; k += 8)
    await Promise.all(
      names.slice(k, k + 8).map(async (name) => {
        const node = nodes.get(name);
        const target = node ? reach(node) : { problem: "is not in the cluster" };
        if ("problem" in target) {
          out[name] = { unreachable: `node ${name} ${target.problem}` };
          return;
        }
        try {
          const s = await withSession(
            // A host that is down costs one connection budget, not the retries a rollout would wait through.
            { ...target.connection, deadlineSeconds: target.connection.connectTimeoutSeconds ?? 15 },
            target.hostKey,
            async (x) => {
              const r = await x.exec(powershellCommand(hostStatusScript()));
              if (r.code !== 0)
                throw new Error(
                  `the status script failed (exit ${r.code}): ${readableStderr(r.stderr).trim().slice(-200)}`,
                );
              return parseHostStatus(r.stdout);
            },
          );
          const hours = (Date.now() - Date.parse(s.bootTime)) / 3_600_000;
          out[name] = { ...s, uptimeHours: Math.round(hours * 10) / 10 };
        } catch (e) {
          if (isFinal(e)) throw e;
          out[name] = { unreachable: messageOf(e).slice(0, 300) };
        }
      }),
    );
  return out;
}

async function run(i: WindowsPatchingInputs, recorded: Record<string, string>): Promise<WindowsPatchingOutputs> {
  const api = await connectKube(i, 30_000);
  if (i.batches.length === 0)
    return { ...i, patched: [], recordedHostKeys: recorded, hostStatus: await hostStatuses(i, recorded, api) };
  const r = await runBatchJob(api, i, "patching", {
    token: patchToken(i.minimumUpdateRevision, i.categories),
    aws: onAws(i),
    work: patchWork(i, (i.pollSeconds ?? 5) * 1000),
    reach: reachFor(i, recorded),
    window: "patch",
    progress,
  });
  const keys = { ...recorded, ...r.learnedHostKeys };
  return {
    ...i,
    patched: r.rebooted,
    ...(r.stoppedFor ? { stoppedFor: r.stoppedFor } : {}),
    recordedHostKeys: keys,
    hostStatus: await hostStatuses(i, keys, api),
  };
}

/**
 * The WindowsPatching dynamic provider: each `pulumi up` patches the managed nodes the program found below the declared
 * level (the batches); nothing below, nothing to do. Progress is on the Nodes, so a failed run resumes.
 */
export const windowsPatchingProvider: pulumi.dynamic.ResourceProvider = {
  async diff(_id: string, olds: WindowsPatchingOutputs, news: WindowsPatchingInputs) {
    const settingsChanged =
      JSON.stringify({ ...olds, patched: undefined, recordedHostKeys: undefined }) !==
      JSON.stringify({ ...news, patched: undefined, recordedHostKeys: undefined });
    return { changes: news.batches.length > 0 || settingsChanged, replaces: [], deleteBeforeReplace: false };
  },
  async create(inputs: WindowsPatchingInputs) {
    return { id: "windows-patching", outs: await run(inputs, {}) };
  },
  async update(_id: string, olds: WindowsPatchingOutputs, news: WindowsPatchingInputs) {
    return { outs: await run(news, olds.recordedHostKeys ?? {}) };
  },
  async read(id: string, props?: WindowsPatchingOutputs) {
    if (!props) return { id, props: {} };
    // Refresh: the managed nodes' uptime and pending restart, as they are now.
    const api = await connectKube(props, 30_000);
    return { id, props: { ...props, hostStatus: await hostStatuses(props, props.recordedHostKeys ?? {}, api) } };
  },
  async delete() {
    // Nothing to undo: installed updates stay. Our annotations stay on the Nodes as a record.
  },
};
