import * as fs from "fs";
import * as path from "path";
import type { LabInfo } from "../../lab/record";
import { labApi, stopLab } from "./lab";
import { labStack, Stack, writeWmcoKey } from "./project";

// Edits (issue 24 b): each previewed with `pulumi preview --json` through the real engine, then applied. What the
// plan may never hold: a replace or delete of a fixed-name object WMCO or the cluster watches (cloud-private-key,
// the operator's Namespace/OperatorGroup/Subscription, a MachineSet that keeps its name) in an edit that should
// update it. A rename is the one replacement a user asks for (docs/architecture.md: "What an edit to a stack does").

const NS = "openshift-windows-machine-config-operator";
const FIXED = [
  "estate-key-secret",
  "estate-operator-namespace",
  "estate-operator-operatorgroup",
  "estate-operator-subscription",
];

const LAB = "e2e-edits";
let lab: LabInfo;
let stack: Stack;
let config: Record<string, unknown>;
const machineSets = () => config["windows-estate:machineSets"] as Record<string, unknown>[];
const mirrors = () => config["windows-estate:mirrors"] as { digest: Record<string, unknown>[] };
/** Steps that replace or delete something. */
const destructive = (plan: string[]) =>
  plan.filter((l) => /^(replace|delete|delete-replaced|create-replacement) /.test(l));

beforeAll(async () => {
  ({ lab, stack, config } = await labStack("azure", LAB, { file: "Pulumi.dev.yaml", up: true }));
}, 900_000);
afterAll(() => stopLab(LAB));

test("a stack from before (names from the stack name and list positions) migrates through aliases: nothing changes", () => {
  // The previous release's names, made from this state: the estate was named after the stack (`e2e`), MachineSets
  // after their position (`<estate>-ms-<index>`); components/estate.ts and program.ts carry aliases for both.
  const exported = stack.pulumi(["stack", "export"]).stdout;
  const old = exported.replace(/::estate-ms-winworker(?=[-"])/g, "::e2e-ms-0").replace(/::estate(?=[-"])/g, "::e2e");
  expect(old).toContain("::e2e-ms-0-machineset");
  const file = path.join(stack.dir, "old-state.json");
  fs.writeFileSync(file, old);
  const imported = stack.pulumi(["stack", "import", "--file", file]);
  expect(imported.stderr).toBe("");
  const r = stack.pulumi(["up", "--yes", "--expect-no-changes"]);
  expect(r.stdout + r.stderr).not.toMatch(/error:/);
  expect(r.status).toBe(0);
  const after = stack.pulumi(["stack", "export"]).stdout;
  expect(after).toContain("::estate-ms-winworker-machineset");
  expect(after).not.toContain("::e2e-ms-0");
});

test("replicas 1 → 2 updates the MachineSet in place and nothing else", async () => {
  machineSets()[0].replicas = 2;
  stack.writeConfig(config);
  // The stack itself may show an update (its outputs list the MachineSets); nothing else may move but the join wait,
  // which now waits for two nodes (it owns nothing in the cluster: docs/node-join.md).
  expect(stack.plan().filter((l) => !l.endsWith(" windows-estate-e2e"))).toEqual([
    "update estate-ms-winworker-machineset",
    "update estate-nodes-joined",
  ]);
  stack.up();
  const ms = await labApi(lab).get(
    "/apis/machine.openshift.io/v1beta1/namespaces/openshift-machine-api/machinesets/winworker",
  );
  expect(ms.spec.replicas).toBe(2);
});

test("adding a mirror creates its ImageDigestMirrorSet only; removing it deletes only that one", async () => {
  mirrors().digest.push({ source: "quay.io/example/app", mirrors: ["mirror.example.com:5000/example/app"] });
  stack.writeConfig(config);
  const add = stack.plan();
  expect(destructive(add)).toEqual([]);
  expect(add).toContain("create estate-mirrors-windows-estate-digest-quay-io-example-app");
  stack.up();
  const idms = "/apis/config.openshift.io/v1/imagedigestmirrorsets/windows-estate-digest-quay-io-example-app";
  expect((await labApi(lab).get(idms)).spec.imageDigestMirrors[0].source).toBe("quay.io/example/app");

  mirrors().digest.pop();
  stack.writeConfig(config);
  expect(destructive(stack.plan())).toEqual(["delete estate-mirrors-windows-estate-digest-quay-io-example-app"]);
  stack.up();
  expect(await labApi(lab).status(idms)).toBe(404);
});

test("a new WMCO key updates cloud-private-key in place: never deleted, never replaced", async () => {
  writeWmcoKey(stack.dir);
  const plan = stack.plan();
  expect(plan).toContain("update estate-key-secret");
  expect(destructive(plan).filter((l) => FIXED.some((f) => l.endsWith(` ${f}`)))).toEqual([]);
  const before = await labApi(lab).get(`/api/v1/namespaces/${NS}/secrets/cloud-private-key`);
  stack.up();
  const after = await labApi(lab).get(`/api/v1/namespaces/${NS}/secrets/cloud-private-key`);
  expect(after.metadata.uid).toBe(before.metadata.uid);
  expect(after.data["private-key.pem"]).not.toBe(before.data["private-key.pem"]);
});

test("renaming a MachineSet replaces that set only (create the new, delete the old); the others stay", async () => {
  machineSets()[0].name = "winwork2";
  stack.writeConfig(config);
  const plan = stack.plan();
  // The set and its component (a ComponentResource, nothing in the cluster).
  expect(destructive(plan).sort()).toEqual(["delete estate-ms-winworker", "delete estate-ms-winworker-machineset"]);
  expect(plan).toContain("create estate-ms-winwork2-machineset");
  stack.up();
  const api = labApi(lab);
  expect(
    await api.status("/apis/machine.openshift.io/v1beta1/namespaces/openshift-machine-api/machinesets/winworker"),
  ).toBe(404);
  await api.get("/apis/machine.openshift.io/v1beta1/namespaces/openshift-machine-api/machinesets/winwork2");
});

test("a second MachineSet added, then the first of the two removed: each edit touches only that set", () => {
  machineSets().push({
    name: "winextra",
    replicas: 1,
    windowsServer: "2022",
    azure: { vmSize: "Standard_D2s_v3", zone: "" },
  });
  stack.writeConfig(config);
  const add = stack.plan();
  expect(destructive(add)).toEqual([]);
  expect(add).toContain("create estate-ms-winextra-machineset");
  stack.up();
  const first = String(machineSets().shift()?.name);
  stack.writeConfig(config);
  const remove = stack.plan();
  expect(destructive(remove).sort()).toEqual([`delete estate-ms-${first}`, `delete estate-ms-${first}-machineset`]);
  expect(remove.filter((l) => l.includes("winextra"))).toEqual([]);
  stack.up();
});

test("changing the operator channel or approval updates the Subscription in place", async () => {
  const operator = config["windows-estate:operator"] as Record<string, unknown>;
  operator.channel = "stable-10.20";
  stack.writeConfig(config);
  const channelPlan = stack.plan();
  expect(channelPlan).toContain("update estate-operator-subscription");
  // OLM resolves the new spec again: the wait runs again (issue 43: it kept what it saw for the old spec).
  expect(channelPlan).toContain("update estate-operator-ready");
  expect(destructive(channelPlan)).toEqual([]);
  // Applied: Manual approval (the lab's catalog serves `stable` only, so the channel stays).
  operator.channel = "stable";
  operator.installPlanApproval = "Manual";
  stack.writeConfig(config);
  expect(destructive(stack.plan())).toEqual([]);
  const subscription = `/apis/operators.coreos.com/v1alpha1/namespaces/${NS}/subscriptions/windows-machine-config-operator`;
  const before = await labApi(lab).get(subscription);
  stack.up();
  const after = await labApi(lab).get(subscription);
  expect(after.metadata.uid).toBe(before.metadata.uid);
  expect(after.spec.installPlanApproval).toBe("Manual");
  const again = stack.pulumi(["up", "--yes", "--expect-no-changes"]);
  expect(again.status).toBe(0);
});

test("switching to the community build replaces the OperatorGroup old-first: never two in the namespace", () => {
  const operator = config["windows-estate:operator"] as Record<string, unknown>;
  const before = { ...operator };
  operator.community = true;
  delete operator.channel;
  stack.writeConfig(config);
  try {
    // The engine's replacement steps in its order (the CLI's --show-replacement-steps; without it --json shows one
    // `replace` step per resource).
    const p = stack.previewJson(["--show-replacement-steps"]);
    expect(p.status).toBe(0);
    const plan = p.steps.map((s) => `${s.op} ${s.urn.split("::").pop()}`);
    // The OperatorGroup is named like the package. Replaced create-first, the namespace would hold two while the new
    // Subscription resolves, and OLM resolves nothing then (the old group is deleted only after the wait).
    const at = (line: string) => plan.indexOf(line);
    expect(at("delete-replaced estate-operator-operatorgroup")).toBeGreaterThanOrEqual(0);
    expect(at("delete-replaced estate-operator-operatorgroup")).toBeLessThan(
      at("create-replacement estate-operator-operatorgroup"),
    );
  } finally {
    Object.keys(operator).forEach((k) => delete operator[k]);
    Object.assign(operator, before);
    stack.writeConfig(config);
  }
});

test("renaming the stack changes nothing (logical names do not contain it)", () => {
  const renamed = stack.pulumi(["stack", "rename", "e2e-renamed"]);
  expect(renamed.status).toBe(0);
  const after = new Stack(stack.dir, "e2e-renamed", lab);
  const r = after.pulumi(["preview", "--expect-no-changes"]);
  expect(r.stdout + r.stderr).not.toMatch(/error:/);
  expect(r.status).toBe(0);
});
