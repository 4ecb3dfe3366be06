import { objectExistsProvider, operatorReadyProvider } from "../../../providers/kube-wait/provider";
import { ObjectExists, OperatorReady } from "../../../providers/kube-wait/resources";
import { objectPath, OLM } from "../../../providers/kube-wait/conditions";
import { runInHost, serializedProviderOf } from "../../helpers/dynamic-host";
import { FakeKube } from "../../helpers/fake-kube";

// The wait providers in their serialized form, run by a separate Node process the way Pulumi's dynamic-provider
// host runs them, against a local server that answers the Kubernetes API paths involved.
const NS = "openshift-windows-machine-config-operator";
const SUB = "windows-machine-config-operator";
const CSV = "windows-machine-config-operator.v10.19.3";
const USERDATA = objectPath("v1", "secrets", "openshift-machine-api", "windows-user-data");

let kube: FakeKube;
let objectText: string;
let operatorText: string;
let serializedInputs: Record<string, unknown>;
const KUBECONFIG_MARK = "client-key-data: c2VjcmV0LWtleS1tYXRlcmlhbA==";

beforeAll(async () => {
  kube = new FakeKube();
  await kube.start();
  const o = await serializedProviderOf(
    () =>
      new ObjectExists("ud", {
        apiVersion: "v1",
        kind: "Secret",
        namespace: "openshift-machine-api",
        name: "windows-user-data",
        dataKey: "userData",
        kubeconfig: `apiVersion: v1\n${KUBECONFIG_MARK}\n`,
      }),
  );
  objectText = o.text;
  serializedInputs = o.inputs;
  operatorText = (await serializedProviderOf(() => new OperatorReady("op", { namespace: NS, subscription: SUB }))).text;
}, 60_000);
afterAll(() => kube.stop());

const objectInputs = (over: Record<string, unknown> = {}) => ({
  apiVersion: "v1",
  kind: "Secret",
  namespace: "openshift-machine-api",
  name: "windows-user-data",
  dataKey: "userData",
  kubeconfig: kube.kubeconfig(),
  timeoutSeconds: 20,
  intervalSeconds: 0.05,
  ...over,
});

test("the serialized provider carries no kubeconfig; the kubeconfig input is a secret", () => {
  expect(objectText).not.toContain("c2VjcmV0LWtleS1tYXRlcmlhbA");
  expect(JSON.stringify(serializedInputs.kubeconfig)).toContain("4dabf18193072939515e22adb298388d");
});

test("windows-user-data appears after a few polls: create succeeds with metadata only, never data", async () => {
  kube.route(USERDATA, (n) =>
    n < 3
      ? { status: 404 }
      : n < 5
        ? { status: 200, body: { metadata: { resourceVersion: "1", uid: "u" }, data: {} } }
        : {
            status: 200,
            body: { metadata: { resourceVersion: "7", uid: "u-1" }, data: { userData: "PHBvd2Vyc2hlbGw+" } },
          },
  );
  const [r] = await runInHost(objectText, [{ method: "create", args: [objectInputs()] }]);
  expect(r).toMatchObject({
    ok: true,
    value: { id: "openshift-machine-api/windows-user-data", outs: { resourceVersion: "7", uid: "u-1" } },
  });
  expect(JSON.stringify(r)).not.toContain("PHBvd2Vyc2hlbGw+");
  expect(kube.hits.get(USERDATA)).toBe(5);
});

test("a secret that never appears times out within the deadline, naming it and what to check", async () => {
  const path = objectPath("v1", "secrets", "openshift-machine-api", "never");
  kube.route(path, () => ({ status: 404 }));
  const [r] = await runInHost(objectText, [
    { method: "create", args: [objectInputs({ name: "never", timeoutSeconds: 1, intervalSeconds: 0.1 })] },
  ]);
  expect(r.ok).toBe(false);
  // The seconds are those measured (poll.ts), 1 or more on a loaded machine: the deadline is proven by the count of
  // checks instead, at most one per interval and one at the deadline (11), fewer the slower the machine.
  expect(r.ok === false && r.message).toMatch(
    /timed out after \ds waiting for Secret openshift-machine-api\/never with 'userData'; last seen: .*does not exist yet/,
  );
  expect(kube.hits.get(path)).toBeLessThanOrEqual(11);
});

test("refused credentials end the wait at once with the API path and a hint, no stack trace", async () => {
  kube.route(USERDATA, () => ({ status: 200, body: { metadata: {}, data: { userData: "x" } } }));
  const [r] = await runInHost(objectText, [
    { method: "create", args: [objectInputs({ kubeconfig: kube.kubeconfig("wrong"), timeoutSeconds: 30 })] },
  ]);
  expect(r.ok).toBe(false);
  const message = r.ok === false ? r.message : "";
  expect(message).toMatch(
    /refused GET \/api\/v1\/namespaces\/openshift-machine-api\/secrets\/windows-user-data \(401\)/,
  );
  expect(message).toMatch(/windows-estate:cluster.kubeconfig/);
  expect(message).not.toMatch(/\n\s+at /);
});

test("read re-checks once: present keeps the resource, gone drops it so the next up waits again", async () => {
  let present = true;
  kube.route(USERDATA, () =>
    present ? { status: 200, body: { metadata: { resourceVersion: "9" }, data: { userData: "x" } } } : { status: 404 },
  );
  const props = objectInputs();
  const [kept] = await runInHost(objectText, [
    { method: "read", args: ["openshift-machine-api/windows-user-data", props] },
  ]);
  expect(kept).toMatchObject({
    ok: true,
    value: { id: "openshift-machine-api/windows-user-data", props: { resourceVersion: "9" } },
  });
  present = false;
  const [dropped] = await runInHost(objectText, [
    { method: "read", args: ["openshift-machine-api/windows-user-data", props] },
  ]);
  expect(dropped).toMatchObject({ ok: true, value: { id: "" } });
});

test("the operator wait fails fast on an InstallPlan awaiting manual approval, with the approve command", async () => {
  kube.route(objectPath(OLM, "subscriptions", NS, SUB), () => ({
    status: 200,
    body: { status: { state: "UpgradePending", installPlanRef: { name: "install-abcde" }, currentCSV: CSV } },
  }));
  kube.route(objectPath(OLM, "installplans", NS, "install-abcde"), () => ({
    status: 200,
    body: {
      spec: { approval: "Manual", approved: false, clusterServiceVersionNames: [CSV] },
      status: { phase: "RequiresApproval" },
    },
  }));
  const [r] = await runInHost(operatorText, [
    {
      method: "create",
      args: [
        { namespace: NS, subscription: SUB, kubeconfig: kube.kubeconfig(), timeoutSeconds: 600, intervalSeconds: 1 },
      ],
    },
  ]);
  expect(r.ok).toBe(false);
  // Fast means at the first check, counted rather than timed: a wait that went on would read the Subscription again.
  expect(kube.hits.get(objectPath(OLM, "subscriptions", NS, SUB))).toBe(1);
  expect(r.ok === false && r.message).toContain(
    `oc patch installplan install-abcde -n ${NS} --type merge -p '{"spec":{"approved":true}}'`,
  );
});

test("the operator wait completes once the installed CSV succeeds", async () => {
  kube.route(objectPath(OLM, "subscriptions", NS, SUB), () => ({
    status: 200,
    body: { status: { state: "AtLatestKnown", installedCSV: CSV, currentCSV: CSV } },
  }));
  kube.route(objectPath(OLM, "clusterserviceversions", NS, CSV), (n) => ({
    status: 200,
    body: { spec: { version: "10.19.3" }, status: { phase: n < 3 ? "Installing" : "Succeeded" } },
  }));
  const [r] = await runInHost(operatorText, [
    {
      method: "create",
      args: [
        { namespace: NS, subscription: SUB, kubeconfig: kube.kubeconfig(), timeoutSeconds: 30, intervalSeconds: 0.05 },
      ],
    },
  ]);
  expect(r).toMatchObject({ ok: true, value: { id: `${NS}/${SUB}`, outs: { installedCSV: CSV, version: "10.19.3" } } });
});

test("during an Automatic upgrade the operator wait reports the new CSV once OLM is done, not the one it replaces", async () => {
  const OLD = "windows-machine-config-operator.v10.19.2";
  // catalog/operator.go ensureSubscriptionCSVState: installedCSV names the old CSV (still Succeeded) until the new
  // CSV exists; then AtLatestKnown with installedCSV = currentCSV, Installing before Succeeded.
  // Counted here: the route's `n` counts every request to the path since the server started, earlier tests' too.
  let looks = 0;
  kube.route(objectPath(OLM, "subscriptions", NS, SUB), () => ({
    status: 200,
    body:
      ++looks < 3
        ? {
            status: {
              state: "UpgradePending",
              installedCSV: OLD,
              currentCSV: CSV,
              installPlanRef: { name: "install-up" },
            },
          }
        : { status: { state: "AtLatestKnown", installedCSV: CSV, currentCSV: CSV } },
  }));
  kube.route(objectPath(OLM, "clusterserviceversions", NS, OLD), () => ({
    status: 200,
    body: { spec: { version: "10.19.2" }, status: { phase: "Succeeded" } },
  }));
  kube.route(objectPath(OLM, "installplans", NS, "install-up"), () => ({
    status: 200,
    body: { spec: { approval: "Automatic", approved: true }, status: { phase: "Installing" } },
  }));
  let csvLooks = 0;
  kube.route(objectPath(OLM, "clusterserviceversions", NS, CSV), () => ({
    status: 200,
    body: { spec: { version: "10.19.3" }, status: { phase: ++csvLooks < 2 ? "Installing" : "Succeeded" } },
  }));
  kube.route(`/apis/operators.coreos.com/v1/namespaces/${NS}/operatorgroups`, () => ({
    status: 200,
    body: { items: [{ metadata: { name: SUB, namespace: NS } }] },
  }));
  const [r] = await runInHost(operatorText, [
    {
      method: "create",
      args: [
        { namespace: NS, subscription: SUB, kubeconfig: kube.kubeconfig(), timeoutSeconds: 30, intervalSeconds: 0.05 },
      ],
    },
  ]);
  expect(r).toMatchObject({ ok: true, value: { outs: { installedCSV: CSV, version: "10.19.3" } } });
  expect(looks).toBeGreaterThanOrEqual(3);
});

test("diff: identity changes replace; a rotated kubeconfig or new timeout is an in-place update; preview unknowns count as changes", async () => {
  const olds = objectInputs();
  expect(await objectExistsProvider.diff!("id", olds, { ...olds })).toMatchObject({ changes: false, replaces: [] });
  // Otherwise the engine keeps the old kubeconfig in state and the next refresh uses it (defect: 401 after rotation).
  expect(await objectExistsProvider.diff!("id", olds, { ...olds, kubeconfig: "other" })).toMatchObject({
    changes: true,
    replaces: [],
  });
  expect(await objectExistsProvider.diff!("id", olds, { ...olds, timeoutSeconds: 5 })).toMatchObject({
    changes: true,
    replaces: [],
  });
  expect(
    await objectExistsProvider.diff!(
      "id",
      { ...olds, __provider: "v1" } as never,
      { ...olds, __provider: "v2" } as never,
    ),
  ).toMatchObject({ changes: true, replaces: [] });
  expect(await objectExistsProvider.diff!("id", olds, { ...olds, name: "other" })).toMatchObject({
    changes: true,
    replaces: ["name"],
  });
  expect(
    await objectExistsProvider.diff!("id", olds, { ...olds, namespace: "04da6b54-80e4-46f7-96ec-b56ff0331ba9" }),
  ).toMatchObject({ changes: true, replaces: ["namespace"] });
});

test("diff: a new channel, source, startingCSV or approval of the Subscription waits again (an update, not a replace)", async () => {
  const olds = {
    namespace: NS,
    subscription: SUB,
    subscriptionSpec: { channel: "stable", installPlanApproval: "Automatic", source: "redhat-operators" },
    kubeconfig: "k",
    timeoutSeconds: 900,
    intervalSeconds: 5,
  };
  expect(await operatorReadyProvider.diff!("id", olds, { ...olds })).toMatchObject({ changes: false, replaces: [] });
  // Defect (issue 43): the Subscription was updated in place and OLM resolved again, but the wait kept what it had
  // seen for the old spec (a Same step), so nothing waited for the new channel's CSV.
  for (const change of [
    { channel: "preview" },
    { source: "community-operators" },
    { startingCSV: "windows-machine-config-operator.v10.22.0" },
    { installPlanApproval: "Manual" },
  ])
    expect(
      await operatorReadyProvider.diff!("id", olds, {
        ...olds,
        subscriptionSpec: { ...olds.subscriptionSpec, ...change },
      }),
    ).toMatchObject({ changes: true, replaces: [] });
});
