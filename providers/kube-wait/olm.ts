/**
 * Is WMCO running, as OLM tells it, and what OLM leaves unsaid. Pure decisions over what the wait read; the clock is
 * passed in (`Held`), so every situation, graces included, is tested without waiting.
 *
 * Sources, all operator-framework/operator-lifecycle-manager at tag v0.41.0 (f6925fde7820b275e766af66363b5dab4fb9bff5):
 * - `pkg/controller/operators/catalog/operator.go` `syncResolvingNamespace` (l.1232): resolution, the
 *   `ResolutionFailed` condition and its two reasons; `ensureSubscriptionCSVState` (l.1599): `AtLatestKnown`.
 * - `pkg/controller/registry/resolver/fail_forward.go` `IsFailForwardEnabled`: not exactly one OperatorGroup stops
 *   resolution before any Subscription is touched (no condition, no Event, a log line only).
 * - `pkg/controller/operators/olm/operatorgroup.go` `syncOperatorGroups` (l.69): `MultipleOperatorGroup`.
 * - `pkg/controller/operators/olm/operator.go` `transitionCSVState` (l.2081): CSV phases, which `Failed` reasons it
 *   retries.
 * - `pkg/controller/registry/reconciler/grpc_address.go` `CheckRegistryServer`: a `spec.address` CatalogSource is
 *   always "healthy"; `catalog/operator.go` `syncConnection` (l.1095): `status.connectionState`.
 */
import { get, objects, str, strings } from "../../lib/json";
import type { Fetched, Verdict } from "./conditions";

/** Where an operator wait looks. */
export interface OperatorTarget {
  namespace: string;
  subscription: string;
}

export interface OperatorReadyOutputs {
  installedCSV: string;
  version: string;
}

/** Something the wait may not be allowed to read (403) or that the API does not serve (404 on a list). */
export type Readable<T> = { readable: true; value: T } | { readable: false; why: string };

/** Everything one look at OLM's objects found. */
export interface OperatorObservation {
  subscription: Fetched;
  /** The InstallPlan the Subscription references, when the wait fetched it. */
  installPlan?: Fetched;
  /** The Subscription's `status.installedCSV`, when there is one. */
  csv?: Fetched;
  /** The OperatorGroups of the Subscription's namespace. */
  operatorGroups: Readable<Record<string, unknown>[]>;
  /** The CatalogSource the Subscription names (`undefined`: it does not exist); read only while nothing resolved. */
  catalogSource?: Readable<Fetched>;
}

/**
 * For how many seconds a finding (by key) has been seen in a row, counted by the wait's own looks: 0 the first time.
 * Asking records the finding as seen in this look.
 */
export type Held = (key: string) => number;

/**
 * How long a namespace may have other than one OperatorGroup before the wait says so and stops. OLM resolves the
 * namespace again as soon as an OperatorGroup changes (catalog/operator.go `syncOperatorGroups`, l.1547, enqueues it on
 * every OperatorGroup event), so a count that stays wrong this long is nobody's transient.
 */
export const OPERATOR_GROUP_GRACE_SECONDS = 30;

/**
 * How long `ResolutionFailed`/`ConstraintsNotSatisfiable` must stay before the wait takes it as final. OLM does not
 * retry it ("not-satisfiable error is terminal and most likely require intervention", operator.go l.1336), but a
 * condition left from the Subscription's previous spec can still be there when the wait starts: OLM resolves again
 * on every Subscription event (`syncSubscriptions`, l.1533, `nsResolveQueue.Add`) and then removes or rewrites it.
 */
export const RESOLUTION_SETTLE_SECONDS = 15;

/**
 * How long a CatalogSource may stay unconnected. OLM's source store re-checks a connection that is not READY every
 * 10 s (`grpc.NewSourceStore(logger, 10*time.Second, …)`, catalog/operator.go l.221). A `spec.address` source has
 * nothing for OLM to start (grpc_address.go), so a minute is six tries; an image source's registry pod may be pulling
 * its index image, which takes minutes on a new node.
 */
export const CATALOG_GRACE_SECONDS = { address: 60, pod: 300 } as const;

/**
 * CSV `Failed` reasons OLM leaves on its own, without anyone acting: in `transitionCSVState`'s `CSVPhaseFailed` case
 * (olm/operator.go l.2436) it checks the requirements again (l.2479: not met ⇒ `Pending`) and the install
 * (`updateInstallStatus(…, CSVPhasePending, CSVReasonNeedsReinstall)`, l.2518: healthy ⇒ `Succeeded`), so a
 * deployment that was slow (`InstallCheckFailed` "install timeout" after 5 minutes in Installing, l.2363), unhealthy
 * for a while (`ComponentUnhealthy`) or failed to create (`InstallComponentFailed`) can still succeed. The wait goes on
 * for these and ends at its timeout naming the reason.
 */
export const CSV_FAILED_RETRIED: readonly string[] = [
  "InstallCheckFailed",
  "ComponentUnhealthy",
  "InstallComponentFailed",
  "RequirementsNotMet",
  "APIServiceInstallFailed",
  "APIServiceResourceIssue",
];

/**
 * CSV `Failed` reasons of an OperatorGroup count other than one (olm/operator.go `operatorGroupForCSV`, l.2045 and
 * l.2073): OLM moves the CSV back to `Pending` once the count is one (l.2452), which the OperatorGroup check says.
 */
const CSV_FAILED_OPERATOR_GROUP_COUNT: readonly string[] = ["NoOperatorGroup", "TooManyOperatorGroups"];

/** The label every object this program creates carries (components/operator/builders.ts `MANAGED_BY`). */
const MANAGED_BY_KEY = "app.kubernetes.io/managed-by";
const MANAGED_BY_VALUE = "windows-estate";

interface Condition {
  type?: string;
  status?: string;
  reason?: string;
  message?: string;
}

function conditionsOf(o: unknown): Condition[] {
  return objects(get(o, "status", "conditions")).map((c) => ({
    type: str(c.type),
    status: str(c.status),
    reason: str(c.reason),
    message: str(c.message),
  }));
}

function trueCondition(o: unknown, type: string): Condition | undefined {
  return conditionsOf(o).find((c) => c.type === type && c.status === "True");
}

function quote(c: Condition): string {
  return `${c.type}${c.reason ? ` (${c.reason})` : ""}${c.message ? `: ${c.message}` : ""}`;
}

/** What the Subscription tells the wait to fetch next. */
export function nextFromSubscription(sub: Fetched): {
  csv?: string;
  installPlan?: string;
  state?: string;
  source?: { name: string; namespace: string };
} {
  const name = str(get(sub, "spec", "source"));
  const namespace = str(get(sub, "spec", "sourceNamespace"));
  return {
    csv: str(get(sub, "status", "installedCSV")),
    installPlan: str(get(sub, "status", "installPlanRef", "name")) ?? str(get(sub, "status", "installplan", "name")),
    state: str(get(sub, "status", "state")),
    source: name && namespace ? { name, namespace } : undefined,
  };
}

function awaitsApproval(plan: Fetched): boolean {
  const approval = str(get(plan, "spec", "approval"));
  // Approved, the plan installs at the catalog operator's next sync, whatever its phase still says
  // (catalog/operator.go transitionInstallPlanState: RequiresApproval with spec.approved → Installing). A refresh
  // right after the approval must not take the old CSV for done (seen in olm.e2e's manual approval).
  if (get(plan, "spec", "approved") === true) return false;
  return approval === "Manual" || str(get(plan, "status", "phase")) === "RequiresApproval";
}

function approveCommand(ns: string, plan: string): string {
  return `oc patch installplan ${plan} -n ${ns} --type merge -p '{"spec":{"approved":true}}'`;
}

/** One thing OLM does not resolve past, with how long it may last before the wait stops on it. */
interface Finding {
  key: string;
  graceSeconds: number;
  /** What the wait says while it lasts. */
  waiting: string;
  /** What the wait fails with once it has lasted `graceSeconds`. */
  failed: string;
}

function nameOf(o: Record<string, unknown>): string {
  return str(get(o, "metadata", "name")) ?? "?";
}

/**
 * OLM resolves a namespace's Subscriptions only when it holds exactly one OperatorGroup, and says so nowhere the
 * program can read: `syncResolvingNamespace` returns `IsFailForwardEnabled`'s error "found %d operatorGroups, expected
 * 1" (fail_forward.go) before touching any Subscription, so the Subscription gets no condition and no Event, and the
 * catalog operator only logs it. With more than one, the olm operator marks each OperatorGroup
 * `MultipleOperatorGroup=True` (operatorgroup.go l.103-107), quoted when it is there.
 */
function operatorGroupFinding(t: OperatorTarget, groups: Record<string, unknown>[]): Finding | undefined {
  if (groups.length === 1) return undefined;
  const ns = t.namespace;
  const olmSays =
    `OLM resolves Subscription ${ns}/${t.subscription} only when its namespace has exactly one OperatorGroup, and ` +
    `for this it sets no condition and records no Event: it only logs "found ${groups.length} operatorGroups, expected 1"`;
  if (groups.length === 0) {
    const waiting = `Namespace ${ns} has no OperatorGroup; ${olmSays}`;
    return {
      key: "operatorgroups:0",
      graceSeconds: OPERATOR_GROUP_GRACE_SECONDS,
      waiting,
      failed:
        `${waiting}. This stack declares OperatorGroup ${ns}/${t.subscription} (named like the Subscription) and ` +
        `something deleted it: run \`pulumi up --refresh\` to create it again.`,
    };
  }
  const names = groups.map(nameOf).sort();
  const marked = groups.flatMap((g) => {
    const c = trueCondition(g, "MultipleOperatorGroup");
    return c ? [quote(c)] : [];
  });
  const ours =
    groups.find((g) => nameOf(g) === t.subscription) ??
    groups.find((g) => get(g, "metadata", "labels", MANAGED_BY_KEY) === MANAGED_BY_VALUE);
  const extra = names.filter((n) => !ours || n !== nameOf(ours));
  const waiting =
    `Namespace ${ns} has ${groups.length} OperatorGroups (${names.join(", ")}); ${olmSays}` +
    (marked.length > 0 ? `; OLM marks them ${marked[0]}` : "");
  const fix = ours
    ? `Keep ${nameOf(ours)}, which this stack declares, and delete the others: ` +
      `\`oc delete operatorgroup ${extra.join(" ")} -n ${ns}\`, then run \`pulumi up\` again.`
    : `None of them is this stack's (${t.subscription}): delete all but one that targets only ${ns} (WMCO supports ` +
      `the OwnNamespace install mode only), or delete them all and run \`pulumi up --refresh\` to create this stack's.`;
  return {
    key: `operatorgroups:${names.join(",")}`,
    graceSeconds: OPERATOR_GROUP_GRACE_SECONDS,
    waiting,
    failed: `${waiting}. ${fix}`,
  };
}

/** The `<namespace>/<name>` of each CatalogSource an OLM resolution error names (resolver/cache/cache.go l.142). */
export function catalogsInResolutionError(message: string): string[] {
  const found = [...message.matchAll(/error using catalogsource ([^/\s]+)\/([^:\s]+)/g)].map((m) => `${m[1]}/${m[2]}`);
  return [...new Set(found)].sort();
}

/**
 * What keeps a Subscription from resolving, read while OLM has resolved nothing. OLM's own word where it gives one
 * (`ResolutionFailed`), else what the CatalogSource's own status says: OLM reports a `spec.address` CatalogSource
 * healthy whether or not anything answers there (grpc_address.go `CheckRegistryServer`: "TODO: add gRPC health
 * check", `healthy = true`), so the Subscription's `catalogHealth` and `CatalogSourcesUnhealthy` are not read for it.
 */
function resolutionFindings(t: OperatorTarget, o: OperatorObservation): Finding[] {
  const sub = o.subscription;
  const subId = `Subscription ${t.namespace}/${t.subscription}`;
  const findings: Finding[] = [];
  const failed = trueCondition(sub, "ResolutionFailed");
  const source = nextFromSubscription(sub).source;
  const sourceId = source ? `${source.namespace}/${source.name}` : undefined;
  const asked = [
    `package ${str(get(sub, "spec", "name")) ?? "?"}`,
    `channel ${str(get(sub, "spec", "channel")) ?? "(the package's default)"}`,
    ...(str(get(sub, "spec", "startingCSV")) ? [`startingCSV ${str(get(sub, "spec", "startingCSV"))}`] : []),
    `CatalogSource ${sourceId ?? "?"}`,
  ].join(", ");
  const catalog = o.catalogSource;
  const missing = catalog?.readable === true && catalog.value === undefined;

  // operator.go l.1344: `solver.NotSatisfiable` ⇒ reason ConstraintsNotSatisfiable, not requeued.
  if (failed?.reason === "ConstraintsNotSatisfiable") {
    const waiting = `OLM cannot resolve ${subId}: ${quote(failed)}`;
    findings.push({
      key: `constraints:${failed.message ?? ""}`,
      graceSeconds: RESOLUTION_SETTLE_SECONDS,
      waiting,
      failed:
        `${waiting}. The Subscription asks for ${asked}` +
        (missing ? `, and CatalogSource ${sourceId} does not exist` : "") +
        `. OLM does not retry this: correct windows-estate:operator.package, channel, startingCSV or source ` +
        `(what the catalog offers: \`oc get packagemanifests -n ${source?.namespace ?? "openshift-marketplace"}\`, ` +
        `\`oc describe packagemanifest <package> -n ${source?.namespace ?? "openshift-marketplace"}\`), then run ` +
        `\`pulumi up\` again.`,
    });
  }

  if (catalog?.readable && sourceId) {
    if (catalog.value === undefined) {
      // OLM agrees: the subscription syncer's catalog health says "targeted catalogsource <ns>/<name> missing"
      // (subscription/state.go `UpdateHealth`, l.227).
      const unhealthy = trueCondition(sub, "CatalogSourcesUnhealthy");
      const waiting = `CatalogSource ${sourceId}, which ${subId} names, does not exist${unhealthy ? ` (OLM: ${quote(unhealthy)})` : ""}`;
      findings.push({
        key: `catalog-missing:${sourceId}`,
        graceSeconds: CATALOG_GRACE_SECONDS.address,
        waiting,
        failed:
          `${waiting}. Set windows-estate:operator.source and operator.sourceNamespace to a CatalogSource of the ` +
          `cluster (\`oc get catalogsource -A\`), then run \`pulumi up\` again.`,
      });
    } else {
      const state = str(get(catalog.value, "status", "connectionState", "lastObservedState"));
      if (state !== "READY") {
        const specAddress = str(get(catalog.value, "spec", "address"));
        const address = str(get(catalog.value, "status", "connectionState", "address")) ?? specAddress;
        const byAddress = specAddress !== undefined && str(get(catalog.value, "spec", "image")) === undefined;
        const grace = byAddress ? CATALOG_GRACE_SECONDS.address : CATALOG_GRACE_SECONDS.pod;
        const olmMessage = str(get(catalog.value, "status", "message"));
        const ours =
          failed?.reason === "ErrorPreventedResolution" &&
          catalogsInResolutionError(failed.message ?? "").includes(sourceId)
            ? failed
            : undefined;
        const waiting =
          `CatalogSource ${sourceId} is not connected: OLM's connection${address ? ` to ${address}` : ""} is ` +
          `${state ?? "not reported yet"} (status.connectionState.lastObservedState), so OLM cannot read the catalog ` +
          `and resolves nothing for ${subId}` +
          (olmMessage ? ` (CatalogSource status.message: ${olmMessage})` : "") +
          (ours ? `; OLM: ${quote(ours)}` : "");
        findings.push({
          key: `catalog-not-ready:${sourceId}`,
          graceSeconds: grace,
          waiting,
          failed:
            `${waiting}. It has not been READY for ${grace} s. ` +
            (byAddress
              ? `Check that the catalog server at ${specAddress} (spec.address) is running and reachable from OLM's ` +
                `catalog operator`
              : `Check its registry pod: \`oc get pods -n ${source?.namespace} -l olm.catalogSource=${source?.name}\``) +
            `, or set windows-estate:operator.source/sourceNamespace to another CatalogSource; then run \`pulumi up\` again.`,
        });
      }
    }
  }
  // operator.go l.1358: any other resolution error ⇒ ErrorPreventedResolution, retried with back-off. An error
  // reading a catalog names it ("error using catalogsource <ns>/<name>: …", cache.go l.142); OLM resolves against
  // every CatalogSource of the Subscription's namespace and of its global catalog namespace, so a broken one there
  // stops WMCO too. The Subscription's own source is said above when its connection is down or it is missing.
  const named = failed?.reason === "ErrorPreventedResolution" ? catalogsInResolutionError(failed.message ?? "") : [];
  const oursSaid = findings.some((f) => f.key.startsWith("catalog-"));
  const oursNamed = sourceId !== undefined && named.includes(sourceId) && !oursSaid;
  const others = named.filter((c) => c !== sourceId);
  if (failed && (oursNamed || others.length > 0)) {
    const waiting = `OLM cannot resolve ${subId}: ${quote(failed)}`;
    const [one, them] = others.length > 1 ? ["stop", "them"] : ["stops", "it"];
    findings.push({
      key: `resolution-error:${named.join(",")}`,
      graceSeconds: CATALOG_GRACE_SECONDS.pod,
      waiting,
      failed:
        `${waiting}. ` +
        (oursNamed
          ? `CatalogSource ${sourceId}, which the Subscription uses, is connected but OLM cannot list its bundles: ` +
            `check the catalog server's log. `
          : "") +
        (others.length > 0
          ? `OLM reads every CatalogSource of ${t.namespace} and of its global catalog namespace to resolve, so ` +
            `${others.map((c) => `CatalogSource ${c}`).join(" and ")} ${one} WMCO's install although the ` +
            `Subscription does not use ${them}: fix ${them} (\`oc get catalogsource ${others[0].split("/")[1]} -n ` +
            `${others[0].split("/")[0]} -o yaml\`, status.connectionState) or delete ${them}. `
          : "") +
        "Then run `pulumi up` again.",
    });
  }
  return findings;
}

/**
 * Is WMCO really running? Done when the Subscription's installed CSV is `Succeeded` and OLM is not replacing it:
 * `state: AtLatestKnown` (`ensureSubscriptionCSVState`, operator.go l.1599, sets it with `installedCSV = currentCSV`
 * once that CSV exists), or an upgrade that waits for manual approval (the installed operator keeps running until
 * someone approves). While an Automatic upgrade is in flight, `installedCSV` still names the CSV being replaced.
 *
 * Fails fast on what only a person can change: an InstallPlan that awaits approval with nothing installed, a failed
 * InstallPlan, a CSV failed for a reason OLM does not retry, `ResolutionFailed`/`ConstraintsNotSatisfiable`. Fails
 * after a grace on what OLM leaves silent or may still recover from: other than one OperatorGroup, a CatalogSource
 * that does not connect. Everything else (a CSV failed for a reason OLM retries, too) waits until the timeout, which
 * names the last reason seen.
 */
export function operatorVerdict(
  t: OperatorTarget,
  o: OperatorObservation,
  held: Held = () => 0,
): Verdict<OperatorReadyOutputs> {
  const ns = t.namespace;
  const sub = o.subscription;
  if (!sub) return { state: "waiting", reason: `Subscription ${ns}/${t.subscription} does not exist yet` };
  const { csv: installed, installPlan: planName, state } = nextFromSubscription(sub);
  const current = str(get(sub, "status", "currentCSV"));
  const plan = planName ? o.installPlan : undefined;
  const planPhase = str(get(plan, "status", "phase"));
  const phase = installed && o.csv ? (str(get(o.csv, "status", "phase")) ?? "Pending") : undefined;
  const csvWhy = [str(get(o.csv, "status", "reason")), str(get(o.csv, "status", "message"))].filter(Boolean).join(": ");

  // Every finding is asked for its time in each look (its clock restarts once it is not seen).
  const groups = o.operatorGroups.readable ? operatorGroupFinding(t, o.operatorGroups.value) : undefined;
  // With other than one OperatorGroup OLM resolves nothing, so a ResolutionFailed the Subscription carries is from
  // before (seen against OLM v0.41.0: the condition for a channel since corrected stayed): only the count is current.
  const unresolved = !installed && !planName && !groups ? resolutionFindings(t, o) : [];
  const timed = [...(groups ? [groups] : []), ...unresolved].map((f) => ({ f, seconds: held(f.key) }));
  const expired = timed.find(({ f, seconds }) => seconds >= f.graceSeconds);

  if (installed && o.csv && phase === "Succeeded" && (state === "AtLatestKnown" || (plan && awaitsApproval(plan)))) {
    const notices: string[] = [];
    if (state !== "AtLatestKnown" && planName)
      notices.push(
        `WMCO ${installed} runs; InstallPlan ${ns}/${planName}${current && current !== installed ? ` (upgrade to ${current})` : ""} ` +
          `awaits manual approval: \`${approveCommand(ns, planName)}\``,
      );
    const resolution = trueCondition(sub, "ResolutionFailed");
    if (resolution) notices.push(`OLM cannot resolve upgrades of ${installed}: ${quote(resolution)}`);
    // The running operator's CSV fails once OLM sees the count (olm/operator.go l.2045, l.2073): say it now.
    if (groups) notices.push(groups.waiting);
    return {
      state: "done",
      outputs: {
        installedCSV: installed,
        version: str(get(o.csv, "spec", "version")) ?? installed.replace(/^.*\.v/, ""),
      },
      ...(notices.length > 0 ? { notice: notices.join("; ") } : {}),
    };
  }

  if (expired) return { state: "failed", message: expired.f.failed };
  if (groups) return { state: "waiting", reason: `${groups.waiting} (the wait stops if it stays so)` };

  if (installed && o.csv) {
    const csvId = `CSV ${ns}/${installed}`;
    if (phase === "Failed") {
      const reason = str(get(o.csv, "status", "reason")) ?? "";
      const retried =
        CSV_FAILED_RETRIED.includes(reason) ||
        // The OperatorGroup count is one again (or was never read wrong): OLM moves the CSV back to Pending.
        (CSV_FAILED_OPERATOR_GROUP_COUNT.includes(reason) && o.operatorGroups.readable);
      if (!retried)
        return {
          state: "failed",
          message: `${csvId} failed${csvWhy ? ` (${csvWhy})` : ""}; see \`oc describe csv ${installed} -n ${ns}\``,
        };
      return {
        state: "waiting",
        reason:
          `${csvId} is Failed${csvWhy ? ` (${csvWhy})` : ""}, a reason OLM retries; ` +
          `see \`oc describe csv ${installed} -n ${ns}\` and \`oc get deployment,pods -n ${ns}\``,
      };
    }
    if (phase === "Succeeded") {
      // Automatic upgrade in flight: the installed CSV is being replaced by `currentCSV`.
      if (plan && planPhase === "Failed") return planFailed(ns, planName ?? "?", plan);
      return {
        state: "waiting",
        reason:
          `OLM is replacing ${installed} with ${current ?? "the next CSV"} (Subscription ${state ?? "state not set"}` +
          `${planName ? `, InstallPlan ${planName} ${planPhase ?? "not read"}` : ""})`,
      };
    }
    return { state: "waiting", reason: `CSV ${installed} is ${phase}${csvWhy ? ` (${csvWhy})` : ""}` };
  }

  if (installed && !o.csv && !plan)
    return {
      state: "waiting",
      reason: `CSV ${ns}/${installed}, which Subscription ${t.subscription} names as installed, does not exist`,
    };

  if (planName && plan) {
    if (awaitsApproval(plan)) {
      const csvs = strings(get(plan, "spec", "clusterServiceVersionNames"));
      return {
        state: "failed",
        message:
          `InstallPlan ${ns}/${planName}${csvs.length ? ` (installs ${csvs.join(", ")})` : ""} awaits manual approval ` +
          `(operator.installPlanApproval is Manual). Approve it with \`${approveCommand(ns, planName)}\`, then run ` +
          "`pulumi up` again.",
      };
    }
    if (planPhase === "Failed") return planFailed(ns, planName, plan);
    return { state: "waiting", reason: `InstallPlan ${planName} is ${planPhase ?? "being created"}` };
  }

  const shown = conditionsOf(sub).filter(
    (c) =>
      c.status === "True" &&
      ["ResolutionFailed", "CatalogSourcesUnhealthy", "InstallPlanFailed", "InstallPlanMissing"].includes(c.type ?? ""),
  );
  const first = unresolved[0];
  const trouble = first ? first.waiting : shown.map(quote).join("; ");
  return {
    state: "waiting",
    reason: `Subscription ${t.subscription} is ${state ?? "not yet resolved"}${trouble ? `; ${trouble}` : ""}`,
  };
}

function planFailed(ns: string, planName: string, plan: Fetched): Verdict<OperatorReadyOutputs> {
  const msg = conditionsOf(plan)
    .map((c) => c.message)
    .filter(Boolean)
    .join("; ");
  return {
    state: "failed",
    message: `InstallPlan ${ns}/${planName} failed${msg ? `: ${msg}` : ""}; see \`oc describe installplan ${planName} -n ${ns}\``,
  };
}

/**
 * Counts, by the wait's own clock, how long each finding has been seen in a row. One look asks `held` for every
 * finding it sees; a finding not asked in a look is forgotten, so it starts from 0 if it comes back. A look that
 * throws (the API unreachable) forgets nothing.
 */
export class Persistence {
  private since = new Map<string, number>();

  constructor(private readonly now: () => number = Date.now) {}

  look<T>(decide: (held: Held) => T): T {
    const at = this.now();
    const seen = new Set<string>();
    const out = decide((key) => {
      seen.add(key);
      const first = this.since.get(key) ?? at;
      this.since.set(key, first);
      return (at - first) / 1000;
    });
    for (const key of [...this.since.keys()]) if (!seen.has(key)) this.since.delete(key);
    return out;
  }
}
