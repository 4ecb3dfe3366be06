import type * as pulumi from "@pulumi/pulumi";
import { connectKube } from "../kube-wait/api";
import { isUnknown } from "../unknown";
import { NodeReachSettings, reachNode } from "./node-reach";
import { rolloutTimings, runRollingReboot } from "./rollout";
import type { DrainSettingsInput } from "./drain";
import { lockedJob } from "./day2-lock";

/** Drain options (force, deleteEmptyDirData, gracePeriodSeconds, podSelector): unset ones take the defaults. */
export interface RollingRebootInputs extends DrainSettingsInput {
  /** Changing it asks for a new rolling reboot. */
  token: string;
  /** Node names, batch by batch (planned by the program from the cluster's Windows nodes). */
  batches: string[][];
  disableEviction: boolean;
  drainTimeoutSeconds: number;
  readyTimeoutSeconds: number;
  /** Pause between checks (drain, Ready, reconnection), seconds. Default 5. */
  pollSeconds?: number;
  kubeconfig?: string;
  context?: string;
  reach: Omit<NodeReachSettings, "recordedHostKeys">;
  /** `<project>/<stack>`: the reboot runs under the cluster-wide day-2 lock (providers/day2/day2-lock.ts). */
  lockStack?: string;
  __provider?: string;
}

export interface RollingRebootOutputs extends RollingRebootInputs {
  /** Nodes rebooted by the last run, in order. */
  rebooted: string[];
  /** Host keys recorded at first contact (trust on first use), by node name: enforced from then on. */
  recordedHostKeys: Record<string, string>;
}

const progress = (line: string) => console.error(`rolling reboot: ${line}`);

async function run(inputs: RollingRebootInputs, recorded: Record<string, string>): Promise<RollingRebootOutputs> {
  const poll = (inputs.pollSeconds ?? 5) * 1000;
  const api = await connectKube({ kubeconfig: inputs.kubeconfig, context: inputs.context }, 30_000);
  const settings: NodeReachSettings = { ...inputs.reach, recordedHostKeys: recorded };
  const r = await lockedJob(api, inputs.lockStack, "rolling reboot", { pollMs: poll, progress }, () =>
    runRollingReboot(api, inputs.batches, (n) => reachNode(n, settings), {
      token: inputs.token,
      aws: inputs.reach.platform === "AWS",
      ...rolloutTimings({ ...inputs, pollMs: poll, progress }),
    }),
  );
  return { ...inputs, rebooted: r.rebooted, recordedHostKeys: { ...recorded, ...r.learnedHostKeys } };
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
    const tokenChanged = olds.token !== news.token;
    // Settings and credentials are kept current in state without rebooting anything (update checks the token).
    const settingsChanged =
      JSON.stringify({ ...olds, rebooted: undefined, recordedHostKeys: undefined }) !==
      JSON.stringify({ ...news, rebooted: undefined, recordedHostKeys: undefined });
    return { changes: tokenChanged || settingsChanged, replaces: [], deleteBeforeReplace: false };
  },
  async create(inputs: RollingRebootInputs) {
    const outs = await run(inputs, {});
    return { id: "rolling-reboot", outs };
  },
  async update(_id: string, olds: RollingRebootOutputs, news: RollingRebootInputs) {
    if (olds.token === news.token)
      return { outs: { ...news, rebooted: olds.rebooted ?? [], recordedHostKeys: olds.recordedHostKeys ?? {} } };
    return { outs: await run(news, olds.recordedHostKeys ?? {}) };
  },
  async delete() {
    // Nothing to undo: the nodes were rebooted. Our progress annotations stay as a record on the Nodes.
  },
};
