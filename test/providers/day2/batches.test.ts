import { describeRollout, nextBatch, planRollout, resolveMaxUnavailable } from "../../../providers/day2/batches";

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

test("maxUnavailable as a percentage: of every Windows node, rounded down, at least 1 (deployment_util.go ResolveFenceposts)", () => {
  // ResolveFenceposts scales maxUnavailable with roundUp=false (25% of 10 is 2) and, when both fenceposts come out
  // 0, makes maxUnavailable 1.
  expect([
    resolveMaxUnavailable("25%", 10),
    resolveMaxUnavailable("10%", 3),
    resolveMaxUnavailable("100%", 7),
    resolveMaxUnavailable(3, 10),
  ]).toEqual([2, 1, 7, 3]);
});

describe("the next batch counts nodes already out of service and keeps one serving", () => {
  const up = (name: string) => ({ name, ready: true, unschedulable: false });
  test("all fit: the front of the queue, at most maxUnavailable", () => {
    expect(nextBatch(["a", "b", "c"], [up("a"), up("b"), up("c"), up("d")], 2)).toEqual({ take: ["a", "b"] });
  });
  test("a node cordoned by someone else, or NotReady, takes a place in maxUnavailable", () => {
    const cluster = [up("a"), up("b"), { name: "x", ready: true, unschedulable: true }, up("c")];
    expect(nextBatch(["a", "b"], cluster, 2)).toEqual({ take: ["a"] });
    const notReady = [up("a"), { name: "x", ready: false, unschedulable: false }, up("c")];
    expect(nextBatch(["a"], notReady, 1)).toEqual({
      take: [],
      waitFor: "1 Windows node(s) already out of service (x: NotReady) and maxUnavailable is 1",
    });
  });
  test("a queued node that is already cordoned costs no further place (our own earlier run, or an operator's)", () => {
    const cluster = [{ name: "a", ready: true, unschedulable: true }, up("b"), up("c")];
    expect(nextBatch(["a", "b"], cluster, 2)).toEqual({ take: ["a", "b"] });
  });
  test("one Windows node always keeps serving while there are two or more; a single node may go", () => {
    expect(nextBatch(["a", "b"], [up("a"), up("b")], 5)).toEqual({ take: ["a"] });
    expect(nextBatch(["a"], [{ name: "b", ready: false, unschedulable: false }, up("a")], 5)).toEqual({
      take: [],
      waitFor: "taking a out would leave no Windows node serving (b: NotReady)",
    });
    expect(nextBatch(["a"], [up("a")], 1)).toEqual({ take: ["a"] });
  });
  test("a queued node WMCO is working on is never taken; the batch waits for it", () => {
    const busy = { name: "a", ready: true, unschedulable: false, wmcoBusy: "WMCO is upgrading it (upgrading label)" };
    expect(nextBatch(["a", "b"], [busy, up("b"), up("c")], 2)).toEqual({
      take: [],
      waitFor: "node a: WMCO is upgrading it (upgrading label)",
    });
    expect(nextBatch(["b", "a"], [busy, up("b"), up("c")], 3)).toEqual({ take: ["b"] });
  });
});
