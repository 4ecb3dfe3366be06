import {
  convergeFailed,
  rolloutStopped,
  upgradeBegan,
  upgradeEnded,
} from "../../../providers/vanilla-node/upgrade-run";

// One run's upgrades (providers/vanilla-node/upgrade-run.ts): a node waiting for a slot stops waiting once every slot
// is held by siblings that failed in this run (they keep their slots until it ends), never for its own failure, a
// healthy holder, a holder that is not a node of ours, or another stack's failure. Each test uses its own stack name:
// the module's state is the process's, as in the dynamic-provider host.

test("a node waiting only on a sibling that failed holding its slot stops, naming it; nothing else stops it", () => {
  const stack = "windows-estate/a";
  upgradeBegan(stack, "10.0.0.1:22", "win-a");
  expect(rolloutStopped(stack, "10.0.0.2:22", "win-b", ["win-a"])).toBeUndefined(); // still under way
  convergeFailed(stack, "10.0.0.1:22");
  expect(rolloutStopped(stack, "10.0.0.2:22", "win-b", ["win-a"])).toMatch(
    /^node win-b: not taken out of service: every upgrade slot is held by a node whose upgrade failed in this run \(node win-a: its error says why\), .* Nothing was changed on win-b;/,
  );
  // A slot also held by a healthy sibling, or by a holder that is not one of our nodes, may still come free.
  upgradeBegan(stack, "10.0.0.3:22", "win-c");
  expect(rolloutStopped(stack, "10.0.0.2:22", "win-b", ["win-a", "win-c"])).toBeUndefined();
  expect(rolloutStopped(stack, "10.0.0.2:22", "win-b", ["win-a", undefined])).toBeUndefined();
  // Its own failure never stops a node taking its slot back (the next up, in a host that lives on).
  expect(rolloutStopped(stack, "10.0.0.1:22", "win-a", ["win-a"])).toBeUndefined();
  // Another stack's failure is its own.
  expect(rolloutStopped("windows-estate/other", "10.0.0.2:22", "win-b", ["win-a"])).toBeUndefined();
});

test("a failure before the slot (a probe, a bad download) or after the slot was released stops nobody", () => {
  const stack = "windows-estate/b";
  convergeFailed(stack, "10.0.0.1:22");
  expect(rolloutStopped(stack, "10.0.0.2:22", "win-b", ["win-a"])).toBeUndefined();
  upgradeBegan(stack, "10.0.0.1:22", "win-a");
  upgradeEnded(stack, "10.0.0.1:22");
  convergeFailed(stack, "10.0.0.1:22"); // e.g. its identity labels failed after the uncordon
  expect(rolloutStopped(stack, "10.0.0.2:22", "win-b", ["win-a"])).toBeUndefined();
});

test("two failed holders are both named; one that takes its slot back is no longer failed", () => {
  const stack = "windows-estate/c";
  for (const [t, n] of [
    ["10.0.0.1:22", "win-a"],
    ["10.0.0.3:22", "win-c"],
  ]) {
    upgradeBegan(stack, t, n);
    convergeFailed(stack, t);
  }
  expect(rolloutStopped(stack, "10.0.0.2:22", "win-b", ["win-a", "win-c"])).toContain(
    "(node win-a, node win-c: its error says why)",
  );
  upgradeBegan(stack, "10.0.0.1:22", "win-a");
  expect(rolloutStopped(stack, "10.0.0.2:22", "win-b", ["win-a", "win-c"])).toBeUndefined();
});

test("holding no slot (none held) is never a reason to stop", () => {
  const stack = "windows-estate/d";
  upgradeBegan(stack, "10.0.0.1:22", "win-a");
  convergeFailed(stack, "10.0.0.1:22");
  expect(rolloutStopped(stack, "10.0.0.2:22", "win-b", [])).toBeUndefined();
});
