/**
 * Which WMCO release the stack's rules follow, and whether that release runs on the cluster's Kubernetes. Pure: the
 * config and what discovery read in, the answer out.
 */
import type { ConfigIssue } from "../../stacks/config-issue";
import {
  acceptedKubernetesMinors,
  format,
  NEWEST_WMCO,
  parseWmcoVersion,
  wmcoForKubernetesMinor,
  wmcoForOpenShift,
  WmcoVersion,
} from "../../facts/wmco";

/** The `windows-estate:operator` keys that decide which CSV OLM installs. */
export interface OperatorChoice {
  installPlanApproval: "Automatic" | "Manual";
  startingCSV?: string;
  channel: string;
}

/** What the cluster says about WMCO, when discovery asked it. */
interface ClusterWmco {
  /** The Subscription's `status.installedCSV`. */
  installedCSV?: string;
  /** ClusterVersion `status.desired.version`. */
  openShiftVersion?: string;
}

interface WmcoInEffect {
  version: WmcoVersion;
  /** For messages: where the version came from. */
  source: string;
  /**
   * `pinned`: `operator.startingCSV` with Manual approval (the config states it); `installed`: the running CSV;
   * `cluster`: the release shipping with the cluster's OpenShift version (its catalog's channel head); `newest`: the
   * newest release these rules know (the channel head as far as they can tell).
   */
  from: "pinned" | "installed" | "cluster" | "newest";
}

/** Appended to every hint that suggests pinning: without Manual approval a pin is not one. */
export const PIN_HINT = "pin operator.startingCSV with operator.installPlanApproval: Manual to choose another";

/**
 * `startingCSV` names only the first CSV OLM installs. With `installPlanApproval: Automatic` OLM then follows the
 * channel to its head at once (each bundle's `replaces`/`olm.skipRange`, e.g. release-4.18's CSV `olm.skipRange`),
 * so the pin holds only with Manual approval. Otherwise the installed CSV decides, else the channel head: the WMCO
 * of the cluster's OpenShift version (its catalog), else the newest release known here.
 */
export function wmcoInEffect(op: OperatorChoice, cluster?: ClusterWmco): WmcoInEffect {
  const installed = parseWmcoVersion(cluster?.installedCSV);
  if (installed) return { version: installed, source: `the installed CSV ${cluster?.installedCSV}`, from: "installed" };
  const pin = op.installPlanApproval === "Manual" ? parseWmcoVersion(op.startingCSV) : undefined;
  if (pin)
    return {
      version: pin,
      source: `operator.startingCSV ${op.startingCSV} with installPlanApproval: Manual`,
      from: "pinned",
    };
  const ocp = wmcoForOpenShift(cluster?.openShiftVersion);
  if (ocp)
    return {
      version: ocp,
      source: `the cluster version ${cluster?.openShiftVersion}`,
      from: "cluster",
    };
  return {
    version: NEWEST_WMCO,
    source: `the head of channel ${op.channel}, taken as the newest WMCO known here; ${PIN_HINT}`,
    from: "newest",
  };
}

/** `v1.36.3` (GET /version `gitVersion`) → 36; undefined unless it is a Kubernetes 1.x version. */
export function kubernetesMinor(gitVersion: string | undefined): number | undefined {
  const m = /^v?1\.(\d+)(?:\.|$)/.exec(gitVersion ?? "");
  return m ? Number(m[1]) : undefined;
}

/**
 * The refusal when a pinned WMCO does not run on the cluster's Kubernetes (pkg/cluster/config.go
 * `validateK8sVersion`: the operator exits "unsupported server version" and OLM waits for a CSV that never
 * succeeds). Only a Manual pin is checked: the installed CSV already passed WMCO's own check when it started, and the
 * channel head of the cluster's catalog is the release made for that cluster.
 */
export function kubernetesSkewIssues(
  wmco: WmcoInEffect,
  op: OperatorChoice,
  serverGitVersion: string | undefined,
): ConfigIssue[] {
  if (wmco.from !== "pinned") return [];
  const minor = kubernetesMinor(serverGitVersion);
  const accepted = acceptedKubernetesMinors(wmco.version);
  if (minor === undefined || !accepted || (minor >= accepted.min && minor <= accepted.max)) return [];
  const fits = wmcoForKubernetesMinor(minor);
  const fix =
    fits.length > 0
      ? `pin a CSV of WMCO ${fits.join(" or ")} that channel ${op.channel} offers, or remove operator.startingCSV to install the channel head`
      : `remove operator.startingCSV to install the channel head, or pin a WMCO release made for Kubernetes 1.${minor}`;
  return [
    {
      path: "operator.startingCSV",
      message:
        `pins WMCO ${format(wmco.version)} (${op.startingCSV}, installPlanApproval: Manual), which runs on Kubernetes ` +
        `1.${accepted.min} and 1.${accepted.max} only, but the cluster runs Kubernetes ${serverGitVersion}: the operator ` +
        `would exit with "unsupported server version" and its CSV never succeed; ${fix}`,
    },
  ];
}
