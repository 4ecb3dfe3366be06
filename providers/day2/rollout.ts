/**
 * A rolling operation on Windows nodes, batch after batch (the seven steps of the manual node-reboot procedure, per node): cordon, drain, the work
 * (by default `Restart-Computer -Force` over SSH and back with a new boot time, on AWS the metadata route; patching
 * installs updates and reboots when they ask for it), wait until the node is Ready with a heartbeat newer than before
 * the work, an optional check, uncordon. The nodes of one batch run in parallel; a failure stops the rollout after its
 * batch, leaves the failed node cordoned, and names node and step.
 *
 * Progress lives on the Node (the kured pattern): a "doing" annotation while we work on it, a "done" one once it is
 * done for this rollout's digest, so a later `pulumi up` resumes where it stopped and never redoes a finished node. A
 * node that was cordoned by someone else before we started stays cordoned.
 */
import { messageOf } from "../../lib/errors";
import { KEEP_CORDONED_ANNOTATION, REBOOTED_FOR_ANNOTATION, REBOOTING_FOR_ANNOTATION } from "../../facts/day2";
import { PowerShell } from "../ssh/powershell-runner";
import { withSession } from "../ssh/session";
import { SshConnection } from "../ssh/types";
import { drainNode, DRAIN_RUN_DEFAULTS, DrainRun, NodeApi, patchNode } from "./drain-run";
import { drainOptions, DrainSettingsInput } from "./drain";
import type { KubeApi } from "../kube-wait/api";
import { lockedJob } from "./day2-lock";
import { MaintenanceWindow, outsideWindow } from "./maintenance-window";
import { NodeAvailability, nextBatch, resolveMaxUnavailable, tokenDigest } from "./batches";
import { Blocker, clusterBlocked, nodeBlocked } from "./blockers";
import { pauseHealthChecks, resumeHealthChecks } from "./health-checks";
import { NodeFields, WindowsNode, windowsNodes, wmcoBusy } from "./inventory";
import { wmcoUpgradeRefusal } from "./wmco-upgrade";
import { lastHeartbeat, listWindowsNodes, readNode, waitForFreshReady } from "./ready";
import { rebootHost, REBOOT_DEFAULTS, RebootOptions } from "./reboot";
import { awsMetadataRouteScript, parseMetadataRoute } from "./scripts";

export { tokenDigest };

/**
 * What a rollout does to each drained node, between the drain and the wait for Ready: a reboot (the default), or
 * installing updates and rebooting when they ask for it (patching).
 */
export interface NodeWork {
  /** In messages: `rolling reboot`, `patch rollout`. */
  label: string;
  /** What the wait for Ready comes after, in its message (`the restart`). */
  readyAfter: string;
  /** Node annotations holding the rollout's digest while a node is worked on, and once it is done. */
  doingAnnotation: string;
  doneAnnotation: string;
  /** The work; `step` names the step in a failure. The connection is pinned to the key seen when the node was reached. */
  run(ctx: {
    name: string;
    connection: SshConnection;
    hostKey: string;
    step: <T>(stepName: string, fn: () => Promise<T>) => Promise<T>;
  }): Promise<void>;
  /**
   * Asked after the node was reached and before it is cordoned: whether the work can do anything for it. `skip`
   * leaves the node alone (counted as skipped); a throw fails the node untouched (the rest of its batch goes on, the
   * rollout stops after the batch). `node` is the Node as just read; `resuming`: an earlier run of this rollout cordoned
   * it, so a skip is not honoured (the work finishes it and uncordons it as usual).
   */
  precheck?(ctx: {
    name: string;
    node: NodeFields;
    resuming: boolean;
    connection: SshConnection;
    hostKey: string;
  }): Promise<{ skip: string } | undefined>;
  /** Checked once the node is Ready again, before it is uncordoned (throws to keep it cordoned). */
  verify?(name: string, api: NodeApi): Promise<void>;
}

export interface RolloutOptions {
  token: string;
  /** What is done to each node. Default: a graceful reboot. */
  work?: NodeWork;
  /** Whether the nodes run on AWS (the metadata route step). */
  aws: boolean;
  drain: DrainRun;
  reboot: RebootOptions;
  /** How long a node may take to be Ready again after SSH is back. */
  readyTimeoutMs: number;
  /** Pause between checks of the Node's Ready condition. */
  readyPollMs: number;
  progress?: (line: string) => void;
  /** Asked before each batch: a reason to stop here (cleanly, for the next run), or undefined to go on. */
  beforeBatch?: () => string | undefined;
  /**
   * How many Windows nodes may be out of service at once, counting those already out (a number or `"25%"`).
   * Default: the largest planned batch.
   */
  maxUnavailable?: number | string;
  /** Pods that hold the rollout (`cluster`) or one node (`node`) back while they run. */
  blockers?: readonly Blocker[];
}

/**
 * The drain, restart and Ready settings of a rollout from what a stack configures (`reboot.*`, `patching.*`): one
 * pause between checks everywhere, the stack's deadlines.
 */
export function rolloutTimings(
  s: DrainSettingsInput & {
    drainTimeoutSeconds: number;
    readyTimeoutSeconds: number;
    disableEviction: boolean;
    pollMs: number;
    progress: (line: string) => void;
  },
): Pick<RolloutOptions, "drain" | "reboot" | "readyTimeoutMs" | "readyPollMs" | "progress"> {
  return {
    drain: {
      ...DRAIN_RUN_DEFAULTS,
      // force, deleteEmptyDirData, gracePeriodSeconds, podSelector: the stack's, else kubectl-as-OCP defaults.
      ...drainOptions(s),
      deadlineMs: s.drainTimeoutSeconds * 1000,
      retryDelayMs: s.pollMs,
      disableEviction: s.disableEviction,
      progress: s.progress,
    },
    reboot: { ...REBOOT_DEFAULTS, pollMs: s.pollMs, progress: s.progress },
    readyTimeoutMs: s.readyTimeoutSeconds * 1000,
    readyPollMs: s.pollMs,
    progress: s.progress,
  };
}

/**
 * What every batch job's provider receives (RollingReboot, WindowsPatching: providers/rolling-reboot.ts
 * `batchJobInputs`). Drain options (force, deleteEmptyDirData, gracePeriodSeconds, podSelector): unset ones take the
 * defaults.
 */
export interface BatchJobInputs extends DrainSettingsInput {
  /** `<project>/<stack>`: the job runs under the cluster-wide day-2 lock (providers/day2/day2-lock.ts). */
  lockStack?: string;
  /** Node names, batch by batch (planned by the program from the cluster's Windows nodes). */
  batches: string[][];
  disableEviction: boolean;
  drainTimeoutSeconds: number;
  readyTimeoutSeconds: number;
  /** Pause between checks (drain, Ready, reconnection), seconds. Default 5. */
  pollSeconds?: number;
  kubeconfig?: string;
  context?: string;
  /** Windows nodes out of service at once, counting those already out (a number or `"25%"`). */
  maxUnavailable?: number | string;
  /** Pods that hold the job back while they run. */
  blockers?: Blocker[];
  /** When batches may start (days, times, time zone); undefined: any time. */
  window?: MaintenanceWindow;
  __provider?: string;
}

/**
 * Runs a batch job's planned batches under the day-2 lock (`job` names it to the lock's waiters and in messages), with
 * the stack's drain, Ready, blocker and `maxUnavailable` settings; no batch starts outside its `window` (named so).
 */
export function runBatchJob(
  api: KubeApi,
  i: BatchJobInputs,
  job: string,
  o: Pick<RolloutOptions, "token" | "aws" | "work"> & {
    reach: Reach;
    window: string;
    progress: (line: string) => void;
  },
): Promise<RolloutResult> {
  const pollMs = (i.pollSeconds ?? 5) * 1000;
  return lockedJob(api, i.lockStack, job, { pollMs, progress: o.progress }, () =>
    runRollingReboot(api, i.batches, o.reach, {
      token: o.token,
      aws: o.aws,
      ...(o.work ? { work: o.work } : {}),
      ...rolloutTimings({ ...i, pollMs, progress: o.progress }),
      beforeBatch: () => outsideWindow(new Date(), i.window, o.window),
      ...(i.maxUnavailable !== undefined ? { maxUnavailable: i.maxUnavailable } : {}),
      blockers: i.blockers ?? [],
    }),
  );
}

/** How to reach one node (address, user, key, host-key pin, path); undefined with the reason when it cannot be. */
export type Reach = (node: WindowsNode) => { connection: SshConnection; hostKey?: string } | { problem: string };

export interface RolloutResult {
  rebooted: string[];
  skipped: string[];
  /** Why the rollout stopped before its last batch without a failure (a closed window), if it did. */
  stoppedFor?: string;
  /** Host keys seen at first contact (trust on first use), by node name. */
  learnedHostKeys: Record<string, string>;
}

/** Runs one step, and names the node and the step when it fails. */
async function step<T>(node: string, name: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    throw new Error(`node ${node}, step "${name}": ${messageOf(e)}`);
  }
}

/**
 * Everything that can be known before a node is touched: every planned node exists, has an address and a way to
 * verify its host key, and WMCO is not working on it. Any problem stops the rollout before anything changes.
 */
export async function checkRollout(
  api: NodeApi,
  batches: string[][],
  reach: Reach,
  label = "rolling reboot",
): Promise<Map<string, WindowsNode>> {
  const planned = batches.flat();
  const nodes = new Map(windowsNodes(await listWindowsNodes(api), undefined, []).map((n) => [n.name, n]));
  // Any Windows node, planned or not: WMCO goes on to the next node after this one (wmco-upgrade.ts).
  const upgrading = wmcoUpgradeRefusal([...nodes.values()], label);
  if (upgrading) throw new Error(upgrading);
  const problems: string[] = [];
  for (const name of planned) {
    const n = nodes.get(name);
    if (!n) {
      problems.push(`node ${name} is no longer in the cluster (run pulumi up again to plan without it)`);
      continue;
    }
    if (n.wmcoBusy) problems.push(`node ${name}: ${n.wmcoBusy}; wait for WMCO to finish`);
    const r = reach(n);
    if ("problem" in r) problems.push(`node ${name}: ${r.problem}`);
  }
  if (problems.length > 0)
    throw new Error(`the ${label} did not start; nothing was changed:\n  - ${problems.join("\n  - ")}`);
  return nodes;
}

/**
 * The default work: `Restart-Computer -Force` and back with a new boot time; on AWS, the metadata route, read in the
 * same PowerShell process that saw the new boot time (two launches per node in all).
 */
export function rebootWork(o: Pick<RolloutOptions, "aws" | "reboot" | "progress">): NodeWork {
  return {
    label: "rolling reboot",
    readyAfter: "the restart",
    doingAnnotation: REBOOTING_FOR_ANNOTATION,
    doneAnnotation: REBOOTED_FOR_ANNOTATION,
    async run({ name, connection, hostKey, step: named }) {
      const back = await named("restart", () =>
        rebootHost(connection, hostKey, name, o.reboot, o.aws ? readMetadataRoute : undefined),
      );
      if (o.aws && back.value) await awsMetadataRoute(name, back.value, named, o.progress);
    },
  };
}

/**
 * On AWS, in the PowerShell process that saw the new boot time: the metadata route script (scripts.ts). Its outcome
 * travels as a value, so that its failure is named as its own step (`awsMetadataRoute`), not as the restart's. Shared
 * by every work that restarts a node (the rolling reboot, patching).
 */
export function readMetadataRoute(ps: PowerShell): Promise<{ out: string } | { error: unknown }> {
  return ps.run("the route script", awsMetadataRouteScript()).then(
    (out) => ({ out }),
    (error: unknown) => ({ error }),
  );
}

/**
 * After a restart on AWS: the node is not Ready until the 169.254.169.254 route is back (WMCO docs/TROUBLESHOOTING.md,
 * "Node reboot limitation in AWS"); fails, naming the node, when the metadata service still does not answer.
 */
export async function awsMetadataRoute(
  name: string,
  read: { out: string } | { error: unknown },
  named: <T>(stepName: string, fn: () => Promise<T>) => Promise<T>,
  progress?: (line: string) => void,
): Promise<void> {
  const route = await named("AWS metadata route", async () => {
    if ("error" in read) throw read.error;
    return parseMetadataRoute(read.out);
  });
  if (route.instanceId === "")
    throw new Error(
      `node ${name}, step "AWS metadata route": ${route.routeAdded ? `the route through ${route.gateway} was re-added but ` : ""}the instance metadata service does not answer; the node stays cordoned`,
    );
  progress?.(`node ${name}: metadata route ${route.routeAdded ? `re-added through ${route.gateway}` : "present"}`);
}

async function workOne(
  api: NodeApi,
  node: WindowsNode,
  reach: Reach,
  digest: string,
  o: RolloutOptions,
  work: NodeWork,
  learned: Record<string, string>,
): Promise<"done" | "skipped"> {
  const name = node.name;
  const current = await step(name, "read", () => readNode(api, name));
  const { annotations } = current;
  if (annotations[work.doneAnnotation] === digest) return "skipped";
  const resuming = annotations[work.doingAnnotation] === digest;
  // Cordoned by someone else before we began (not by an earlier run of this rollout): leave it cordoned after.
  const keepCordoned = resuming ? annotations[KEEP_CORDONED_ANNOTATION] === "true" : current.unschedulable;
  const target = reach(node);
  if ("problem" in target) throw new Error(`node ${name}: ${target.problem}`);
  // Reach it before touching it: a host that does not answer, or answers with another key than the pinned one,
  // stops here with the node untouched. With trust on first use, the key seen now is the one every reconnection
  // after the restart must present.
  const hostKey = await step(name, "connect", () =>
    withSession(target.connection, target.hostKey, async (s) => s.hostKey),
  );
  if (!target.hostKey) learned[name] = hostKey;
  const pinned = { ...target.connection, hostKey, trustOnFirstUse: false };
  const skip = await step(name, "precheck", async () =>
    work.precheck?.({ name, node: current, resuming, connection: pinned, hostKey }),
  );
  if (skip && !resuming) {
    o.progress?.(`node ${name}: skipped, ${skip.skip}`);
    return "skipped";
  }

  await step(name, "cordon", () =>
    patchNode(
      api,
      name,
      {
        metadata: {
          annotations: {
            [work.doingAnnotation]: digest,
            [KEEP_CORDONED_ANNOTATION]: keepCordoned ? "true" : null,
          },
        },
        spec: { unschedulable: true },
      },
      "cordoning",
    ),
  );
  o.progress?.(`node ${name}: cordoned${keepCordoned ? " (it was already; it stays cordoned afterwards)" : ""}`);
  await step(name, "drain", () => drainNode(api, name, o.drain));
  const heartbeatBefore = await lastHeartbeat(api, name);

  await work.run({ name, connection: pinned, hostKey, step: (stepName, fn) => step(name, stepName, fn) });

  await step(name, "wait for Ready", () =>
    waitForFreshReady(api, name, heartbeatBefore, {
      timeoutMs: o.readyTimeoutMs,
      pollMs: o.readyPollMs,
      after: work.readyAfter,
    }),
  );
  await step(name, "check", async () => work.verify?.(name, api));

  await step(name, "uncordon", () =>
    patchNode(
      api,
      name,
      {
        metadata: {
          annotations: {
            [work.doneAnnotation]: digest,
            [work.doingAnnotation]: null,
            [KEEP_CORDONED_ANNOTATION]: null,
          },
        },
        ...(keepCordoned ? {} : { spec: { unschedulable: false } }),
      },
      "uncordoning",
    ),
  );
  o.progress?.(`node ${name}: done${keepCordoned ? " (left cordoned, as it was before)" : ", uncordoned"}`);
  return "done";
}

/** Runs the planned batches in order. Throws after the first batch with a failure, naming each failed node. */
export async function runRollingReboot(
  api: NodeApi,
  batches: string[][],
  reach: Reach,
  o: RolloutOptions,
): Promise<RolloutResult> {
  const work = o.work ?? rebootWork(o);
  const nodes = await checkRollout(api, batches, reach, work.label);
  const digest = tokenDigest(o.token);
  const result: RolloutResult = { rebooted: [], skipped: [], learnedHostKeys: {} };
  // The plan's batches give the order; how many go at once is decided before each batch from the cluster as it is
  // then (nodes already out of service count), so a batch may be smaller than planned, never larger.
  const queue = batches.flat();
  const maxUnavailable = o.maxUnavailable ?? Math.max(1, ...batches.map((b) => b.length));
  const heldBack: string[] = [];
  for (let i = 0; queue.length > 0; i++) {
    const stop = o.beforeBatch?.() ?? (await clusterBlocked(api, o.blockers ?? []));
    if (stop) {
      result.stoppedFor = stop;
      o.progress?.(`stopped before batch ${i + 1}: ${stop}; the next pulumi up goes on`);
      break;
    }
    const chosen = await chooseBatch(api, queue, maxUnavailable, o, work.label);
    const batch: string[] = [];
    for (const name of chosen) {
      queue.splice(queue.indexOf(name), 1);
      const blocked = await nodeBlocked(api, o.blockers ?? [], name);
      if (blocked) {
        heldBack.push(`${name} (${blocked})`);
        o.progress?.(`node ${name}: held back by ${blocked}; the next pulumi up tries it again`);
      } else batch.push(name);
    }
    if (batch.length === 0) continue;
    const total = i + 1 + Math.ceil(queue.length / resolveMaxUnavailable(maxUnavailable, nodes.size));
    o.progress?.(`batch ${i + 1}/${total}: ${batch.join(", ")}`);
    // MachineHealthChecks would remediate (delete) a Machine whose node is NotReady while it restarts: paused for
    // the batch, resumed after it.
    const machines = batch.map((name) => nodes.get(name)?.machine);
    const paused = await pauseHealthChecks(api, machines, digest);
    if (paused.length > 0) o.progress?.(`batch ${i + 1}: paused MachineHealthCheck(s) ${paused.join(", ")}`);
    const outcomes = await Promise.allSettled(
      batch.map((name) => {
        const node = nodes.get(name);
        if (!node) return Promise.reject(new Error(`node ${name} is not in the inventory`));
        return workOne(api, node, reach, digest, o, work, result.learnedHostKeys);
      }),
    );
    const failed: string[] = [];
    outcomes.forEach((r, j) => {
      if (r.status === "rejected") failed.push(messageOf(r.reason));
      else (r.value === "done" ? result.rebooted : result.skipped).push(batch[j]);
    });
    if (failed.length > 0) {
      // The checks stay paused: a cordoned node under investigation must not be remediated away meanwhile.
      const held =
        paused.length > 0
          ? ` MachineHealthCheck(s) ${paused.join(", ")} stay paused until the next run finishes the batch (or: oc -n openshift-machine-api annotate machinehealthcheck <name> cluster.x-k8s.io/paused- windows-estate.io/paused-for-rollout-).`
          : "";
      throw new Error(
        `the ${work.label} stopped in batch ${i + 1}/${total}:\n  - ${failed.join("\n  - ")}\n` +
          `Done so far: ${result.rebooted.join(", ") || "none"}. Not started: ${[...queue, ...heldBack].join(", ") || "none"}. ` +
          `Fix the cause and run pulumi up again: it resumes, and finished nodes are left alone.${held}`,
      );
    }
    await resumeHealthChecks(api, paused);
  }
  if (heldBack.length > 0 && !result.stoppedFor) result.stoppedFor = `held back by blockers: ${heldBack.join(", ")}`;
  return result;
}

/** The Windows nodes as the next batch's choice needs them, read now. */
async function availability(api: NodeApi): Promise<NodeAvailability[]> {
  return (await listWindowsNodes(api)).map((n) => {
    const busy = wmcoBusy(n);
    return {
      name: n.name,
      ready: n.ready.status === "True",
      unschedulable: n.unschedulable,
      ...(busy ? { wmcoBusy: busy } : {}),
    };
  });
}

/**
 * The next batch from the front of the queue (providers/day2/batches.ts `nextBatch`); while nothing fits (nodes out
 * of service, WMCO at work) it waits, saying why once a minute, and gives up after the Ready timeout with nothing
 * of the waiting nodes changed.
 */
async function chooseBatch(
  api: NodeApi,
  queue: readonly string[],
  maxUnavailable: number | string,
  o: RolloutOptions,
  label: string,
): Promise<string[]> {
  const deadline = Date.now() + o.readyTimeoutMs;
  for (let tries = 0; ; tries++) {
    const cluster = await availability(api);
    const next = nextBatch(queue, cluster, resolveMaxUnavailable(maxUnavailable, cluster.length));
    if (next.take.length > 0) return next.take;
    if (Date.now() + o.readyPollMs > deadline)
      throw new Error(
        `the ${label} waited ${Math.round(o.readyTimeoutMs / 1000)}s and could not take ${queue[0]} out: ${next.waitFor}. Nothing was changed on ${queue.join(", ")}; bring the other nodes back (or raise maxUnavailable) and run pulumi up again`,
      );
    if (tries % Math.max(1, Math.round(60_000 / o.readyPollMs)) === 0)
      o.progress?.(`waiting before ${queue[0]}: ${next.waitFor}`);
    await new Promise((r) => setTimeout(r, o.readyPollMs));
  }
}
