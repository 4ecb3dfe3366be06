import { z } from "zod";
import { labelSelectorProblem } from "../../lib/label-selector";

/**
 * How a day-2 job drains each node, shared by `windows-estate:reboot` and `windows-estate:patching` (spread into
 * both, documented once). The drain follows `kubectl drain` (kubernetes/kubectl pkg/drain): DaemonSet and mirror
 * pods stay, the rest is evicted through the Eviction API; see docs/day2.md, "Draining".
 */
export const drainSettings = {
  /**
   * Delete pods instead of evicting them, ignoring PodDisruptionBudgets (`kubectl drain --disable-eviction`).
   * Default false.
   */
  disableEviction: z.boolean().default(false),
  /**
   * How long draining one node may take, evictions and waiting for the pods to leave (`--timeout`), seconds; past
   * it the job stops and the node stays cordoned. 10 to 86400. Default 600.
   */
  drainTimeoutSeconds: z.number().int().min(10).max(86400).default(600),
  /**
   * Also delete pods no controller recreates (bare pods) and pods whose DaemonSet is gone (`--force`). False: the
   * drain stops before evicting anything when the node has such pods, naming them. Default true.
   */
  force: z.boolean().default(true),
  /**
   * Also delete pods using emptyDir volumes, whose data is lost (`--delete-emptydir-data`). False: the drain stops
   * before evicting anything when the node has such pods, naming them. Default true.
   */
  deleteEmptyDirData: z.boolean().default(true),
  /**
   * Seconds each evicted pod gets to terminate (`--grace-period`, sent as the Eviction's
   * `deleteOptions.gracePeriodSeconds`); 0 stops pods at once. A whole number, 0 to 86400. Default: each pod's own
   * `terminationGracePeriodSeconds`.
   */
  gracePeriodSeconds: z.number().int().min(0).max(86400).optional(),
  /**
   * Only drain pods matching this label selector (`--pod-selector`, e.g. `app!=log-shipper`); other pods stay on
   * the node through the restart. Checked as the API server parses selectors. Default: every pod.
   */
  podSelector: z
    .string()
    .min(1)
    .superRefine((s, ctx) => {
      const problem = labelSelectorProblem(s);
      if (problem) ctx.addIssue({ code: "custom", message: `not a label selector: ${problem}` });
    })
    .optional(),
};
