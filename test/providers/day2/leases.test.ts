import { slotFree } from "../../../providers/day2/leases";
import { holderIdentity, holderStack } from "../../../providers/day2/day2-lock";

// When a slot's Lease may be taken, as client-go's leader election decides it for one Lease
// (tools/leaderelection/leaderelection.go tryAcquireOrRenew: free when unheld, ours, or not renewed within its duration).
const lease = (holderIdentity: string, renewTime: string, leaseDurationSeconds = 60) => ({
  spec: { holderIdentity, renewTime, leaseDurationSeconds },
});
const now = Date.parse("2026-11-26T01:00:00.000000Z");

test("an unheld slot (released: no holder) is free", () => {
  expect(slotFree(lease("", "2026-11-26T00:59:59.000000Z"), "node a", now)).toBe(true);
  expect(slotFree({ spec: {} }, "node a", now)).toBe(true);
});

test("a slot held by someone else is taken only once its lease has run out", () => {
  expect(slotFree(lease("node b", "2026-11-26T00:59:30.000000Z"), "node a", now)).toBe(false);
  expect(slotFree(lease("node b", "2026-11-26T00:58:59.000000Z"), "node a", now)).toBe(true);
});

test("a node takes back a slot it still holds (an upgrade that failed and runs again)", () => {
  expect(slotFree(lease("node a", "2026-11-26T00:59:59.000000Z"), "node a", now)).toBe(true);
});

test("the day-2 lock is re-entrant for the same stack (its jobs run one after another) and for no other", () => {
  const mine = holderIdentity({ stack: "windows-estate/prod", job: "rolling reboot" });
  const sameStack = (current: string) => holderStack(current) === "windows-estate/prod";
  const held = (h: string) => lease(h, "2026-11-26T00:59:59.000000Z");
  expect(slotFree(held(holderIdentity({ stack: "windows-estate/prod", job: "patching" })), mine, now, sameStack)).toBe(
    true,
  );
  expect(
    slotFree(held(holderIdentity({ stack: "windows-estate/staging", job: "patching" })), mine, now, sameStack),
  ).toBe(false);
  // Another program's Lease of the same name is never taken as ours.
  expect(slotFree(held("kured"), mine, now, sameStack)).toBe(false);
});
