import {
  convergeFailed,
  rolloutStopped,
  upgradeBegan,
  upgradeEnded,
} from "../../../providers/vanilla-node/upgrade-run";

// One run's upgrades (providers/vanilla-node/upgrade-run.ts): a node that fails while out of service stops the
// stack's rollout for its siblings, never for itself and never for another stack. Each test uses its own stack name:
// the module's state is the process's, as in the dynamic-provider host.

test("a node that failed holding its slot stops its siblings, names itself, and is not stopped by its own failure", () => {
  const stack = "windows-estate/a";
  upgradeBegan(stack, "10.0.0.1:22", "win-a");
  convergeFailed(stack, "10.0.0.1:22");
  expect(rolloutStopped(stack, "10.0.0.2:22", "win-b")).toMatch(
    /^node win-b: not taken out of service: the upgrade of node win-a failed in this run .* Nothing was changed on win-b;/,
  );
  // Run again in the same process (the next up of a long-lived host): it takes its slot back and may go on.
  expect(rolloutStopped(stack, "10.0.0.1:22", "win-a")).toBeUndefined();
  // Another stack's rollout is its own.
  expect(rolloutStopped("windows-estate/other", "10.0.0.2:22", "win-b")).toBeUndefined();
});

test("a failure before the slot (a probe, a bad download) or after the slot was released stops nobody", () => {
  const stack = "windows-estate/b";
  convergeFailed(stack, "10.0.0.1:22");
  expect(rolloutStopped(stack, "10.0.0.2:22", "win-b")).toBeUndefined();
  upgradeBegan(stack, "10.0.0.1:22", "win-a");
  upgradeEnded(stack, "10.0.0.1:22");
  convergeFailed(stack, "10.0.0.1:22"); // e.g. its identity labels failed after the uncordon
  expect(rolloutStopped(stack, "10.0.0.2:22", "win-b")).toBeUndefined();
});

test("a failed node that takes its slot back clears the stop; two failed nodes are both named", () => {
  const stack = "windows-estate/c";
  for (const [t, n] of [
    ["10.0.0.1:22", "win-a"],
    ["10.0.0.3:22", "win-c"],
  ]) {
    upgradeBegan(stack, t, n);
    convergeFailed(stack, t);
  }
  expect(rolloutStopped(stack, "10.0.0.2:22", "win-b")).toContain("the upgrade of node win-a, node win-c failed");
  upgradeBegan(stack, "10.0.0.1:22", "win-a");
  upgradeEnded(stack, "10.0.0.1:22");
  expect(rolloutStopped(stack, "10.0.0.2:22", "win-b")).toContain("the upgrade of node win-c failed");
});
