import type * as pulumi from "@pulumi/pulumi";
import { connectKube } from "../kube-wait/api";
import { isUnknown } from "../unknown";
import { NodeReachSettings, reachNode } from "./node-reach";
import { BatchJobInputs, runBatchJob } from "./rollout";

export interface RollingRebootInputs extends BatchJobInputs {
  /** Changing it asks for a new rolling reboot. */
  token: string;
  reach: Omit<NodeReachSettings, "recordedHostKeys">;
}

export interface RollingRebootOutputs extends RollingRebootInputs {
  /** Nodes rebooted by the last run, in order. */
  rebooted: string[];
  /** Why the last run stopped before its last batch without a failure (a closed window, a blocker), if it did. */
  stoppedFor?: string;
  /** Host keys recorded at first contact (trust on first use), by node name: enforced from then on. */
  recordedHostKeys: Record<string, string>;
}

const progress = (line: string) => console.error(`rolling reboot: ${line}`);

async function run(
  inputs: RollingRebootInputs,
  recorded: Record<string, string>,
  previous: string[] = [],
): Promise<RollingRebootOutputs> {
  const api = await connectKube(inputs, 30_000);
  const settings: NodeReachSettings = { ...inputs.reach, recordedHostKeys: recorded };
  const r = await runBatchJob(api, inputs, "rolling reboot", {
    token: inputs.token,
    aws: inputs.reach.platform === "AWS",
    reach: (n) => reachNode(n, settings),
    window: "reboot",
    progress,
  });
  if (r.stoppedFor) progress(`stopped early: ${r.stoppedFor}; the next pulumi up goes on`);
  return {
    ...inputs,
    rebooted: [...previous, ...r.rebooted],
    ...(r.stoppedFor ? { stoppedFor: r.stoppedFor } : {}),
    recordedHostKeys: { ...recorded, ...r.learnedHostKeys },
  };
}

/**
 * The RollingReboot dynamic provider. `check` keeps the previous plan while the token is unchanged, so a node that
 * joined later or a re-ordered inventory never shows as a change; only a new token (or the first `up`) reboots.
 */
export const rollingRebootProvider: pulumi.dynamic.ResourceProvider = {
  async check(olds: Partial<RollingRebootOutputs>, news: RollingRebootInputs) {
    const failures: pulumi.dynamic.CheckFailure[] = [];
    if (!isUnknown(news.token) && (typeof news.token !== "string" || news.token === ""))
      failures.push({ property: "token", reason: "must be a non-empty string (windows-estate:reboot.token)" });
    const sameToken = olds.token !== undefined && olds.token === news.token;
    return { inputs: sameToken && olds.batches ? { ...news, batches: olds.batches } : news, failures };
  },
  async diff(_id: string, olds: RollingRebootOutputs, news: RollingRebootInputs) {
    // A run that stopped early (window closed, a blocker) is not finished: the next up goes on with it.
    const unfinished = olds.token !== news.token || olds.stoppedFor !== undefined;
    // Settings and credentials are kept current in state without rebooting anything (update checks the token).
    const settingsChanged =
      JSON.stringify({ ...olds, rebooted: undefined, recordedHostKeys: undefined, stoppedFor: undefined }) !==
      JSON.stringify({ ...news, rebooted: undefined, recordedHostKeys: undefined, stoppedFor: undefined });
    return { changes: unfinished || settingsChanged, replaces: [], deleteBeforeReplace: false };
  },
  async create(inputs: RollingRebootInputs) {
    const outs = await run(inputs, {});
    return { id: "rolling-reboot", outs };
  },
  async update(_id: string, olds: RollingRebootOutputs, news: RollingRebootInputs) {
    if (olds.token === news.token && olds.stoppedFor === undefined)
      return { outs: { ...news, rebooted: olds.rebooted ?? [], recordedHostKeys: olds.recordedHostKeys ?? {} } };
    // Resuming a run that stopped early keeps its record of what was done; a new token starts a new record.
    const previous = olds.token === news.token ? (olds.rebooted ?? []) : [];
    return { outs: await run(news, olds.recordedHostKeys ?? {}, previous) };
  },
  async delete() {
    // Nothing to undo: the nodes were rebooted. Our progress annotations stay as a record on the Nodes.
  },
};
