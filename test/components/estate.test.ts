import * as path from "path";
import { loadEstateConfig } from "../../stacks/load";
import { DOMAIN_VALIDATORS } from "../../components/validators";
import { DeclaredResource, runProgram } from "../../scripts/synth/mock-run";
import { PROJECT_DIR } from "../../scripts/synth/main";
import { scratch } from "../helpers/stack";

// The real program under Pulumi's mock runtime, checking the order WMCO needs: operator running -> key Secret.
const s = scratch();
afterAll(() => s.cleanup());

let resources: DeclaredResource[];
beforeAll(async () => {
  const raw = {
    values: {
      "windows-estate:cluster": JSON.stringify({ platform: "Azure", infrastructureId: "win-tmk9g", region: "westus" }),
      "windows-estate:privateKeyPath": s.keyPath,
      "windows-estate:operator": JSON.stringify({ installPlanApproval: "Manual" }),
      "windows-estate:machineSets": JSON.stringify([{ azure: {} }]),
      "windows-estate:byoh": JSON.stringify([{ address: "10.0.0.5", username: "Administrator", trustOnFirstUse: true }, { address: "10.0.0.6", username: "Administrator", trustOnFirstUse: true }]),
    },
    secretKeys: new Set<string>(),
  };
  loadEstateConfig(raw, { projectDir: PROJECT_DIR, offline: true, validators: DOMAIN_VALIDATORS }); // the same gate synth applies
  resources = (await runProgram(path.join(PROJECT_DIR, "index.ts"), "windows-estate", "ordering", raw)).resources;
}, 120_000);

const byType = (t: string) => resources.filter((r) => r.type === t);
const one = (t: string) => {
  const found = byType(t);
  expect(found).toHaveLength(1);
  return found[0];
};

test("everything hangs under the WindowsEstate component, beside one explicit Kubernetes provider", () => {
  const roots = resources.filter((r) => !r.parent).map((r) => r.type);
  expect(roots.sort()).toEqual(["pulumi:providers:kubernetes", "windows-estate:index:WindowsEstate"]);
  expect(byType("pulumi:providers:kubernetes")).toHaveLength(1);
});

test("the key Secret waits for the operator to really run", () => {
  const ready = one("pulumi-nodejs:dynamic/windows-estate:OperatorReady");
  const secret = one("kubernetes:core/v1:Secret");
  expect(secret.dependencies).toContain(ready.urn);
});

test("the wait follows the Subscription, which follows the OperatorGroup and Namespace", () => {
  const ready = one("pulumi-nodejs:dynamic/windows-estate:OperatorReady");
  const sub = one("kubernetes:operators.coreos.com/v1alpha1:Subscription");
  const og = one("kubernetes:operators.coreos.com/v1:OperatorGroup");
  const ns = one("kubernetes:core/v1:Namespace");
  expect(ready.dependencies).toContain(sub.urn);
  expect(sub.dependencies).toContain(og.urn);
  expect(og.dependencies).toContain(ns.urn);
});

test("the wait resource gets no kubeconfig content in its serialized provider", () => {
  const ready = one("pulumi-nodejs:dynamic/windows-estate:OperatorReady");
  expect(typeof ready.inputs.__provider).toBe("string");
  expect(ready.inputs.__provider as string).not.toMatch(/PRIVATE KEY|client-key-data/);
});

test("MachineSets wait for windows-user-data, which waits for the key Secret", () => {
  const userData = one("pulumi-nodejs:dynamic/windows-estate:ObjectExists");
  const ms = one("kubernetes:machine.openshift.io/v1beta1:MachineSet");
  const secret = one("kubernetes:core/v1:Secret");
  expect(ms.dependencies).toContain(userData.urn);
  expect(userData.dependencies).toContain(secret.urn);
  expect(userData.inputs).toMatchObject({ namespace: "openshift-machine-api", name: "windows-user-data", dataKey: "userData" });
});

test("windows-instances lists BYOH hosts only after every one of them is prepared", () => {
  const hosts = byType("pulumi-nodejs:dynamic/windows-estate:WindowsHost");
  expect(hosts).toHaveLength(2);
  const cm = one("kubernetes:core/v1:ConfigMap");
  for (const h of hosts) expect(cm.dependencies).toContain(h.urn);
  expect(cm.inputs).toMatchObject({ data: { "10.0.0.5": "username=Administrator", "10.0.0.6": "username=Administrator" } });
});

test("BYOH credentials reach WindowsHost only as secret inputs, never in its serialized provider", () => {
  const fs = require("fs") as typeof import("fs");
  const body = fs.readFileSync(s.keyPath, "utf8").split("\n").filter((l) => l && !l.startsWith("-----")).join("");
  for (const h of byType("pulumi-nodejs:dynamic/windows-estate:WindowsHost")) {
    expect(h.inputs.__provider as string).not.toContain(body.slice(0, 40));
    expect(JSON.stringify(h.inputs.connection)).toContain("4dabf18193072939515e22adb298388d");
    expect(JSON.stringify(h.inputs.wmcoPrivateKey)).toContain("4dabf18193072939515e22adb298388d");
  }
});
