import { ConfigIssue, joinPath, worded } from "../../stacks/config-issue";
import type { ClusterConfig } from "../../stacks/schema/cluster";
import type { NodeAccessConfig, PatchingConfig, RebootConfig } from "../../stacks/schema/day2";
import { isVanilla } from "../../stacks/schema/cluster";
import { WINDOWS_BUILDS } from "../../facts/kubernetes";
import { WINDOWS_SERVER, WINDOWS_SERVERS } from "../../facts/wmco";
import { isUsablePin } from "../../providers/ssh/host-key";
import { knownTimeZone } from "../../providers/day2/maintenance-window";
import { labelSelectorProblem } from "../../lib/label-selector";

/**
 * Checks `windows-estate:nodeAccess` and `windows-estate:reboot` beyond their shape: each `via` has what it needs,
 * pins are readable, and the operations that need a cluster are not asked of a render-only stack.
 */
export function validateDay2(
  cluster: ClusterConfig | undefined,
  access: NodeAccessConfig | undefined,
  reboot: RebootConfig | undefined,
): ConfigIssue[] {
  const errors: ConfigIssue[] = [];
  const render = cluster?.render !== undefined;
  if (access) {
    if (access.via === "jumpHost" && !access.jumpHost)
      errors.push({
        path: "nodeAccess.jumpHost",
        message:
          "is required with via: jumpHost: { address, username, hostKey } (or choose via: direct or via: cluster)",
      });
    if (access.via !== "jumpHost" && access.jumpHost)
      errors.push({
        path: "nodeAccess.jumpHost",
        message: `is set but via is ${access.via}: set via: jumpHost to use it, or remove it`,
      });
    if (access.jumpHost && !isUsablePin(access.jumpHost.hostKey))
      errors.push({
        path: "nodeAccess.jumpHost.hostKey",
        message: "must be an OpenSSH public-key line or a SHA256: fingerprint",
      });
    if (access.via !== "cluster" && (access.bastionImage || access.portForwardSubjects.length > 0))
      errors.push({
        path: "nodeAccess",
        message: `bastionImage and portForwardSubjects apply to via: cluster only (via is ${access.via})`,
      });
    if (access.via === "cluster" && render)
      errors.push({
        path: "nodeAccess.via",
        message:
          "cluster needs a cluster to tunnel through; a render-only stack (cluster.render) has none: use direct or jumpHost",
      });
    for (const [node, value] of Object.entries(access.hostKeys))
      if (!isUsablePin(value))
        errors.push({
          path: joinPath(["nodeAccess", "hostKeys", node]),
          message: "must be an OpenSSH public-key line or a SHA256: fingerprint",
        });
  }
  if (reboot) errors.push(...scheduleIssues("reboot", reboot));
  if (reboot && render)
    errors.push({
      path: "reboot",
      ...worded(
        (a) =>
          `a rolling reboot needs the cluster's API (cordon, drain, Ready); a render-only stack (cluster.render) cannot run one: remove ${a.key("reboot")}`,
      ),
    });
  if (reboot && cluster?.discovery === false)
    errors.push({
      path: "reboot",
      ...worded(
        (a) =>
          `a rolling reboot reads the Windows nodes from the cluster to plan its batches; it needs cluster.discovery (on by default): remove cluster.discovery: false or ${a.key("reboot")}`,
      ),
    });
  return errors;
}

/**
 * Checks `windows-estate:patching` beyond its shape: builds Windows nodes of this kind of cluster can have, a window
 * that is one, and a cluster to patch against.
 */
export function validatePatching(
  cluster: ClusterConfig | undefined,
  patching: PatchingConfig | undefined,
): ConfigIssue[] {
  if (!patching) return [];
  const errors: ConfigIssue[] = [];
  const vanilla = cluster !== undefined && isVanilla(cluster.platform);
  const builds = vanilla
    ? Object.entries(WINDOWS_BUILDS).map(([version, build]) => ({ version, build }))
    : WINDOWS_SERVERS.map((v) => ({ version: v, build: WINDOWS_SERVER[v].build }));
  for (const build of Object.keys(patching.minimumUpdateRevision))
    if (!builds.some((b) => b.build === build))
      errors.push({
        path: joinPath(["patching", "minimumUpdateRevision", build]),
        message: `is not a Windows Server build number of ${vanilla ? "a vanilla cluster's" : "a WMCO"} node; use ${builds.map((b) => `${b.build} (${b.version})`).join(", ")}`,
      });
  errors.push(...scheduleIssues("patching", patching));
  if (cluster?.render !== undefined)
    errors.push({
      path: "patching",
      ...worded(
        (a) =>
          `patching needs the cluster's API (nodes, cordon, drain, Ready); a render-only stack (cluster.render) cannot run it: remove ${a.key("patching")}`,
      ),
    });
  else if (cluster?.discovery === false)
    errors.push({
      path: "patching",
      message:
        "patching reads the Windows nodes' revisions from the cluster to plan its batches; it needs cluster.discovery (on by default)",
    });
  return errors;
}

/** A job's window and blockers (`reboot.*`, `patching.*`): a window that can open, a known time zone, selectors the API server will parse. */
function scheduleIssues(
  job: "reboot" | "patching",
  c: { window?: { start: string; end: string; timeZone?: string }; blockers: { podSelector: string }[] },
): ConfigIssue[] {
  const errors: ConfigIssue[] = [];
  if (c.window && c.window.start === c.window.end)
    errors.push({
      path: `${job}.window`,
      message: `start and end are equal: an empty window would never open; leave window out to allow any time`,
    });
  if (c.window?.timeZone && !knownTimeZone(c.window.timeZone))
    errors.push({
      path: `${job}.window.timeZone`,
      message: `"${c.window.timeZone}" is not an IANA time zone name (such as UTC, Europe/Berlin, America/New_York)`,
    });
  c.blockers.forEach((b, i) => {
    const problem = labelSelectorProblem(b.podSelector);
    if (problem)
      errors.push({
        path: joinPath([job, "blockers", i, "podSelector"]),
        message: `is not a label selector: ${problem} (write it as for kubectl get pods -l, e.g. app=backup)`,
      });
  });
  return errors;
}
