/**
 * OLM's InstallPlans (operator-lifecycle-manager pkg/controller/operators/catalog/operator.go `createInstallPlan`,
 * `syncInstallPlans`, `transitionInstallPlanState`, `ExecutePlan`; pkg/lib/scoped/querier.go): how a resolution
 * becomes a plan, and how a plan is approved and executed (it creates the operator's ServiceAccounts, then the CSV).
 * The ServiceAccount steps follow pkg/controller/registry/resolver/rbac.go `RBACForClusterServiceVersion` (one per
 * `serviceAccountName` of the install strategy's permissions and clusterPermissions); its Roles, ClusterRoles and
 * bindings are not played (nothing in the lab runs as the operator), nor the owner references OLM puts on them.
 */
import { get, obj, objects, str, strings } from "../../lib/json";
import { errText, isConflict, JsonObject, metaOf, now, resourcePath, say, withCondition } from "./kube";
import { OLM_V1A1, OlmState } from "./olm-state";

const PLAYER = "olm";

/**
 * catalog/operator.go `createInstallPlan`: `install-` plus a random suffix, a non-blocking owner reference to the
 * Subscription, Manual approval when any Subscription of the namespace asks for it, and the plan in the status
 * (phase `RequiresApproval` for Manual, else `Installing`).
 */
export async function createInstallPlan(
  s: OlmState,
  sub: JsonObject,
  all: JsonObject[],
  csvName: string,
  manifest: JsonObject,
  sourceName: string,
): Promise<JsonObject> {
  const m = metaOf(sub);
  const plans = objects(get(await s.kube.request("GET", resourcePath(OLM_V1A1, "installplans", m.namespace)), "items"));
  const generations = [
    ...all.map((x) => Number(get(x, "status", "installPlanGeneration") ?? 0)),
    ...plans.map((x) => Number(get(x, "spec", "generation") ?? 0)),
  ];
  const generation = Math.max(0, ...generations.filter(Number.isFinite)) + 1;
  const manual = all.some((x) => get(x, "spec", "installPlanApproval") === "Manual");
  const approval = manual ? "Manual" : "Automatic";
  const created = await s.kube.create(resourcePath(OLM_V1A1, "installplans", m.namespace), {
    apiVersion: OLM_V1A1,
    kind: "InstallPlan",
    metadata: {
      generateName: "install-",
      namespace: m.namespace,
      ownerReferences: [
        {
          apiVersion: OLM_V1A1,
          kind: "Subscription",
          name: m.name,
          uid: m.uid,
          blockOwnerDeletion: false,
          controller: false,
        },
      ],
    },
    spec: { clusterServiceVersionNames: [csvName], approval, approved: approval === "Automatic", generation },
  });
  const sourceNamespace = str(get(sub, "spec", "sourceNamespace")) ?? m.namespace;
  const strategy = obj(get(manifest, "spec", "install", "spec")) ?? {};
  const accounts = [
    ...new Set(
      [...objects(strategy.permissions), ...objects(strategy.clusterPermissions)].flatMap(
        (p) => str(p.serviceAccountName) ?? [],
      ),
    ),
  ];
  const status = {
    phase: manual ? "RequiresApproval" : "Installing",
    catalogSources: [sourceName],
    plan: [
      ...accounts.map((name) => ({
        resolving: csvName,
        resource: {
          group: "",
          version: "v1",
          kind: "ServiceAccount",
          name,
          sourceName,
          sourceNamespace,
          manifest: JSON.stringify({ apiVersion: "v1", kind: "ServiceAccount", metadata: { name } }),
        },
        status: "Unknown",
      })),
      {
        resolving: csvName,
        resource: {
          group: "operators.coreos.com",
          version: "v1alpha1",
          kind: "ClusterServiceVersion",
          name: csvName,
          sourceName,
          sourceNamespace,
          manifest: JSON.stringify(manifest),
        },
        status: "Unknown",
      },
    ],
  };
  const ip = await s.kube.put(resourcePath(OLM_V1A1, "installplans", m.namespace, metaOf(created).name, "status"), {
    ...created,
    status,
  });
  say(
    PLAYER,
    `created InstallPlan ${m.namespace}/${metaOf(ip).name} for ${csvName} (approval ${approval}, phase ${status.phase})`,
  );
  return ip;
}

/**
 * catalog/operator.go `syncInstallPlans` + `transitionInstallPlanState` + `ExecutePlan`: the namespace's
 * OperatorGroup is checked first (scoped/querier.go), an approved `RequiresApproval` plan moves to `Installing`,
 * and `Installing` creates the plan's CSV and completes.
 */
export async function syncInstallPlan(s: OlmState, key: string): Promise<void> {
  const [namespace, name] = key.split("/");
  const ip = s.ips.get(name, namespace);
  if (!ip || metaOf(ip).deleting) return;
  const status: JsonObject = structuredClone(obj(ip.status) ?? {});
  const plan = objects(status.plan);
  if (plan.length === 0) return;
  const phase = str(status.phase);
  if (phase === "Complete" || phase === "Failed") return;
  const path = resourcePath(OLM_V1A1, "installplans", namespace, name, "status");
  const write = async (next: JsonObject, what: string) => {
    await s.kube.put(path, { ...ip, status: next });
    say(PLAYER, `InstallPlan ${key} ${what}`);
  };

  const groups = s.ogs.list(namespace);
  const managing = groups.filter((g) => strings(get(g, "status", "namespaces")).length > 0);
  const ogError =
    groups.length === 0 || managing.length === 0
      ? "no operator group found that is managing this namespace"
      : managing.length > 1
        ? `more than one operator group(s) are managing this namespace count=${managing.length}`
        : undefined;
  const installedCond = objects(status.conditions).find((c) => c.type === "Installed");
  if (ogError) {
    if (installedCond?.reason !== "InstallCheckFailed" || installedCond.message !== ogError) {
      status.conditions = withCondition(status.conditions, {
        type: "Installed",
        status: "False",
        reason: "InstallCheckFailed",
        message: ogError,
        lastUpdateTime: now(),
      });
      await write(status, `cannot install: ${ogError}`);
    }
    throw new Error(`attenuated service account query failed - ${ogError}`);
  }
  if (installedCond?.reason === "InstallCheckFailed")
    status.conditions = withCondition(status.conditions, {
      type: "Installed",
      status: "False",
      reason: "Unknown",
      message: "",
      lastUpdateTime: now(),
    });

  if (phase === "RequiresApproval") {
    if (get(ip, "spec", "approved") !== true) {
      if (installedCond?.reason === "InstallCheckFailed") await write(status, "waits for approval");
      return;
    }
    status.phase = "Installing";
    status.message = "";
    return write(status, "approved: Installing");
  }
  if (phase !== "Installing") return;
  status.startTime ??= now();
  for (const step of plan) {
    const res = obj(step.resource) ?? {};
    const kind = str(res.kind);
    if (!(kind === "ClusterServiceVersion" || kind === "ServiceAccount")) continue;
    if (step.status === "Created" || step.status === "Present") continue;
    const manifest = obj(JSON.parse(str(res.manifest) ?? "{}")) ?? {};
    const meta = { ...(obj(manifest.metadata) ?? {}), namespace };
    try {
      await s.kube.create(
        kind === "ServiceAccount"
          ? resourcePath("v1", "serviceaccounts", namespace)
          : resourcePath(OLM_V1A1, "clusterserviceversions", namespace),
        { ...manifest, metadata: meta },
      );
      step.status = "Created";
      say(
        PLAYER,
        `created ${kind === "ServiceAccount" ? "ServiceAccount" : "CSV"} ${namespace}/${str(res.name)} (InstallPlan ${name})`,
      );
    } catch (e) {
      if (!isConflict(e)) {
        const message = `retrying execution due to error: ${errText(e)}`;
        status.message = message;
        await write(status, message);
        throw e;
      }
      step.status = "Present";
    }
  }
  status.plan = plan;
  status.phase = "Complete";
  status.message = "";
  status.conditions = withCondition(status.conditions, { type: "Installed", status: "True", lastUpdateTime: now() });
  return write(status, "Complete");
}
