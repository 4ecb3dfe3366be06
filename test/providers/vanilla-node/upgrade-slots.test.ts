import { slotHolder, slotNode, stackHoldsSlot, unleasedUpgrades } from "../../../providers/vanilla-node/upgrade-slots";
import { UPGRADING_TO_ANNOTATION } from "../../../facts/day2";

// Who holds the vanilla upgrade slots, and which nodes are out of service holding none. A Lease counts while it is
// held and not past renewTime + leaseDurationSeconds (client-go tools/leaderelection/leaderelection.go
// tryAcquireOrRenew, as providers/day2/leases.ts slotFree decides it).
const now = Date.parse("2026-11-29T12:00:00.000000Z");
const lease = (name: string, holderIdentity: string, renewTime: string) => ({
  metadata: { name, namespace: "kube-system" },
  spec: { holderIdentity, renewTime, leaseDurationSeconds: 300 },
});
const LIVE = "2026-11-29T11:59:00.000000Z";
const EXPIRED = "2026-11-29T11:50:00.000000Z";
const node = (name: string, upgradingTo?: string): { name: string; annotations: Record<string, string> } => ({
  name,
  annotations: upgradingTo ? { [UPGRADING_TO_ANNOTATION]: upgradingTo } : {},
});

test("a slot holder names its node in both forms, with and without a stack; other holders name none", () => {
  expect(slotNode(slotHolder("windows-estate/prod", "win-a"))).toBe("win-a");
  expect(slotNode(slotHolder(undefined, "win-b"))).toBe("win-b");
  expect(slotNode("windows-estate stack=windows-estate/prod job=rolling reboot")).toBeUndefined();
  expect(slotNode("kured")).toBeUndefined();
});

test("a node marked upgrading whose slot expired counts as out of service; one holding a live slot, itself, or an unmarked node does not", () => {
  const leases = {
    items: [
      lease("windows-estate-upgrade-0", slotHolder("windows-estate/prod", "win-a"), EXPIRED),
      lease("windows-estate-upgrade-1", slotHolder("windows-estate/prod", "win-b"), LIVE),
      // Not a slot: the day-2 lock of the same stack does not lease a node.
      lease("windows-estate-day2", slotHolder("windows-estate/prod", "win-d"), LIVE),
    ],
  };
  const nodes = [
    node("win-a", "kubelet=1.36.3"),
    node("win-b", "kubelet=1.36.3"),
    node("win-c"),
    node("win-d", "kubelet=1.36.3"),
    node("win-self", "kubelet=1.36.3"),
  ];
  const found = unleasedUpgrades(nodes, leases, "win-self", now);
  expect(found.map((u) => slotNode(u.holder))).toEqual(["win-a", "win-d"]);
  // The waiting message names the node, what it was upgrading to, and the way out when no stack will finish it.
  expect(found[0].text).toBe(
    "node win-a (out of service: its upgrade to kubelet=1.36.3 was begun and not finished; its stack's next up finishes it, or, if no stack manages it any more, uncordon it and remove its windows-estate.io/upgrading-to annotation)",
  );
  // Read as of a moment later (the provider's margin), a Lease about to run out already counts as not held.
  const soon = Date.parse(LIVE) + 300_000 + 1;
  expect(unleasedUpgrades(nodes, leases, "win-self", soon).map((u) => slotNode(u.holder))).toEqual([
    "win-a",
    "win-b",
    "win-d",
  ]);
});

test("a stack holds a slot only while one of its nodes' slot Leases is live", () => {
  const leases = (renewTime: string) => ({
    items: [lease("windows-estate-upgrade-0", slotHolder("windows-estate/prod", "win-a"), renewTime)],
  });
  expect(stackHoldsSlot(leases(LIVE), "windows-estate/prod", now)).toBe(true);
  expect(stackHoldsSlot(leases(EXPIRED), "windows-estate/prod", now)).toBe(false);
  expect(stackHoldsSlot(leases(LIVE), "windows-estate/staging", now)).toBe(false);
});
