/**
 * OLM's "olm-operator" half (operator-lifecycle-manager pkg/controller/operators/olm): OperatorGroup status and the
 * ClusterServiceVersion phase machine. Its install strategy and the operator Deployment's status are
 * lab/players/olm-deployment.ts.
 */
import { get, obj, objects, str, strings } from "../../lib/json";
import { canonical, JsonObject, metaOf, now, resourcePath, say } from "./kube";
import { compareVersions } from "./catalog";
import { changedDeployment, deploymentStatus, installDeployments } from "./olm-deployment";
import { OLM_V1, OLM_V1A1, OlmState } from "./olm-state";

const PLAYER = "olm";

/**
 * OperatorGroup status (olm/operatorgroup.go `syncOperatorGroups`, `updateNamespaceList`): the namespaces it
 * selects, `[""]` for all namespaces when it names none and has no selector.
 */
export async function syncOperatorGroup(s: OlmState, key: string): Promise<void> {
  const [namespace, name] = key.split("/");
  const og = s.ogs.get(name, namespace);
  if (!og || metaOf(og).deleting) return;
  let targets = strings(get(og, "spec", "targetNamespaces"));
  const selector = obj(get(og, "spec", "selector"));
  if (targets.length === 0 && selector) {
    const labels = Object.entries(obj(selector.matchLabels) ?? {}).map(([k, v]) => `${k}=${String(v)}`);
    const list = await s.kube.request(
      "GET",
      `/api/v1/namespaces?labelSelector=${encodeURIComponent(labels.join(","))}`,
    );
    targets = objects(get(list, "items")).map((n) => metaOf(n).name);
  } else if (targets.length === 0) targets = [""];
  targets = [...new Set(targets)].sort();
  if (canonical(get(og, "status", "namespaces")) === canonical(targets)) return;
  await s.kube.put(resourcePath(OLM_V1, "operatorgroups", namespace, name, "status"), {
    ...og,
    status: { ...(obj(og.status) ?? {}), namespaces: targets, lastUpdated: now() },
  });
  say(PLAYER, `OperatorGroup ${key} selects namespaces [${targets.map((t) => t || '""').join(", ")}]`);
}

/** The phase a CSV moves to, with OLM's reason and message (api v1alpha1 `SetPhase`). */
interface Phase {
  phase: string;
  reason: string;
  message: string;
  requirementStatus?: JsonObject[];
}

/** The CSV with a new phase: `conditions` keeps a history entry per phase/reason change, at most 20. */
function withPhase(csv: JsonObject, p: Phase): JsonObject {
  const status = { ...(obj(csv.status) ?? {}) };
  const at = now();
  if (status.phase !== p.phase) status.lastTransitionTime = at;
  status.lastUpdateTime = at;
  status.phase = p.phase;
  status.reason = p.reason;
  status.message = p.message;
  if (p.requirementStatus) status.requirementStatus = p.requirementStatus;
  const history = objects(status.conditions);
  const last = history[history.length - 1];
  if (!last || last.phase !== p.phase || last.reason !== p.reason)
    history.push({
      phase: p.phase,
      reason: p.reason,
      message: p.message,
      lastTransitionTime: status.lastTransitionTime,
      lastUpdateTime: at,
    });
  status.conditions = history.slice(-20);
  return { ...csv, status };
}

/** Writes a phase change (only a change) and records it as OLM does (`SetPhaseWithEventIfChanged`). */
async function setPhase(s: OlmState, csv: JsonObject, p: Phase): Promise<void> {
  const st = obj(csv.status) ?? {};
  const sameReqs = !p.requirementStatus || canonical(p.requirementStatus) === canonical(st.requirementStatus);
  if (st.phase === p.phase && st.reason === p.reason && st.message === p.message && sameReqs) return;
  const m = metaOf(csv);
  await s.kube.put(resourcePath(OLM_V1A1, "clusterserviceversions", m.namespace, m.name, "status"), withPhase(csv, p));
  say(PLAYER, `CSV ${m.namespace}/${m.name} ${p.phase} (${p.reason}: ${p.message})`);
  await s.recorder.event(
    "operator-lifecycle-manager",
    csv,
    p.phase === "Failed" ? "Warning" : "Normal",
    p.reason,
    p.message,
  );
}

/**
 * `InstallModeSet.Supports` (operator-framework/api v1alpha1/clusterserviceversion.go): whether the CSV's install
 * modes allow the OperatorGroup's namespace selection.
 */
function unsupportedTargets(csv: JsonObject, namespace: string, targets: string[]): string | undefined {
  const modes = new Map(objects(get(csv, "spec", "installModes")).map((m) => [str(m.type), m.supported === true]));
  if (targets.length === 0)
    return "operatorgroup has invalid selected namespaces, cannot configure to watch zero namespaces";
  if (targets.length === 1) {
    if (targets[0] === namespace && !modes.get("OwnNamespace"))
      return "OwnNamespace InstallModeType not supported, cannot configure to watch own namespace";
    if (targets[0] === "" && !modes.get("AllNamespaces"))
      return "AllNamespaces InstallModeType not supported, cannot configure to watch all namespaces";
    if (targets[0] !== namespace && targets[0] !== "" && !modes.get("SingleNamespace"))
      return "SingleNamespace InstallModeType not supported, cannot configure to watch one namespace";
    return undefined;
  }
  if (!modes.get("MultiNamespace"))
    return `MultiNamespace InstallModeType not supported, cannot configure to watch ${targets.length} namespaces`;
  return undefined;
}

/** Reasons of failures that a fixed OperatorGroup clears (olm/operator.go, `case v1alpha1.CSVPhaseFailed`). */
const OPERATOR_GROUP_FAILURES = new Set([
  "NoOperatorGroup",
  "TooManyOperatorGroups",
  "UnsupportedOperatorGroup",
  "NoTargetNamespaces",
]);

/** The CSV that replaces this one, if any (olm/operator.go `isBeingReplaced`). */
function replacementOf(s: OlmState, csv: JsonObject): JsonObject | undefined {
  const m = metaOf(csv);
  return s.csvs.list(m.namespace).find((c) => get(c, "spec", "replaces") === m.name && !metaOf(c).deleting);
}

/**
 * One pass of olm/operator.go `syncClusterServiceVersion` → `transitionCSVState`: OperatorGroup checks and
 * annotations, install modes, then None → Pending → InstallReady → Installing → Succeeded, and a replaced CSV going
 * Replacing → Deleting → deleted. Returns a delay when it must look again.
 */
export async function syncCsv(s: OlmState, key: string): Promise<number | void> {
  const [namespace, name] = key.split("/");
  const csv = s.csvs.get(name, namespace);
  if (!csv || metaOf(csv).deleting) return;
  const m = metaOf(csv);
  const phase = str(get(csv, "status", "phase")) ?? "";
  const reason = str(get(csv, "status", "reason")) ?? "";

  // operatorGroupForCSV: exactly one OperatorGroup in the namespace.
  const ogs = s.ogs.list(namespace);
  if (ogs.length === 0)
    return setPhase(s, csv, {
      phase: "Failed",
      reason: "NoOperatorGroup",
      message: "csv in namespace with no operatorgroups",
    });
  if (ogs.length > 1)
    return setPhase(s, csv, {
      phase: "Failed",
      reason: "TooManyOperatorGroups",
      message: "csv created in namespace with multiple operatorgroups, can't pick one automatically",
    });
  const og = ogs[0];
  const targets = strings(get(og, "status", "namespaces"));
  if (!Array.isArray(get(og, "status", "namespaces"))) return; // the OperatorGroup's status is not synced yet

  // operatorgroup.go `addOperatorGroupAnnotations`: which group, its namespace and its targets.
  const want = {
    "olm.operatorGroup": metaOf(og).name,
    "olm.operatorNamespace": namespace,
    "olm.targetNamespaces": targets.join(","),
  };
  if (Object.entries(want).some(([k, v]) => m.annotations[k] !== v)) {
    await s.kube.patch(resourcePath(OLM_V1A1, "clusterserviceversions", namespace, name), {
      metadata: { annotations: want },
    });
    return;
  }
  const unsupported = unsupportedTargets(csv, namespace, targets);
  if (unsupported)
    return setPhase(s, csv, { phase: "Failed", reason: "UnsupportedOperatorGroup", message: unsupported });
  if (phase === "Failed" && OPERATOR_GROUP_FAILURES.has(reason))
    return setPhase(s, csv, {
      phase: "Pending",
      reason: "RequirementsUnknown",
      message: "InstallModes now support target namespaces",
    });

  const replacement = replacementOf(s, csv);
  if (replacement) {
    if (get(replacement, "status", "phase") === "Succeeded") {
      await setPhase(s, csv, {
        phase: "Deleting",
        reason: "Replaced",
        message: "has been replaced by a newer ClusterServiceVersion that has successfully installed.",
      });
      if (await s.kube.remove(resourcePath(OLM_V1A1, "clusterserviceversions", namespace, name)))
        say(PLAYER, `deleted replaced CSV ${key}`);
      return;
    }
    return setPhase(s, csv, {
      phase: "Replacing",
      reason: "BeingReplaced",
      message: `being replaced by csv: ${metaOf(replacement).name}`,
    });
  }

  const depNames = objects(get(csv, "spec", "install", "spec", "deployments")).map((d) => str(d.name) ?? "");
  const rollout = () =>
    depNames.map((d) => deploymentStatus(s.deps.get(d, namespace), d)).find((r) => !r.done) ?? {
      message: "",
      done: true,
    };
  switch (phase) {
    case "":
      return setPhase(s, csv, {
        phase: "Pending",
        reason: "RequirementsUnknown",
        message: "requirements not yet checked",
      });
    case "Pending": {
      // requirements.go `minKubeVersionStatus` (CRD, permission and API requirements: WMCO's bundle has none that
      // this cluster could miss, so they are not played).
      const min = str(get(csv, "spec", "minKubeVersion"));
      const server = s.serverVersion.replace(/^v/, "").split("-")[0];
      const requirement: JsonObject = {
        group: "operators.coreos.com",
        version: "v1alpha1",
        kind: "ClusterServiceVersion",
        name,
      };
      if (min && compareVersions(min.replace(/^v/, ""), server) > 0)
        return setPhase(s, csv, {
          phase: "Pending",
          reason: "RequirementsNotMet",
          message: "one or more requirements couldn't be found",
          requirementStatus: [
            {
              ...requirement,
              status: "PresentNotSatisfied",
              message: `CSV version requirement not met: minKubeVersion (${min}) > server version (${server})`,
            },
          ],
        });
      return setPhase(s, csv, {
        phase: "InstallReady",
        reason: "AllRequirementsMet",
        message: "all requirements found, attempting install",
        requirementStatus: min
          ? [
              {
                ...requirement,
                status: "Present",
                message: `CSV minKubeVersion (${min}) less than server version (${s.serverVersion})`,
              },
            ]
          : [],
      });
    }
    case "InstallReady":
      await installDeployments(s, csv);
      return setPhase(s, csv, {
        phase: "Installing",
        reason: "InstallSucceeded",
        message: "waiting for install components to report healthy",
      });
    case "Installing": {
      const r = rollout();
      if (r.done)
        return setPhase(s, csv, {
          phase: "Succeeded",
          reason: "InstallSucceeded",
          message: "install strategy completed with no errors",
        });
      const since = Date.parse(str(get(csv, "status", "lastTransitionTime")) ?? now());
      if (Date.now() - since >= 5 * 60_000)
        return setPhase(s, csv, { phase: "Failed", reason: "InstallCheckFailed", message: "install timeout" });
      await setPhase(s, csv, { phase: "Installing", reason: "InstallWaiting", message: `installing: ${r.message}` });
      return 5_000;
    }
    case "Succeeded": {
      const changed = changedDeployment(s, csv);
      if (changed)
        return setPhase(s, csv, { phase: "InstallReady", reason: "NeedsReinstall", message: `installing: ${changed}` });
      const r = rollout();
      if (!r.done)
        return setPhase(s, csv, { phase: "Pending", reason: "NeedsReinstall", message: `installing: ${r.message}` });
      return;
    }
    default:
      return;
  }
}
