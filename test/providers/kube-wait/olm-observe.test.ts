import type { KubeAnswer, KubeApi, RequestOptions } from "../../../providers/kube-wait/api";
import { objectPath, OLM } from "../../../providers/kube-wait/conditions";
import { OPERATOR_GROUP_GRACE_SECONDS } from "../../../providers/kube-wait/olm";
import { observeOperator, operatorCheck } from "../../../providers/kube-wait/provider";
import { finalError } from "../../../lib/errors";
import { obj } from "../../../lib/json";

// What the operator wait reads on each look, against an in-process stand-in of the API (answers by path; a 403 is
// refused like connectKube refuses it unless the request passes it through). The looks are driven by the test's
// clock: no waiting.

const NS = "openshift-windows-machine-config-operator";
const PKG = "windows-machine-config-operator";
const t = { namespace: NS, subscription: PKG };
const SUB = objectPath(OLM, "subscriptions", NS, PKG);
const OGS = `/apis/operators.coreos.com/v1/namespaces/${NS}/operatorgroups`;
const CATALOG = objectPath(OLM, "catalogsources", "openshift-marketplace", "redhat-operators");

type Answer = { status: number; body?: unknown };

function fakeApi(routes: Record<string, Answer>): KubeApi & { asked: string[] } {
  const asked: string[] = [];
  const answer = (path: string): Answer => routes[path] ?? { status: 404 };
  const request = async (method: string, path: string, _b?: unknown, o?: RequestOptions): Promise<KubeAnswer> => {
    asked.push(`${method} ${path}`);
    const a = answer(path);
    if ((a.status === 401 || a.status === 403) && o?.passThrough?.(a.status, a.body) !== true)
      throw finalError(`refused ${method} ${path} (${a.status})`);
    return { status: a.status, body: a.body };
  };
  return {
    server: "https://fake",
    asked,
    request,
    async get(path) {
      const r = await request("GET", path);
      return r.status === 404 ? undefined : obj(r.body);
    },
  };
}

const subscription = (status: Record<string, unknown>) => ({
  status: 200,
  body: {
    spec: { name: PKG, channel: "stable", source: "redhat-operators", sourceNamespace: "openshift-marketplace" },
    status,
  },
});
const groups = (...names: string[]) => ({
  status: 200,
  body: { kind: "OperatorGroupList", items: names.map((name) => ({ metadata: { name, namespace: NS } })) },
});

test("nothing resolved yet: reads the OperatorGroups and the Subscription's CatalogSource", async () => {
  const api = fakeApi({ [SUB]: subscription({}), [OGS]: groups(PKG) });
  const seen = await observeOperator(api, t);
  expect(new Set(api.asked)).toEqual(new Set([`GET ${SUB}`, `GET ${OGS}`, `GET ${CATALOG}`]));
  expect(seen.operatorGroups).toEqual({ readable: true, value: [{ metadata: { name: PKG, namespace: NS } }] });
  // 404: the CatalogSource does not exist (read, and absent).
  expect(seen.catalogSource).toEqual({ readable: true, value: undefined });
});

test("a 403 on the OperatorGroups or the CatalogSource leaves them unread instead of ending the wait", async () => {
  const api = fakeApi({ [SUB]: subscription({}), [OGS]: { status: 403 }, [CATALOG]: { status: 403 } });
  const seen = await observeOperator(api, t);
  expect(seen.operatorGroups).toMatchObject({ readable: false, why: expect.stringContaining("(403)") });
  expect(seen.catalogSource).toMatchObject({ readable: false });
});

test("an upgrade in flight: reads the InstallPlan beside the installed CSV, and no CatalogSource", async () => {
  const OLD = "windows-machine-config-operator.v10.22.2";
  const api = fakeApi({
    [SUB]: subscription({
      installedCSV: OLD,
      currentCSV: "windows-machine-config-operator.v11.0.0",
      state: "UpgradePending",
      installPlanRef: { name: "install-2" },
    }),
    [OGS]: groups(PKG),
    [objectPath(OLM, "clusterserviceversions", NS, OLD)]: { status: 200, body: { status: { phase: "Succeeded" } } },
    [objectPath(OLM, "installplans", NS, "install-2")]: {
      status: 200,
      body: { spec: { approval: "Automatic", approved: true }, status: { phase: "Installing" } },
    },
  });
  const seen = await observeOperator(api, t);
  expect(seen.installPlan).toMatchObject({ status: { phase: "Installing" } });
  expect(seen.catalogSource).toBeUndefined();
  expect(api.asked).not.toContain(`GET ${CATALOG}`);
});

test("the check times what lasts by its clock: two OperatorGroups fail after the grace, naming both", async () => {
  let now = 0;
  const api = fakeApi({
    [SUB]: subscription({}),
    [OGS]: groups(PKG, "leftover"),
    [CATALOG]: { status: 200, body: { status: { connectionState: { lastObservedState: "READY" } } } },
  });
  const check = operatorCheck(api, t, () => now);
  expect((await check()).state).toBe("waiting");
  now = (OPERATOR_GROUP_GRACE_SECONDS - 1) * 1000;
  expect((await check()).state).toBe("waiting");
  now = OPERATOR_GROUP_GRACE_SECONDS * 1000;
  expect(await check()).toMatchObject({
    state: "failed",
    message: expect.stringContaining(`\`oc delete operatorgroup leftover -n ${NS}\``),
  });
});
