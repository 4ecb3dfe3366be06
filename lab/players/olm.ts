/**
 * OLM played against the real API server: the player, and the "catalog-operator" half's Subscription work
 * (operator-lifecycle-manager pkg/controller/operators/catalog/operator.go `syncResolvingNamespace`,
 * catalog/subscription/state.go, resolver/step_resolver.go): CatalogSources the lab serves, resolution against
 * lab/players/catalog.ts, and the Subscription status OLM keeps. InstallPlans: lab/players/olm-installplan.ts. The
 * "olm-operator" half: lab/players/olm-csv.ts (OperatorGroups, CSV phases) and olm-deployment.ts (the operator
 * Deployment, which kube-controller-manager's deployment controller rolls out onto the control-plane nodes the played
 * Linux kubelets run, lab/players/linux-kubelet.ts). Simplified: one InstallPlan per Subscription resolution (OLM
 * resolves a namespace's Subscriptions together and may put several CSVs in one plan), no bundle unpacking (steps come
 * straight from the catalog), ServiceAccount steps but no RBAC or CRD steps, no OperatorConditions, no OLM metrics.
 */
import { get, obj, objects, str } from "../../lib/json";
import {
  canonical,
  errText,
  isConflict,
  JsonObject,
  Kube,
  keyOf,
  metaOf,
  now,
  Player,
  resourcePath,
  say,
  withCondition,
  withoutCondition,
} from "./kube";
import { Informer } from "./informer";
import { Queue } from "./queue";
import { Recorder } from "./events";
import { CATALOG, csvManifest, resolve } from "./catalog";
import { syncCsv, syncOperatorGroup } from "./olm-csv";
import { OLM_V1, OLM_V1A1, OlmState } from "./olm-state";
import { createInstallPlan, syncInstallPlan } from "./olm-installplan";

const PLAYER = "olm";
/** OLM's global catalog namespace on OpenShift (`-namespace openshift-marketplace` of the catalog operator). */
const GLOBAL_CATALOG_NAMESPACE = "openshift-marketplace";

const byName = (a: JsonObject, b: JsonObject) => metaOf(a).name.localeCompare(metaOf(b).name);

/** reference.GetReference: how OLM points at an object from a status. */
const referenceTo = (o: JsonObject) => {
  const m = metaOf(o);
  return {
    apiVersion: o.apiVersion,
    kind: o.kind,
    name: m.name,
    namespace: m.namespace,
    resourceVersion: m.resourceVersion,
    uid: m.uid,
  };
};

/**
 * The label the adoption controller puts on an operator's components (controllers/operators/adoption_controller.go,
 * decorators/operator.go `ComponentLabelKey`): `operators.coreos.com/<package>.<namespace>`, the name part cut to 63
 * characters and stripped of trailing `.`, `_`, `-`.
 */
export function componentLabel(pkg: string, namespace: string): string {
  const name = `${pkg}.${namespace}`.slice(0, 63).replace(/[._-]+$/, "");
  return `operators.coreos.com/${name}`;
}

/** InstallPlan message for a Subscription condition (subscription/state.go `extractMessage`). */
function installPlanMessage(ip: JsonObject): string {
  const installed = objects(get(ip, "status", "conditions")).find((c) => c.type === "Installed");
  return installed && installed.status !== "Unknown" ? (str(installed.message) ?? "") : "";
}

export class OlmPlayer implements Player {
  readonly name = PLAYER;
  private s?: OlmState;
  private readonly queues: Queue[] = [];
  private informers: Informer[] = [];

  constructor(private readonly kube: Kube) {}

  async start(): Promise<void> {
    const kube = this.kube;
    const version = str(get(await kube.request("GET", "/version"), "gitVersion")) ?? "v0.0.0";
    const q = (what: string, fn: (key: string) => Promise<number | void>) => {
      const queue = new Queue(PLAYER, what, fn);
      this.queues.push(queue);
      return queue;
    };
    const nsQ = q("namespace", (ns) => this.syncNamespace(ns));
    const ipQ = q("InstallPlan", (k) => syncInstallPlan(this.state(), k));
    const csvQ = q("ClusterServiceVersion", (k) => syncCsv(this.state(), k));
    const ogQ = q("OperatorGroup", (k) => syncOperatorGroup(this.state(), k));
    const catQ = q("CatalogSource", (k) => this.syncCatalogSource(k));
    const inf = (plural: string, apiVersion: string, on: (o: JsonObject) => void, labelSelector?: string) =>
      new Informer(kube, PLAYER, resourcePath(apiVersion, plural), { labelSelector }, (_v, o) => on(o));
    const csvsIn = (ns: string) => this.state().csvs.list(ns);
    // A Subscription wakes its namespace's resolution and its installed CSV (its `spec.config` shapes the Deployment).
    const subs = inf("subscriptions", OLM_V1A1, (o) => {
      nsQ.add(metaOf(o).namespace);
      const installed = str(get(o, "status", "installedCSV"));
      if (installed) csvQ.add(`${metaOf(o).namespace}/${installed}`);
    });
    const ips = inf("installplans", OLM_V1A1, (o) => {
      ipQ.add(keyOf(o));
      nsQ.add(metaOf(o).namespace);
    });
    const csvs = inf("clusterserviceversions", OLM_V1A1, (o) => {
      const m = metaOf(o);
      csvQ.add(keyOf(o));
      const replaces = str(get(o, "spec", "replaces"));
      if (replaces) csvQ.add(`${m.namespace}/${replaces}`);
      nsQ.add(m.namespace);
    });
    const ogs = inf("operatorgroups", OLM_V1, (o) => {
      const ns = metaOf(o).namespace;
      ogQ.add(keyOf(o));
      nsQ.add(ns);
      for (const c of csvsIn(ns)) csvQ.add(keyOf(c));
    });
    const cats = inf("catalogsources", OLM_V1A1, (o) => {
      catQ.add(keyOf(o));
      for (const sub of this.state().subs.list()) nsQ.add(metaOf(sub).namespace);
    });
    const deps = inf(
      "deployments",
      "apps/v1",
      (o) => {
        const m = metaOf(o);
        if (m.labels["olm.owner"])
          csvQ.add(`${m.labels["olm.owner.namespace"] ?? m.namespace}/${m.labels["olm.owner"]}`);
      },
      "olm.owner.kind=ClusterServiceVersion",
    );
    this.informers = [subs, ips, csvs, ogs, cats, deps];
    this.s = { kube, recorder: new Recorder(kube, PLAYER), subs, ips, csvs, ogs, cats, deps, serverVersion: version };
    for (const i of this.informers) i.start();
    await Promise.all(this.informers.map((i) => i.ready));
    for (const q of this.queues) q.release();
    await this.serveCatalogs();
  }

  stop(): void {
    for (const i of this.informers) i.stop();
    for (const q of this.queues) q.stop();
  }

  private state(): OlmState {
    if (!this.s) throw new Error("olm player not started");
    return this.s;
  }

  /** The lab's catalogs exist as CatalogSources, as the marketplace operator creates them on OpenShift. */
  private async serveCatalogs(): Promise<void> {
    for (const c of CATALOG) {
      if (!(await this.kube.get(resourcePath("v1", "namespaces", undefined, c.namespace)))) continue;
      const path = resourcePath(OLM_V1A1, "catalogsources", c.namespace);
      if (this.state().cats.get(c.name, c.namespace) || (await this.kube.get(`${path}/${c.name}`))) continue;
      try {
        await this.kube.create(path, {
          apiVersion: OLM_V1A1,
          kind: "CatalogSource",
          metadata: { name: c.name, namespace: c.namespace },
          spec: { sourceType: "grpc", image: c.image, displayName: c.displayName, publisher: c.publisher },
        });
        say(PLAYER, `serving CatalogSource ${c.namespace}/${c.name}`);
      } catch (e) {
        if (!isConflict(e)) say(PLAYER, `could not create CatalogSource ${c.namespace}/${c.name}: ${errText(e)}`);
      }
    }
  }

  /**
   * A CatalogSource the lab serves reports a READY connection (catalog/operator.go `syncCatalogSources` and the
   * grpc registry reconciler's `connectionState`); one it does not serve is left without status, as an unreachable
   * registry would be.
   */
  private async syncCatalogSource(key: string): Promise<void> {
    const [namespace, name] = key.split("/");
    const cat = this.state().cats.get(name, namespace);
    if (!cat || !CATALOG.some((c) => c.name === name && c.namespace === namespace)) return;
    if (get(cat, "status", "connectionState", "lastObservedState") === "READY") return;
    const at = now();
    await this.kube.put(resourcePath(OLM_V1A1, "catalogsources", namespace, name, "status"), {
      ...cat,
      status: {
        connectionState: { address: `${name}.${namespace}.svc:50051`, lastObservedState: "READY", lastConnect: at },
        registryService: {
          protocol: "grpc",
          serviceName: name,
          serviceNamespace: namespace,
          port: "50051",
          createdAt: at,
        },
      },
    });
    say(PLAYER, `CatalogSource ${key} READY`);
  }

  /**
   * catalog/operator.go `syncResolvingNamespace`: every Subscription of the namespace gets its catalog health, its
   * InstallPlan's state, its CSV's state, and, unless an InstallPlan is already pending, a resolution.
   */
  private async syncNamespace(namespace: string): Promise<void> {
    // Read from the API, not the cache: a resolution must never act on a status it wrote a moment ago and has not
    // seen come back yet (OLM guards the same race with InstallPlan generations and a lock, `ensureInstallPlan`).
    const list = await this.kube.request("GET", resourcePath(OLM_V1A1, "subscriptions", namespace));
    const subs = objects(get(list, "items"))
      .map((o) => ({ apiVersion: OLM_V1A1, kind: "Subscription", ...o }))
      .filter((o) => !metaOf(o).deleting)
      .sort(byName);
    const failures: string[] = [];
    for (const sub of subs) {
      const failure = await this.syncSubscription(sub, subs);
      if (failure) failures.push(failure);
    }
    // ErrorPreventedResolution is returned to OLM's namespace queue, which retries it with backoff.
    if (failures.length) throw new Error(failures.join("; "));
  }

  private async syncSubscription(sub: JsonObject, all: JsonObject[]): Promise<string | undefined> {
    const s = this.state();
    const m = metaOf(sub);
    const ns = m.namespace;
    const spec = obj(sub.spec) ?? {};
    const st: JsonObject = structuredClone(obj(sub.status) ?? {});
    let conds = objects(st.conditions);
    let failure: string | undefined;
    const source = str(spec.source) ?? "";
    const sourceNs = str(spec.sourceNamespace) ?? ns;
    // The cache, else the API (a CSV created a moment ago may not be in the cache yet).
    const csvNamed = async (name: string) =>
      name
        ? (s.csvs.get(name, ns) ?? (await this.kube.get(resourcePath(OLM_V1A1, "clusterserviceversions", ns, name))))
        : undefined;

    // subscription/state.go `UpdateHealth`: every CatalogSource of this and the global namespace.
    const cats = s.cats.list().filter((c) => [ns, GLOBAL_CATALOG_NAMESPACE].includes(metaOf(c).namespace));
    const healthy = (c: JsonObject) => get(c, "status", "connectionState", "lastObservedState") === "READY";
    st.catalogHealth = cats.sort(byName).map((c) => ({
      catalogSourceRef: referenceTo(c),
      healthy: healthy(c),
      lastUpdated: now(),
    }));
    const targeted = cats.find((c) => metaOf(c).name === source && metaOf(c).namespace === sourceNs);
    conds = withCondition(
      conds,
      !targeted || !cats.every(healthy)
        ? {
            type: "CatalogSourcesUnhealthy",
            status: "True",
            reason: "UnhealthyCatalogSourceFound",
            message: `targeted catalogsource ${sourceNs}/${source} ${targeted ? "unhealthy" : "missing"}`,
          }
        : {
            type: "CatalogSourcesUnhealthy",
            status: "False",
            reason: "AllCatalogSourcesHealthy",
            message: "all available catalogsources are healthy",
          },
    );

    // subscription/state.go `CheckInstallPlanStatus` / `InstallPlanNotFound`.
    const ref = obj(st.installPlanRef);
    if (ref) {
      for (const t of ["InstallPlanMissing", "InstallPlanPending", "InstallPlanFailed"])
        conds = withoutCondition(conds, t);
      const ipName = str(ref.name) ?? "";
      const ip = s.ips.get(ipName, ns) ?? (await this.kube.get(resourcePath(OLM_V1A1, "installplans", ns, ipName)));
      if (!ip && st.state === "UpgradePending") {
        delete st.installPlanRef;
        delete st.installplan;
        delete st.currentCSV;
        delete st.state;
      } else if (!ip) {
        conds = withCondition(conds, {
          type: "InstallPlanMissing",
          status: "True",
          reason: "ReferencedInstallPlanNotFound",
        });
      } else {
        const phase = str(get(ip, "status", "phase")) ?? "";
        if (["", "Planning", "Installing", "RequiresApproval"].includes(phase))
          conds = withCondition(conds, {
            type: "InstallPlanPending",
            status: "True",
            reason: phase || "InstallPlanNotYetReconciled",
            message: installPlanMessage(ip),
          });
        else if (phase === "Failed") {
          const installed = objects(get(ip, "status", "conditions")).find((c) => c.type === "Installed");
          conds = withCondition(conds, {
            type: "InstallPlanFailed",
            status: "True",
            reason: installed?.status === "False" ? str(installed.reason) : "InstallPlanFailed",
            message: installPlanMessage(ip),
          });
        }
      }
    }

    // catalog/operator.go `ensureSubscriptionCSVState`.
    const current = str(st.currentCSV);
    if (current) {
      if (await csvNamed(current)) {
        st.state = "AtLatestKnown";
        st.installedCSV = current;
      } else st.state = "UpgradePending";
    }

    // `nothingToUpdate`, else resolution (resolver/step_resolver.go `ResolveSteps`).
    if (!(st.installPlanRef && st.state === "UpgradePending")) {
      const ogs = s.ogs.list(ns);
      if (ogs.length !== 1) {
        failure = `expected 1 OperatorGroup in the namespace, found ${ogs.length}`;
        conds = withCondition(conds, {
          type: "ResolutionFailed",
          status: "True",
          reason: "ErrorPreventedResolution",
          message: failure,
        });
        await this.namespaceEvent(ns, failure);
      } else {
        const installedName = str(st.installedCSV);
        const installedCsv = await csvNamed(installedName ?? "");
        const installed = installedCsv
          ? { name: metaOf(installedCsv).name, version: str(get(installedCsv, "spec", "version")) ?? "0.0.0" }
          : undefined;
        const wants = {
          name: m.name,
          package: str(spec.name) ?? "",
          channel: str(spec.channel),
          source,
          sourceNamespace: sourceNs,
          startingCSV: str(spec.startingCSV),
        };
        const r = targeted
          ? resolve(wants, installed)
          : {
              unsatisfiable: `no operators found from catalog ${source} in namespace ${sourceNs} referenced by subscription ${m.name}`,
            };
        if ("unsatisfiable" in r) {
          const message = `constraints not satisfiable: subscription ${m.name} exists, ${r.unsatisfiable}`;
          conds = withCondition(conds, {
            type: "ResolutionFailed",
            status: "True",
            reason: "ConstraintsNotSatisfiable",
            message,
          });
          await this.namespaceEvent(ns, message);
        } else {
          conds = withoutCondition(conds, "ResolutionFailed");
          const upToDate =
            (installed && r.bundle.name === installed.name) || (current === r.bundle.name && (await csvNamed(current)));
          if (!upToDate) {
            const ip = await createInstallPlan(
              s,
              sub,
              all,
              r.bundle.name,
              csvManifest(r.bundle, r.source),
              r.source.name,
            );
            const gen = Number(get(ip, "spec", "generation"));
            st.currentCSV = r.bundle.name;
            st.installPlanRef = referenceTo(ip);
            st.installplan = { apiVersion: OLM_V1A1, kind: "InstallPlan", name: metaOf(ip).name, uuid: metaOf(ip).uid };
            st.state = "UpgradePending";
            st.installPlanGeneration = gen;
            conds = withCondition(conds, {
              type: "InstallPlanPending",
              status: "True",
              reason: "InstallPlanNotYetReconciled",
            });
          }
        }
      }
    }
    st.conditions = conds;
    const ignore = (o: JsonObject) =>
      JSON.parse(JSON.stringify(o, (k, v: unknown) => (k === "lastUpdated" ? undefined : v)));
    if (canonical(ignore(st)) !== canonical(ignore(obj(sub.status) ?? {}))) {
      st.lastUpdated = now();
      await this.kube.put(resourcePath(OLM_V1A1, "subscriptions", ns, m.name, "status"), { ...sub, status: st });
      say(
        PLAYER,
        `Subscription ${ns}/${m.name}: state ${str(st.state) ?? "(none)"}, currentCSV ${str(st.currentCSV) ?? "-"}, installedCSV ${str(st.installedCSV) ?? "-"}`,
      );
    }
    await this.adopt(sub, st);
    return failure;
  }

  /** `go o.recorder.Event(ns, Warning, "ResolutionFailed", ...)` in `syncResolvingNamespace`. */
  private async namespaceEvent(namespace: string, message: string): Promise<void> {
    const nsObj = await this.kube.get(resourcePath("v1", "namespaces", undefined, namespace));
    if (nsObj)
      await this.state().recorder.event("operator-lifecycle-manager", nsObj, "Warning", "ResolutionFailed", message);
  }

  /** The adoption controller's component label on the Subscription, its installed CSV and its latest InstallPlan. */
  private async adopt(sub: JsonObject, st: JsonObject): Promise<void> {
    const s = this.state();
    const m = metaOf(sub);
    const label = componentLabel(str(get(sub, "spec", "name")) ?? m.name, m.namespace);
    const targets: [string, JsonObject | undefined][] = [
      ["subscriptions", sub],
      ["clusterserviceversions", s.csvs.get(str(st.installedCSV) ?? "", m.namespace)],
      ["installplans", s.ips.get(str(get(st, "installPlanRef", "name")) ?? "", m.namespace)],
    ];
    for (const [plural, o] of targets) {
      if (!o || label in metaOf(o).labels) continue;
      await this.kube.patch(resourcePath(OLM_V1A1, plural, m.namespace, metaOf(o).name), {
        metadata: { labels: { [label]: "" } },
      });
    }
  }
}
