import { patchingSchema, rebootSchema } from "../../stacks/schema/day2";
import { rolloutTimings } from "../../providers/day2/rollout";

// The drain options of windows-estate:reboot and windows-estate:patching (one shared fragment, stacks/schema/drain.ts)
// and how they reach the drain: kubectl drain's --force, --delete-emptydir-data, --grace-period and --pod-selector.
test("both jobs take the same drain options, with kubectl-as-OCP defaults", () => {
  const reboot = rebootSchema.parse({ token: "t" });
  const patching = patchingSchema.parse({ minimumUpdateRevision: { "20348": 2700 } });
  for (const c of [reboot, patching])
    expect([c?.force, c?.deleteEmptyDirData, c?.gracePeriodSeconds, c?.podSelector]).toEqual([
      true,
      true,
      undefined,
      undefined,
    ]);
});

test("a pod selector the API server would refuse, and a negative grace period, are refused by the config", () => {
  const bad = rebootSchema.safeParse({ token: "t", podSelector: "app in prod", gracePeriodSeconds: -1 });
  expect(bad.success).toBe(false);
  expect(bad.error?.issues.map((i) => `${i.path.join(".")}: ${i.message}`)).toEqual([
    "gracePeriodSeconds: Too small: expected number to be >=0",
    "podSelector: not a label selector: expected '(' after app in",
  ]);
  expect(patchingSchema.safeParse({ minimumUpdateRevision: {}, podSelector: "app!=log-shipper" }).success).toBe(true);
});

test("the stack's drain options reach the drain; unset ones (state from before they existed) take the defaults", () => {
  const base = {
    drainTimeoutSeconds: 60,
    readyTimeoutSeconds: 60,
    disableEviction: false,
    pollMs: 5,
    progress: () => {},
  };
  const set = rolloutTimings({
    ...base,
    force: false,
    deleteEmptyDirData: false,
    gracePeriodSeconds: 30,
    podSelector: "a=b",
  });
  expect([set.drain.force, set.drain.deleteEmptyDirData, set.drain.gracePeriodSeconds, set.drain.podSelector]).toEqual([
    false,
    false,
    30,
    "a=b",
  ]);
  const unset = rolloutTimings(base);
  expect([unset.drain.force, unset.drain.deleteEmptyDirData, unset.drain.deadlineMs]).toEqual([true, true, 60_000]);
});
