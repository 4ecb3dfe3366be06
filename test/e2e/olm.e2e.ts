import type { LabInfo } from "../../lab/record";
import { labApi, stopLab } from "./lab";
import { exampleConfig, labProject, Stack } from "./project";
import { freePort } from "../../lab/processes";

// The program against the real OLM v0.41.0 (lab/olm.ts: olm, catalog and opm serving the lab's generated catalogs,
// lab/catalog.ts), through the real CLI: what OperatorReady says in each case OLM can be in (providers/kube-wait/olm.ts
// and docs/architecture.md, "What OLM writes"). Each case is its own stack in its own namespace, so that OLM resolves
// each apart; the channel `stable` of `redhat-operators` is 10.22.0 then 11.0.0 (facts/wmco.ts on Kubernetes 1.36).

const LAB = "e2e-olm";
let lab: LabInfo;
let dir: string;
const SUB = "windows-machine-config-operator";
const olmApi = (ns: string, kind: string, name = "") =>
  `/apis/operators.coreos.com/v1alpha1/namespaces/${ns}/${kind}${name ? `/${name}` : ""}`;

beforeAll(async () => {
  ({ lab, dir } = await labProject("azure", LAB));
}, 900_000);
afterAll(() => stopLab(LAB));

/** A stack of the dev example installing WMCO into `namespace` with these operator settings, no MachineSets. */
function stackFor(name: string, namespace: string, operator: Record<string, unknown>): Stack {
  const config = exampleConfig(dir, "Pulumi.dev.yaml");
  config["windows-estate:operator"] = { namespace, ...operator };
  config["windows-estate:machineSets"] = [];
  delete config["windows-estate:mirrors"];
  const stack = new Stack(dir, name, lab).init(config);
  return stack;
}

const output = (r: { stdout: string; stderr: string }) => r.stdout + r.stderr;

test("a package that does not exist: up fails naming it and OLM's own words, and creates nothing after the wait", () => {
  const stack = stackFor("nopkg", "olm-nopkg", { package: "no-such-operator" });
  const r = stack.pulumi(["up", "--yes", "--skip-preview"]);
  expect(r.status).not.toBe(0);
  expect(output(r)).toContain("no-such-operator");
  expect(output(r)).toMatch(/ConstraintsNotSatisfiable|ResolutionFailed/);
});

test("a channel that does not exist: up fails naming the channel", () => {
  const stack = stackFor("nochannel", "olm-nochannel", { channel: "no-such-channel" });
  const r = stack.pulumi(["up", "--yes", "--skip-preview"]);
  expect(r.status).not.toBe(0);
  expect(output(r)).toContain("no-such-channel");
});

test("a CatalogSource that does not connect: up fails naming it and its state", async () => {
  const port = await freePort(); // nothing listens there
  const api = labApi(lab);
  await api.request("POST", olmApi("openshift-marketplace", "catalogsources"), {
    apiVersion: "operators.coreos.com/v1alpha1",
    kind: "CatalogSource",
    metadata: { name: "unreachable", namespace: "openshift-marketplace" },
    spec: { sourceType: "grpc", address: `127.0.0.1:${port}` },
  });
  const stack = stackFor("nocatalog", "olm-nocatalog", { source: "unreachable" });
  const r = stack.pulumi(["up", "--yes", "--skip-preview"]);
  expect(r.status).not.toBe(0);
  expect(output(r)).toContain("openshift-marketplace/unreachable");
  await api.request("DELETE", olmApi("openshift-marketplace", "catalogsources", "unreachable"));
});

test("two OperatorGroups, then none: up fails naming them and the fix; OLM itself says nothing", async () => {
  const api = labApi(lab);
  const ns = "olm-groups";
  // A first up that cannot resolve (a channel that does not exist) leaves the Namespace and its OperatorGroup.
  const stack = stackFor("groups", ns, { channel: "no-such-channel" });
  expect(stack.pulumi(["up", "--yes", "--skip-preview"]).status).not.toBe(0);
  await api.request("POST", `/apis/operators.coreos.com/v1/namespaces/${ns}/operatorgroups`, {
    apiVersion: "operators.coreos.com/v1",
    kind: "OperatorGroup",
    metadata: { name: "another", namespace: ns },
    spec: { targetNamespaces: [ns] },
  });
  const config = exampleConfig(dir, "Pulumi.dev.yaml");
  config["windows-estate:operator"] = { namespace: ns, channel: "stable" };
  config["windows-estate:machineSets"] = [];
  delete config["windows-estate:mirrors"];
  stack.writeConfig(config);
  const two = stack.pulumi(["up", "--yes", "--skip-preview"]);
  expect(two.status).not.toBe(0);
  expect(output(two)).toContain(`Namespace ${ns} has 2 OperatorGroups`);
  expect(output(two)).toContain("oc delete operatorgroup");
  // Real OLM sets no condition for it: the Subscription has none naming the OperatorGroups.
  const sub = await api.get(olmApi(ns, "subscriptions", SUB));
  expect(JSON.stringify(sub.status?.conditions ?? [])).not.toContain("operatorGroups");

  const groups = await api.get(`/apis/operators.coreos.com/v1/namespaces/${ns}/operatorgroups`);
  for (const g of groups.items as { metadata: { name: string } }[])
    await api.request("DELETE", `/apis/operators.coreos.com/v1/namespaces/${ns}/operatorgroups/${g.metadata.name}`);
  const none = stack.pulumi(["up", "--yes", "--skip-preview"]);
  expect(none.status).not.toBe(0);
  expect(output(none)).toContain(`Namespace ${ns} has no OperatorGroup`);
});

test("Manual approval with startingCSV: up stops at the InstallPlan with the approve command; approved, the CSV installs and the next one waits; approved too, up --refresh reports the upgrade", async () => {
  const api = labApi(lab);
  const ns = "olm-manual";
  const stack = stackFor("manual", ns, {
    channel: "stable",
    installPlanApproval: "Manual",
    startingCSV: "windows-machine-config-operator.v10.22.0",
  });
  const first = stack.pulumi(["up", "--yes", "--skip-preview"]);
  expect(first.status).not.toBe(0);
  expect(output(first)).toContain("awaits manual approval");
  const sub = await api.get(olmApi(ns, "subscriptions", SUB));
  const plan = String(sub.status.installPlanRef.name);
  expect(output(first)).toContain(`oc patch installplan ${plan} -n ${ns}`);
  await api.request(
    "PATCH",
    olmApi(ns, "installplans", plan),
    { spec: { approved: true } },
    "application/merge-patch+json",
  );

  const second = stack.pulumi(["up", "--yes", "--skip-preview"]);
  expect(output(second)).not.toMatch(/error:/);
  expect(second.status).toBe(0);
  expect(stack.pulumi(["stack", "output", "installedCSV"]).stdout.trim()).toBe(
    "windows-machine-config-operator.v10.22.0",
  );
  // OLM then opens the channel's next InstallPlan, waiting for approval: 11.0.0 replaces 10.22.0. The catalog
  // operator does so when it next resolves the namespace (pkg/controller/operators/catalog/operator.go
  // syncResolvingNamespace, queued on changes), which on a busy machine can come after this up has finished: until
  // then the Subscription says AtLatestKnown, so the test waits for it (seen with two suites side by side).
  const after = await api.until(
    olmApi(ns, "subscriptions", SUB),
    (s) => s.status?.state === "UpgradePending",
    `Subscription ${ns}/${SUB} UpgradePending (the next InstallPlan opened)`,
  );
  const next = await api.get(olmApi(ns, "installplans", String(after.status.installPlanRef.name)));
  expect(next.spec.clusterServiceVersionNames).toEqual(["windows-machine-config-operator.v11.0.0"]);

  // Approved, OLM upgrades; `up --refresh` finds the wait's result outdated (an upgrade in flight is not done, or
  // the installed CSV is another) and waits again, for the channel's next CSV.
  await api.request(
    "PATCH",
    olmApi(ns, "installplans", String(after.status.installPlanRef.name)),
    { spec: { approved: true } },
    "application/merge-patch+json",
  );
  const third = stack.pulumi(["up", "--yes", "--skip-preview", "--refresh"]);
  expect(output(third)).not.toMatch(/error:/);
  expect(third.status).toBe(0);
  expect(stack.pulumi(["stack", "output", "installedCSV"]).stdout.trim()).toBe(
    "windows-machine-config-operator.v11.0.0",
  );
  const upgraded = await api.get(olmApi(ns, "clusterserviceversions", "windows-machine-config-operator.v11.0.0"));
  expect(upgraded.status.phase).toBe("Succeeded");
});
