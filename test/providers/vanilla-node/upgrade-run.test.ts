import {
  convergeFailed,
  rolloutStopped,
  upgradeBegan,
  upgradeEnded,
} from "../../../providers/vanilla-node/upgrade-run";

// One run's upgrades (providers/vanilla-node/upgrade-run.ts): a node waiting for a slot stops waiting once every slot
// is taken by siblings that failed in this run (none comes free before it ends), never for its own failure, a healthy
// holder, a holder that is not a node of ours, or another stack's failure. Each test uses its own stack name: the
// module's state is the process's, as in the dynamic-provider host.

test("a node waiting only on a sibling that failed holding its slot stops, naming it; nothing else stops it", () => {
  const stack = "windows-estate/a";
  upgradeBegan(stack, "10.0.0.1:22", "win-a");
  expect(rolloutStopped(stack, "10.0.0.2:22", "win-b", ["win-a"])).toBeUndefined(); // still under way
  convergeFailed(stack, "10.0.0.1:22", undefined); // the name in its slot is the one that counts
  expect(rolloutStopped(stack, "10.0.0.2:22", "win-b", ["win-a"])).toBe(
    "node win-b: left in service: every upgrade slot is taken by node win-a, which failed in this run (its error says why) and stays out of service, so none comes free before this run ends. Once fixed, run pulumi up again: it finishes that upgrade first, then this one",
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

test("a node an earlier run left unfinished that fails again before its slot stops a sibling it keeps the slot from", () => {
  // The retry after the CI hang of stop 49: win-a, still unreachable, fails at its first look (no slot taken); it is
  // out of service without a Lease, so it keeps the one free slot from win-b (upgrade-slots.ts unleasedUpgrades).
  const stack = "windows-estate/b";
  expect(rolloutStopped(stack, "10.0.0.2:22", "win-b", ["win-a"])).toBeUndefined();
  convergeFailed(stack, "10.0.0.1:22", "win-a");
  expect(rolloutStopped(stack, "10.0.0.2:22", "win-b", ["win-a"])).toMatch(/^node win-b: left in service: .* win-a,/);
  // A failed node no wait names stops nobody (a failure after its slot was released, or of a node not upgrading).
  upgradeBegan(stack, "10.0.0.3:22", "win-c");
  upgradeEnded(stack, "10.0.0.3:22");
  convergeFailed(stack, "10.0.0.3:22", "win-c");
  expect(rolloutStopped(stack, "10.0.0.2:22", "win-b", ["win-d"])).toBeUndefined();
  // A converge whose node is not known yet (a first join) records nothing.
  convergeFailed(stack, "10.0.0.4:22", undefined);
  expect(rolloutStopped(stack, "10.0.0.2:22", "win-b", [undefined])).toBeUndefined();
});

test("two failed holders are both named; one that takes its slot back is no longer failed", () => {
  const stack = "windows-estate/c";
  for (const [t, n] of [
    ["10.0.0.1:22", "win-a"],
    ["10.0.0.3:22", "win-c"],
  ]) {
    upgradeBegan(stack, t, n);
    convergeFailed(stack, t, n);
  }
  expect(rolloutStopped(stack, "10.0.0.2:22", "win-b", ["win-a", "win-c", "win-a"])).toContain(
    "taken by nodes win-a, win-c, which failed in this run (their errors say why) and stay out of service",
  );
  upgradeBegan(stack, "10.0.0.1:22", "win-a");
  expect(rolloutStopped(stack, "10.0.0.2:22", "win-b", ["win-a", "win-c"])).toBeUndefined();
});
