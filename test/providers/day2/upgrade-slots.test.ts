import { slotFree } from "../../../providers/day2/upgrade-slots";

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
