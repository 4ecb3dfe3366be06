import { machinesOf, MachineState } from "../../../providers/day2/machine-rollout-plan";
import { declaredReplicas, surgeStep, SurgeView } from "../../../providers/day2/machine-surge-plan";

// The surge strategy decided from one look at the cluster. Expected values follow openshift/machine-api-operator
// pkg/controller/machineset: controller.go `syncReplicas` (keep spec.replicas Machines not being deleted,
// `shouldExcludeMachine`) and delete_policy.go (annotated Machines deleted first on every policy).

const OLD = "old";
const NEW = "new";
const m = (name: string, image: string, o: Partial<MachineState> = {}): MachineState => ({
  name,
  image,
  deleting: false,
  marked: false,
  phase: "Running",
  node: name,
  ...o,
});
const view = (machines: MachineState[], o: Partial<SurgeView> = {}): SurgeView => ({
  declared: 3,
  live: 3,
  machines,
  image: NEW,
  configured: new Set(),
  maxSurge: 0,
  ...o,
});
const three = (o: Partial<MachineState> = {}) => ["a", "b", "c"].map((n) => m(n, OLD, o));

test("a whole round, each step read from the cluster: mark, surge, wait, restore, wait for the deletions, done", () => {
  expect(surgeStep(view(three()))).toEqual({ action: "mark", machines: ["a", "b", "c"] });
  // Marked but not scaled: the set needs declared + marked replicas for every marked Machine to get a replacement.
  expect(surgeStep(view(three({ marked: true })))).toEqual({ action: "scale", replicas: 6, reason: "surge" });
  const fresh = [m("n1", NEW, { phase: "Provisioning", node: undefined }), m("n2", NEW), m("n3", NEW)];
  const surged = [...three({ marked: true }), ...fresh];
  expect(surgeStep(view(surged, { live: 6, configured: new Set(["n3"]) }))).toEqual({
    action: "wait-new",
    have: 1,
    want: 3,
    waiting: ["n1 (phase Provisioning, no Node)", "n2 (Node n2 not yet Ready and configured by WMCO)"],
  });
  const ready = new Set(["n1", "n2", "n3"]);
  expect(surgeStep(view(surged, { live: 6, configured: ready }))).toEqual({
    action: "scale",
    replicas: 3,
    reason: "restore",
  });
  // The controller has begun deleting the marked ones (a deletionTimestamp): wait for them, then nothing is left.
  const going = [...three({ marked: true, deleting: true }), ...fresh];
  expect(surgeStep(view(going, { configured: ready }))).toEqual({ action: "wait-gone", machines: ["a", "b", "c"] });
  expect(surgeStep(view(fresh, { configured: ready }))).toEqual({ action: "done" });
});

test("maxSurge: a round marks at most that many; the others stay unmarked and must still count after the restore", () => {
  expect(surgeStep(view(three(), { maxSurge: 1 }))).toEqual({ action: "mark", machines: ["a"] });
  const machines = [m("a", OLD, { marked: true }), m("b", OLD), m("c", OLD), m("n1", NEW)];
  expect(surgeStep(view(machines, { live: 3 }))).toEqual({ action: "scale", replicas: 4, reason: "surge" });
  // After the restore the set keeps b, c and n1: only n1 has to serve first.
  expect(surgeStep(view(machines, { live: 4, configured: new Set(["n1"]) }))).toEqual({
    action: "scale",
    replicas: 3,
    reason: "restore",
  });
});

test("the scale-back waits for every new Machine: a failed one ranks like a marked one (delete_policy.go betterDelete)", () => {
  // randomDeletePolicy gives errorReason/errorMessage the same betterDelete (50) as DeleteNodeAnnotation, so scaling
  // back beside a failed new Machine could delete it instead of a marked one. Such a Machine is never configured.
  const failed = m("n1", NEW, { phase: "Failed", node: undefined });
  const step = surgeStep(view([m("a", OLD, { marked: true }), m("b", OLD), m("c", OLD), failed], { live: 4 }));
  expect(step).toEqual({ action: "wait-new", have: 0, want: 1, waiting: ["n1 (phase Failed, no Node)"] });
});

test("Machines being deleted are not counted (controller.go shouldExcludeMachine); unmarked ones are not waited for", () => {
  const machines = [m("x", OLD, { deleting: true }), m("n1", NEW), m("n2", NEW), m("n3", NEW)];
  expect(surgeStep(view(machines, { configured: new Set(["n1", "n2", "n3"]) }))).toEqual({ action: "done" });
});

test('either spelling of the annotation marks a Machine, and only with a value (delete_policy.go tests != "")', () => {
  const list = (annotations: Record<string, string>) => ({
    items: [
      {
        metadata: { name: "a", labels: { "machine.openshift.io/cluster-api-machineset": "w" }, annotations },
        spec: { providerSpec: { value: { ami: { id: "x" } } } },
      },
    ],
  });
  const marked = (a: Record<string, string>) => machinesOf(list(a), "w")[0].marked;
  expect(marked({ "machine.openshift.io/delete-machine": "true" })).toBe(true);
  expect(marked({ "machine.openshift.io/cluster-api-delete-machine": "yes" })).toBe(true);
  expect(marked({ "machine.openshift.io/delete-machine": "" })).toBe(false);
  expect(marked({})).toBe(false);
});

test("the declared MachineSet keeps the surged replicas while a round is under way, so neither refresh nor an edit reverts it", () => {
  const marked = [{ deleting: false, marked: true }];
  // Mid-round (annotated Machines, set scaled up): the live value, whatever a refresh recorded.
  expect(declaredReplicas(3, 6, marked)).toBe(6);
  // Not under way, or not scaled above the config: the config's value, as before surge existed.
  expect(declaredReplicas(3, 6, [{ deleting: false, marked: false }])).toBe(3);
  expect(declaredReplicas(3, 3, marked)).toBe(3);
  expect(declaredReplicas(3, undefined, marked)).toBe(3);
  // The marked Machines already going (scaled back): the config's value; an operator's own scale is not ours to keep.
  expect(declaredReplicas(3, 5, [{ deleting: true, marked: true }])).toBe(3);
  // Lowering replicas in the config mid-round: the round finishes at the new value (the restore uses it).
  expect(declaredReplicas(2, 6, marked)).toBe(6);
  expect(surgeStep(view(three({ marked: true }), { declared: 2, live: 6, configured: new Set() })).action).toBe(
    "wait-new",
  );
});
