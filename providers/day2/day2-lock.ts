/**
 * The one cluster-wide lock of the disruptive day-2 jobs (rolling reboot, patching, Machine rollout, vanilla upgrades):
 * a Lease that any stack, CLI run or Pulumi Kubernetes Operator job must hold before it takes a Windows node out of
 * service, as kured holds one lock for all its reboots (kured pkg/daemonsetlock). Pulumi's own lock covers one stack
 * only. The holder names the stack and the job; one stack's jobs run one after another (ordered by the program), so
 * the lock is re-entrant for the same stack, and another stack waits, told who holds it.
 */
import type { KubeApi } from "../kube-wait/api";
import { acquireLease, HeldSlot } from "./leases";
import { DAY2_LOCK } from "../../facts/day2";

/** Who asks: the stack (`<project>/<stack>`) and the job. */
export interface LockHolder {
  stack: string;
  job: string;
}

/** The Lease's holder identity: stack and job, readable in `kubectl get lease`. */
export function holderIdentity(h: LockHolder): string {
  return `windows-estate stack=${h.stack} job=${h.job}`;
}

/** The stack a holder identity names, or undefined for a holder that is not ours. */
export function holderStack(identity: string): string | undefined {
  return /^windows-estate stack=(\S+) job=/.exec(identity)?.[1];
}

export interface LockOptions {
  pollMs: number;
  timeoutMs: number;
  progress?: (line: string) => void;
}

/** Takes the day-2 lock for `holder`, waiting while another stack holds it; re-entrant for the same stack. */
export function acquireDay2Lock(api: KubeApi, holder: LockHolder, o: LockOptions): Promise<HeldSlot> {
  return acquireLease(api, {
    namespace: DAY2_LOCK.namespace,
    names: [DAY2_LOCK.name],
    holder: holderIdentity(holder),
    what: "the day-2 lock",
    ours: (current) => holderStack(current) === holder.stack,
    leaseSeconds: DAY2_LOCK.leaseSeconds,
    pollMs: o.pollMs,
    timeoutMs: o.timeoutMs,
    progress: o.progress,
  });
}

/** A stack's jobs sharing the lock in this process, by stack: how many have joined and not left. */
const shares = new Map<string, number>();

/** One job's share of the day-2 lock its stack's concurrent jobs hold together (`joinDay2Lock`). */
export interface LockShare {
  /**
   * The job is done: the last of its stack's jobs in this process releases the lock, unless `stillBusy` says one
   * elsewhere still needs it; the others stop renewing and leave it to that last one.
   */
  leave(stillBusy?: () => Promise<boolean>): Promise<void>;
}

/**
 * Takes the day-2 lock for one of a stack's jobs that run at once (the vanilla nodes of one `up`, converged by one
 * dynamic-provider process), shared by them: it stays held until the last of them leaves, including one still
 * waiting for its upgrade slot, which holds no Lease of its own yet. The share is counted before the lock is waited
 * for. A job that fails never leaves: its siblings leave the lock to expire, as `withDay2Lock` does after a failure.
 */
export async function joinDay2Lock(api: KubeApi, holder: LockHolder, o: LockOptions): Promise<LockShare> {
  shares.set(holder.stack, (shares.get(holder.stack) ?? 0) + 1);
  const lock = await acquireDay2Lock(api, holder, o);
  let left = false;
  return {
    async leave(stillBusy) {
      if (left) return;
      left = true;
      const others = (shares.get(holder.stack) ?? 1) - 1;
      shares.set(holder.stack, others);
      if (others > 0 || (stillBusy && (await stillBusy()))) lock.abandon();
      else await lock.release();
    },
  };
}

/**
 * Runs `job` under the day-2 lock when the stack is known (`stack`: the program passes `<project>/<stack>`), else as
 * it is (state written before the lock existed, and the providers' own unit tests).
 */
export function lockedJob<T>(
  api: KubeApi,
  stack: string | undefined,
  job: string,
  o: { pollMs: number; progress?: (line: string) => void },
  run: () => Promise<T>,
): Promise<T> {
  if (stack === undefined) return run();
  return withDay2Lock(api, { stack, job }, { ...o, timeoutMs: DAY2_LOCK.waitSeconds * 1000 }, run);
}

/**
 * Runs a disruptive job under the day-2 lock. Released when the job succeeds; after a failure it is left to expire
 * (renewal stops with the process), so no other stack starts while a node this job left may still be out of service,
 * and the same stack's next `up` takes it straight back.
 */
export async function withDay2Lock<T>(
  api: KubeApi,
  holder: LockHolder,
  o: LockOptions,
  job: () => Promise<T>,
): Promise<T> {
  const lock = await acquireDay2Lock(api, holder, o);
  o.progress?.(`holding the day-2 lock (Lease ${DAY2_LOCK.namespace}/${DAY2_LOCK.name}) for ${holder.job}`);
  const result = await job().catch((e: unknown) => {
    lock.abandon();
    throw e;
  });
  await lock.release();
  return result;
}
