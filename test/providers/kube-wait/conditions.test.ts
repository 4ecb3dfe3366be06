import {
  byohHostReleasedVerdict,
  objectPath,
  objectVerdict,
  operatorVerdict,
  pluralOf,
} from "../../../providers/kube-wait/conditions";
import { pollUntil } from "../../../providers/kube-wait/poll";
import { finalError as fatal } from "../../../providers/errors";
import { validateObject } from "../../helpers/schemas";

const t = { namespace: "openshift-windows-machine-config-operator", subscription: "windows-machine-config-operator" };
const CSV = "windows-machine-config-operator.v10.19.3";

// Hand-built OLM objects at the states that matter (not recorded from a cluster); the Subscriptions and
// InstallPlans are validated against operator-framework/api's schemas below.
const sub = (status: Record<string, unknown>) => ({
  apiVersion: "operators.coreos.com/v1alpha1",
  kind: "Subscription",
  metadata: { name: t.subscription, namespace: t.namespace },
  spec: {
    name: "windows-machine-config-operator",
    source: "redhat-operators",
    sourceNamespace: "openshift-marketplace",
  },
  status: { lastUpdated: "2026-11-01T00:00:00Z", ...status },
});

test("the hand-built Subscriptions are valid for the Subscription schema", () => {
  for (const s of [
    sub({ state: "" }),
    sub({ installedCSV: CSV, state: "AtLatestKnown" }),
    sub({ installPlanRef: { name: "install-abc", namespace: t.namespace }, state: "UpgradePending" }),
  ]) {
    expect(validateObject(s)).toBe("");
  }
});
const csv = (phase: string, extra: Record<string, unknown> = {}) => ({
  spec: { version: "10.19.3" },
  status: { phase, ...extra },
});

describe("operatorVerdict", () => {
  test.each([
    ["no Subscription yet", undefined, undefined, undefined, "waiting", /does not exist yet/],
    ["resolving", sub({ state: "" }), undefined, undefined, "waiting", /not yet resolved/],
    [
      "catalog unhealthy is surfaced",
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
      undefined,
      undefined,
      "waiting",
      /CatalogSourcesUnhealthy \(UnhealthyCatalogSourceFound\): targeted catalogsource/,
    ],
    [
      "automatic plan installing",
      sub({ installPlanRef: { name: "install-1" } }),
      { spec: { approval: "Automatic", approved: true }, status: { phase: "Installing" } },
      undefined,
      "waiting",
      /install-1 is Installing/,
    ],
    [
      "manual plan awaiting approval",
      sub({ state: "UpgradePending", installPlanRef: { name: "install-1" } }),
      {
        spec: { approval: "Manual", approved: false, clusterServiceVersionNames: [CSV] },
        status: { phase: "RequiresApproval" },
      },
      undefined,
      "failed",
      /awaits manual approval.*oc patch installplan install-1/,
    ],
    [
      "legacy installplan field",
      sub({ installplan: { name: "install-2" } }),
      { spec: { approval: "Manual", approved: false }, status: {} },
      undefined,
      "failed",
      /install-2/,
    ],
    [
      "failed plan",
      sub({ installPlanRef: { name: "install-3" } }),
      {
        spec: { approval: "Automatic", approved: true },
        status: { phase: "Failed", conditions: [{ message: "bundle unpacking failed" }] },
      },
      undefined,
      "failed",
      /install-3 failed: bundle unpacking failed/,
    ],
    [
      "CSV installing",
      sub({ installedCSV: CSV }),
      undefined,
      csv("Installing", { reason: "InstallWaiting", message: "installing: waiting for deployment" }),
      "waiting",
      /is Installing \(InstallWaiting: installing: waiting/,
    ],
    [
      "CSV failed",
      sub({ installedCSV: CSV }),
      undefined,
      csv("Failed", { reason: "InstallCheckFailed", message: "install timeout" }),
      "failed",
      /failed \(InstallCheckFailed: install timeout\)/,
    ],
  ])("%s", (_n, s, plan, c, state, says) => {
    const v = operatorVerdict(t, s, plan, c);
    expect(v.state).toBe(state);
    expect(JSON.stringify(v)).toMatch(says);
  });

  test("CSV succeeded: done with name and version", () => {
    expect(operatorVerdict(t, sub({ installedCSV: CSV }), undefined, csv("Succeeded"))).toEqual({
      state: "done",
      outputs: { installedCSV: CSV, version: "10.19.3" },
    });
  });

  test("an installed operator stays done while an upgrade waits for approval", () => {
    const s = sub({
      installedCSV: CSV,
      currentCSV: "windows-machine-config-operator.v10.19.4",
      state: "UpgradePending",
      installPlanRef: { name: "install-9" },
    });
    expect(operatorVerdict(t, s, undefined, csv("Succeeded")).state).toBe("done");
  });
});

describe("objectVerdict", () => {
  const target = {
    apiVersion: "v1",
    kind: "Secret",
    namespace: "openshift-machine-api",
    name: "windows-user-data",
    dataKey: "userData",
  };
  test("absent, present without the key, present with it", () => {
    expect(objectVerdict(target, undefined).state).toBe("waiting");
    expect(objectVerdict(target, { metadata: {}, data: {} })).toMatchObject({
      state: "waiting",
      reason: expect.stringMatching(/no 'userData'/),
    });
    expect(
      objectVerdict(target, { metadata: { resourceVersion: "5", uid: "u" }, data: { userData: "c2VjcmV0" } }),
    ).toEqual({ state: "done", outputs: { resourceVersion: "5", uid: "u" } });
  });
});

test("API paths and plurals", () => {
  expect(objectPath("v1", pluralOf("Secret"), "ns", "n")).toBe("/api/v1/namespaces/ns/secrets/n");
  expect(objectPath("operators.coreos.com/v1alpha1", pluralOf("Subscription"), "ns", "n")).toBe(
    "/apis/operators.coreos.com/v1alpha1/namespaces/ns/subscriptions/n",
  );
  expect(pluralOf("ClusterServiceVersion")).toBe("clusterserviceversions");
  expect(pluralOf("MachineSet")).toBe("machinesets");
});

describe("pollUntil", () => {
  test("keeps asking through transient errors until done", async () => {
    let n = 0;
    const out = await pollUntil(
      async () => {
        n++;
        if (n === 1) throw new Error("ECONNREFUSED");
        return n < 4 ? { state: "waiting" as const, reason: "not yet" } : { state: "done" as const, outputs: n };
      },
      { timeoutSeconds: 10, intervalSeconds: 0.01, what: "x", hint: "" },
    );
    expect(out).toBe(4);
  });

  test("a fatal error ends at once", async () => {
    let n = 0;
    await expect(
      pollUntil(
        async () => {
          n++;
          throw fatal("refused (403)");
        },
        { timeoutSeconds: 10, intervalSeconds: 0.01, what: "x", hint: "" },
      ),
    ).rejects.toThrow("refused (403)");
    expect(n).toBe(1);
  });
});

test("a created BYOH host's VM waits until no BYOH Node carries its address (WMCO deconfigured it)", () => {
  const node = (name: string, address: string) => ({
    metadata: { name, labels: { "windowsmachineconfig.openshift.io/byoh": "true" } },
    status: { addresses: [{ type: "InternalIP", address }] },
  });
  expect(
    byohHostReleasedVerdict({ items: [node("winbyoh-1", "10.0.1.5"), node("b", "10.0.1.6")] }, "10.0.1.5"),
  ).toEqual({
    state: "waiting",
    reason: "WMCO has not yet deconfigured node winbyoh-1 at 10.0.1.5",
  });
  expect(byohHostReleasedVerdict({ items: [node("b", "10.0.1.6")] }, "10.0.1.5")).toEqual({
    state: "done",
    outputs: {},
  });
  expect(byohHostReleasedVerdict(undefined, "10.0.1.5")).toEqual({ state: "done", outputs: {} });
});
