import {
  CATALOG_GRACE_SECONDS,
  catalogsInResolutionError,
  OPERATOR_GROUP_GRACE_SECONDS,
  OperatorObservation,
  operatorVerdict,
  Persistence,
  RESOLUTION_SETTLE_SECONDS,
} from "../../../providers/kube-wait/olm";
import { validateObject } from "../../helpers/schemas";

// The operator wait's decisions over OLM's objects as operator-lifecycle-manager v0.41.0 writes them (hand-built, not
// recorded: each case cites the OLM code that writes it; Subscriptions, InstallPlans and OperatorGroups are validated
// against operator-framework/api's schemas below). Time is the test's own clock, passed to Persistence.

const NS = "openshift-windows-machine-config-operator";
const PKG = "windows-machine-config-operator";
const t = { namespace: NS, subscription: PKG };
const OLD = "windows-machine-config-operator.v10.22.2";
const CSV = "windows-machine-config-operator.v11.0.0";

const sub = (status: Record<string, unknown>, spec: Record<string, unknown> = {}) => ({
  apiVersion: "operators.coreos.com/v1alpha1",
  kind: "Subscription",
  metadata: { name: PKG, namespace: NS },
  spec: {
    name: PKG,
    channel: "stable",
    source: "redhat-operators",
    sourceNamespace: "openshift-marketplace",
    installPlanApproval: "Automatic",
    ...spec,
  },
  status: { lastUpdated: "2026-11-01T00:00:00Z", ...status },
});
const plan = (name: string, approval: "Automatic" | "Manual", phase: string, extra: Record<string, unknown> = {}) => ({
  apiVersion: "operators.coreos.com/v1alpha1",
  kind: "InstallPlan",
  metadata: { name, namespace: NS },
  spec: { approval, approved: approval === "Automatic", clusterServiceVersionNames: [CSV] },
  status: { phase, catalogSources: [], ...extra },
});
const csv = (name: string, phase: string, reason = "", message = "") => ({
  metadata: { name, namespace: NS },
  spec: { version: name.replace(/^.*\.v/, "") },
  status: { phase, ...(reason ? { reason } : {}), ...(message ? { message } : {}) },
});
const og = (name: string, extra: Record<string, unknown> = {}) => ({
  apiVersion: "operators.coreos.com/v1",
  kind: "OperatorGroup",
  metadata: { name, namespace: NS, labels: name === PKG ? { "app.kubernetes.io/managed-by": "windows-estate" } : {} },
  spec: { targetNamespaces: [NS], upgradeStrategy: "Default" },
  ...extra,
});
// olm/operatorgroup.go l.103-107: with more than one OperatorGroup, each gets this metav1.Condition.
const multiple = {
  status: {
    lastUpdated: "2026-11-01T00:00:00Z",
    conditions: [
      {
        type: "MultipleOperatorGroup",
        status: "True",
        reason: "MultipleOperatorGroupsFound",
        message: "Multiple OperatorGroup found in the same namespace",
        lastTransitionTime: "2026-11-01T00:00:00Z",
      },
    ],
  },
};
/** An address CatalogSource as syncConnection writes it (catalog/operator.go l.1119). */
const catalog = (state: string | undefined, spec: Record<string, unknown> = { address: "10.0.0.9:50051" }) => ({
  metadata: { name: "redhat-operators", namespace: "openshift-marketplace" },
  spec: { sourceType: "grpc", ...spec },
  status: {
    registryService: { protocol: "grpc", createdAt: "2026-11-01T00:00:00Z" },
    ...(state
      ? {
          connectionState: {
            address: String(spec.address ?? "redhat-operators.openshift-marketplace.svc:50051"),
            lastObservedState: state,
            lastConnect: "2026-11-01T00:00:00Z",
          },
        }
      : {}),
  },
});
// The subscription syncer's view of an address CatalogSource, whether or not anything answers there
// (grpc_address.go CheckRegistryServer: healthy = true; subscription/state.go UpdateHealth).
const healthyView = {
  catalogHealth: [
    {
      catalogSourceRef: { kind: "CatalogSource", name: "redhat-operators", namespace: "openshift-marketplace" },
      healthy: true,
      lastUpdated: "2026-11-01T00:00:00Z",
    },
  ],
  conditions: [
    {
      type: "CatalogSourcesUnhealthy",
      status: "False",
      reason: "AllCatalogSourcesHealthy",
      message: "all available catalogsources are healthy",
    },
  ],
};

function look(
  s: Record<string, unknown> | undefined,
  more: Partial<Omit<OperatorObservation, "subscription">> = {},
): OperatorObservation {
  return {
    subscription: s,
    operatorGroups: { readable: true, value: [og(PKG)] },
    catalogSource: { readable: true, value: catalog("READY") },
    ...more,
  };
}

/** Runs looks at the given seconds of the test's clock; returns each verdict. */
function timeline(steps: [number, OperatorObservation][]) {
  let now = 0;
  const p = new Persistence(() => now);
  return steps.map(([at, o]) => {
    now = at * 1000;
    return p.look((held) => operatorVerdict(t, o, held));
  });
}

const text = (v: unknown) => JSON.stringify(v);

test("the hand-built Subscriptions, InstallPlans and OperatorGroups are valid for operator-framework/api's schemas", () => {
  for (const o of [
    sub({ state: "" }),
    sub({ installedCSV: CSV, currentCSV: CSV, state: "AtLatestKnown" }),
    sub({ installPlanRef: { name: "install-abc", namespace: NS }, state: "UpgradePending" }),
    sub({ ...healthyView }),
    plan("install-1", "Manual", "RequiresApproval"),
    og(PKG),
    og("other", multiple),
  ]) {
    expect(validateObject(o)).toBe("");
  }
});

describe("what the wait did before and still does", () => {
  test.each([
    ["no Subscription yet", look(undefined), "waiting", /does not exist yet/],
    ["resolving", look(sub({ state: "" })), "waiting", /not yet resolved/],
    [
      "OLM's CatalogSourcesUnhealthy is quoted",
      look(
        sub({
          conditions: [
            {
              type: "CatalogSourcesUnhealthy",
              status: "True",
              reason: "UnhealthyCatalogSourceFound",
              message: "targeted catalogsource openshift-marketplace/redhat-operators unhealthy",
            },
          ],
        }),
      ),
      "waiting",
      /CatalogSourcesUnhealthy \(UnhealthyCatalogSourceFound\): targeted catalogsource/,
    ],
    [
      "automatic plan installing",
      look(sub({ installPlanRef: { name: "install-1" }, state: "UpgradePending" }), {
        installPlan: plan("install-1", "Automatic", "Installing"),
      }),
      "waiting",
      /install-1 is Installing/,
    ],
    [
      "manual plan awaiting approval, nothing installed",
      look(sub({ state: "UpgradePending", installPlanRef: { name: "install-1" } }), {
        installPlan: plan("install-1", "Manual", "RequiresApproval"),
      }),
      "failed",
      /awaits manual approval.*oc patch installplan install-1 -n openshift-windows-machine-config-operator --type merge/,
    ],
    [
      "legacy installplan field",
      look(sub({ installplan: { name: "install-2" } }), {
        installPlan: { spec: { approval: "Manual", approved: false }, status: {} },
      }),
      "failed",
      /install-2/,
    ],
    [
      "failed plan",
      look(sub({ installPlanRef: { name: "install-3" } }), {
        installPlan: plan("install-3", "Automatic", "Failed", {
          conditions: [{ type: "Installed", status: "False", message: "bundle unpacking failed" }],
        }),
      }),
      "failed",
      /install-3 failed: bundle unpacking failed/,
    ],
    [
      "CSV installing",
      look(sub({ installedCSV: CSV, currentCSV: CSV, state: "AtLatestKnown" }), {
        csv: csv(CSV, "Installing", "InstallWaiting", "installing: waiting for deployment"),
      }),
      "waiting",
      /is Installing \(InstallWaiting: installing: waiting/,
    ],
  ])("%s", (_n, o, state, says) => {
    const v = operatorVerdict(t, o);
    expect(v.state).toBe(state);
    expect(text(v)).toMatch(says);
  });

  test("CSV Succeeded and the Subscription AtLatestKnown: done with name and version", () => {
    expect(
      operatorVerdict(
        t,
        look(sub({ installedCSV: CSV, currentCSV: CSV, state: "AtLatestKnown" }), { csv: csv(CSV, "Succeeded") }),
      ),
    ).toEqual({ state: "done", outputs: { installedCSV: CSV, version: "11.0.0" } });
  });

  test("an installed operator stays done while its upgrade waits for manual approval, and says so", () => {
    const o = look(
      sub(
        { installedCSV: OLD, currentCSV: CSV, state: "UpgradePending", installPlanRef: { name: "install-9" } },
        {
          installPlanApproval: "Manual",
        },
      ),
      { csv: csv(OLD, "Succeeded"), installPlan: plan("install-9", "Manual", "RequiresApproval") },
    );
    const v = operatorVerdict(t, o);
    expect(v).toMatchObject({ state: "done", outputs: { installedCSV: OLD, version: "10.22.2" } });
    expect(v.state === "done" && v.notice).toMatch(
      /InstallPlan openshift-windows-machine-config-operator\/install-9 \(upgrade to windows-machine-config-operator\.v11\.0\.0\) awaits manual approval: `oc patch installplan install-9/,
    );
  });
  test("an upgrade approved a moment ago is in flight, though its plan still says RequiresApproval", () => {
    // catalog/operator.go transitionInstallPlanState (OLM v0.41.0): RequiresApproval with spec.approved → Installing
    // at the next sync, so until then the approved plan's phase is stale.
    const approved = { ...plan("install-9", "Manual", "RequiresApproval") };
    approved.spec = { ...approved.spec, approved: true };
    const o = look(
      sub(
        { installedCSV: OLD, currentCSV: CSV, state: "UpgradePending", installPlanRef: { name: "install-9" } },
        { installPlanApproval: "Manual" },
      ),
      { csv: csv(OLD, "Succeeded"), installPlan: approved },
    );
    expect(operatorVerdict(t, o)).toEqual({
      state: "waiting",
      reason: `OLM is replacing ${OLD} with ${CSV} (Subscription UpgradePending, InstallPlan install-9 RequiresApproval)`,
    });
  });
});

describe("done only when OLM is not replacing the installed CSV", () => {
  // operator.go ensureSubscriptionCSVState (l.1599): installedCSV stays the old CSV until the new CSV object exists;
  // then AtLatestKnown with installedCSV = currentCSV, whatever that CSV's phase.
  const upgrading = look(
    sub({ installedCSV: OLD, currentCSV: CSV, state: "UpgradePending", installPlanRef: { name: "install-2" } }),
    { csv: csv(OLD, "Succeeded"), installPlan: plan("install-2", "Automatic", "Installing") },
  );

  test("an Automatic upgrade in flight is not done with the CSV being replaced", () => {
    const v = operatorVerdict(t, upgrading);
    expect(v).toEqual({
      state: "waiting",
      reason: `OLM is replacing ${OLD} with ${CSV} (Subscription UpgradePending, InstallPlan install-2 Installing)`,
    });
  });

  test("then the new CSV installing, then done with the new version", () => {
    const at = sub({ installedCSV: CSV, currentCSV: CSV, state: "AtLatestKnown" });
    expect(operatorVerdict(t, look(at, { csv: csv(CSV, "Pending", "RequirementsUnknown") })).state).toBe("waiting");
    expect(operatorVerdict(t, look(at, { csv: csv(CSV, "Succeeded") }))).toMatchObject({
      state: "done",
      outputs: { installedCSV: CSV, version: "11.0.0" },
    });
  });

  test("an upgrade whose InstallPlan failed fails naming it", () => {
    const failed = {
      ...upgrading,
      installPlan: plan("install-2", "Automatic", "Failed", {
        conditions: [
          { type: "Installed", status: "False", reason: "InstallComponentFailed", message: "error creating csv" },
        ],
      }),
    };
    expect(operatorVerdict(t, failed)).toMatchObject({
      state: "failed",
      message: expect.stringMatching(
        /InstallPlan openshift-windows-machine-config-operator\/install-2 failed: error creating csv/,
      ),
    });
  });
});

test("an installed CSV that does not exist (deleted under OLM) is waited for, named", () => {
  const v = operatorVerdict(t, look(sub({ installedCSV: CSV, currentCSV: CSV, state: "AtLatestKnown" })));
  expect(v).toEqual({
    state: "waiting",
    reason: `CSV ${NS}/${CSV}, which Subscription ${PKG} names as installed, does not exist`,
  });
});

describe("CSV Failed: fail fast only where OLM does not retry", () => {
  const installed = (phase: string, reason: string, message: string) =>
    look(sub({ installedCSV: CSV, currentCSV: CSV, state: "AtLatestKnown" }), {
      csv: csv(CSV, phase, reason, message),
    });

  // olm/operator.go l.2363 and the Failed case (l.2436): re-checked, can still reach Succeeded.
  test.each([
    ["InstallCheckFailed", "install timeout"],
    ["ComponentUnhealthy", "installing: deployment changed old hash=x, new hash=y"],
    ["InstallComponentFailed", "install strategy failed: conflict"],
  ])("%s waits, naming the reason, until the wait's timeout", (reason, message) => {
    const v = operatorVerdict(t, installed("Failed", reason, message));
    expect(v.state).toBe("waiting");
    expect(v.state === "waiting" && v.reason).toContain(`is Failed (${reason}: ${message}), a reason OLM retries`);
  });

  // l.2089: skipped until an intentional requeue; l.2245: the bundle's strategy is invalid.
  test.each([
    ["InstallComponentFailedNoRetry", "install strategy failed: forbidden"],
    ["InvalidInstallStrategy", "install strategy invalid: bad"],
  ])("%s fails at once", (reason, message) => {
    expect(operatorVerdict(t, installed("Failed", reason, message))).toEqual({
      state: "failed",
      message: `CSV ${NS}/${CSV} failed (${reason}: ${message}); see \`oc describe csv ${CSV} -n ${NS}\``,
    });
  });

  test("NoOperatorGroup: waits while the namespace has one again (OLM moves the CSV back to Pending, l.2452)", () => {
    const o = installed("Failed", "NoOperatorGroup", "csv in namespace with no operatorgroups");
    expect(operatorVerdict(t, o).state).toBe("waiting");
    // Unread (403): OLM's own words are all there is, and they name the problem.
    expect(operatorVerdict(t, { ...o, operatorGroups: { readable: false, why: "403" } })).toMatchObject({
      state: "failed",
      message: expect.stringContaining("NoOperatorGroup: csv in namespace with no operatorgroups"),
    });
  });
});

describe("OperatorGroups: OLM only logs 'found N operatorGroups, expected 1'", () => {
  const unresolved = sub({ ...healthyView });

  test("none: waits for the grace, then fails naming the namespace and the fix, never claiming a condition", () => {
    const o = look(unresolved, { operatorGroups: { readable: true, value: [] } });
    const [first, before, after] = timeline([
      [0, o],
      [OPERATOR_GROUP_GRACE_SECONDS - 1, o],
      [OPERATOR_GROUP_GRACE_SECONDS, o],
    ]);
    expect(first.state).toBe("waiting");
    expect(before.state).toBe("waiting");
    expect(text(first)).toContain("found 0 operatorGroups, expected 1");
    expect(after).toEqual({
      state: "failed",
      message:
        `Namespace ${NS} has no OperatorGroup; OLM resolves Subscription ${NS}/${PKG} only when its namespace has ` +
        `exactly one OperatorGroup, and for this it sets no condition and records no Event: it only logs "found 0 ` +
        `operatorGroups, expected 1". This stack declares OperatorGroup ${NS}/${PKG} (named like the Subscription) ` +
        "and something deleted it: run `pulumi up --refresh` to create it again.",
    });
    for (const v of [first, before, after]) expect(text(v)).not.toMatch(/ResolutionFailed|ConstraintsNotSatisfiable/);
  });

  test("two: names both, quotes OLM's MultipleOperatorGroup where OLM set it, says which to delete", () => {
    const o = look(unresolved, {
      operatorGroups: { readable: true, value: [og(PKG, multiple), og("extra", multiple)] },
    });
    const [, v] = timeline([
      [0, o],
      [OPERATOR_GROUP_GRACE_SECONDS, o],
    ]);
    expect(v.state).toBe("failed");
    const message = v.state === "failed" ? v.message : "";
    expect(message).toContain(`Namespace ${NS} has 2 OperatorGroups (extra, ${PKG})`);
    expect(message).toContain('it only logs "found 2 operatorGroups, expected 1"');
    expect(message).toContain(
      "OLM marks them MultipleOperatorGroup (MultipleOperatorGroupsFound): Multiple OperatorGroup found in the same namespace",
    );
    expect(message).toContain(
      `Keep ${PKG}, which this stack declares, and delete the others: \`oc delete operatorgroup extra -n ${NS}\``,
    );
    expect(message).not.toMatch(/ResolutionFailed/);
    // Before OLM's olm operator has marked them, nothing claims it did.
    const unmarked = look(unresolved, { operatorGroups: { readable: true, value: [og(PKG), og("extra")] } });
    expect(text(timeline([[0, unmarked]])[0])).not.toContain("MultipleOperatorGroup");
  });

  test("two of which none is this stack's: says to keep one that targets only the namespace", () => {
    const o = look(unresolved, { operatorGroups: { readable: true, value: [og("a"), og("b")] } });
    const [, v] = timeline([
      [0, o],
      [OPERATOR_GROUP_GRACE_SECONDS, o],
    ]);
    expect(v.state === "failed" && v.message).toMatch(
      /None of them is this stack's \(windows-machine-config-operator\): delete all but one that targets only/,
    );
  });

  test("the grace counts a wrong count in a row: fixed in between, it starts again", () => {
    const two = look(unresolved, { operatorGroups: { readable: true, value: [og(PKG), og("extra")] } });
    const one = look(unresolved);
    const verdicts = timeline([
      [0, two],
      [OPERATOR_GROUP_GRACE_SECONDS - 5, two],
      [OPERATOR_GROUP_GRACE_SECONDS - 4, one],
      [OPERATOR_GROUP_GRACE_SECONDS + 10, two],
      [2 * OPERATOR_GROUP_GRACE_SECONDS + 10, two],
    ]);
    expect(verdicts.map((v) => v.state)).toEqual(["waiting", "waiting", "waiting", "waiting", "failed"]);
  });

  test("a ResolutionFailed left from before the second OperatorGroup is not OLM's answer: the count is", () => {
    // Seen against the real OLM v0.41.0 (olm.e2e.ts): a channel that did not exist, then a second OperatorGroup and
    // the channel corrected. OLM resolves nothing with two (fail_forward.go), so the condition for the old channel
    // stays while the Subscription asks for `stable`; the wait used to fail after the settle time quoting it.
    const stale = sub(
      {
        ...healthyView,
        conditions: [
          ...healthyView.conditions,
          {
            type: "ResolutionFailed",
            status: "True",
            reason: "ConstraintsNotSatisfiable",
            message:
              "constraints not satisfiable: no operators found in channel no-such-channel of package " +
              "windows-machine-config-operator in the catalog referenced by subscription windows-machine-config-operator",
          },
        ],
      },
      { channel: "stable" },
    );
    const o = look(stale, { operatorGroups: { readable: true, value: [og(PKG), og("another")] } });
    const verdicts = timeline([
      [0, o],
      [RESOLUTION_SETTLE_SECONDS, o],
      [OPERATOR_GROUP_GRACE_SECONDS, o],
    ]);
    expect(verdicts.map((v) => v.state)).toEqual(["waiting", "waiting", "failed"]);
    for (const v of verdicts) expect(text(v)).not.toContain("no-such-channel");
    const last = verdicts[2];
    expect(last.state === "failed" && last.message).toContain(`Namespace ${NS} has 2 OperatorGroups (another, ${PKG})`);
  });

  test("a list the credentials may not read (403) is not held against the install", () => {
    const o = look(unresolved, { operatorGroups: { readable: false, why: "GET … was refused (403)" } });
    const [, v] = timeline([
      [0, o],
      [10 * OPERATOR_GROUP_GRACE_SECONDS, o],
    ]);
    expect(v.state).toBe("waiting");
  });
});

describe("ResolutionFailed/ConstraintsNotSatisfiable: final, quoted", () => {
  // operator.go l.1344; the solver's text with resolver.go getSubscriptionVariables' message (l.260-267).
  const msg =
    "constraints not satisfiable: subscription windows-machine-config-operator exists, no operators found in channel " +
    "stabel of package windows-machine-config-operator in the catalog referenced by subscription " +
    "windows-machine-config-operator";
  const notSatisfiable = (m = msg) =>
    sub(
      {
        ...healthyView,
        conditions: [
          ...healthyView.conditions,
          { type: "ResolutionFailed", status: "True", reason: "ConstraintsNotSatisfiable", message: m },
        ],
      },
      { channel: "stabel" },
    );

  test("fails once it has stayed for the settle time, quoting OLM and naming what the Subscription asks for", () => {
    const o = look(notSatisfiable());
    const [first, v] = timeline([
      [0, o],
      [RESOLUTION_SETTLE_SECONDS, o],
    ]);
    expect(first.state === "waiting" && first.reason).toContain(`ResolutionFailed (ConstraintsNotSatisfiable): ${msg}`);
    expect(v.state).toBe("failed");
    const message = v.state === "failed" ? v.message : "";
    expect(message).toContain(
      `OLM cannot resolve Subscription ${NS}/${PKG}: ResolutionFailed (ConstraintsNotSatisfiable): ${msg}`,
    );
    expect(message).toContain(
      "asks for package windows-machine-config-operator, channel stabel, CatalogSource openshift-marketplace/redhat-operators",
    );
    expect(message).toContain(
      "OLM does not retry this: correct windows-estate:operator.package, channel, startingCSV or source",
    );
    expect(message).toContain("oc get packagemanifests -n openshift-marketplace");
  });

  test("one left from the Subscription's previous spec, gone within the settle time, fails nothing", () => {
    const fixed = look(sub({ ...healthyView, installPlanRef: { name: "install-1" }, state: "UpgradePending" }), {
      installPlan: plan("install-1", "Automatic", "Installing"),
    });
    const verdicts = timeline([
      [0, look(notSatisfiable())],
      [5, fixed],
      [RESOLUTION_SETTLE_SECONDS + 5, fixed],
    ]);
    expect(verdicts.map((v) => v.state)).toEqual(["waiting", "waiting", "waiting"]);
  });

  test("a source that does not exist: OLM's message, and the CatalogSource named as missing", () => {
    const m =
      "constraints not satisfiable: subscription windows-machine-config-operator exists, no operators found from " +
      "catalog nope in namespace openshift-marketplace referenced by subscription windows-machine-config-operator";
    const s = sub(
      {
        conditions: [
          {
            type: "CatalogSourcesUnhealthy",
            status: "True",
            reason: "UnhealthyCatalogSourceFound",
            message: "targeted catalogsource openshift-marketplace/nope missing",
          },
          { type: "ResolutionFailed", status: "True", reason: "ConstraintsNotSatisfiable", message: m },
        ],
      },
      { source: "nope" },
    );
    const o = look(s, { catalogSource: { readable: true, value: undefined } });
    const [, v] = timeline([
      [0, o],
      [RESOLUTION_SETTLE_SECONDS, o],
    ]);
    expect(v.state === "failed" && v.message).toContain(m);
    expect(v.state === "failed" && v.message).toContain(
      "CatalogSource openshift-marketplace/nope, and CatalogSource openshift-marketplace/nope does not exist",
    );
  });
});

describe("a CatalogSource that does not connect", () => {
  // What OLM writes when nothing answers at an address source: healthy in the Subscription's view, and
  // ErrorPreventedResolution (operator.go l.1358) with the cache's error (cache.go l.142).
  const refused =
    "error using catalogsource openshift-marketplace/redhat-operators: failed to list bundles: rpc error: code = " +
    'Unavailable desc = connection error: desc = "transport: Error while dialing: dial tcp 10.0.0.9:50051: connect: connection refused"';
  const blocked = (message = refused) =>
    sub({
      ...healthyView,
      conditions: [
        ...healthyView.conditions,
        { type: "ResolutionFailed", status: "True", reason: "ErrorPreventedResolution", message },
      ],
    });

  test("an address source: named with its address and state after a minute, quoting OLM, never calling it healthy", () => {
    const o = look(blocked(), { catalogSource: { readable: true, value: catalog("TRANSIENT_FAILURE") } });
    const [first, before, v] = timeline([
      [0, o],
      [CATALOG_GRACE_SECONDS.address - 1, o],
      [CATALOG_GRACE_SECONDS.address, o],
    ]);
    expect([first.state, before.state]).toEqual(["waiting", "waiting"]);
    expect(v.state).toBe("failed");
    const message = v.state === "failed" ? v.message : "";
    expect(message).toContain(
      "CatalogSource openshift-marketplace/redhat-operators is not connected: OLM's connection to 10.0.0.9:50051 is " +
        "TRANSIENT_FAILURE (status.connectionState.lastObservedState)",
    );
    expect(message).toContain(`OLM: ResolutionFailed (ErrorPreventedResolution): ${refused}`);
    expect(message).toContain("Check that the catalog server at 10.0.0.9:50051 (spec.address) is running");
    expect(message).not.toMatch(/healthy/i);
  });

  test("an image source gets the longer grace: its registry pod may still be pulling", () => {
    const o = look(blocked(), {
      catalogSource: {
        readable: true,
        value: catalog("CONNECTING", { image: "registry.redhat.io/redhat/redhat-operator-index:v5.0" }),
      },
    });
    const verdicts = timeline([
      [0, o],
      [CATALOG_GRACE_SECONDS.address, o],
      [CATALOG_GRACE_SECONDS.pod, o],
    ]);
    expect(verdicts.map((v) => v.state)).toEqual(["waiting", "waiting", "failed"]);
    expect(text(verdicts[2])).toContain("oc get pods -n openshift-marketplace -l olm.catalogSource=redhat-operators");
  });

  test("states flipping between CONNECTING and TRANSIENT_FAILURE are one outage", () => {
    const a = look(blocked(), { catalogSource: { readable: true, value: catalog("CONNECTING") } });
    const b = look(blocked(), { catalogSource: { readable: true, value: catalog("TRANSIENT_FAILURE") } });
    const verdicts = timeline([
      [0, a],
      [20, b],
      [40, a],
      [CATALOG_GRACE_SECONDS.address, b],
    ]);
    expect(verdicts.map((v) => v.state)).toEqual(["waiting", "waiting", "waiting", "failed"]);
  });

  test("READY again within the grace: nothing fails", () => {
    const down = look(blocked(), { catalogSource: { readable: true, value: catalog("TRANSIENT_FAILURE") } });
    const up = look(sub({ ...healthyView }));
    const verdicts = timeline([
      [0, down],
      [CATALOG_GRACE_SECONDS.address - 1, up],
      [CATALOG_GRACE_SECONDS.address + 1, up],
    ]);
    expect(verdicts.map((v) => v.state)).toEqual(["waiting", "waiting", "waiting"]);
  });

  test("a CatalogSource that does not exist is named with the keys to set", () => {
    const o = look(sub({}, { source: "nope" }), { catalogSource: { readable: true, value: undefined } });
    const [, v] = timeline([
      [0, o],
      [CATALOG_GRACE_SECONDS.address, o],
    ]);
    expect(v).toEqual({
      state: "failed",
      message:
        `CatalogSource openshift-marketplace/nope, which Subscription ${NS}/${PKG} names, does not exist. Set ` +
        "windows-estate:operator.source and operator.sourceNamespace to a CatalogSource of the cluster (`oc get " +
        "catalogsource -A`), then run `pulumi up` again.",
    });
  });

  // A catalog OLM cannot read, from OLM's message: one the Subscription does not use fails the wait once the longer
  // grace has passed too; its own (source_registry.go registrySource.Snapshot: the stream opened, then failed) at it.
  test.each([
    {
      name: "another catalog OLM cannot read blocks resolution too: named from OLM's message",
      message:
        "error using catalogsource openshift-marketplace/broken-operators: failed to list bundles: rpc error: code = Unavailable",
      at: [0, CATALOG_GRACE_SECONDS.address, CATALOG_GRACE_SECONDS.pod],
      says: "so CatalogSource openshift-marketplace/broken-operators stops WMCO's install although the Subscription does not use it",
      unsaid: "which the Subscription uses",
    },
    {
      name: "its own catalog connected but unreadable: OLM's message, after the longer grace",
      message:
        "error using catalogsource openshift-marketplace/redhat-operators: error encountered while listing bundles: rpc error: code = Internal",
      at: [0, CATALOG_GRACE_SECONDS.pod],
      says: "CatalogSource openshift-marketplace/redhat-operators, which the Subscription uses, is connected but OLM cannot list its bundles",
      unsaid: "does not use",
    },
  ])("$name", ({ message, at, says, unsaid }) => {
    const o = look(blocked(message));
    const verdicts = timeline(at.map((t): [number, OperatorObservation] => [t, o]));
    expect(verdicts.map((v) => v.state)).toEqual([...at.slice(1).map(() => "waiting"), "failed"]);
    const last = text(verdicts[verdicts.length - 1]);
    expect(last).toContain(says);
    expect(last).not.toContain(unsaid);
  });

  test("catalogs named in OLM's aggregated resolution error", () => {
    expect(
      catalogsInResolutionError(
        "[error using catalogsource openshift-marketplace/a: x, error using catalogsource ns2/b-c: failed to list bundles: y]",
      ),
    ).toEqual(["ns2/b-c", "openshift-marketplace/a"]);
  });
});

describe("Persistence", () => {
  test("counts a finding in a row, forgets one a look did not ask for, keeps all through a look that throws", () => {
    let now = 0;
    const p = new Persistence(() => now);
    expect(p.look((held) => held("a"))).toBe(0);
    now = 10_000;
    expect(p.look((held) => [held("a"), held("b")])).toEqual([10, 0]);
    now = 20_000;
    expect(() =>
      p.look(() => {
        throw new Error("API unreachable");
      }),
    ).toThrow();
    now = 30_000;
    expect(p.look((held) => [held("a"), held("b")])).toEqual([30, 20]);
    now = 40_000;
    p.look((held) => held("b"));
    expect(p.look((held) => held("a"))).toBe(0);
  });
});
