import { describeRollout, planRollout } from "../../../providers/day2/batches";

const nodes = Array.from({ length: 10 }, (_, i) => ({ name: `win-${String(i).padStart(2, "0")}` }));

test("10 nodes with maxUnavailable 3 go in 4 batches, in a stable order", () => {
  const plan = planRollout(nodes, "t1", 3);
  expect(plan.batches.map((b) => b.length)).toEqual([3, 3, 3, 1]);
  expect(plan.batches.flat()).toEqual(nodes.map((n) => n.name));
});

test("nodes already done for this token are skipped, so a stopped rollout resumes where it stopped", () => {
  const done = nodes.map((n, i) => ({ ...n, doneFor: i < 4 ? "t1" : "t0" }));
  const plan = planRollout(done, "t1", 3);
  expect(plan.skipped).toEqual(["win-00", "win-01", "win-02", "win-03"]);
  expect(plan.batches).toEqual([
    ["win-04", "win-05", "win-06"],
    ["win-07", "win-08", "win-09"],
  ]);
  expect(describeRollout(plan)).toBe(
    "batch 1/2: win-04, win-05, win-06\nbatch 2/2: win-07, win-08, win-09\nalready done: win-00, win-01, win-02, win-03",
  );
  expect(
    describeRollout(
      planRollout(
        done.map((n) => ({ ...n, doneFor: "t1" })),
        "t1",
        3,
      ),
    ),
  ).toBe("nothing to do (10 node(s) already done)");
});

test("maxUnavailable must be a whole number of at least 1", () => {
  expect(() => planRollout(nodes, "t", 0)).toThrow(/at least 1, not 0/);
  expect(() => planRollout(nodes, "t", 1.5)).toThrow(/whole number/);
});
