import type { LabInfo } from "../../lab/record";
import { labApi, startLabAsync, stopLab } from "./lab";
import { engineSteps, exampleConfig, labProject, Stack } from "./project";

// Teardown and one stack per cluster (issue 24 f): two labs (two clusters), one stack each from the same project;
// `pulumi destroy` of the first, observed through the CLI's own event log, deletes in an order that never takes
// from WMCO what it still needs, and leaves the second cluster and stack untouched.

const NS = "openshift-windows-machine-config-operator";
const labs: LabInfo[] = [];
const stacks: Stack[] = [];

beforeAll(async () => {
  // Both labs start side by side, the first with the project copy beside it.
  const [first, second] = await Promise.all([
    labProject("azure", "e2e-teardown-one"),
    startLabAsync("azure", "e2e-teardown-two"),
  ]);
  // The lab example docs/getting-started.md offers (stacks/examples/Pulumi.lab.yaml), as a user copies it.
  const config = exampleConfig(first.dir, "stacks/examples/Pulumi.lab.yaml");
  labs.push(first.lab, second);
  for (const [name, lab] of [
    ["one", first.lab],
    ["two", second],
  ] as const) {
    const stack = new Stack(first.dir, name, lab).init(config);
    stack.up();
    stacks.push(stack);
  }
}, 1_200_000);
afterAll(() => {
  stopLab("e2e-teardown-one");
  stopLab("e2e-teardown-two");
});

test("destroy deletes the MachineSet before the key, and the key before the operator; the cluster is left as it was", async () => {
  // `destroy --json` streams the engine's events, one JSON object a line, in the order the engine emits them.
  const r = stacks[0].pulumi(["destroy", "--yes", "--skip-preview", "--json"]);
  expect(r.stderr).not.toMatch(/error:/);
  expect(r.status).toBe(0);
  const steps = engineSteps(r.stdout);
  const started = (n: string) => steps.started("delete", n);
  const done = (n: string) => steps.done("delete", n);
  // WMCO needs the key to deconfigure the MachineSet's nodes, and the operator to do it at all.
  expect(done("estate-ms-winworker-machineset")).toBeLessThan(started("estate-key-secret") ?? -1);
  expect(done("estate-key-secret")).toBeLessThan(started("estate-operator-subscription") ?? -1);
  expect(done("estate-operator-subscription")).toBeLessThan(started("estate-operator-namespace") ?? -1);
  const api = labApi(labs[0]);
  expect(
    await api.status("/apis/machine.openshift.io/v1beta1/namespaces/openshift-machine-api/machinesets/winworker"),
  ).toBe(404);
  expect(await api.status(`/api/v1/namespaces/${NS}`)).toBe(404);
  // The cluster's own objects are not the stack's to delete.
  await api.get("/apis/config.openshift.io/v1/infrastructures/cluster");
});

test("the second cluster's stack is untouched by the first's up and destroy", async () => {
  const api = labApi(labs[1]);
  await api.get(`/api/v1/namespaces/${NS}/secrets/cloud-private-key`);
  await api.get("/apis/machine.openshift.io/v1beta1/namespaces/openshift-machine-api/machinesets/winworker");
  const r = stacks[1].pulumi(["preview", "--expect-no-changes"]);
  expect(r.status).toBe(0);
});
