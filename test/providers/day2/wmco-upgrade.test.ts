import { wmcoUpgradeNotice, wmcoUpgradeRefusal, wmcoUpgradingNodes } from "../../../providers/day2/wmco-upgrade";

// WMCO marks the node it is upgrading with `windowsmachineconfig.openshift.io/upgrading: "true"` (pkg/metadata/
// metadata.go `UpgradingLabel`, `ApplyUpgradingLabel`), one node at a time (controllers/controllers.go
// `MaxParallelUpgrades` = 1, `markNodeAsUpgrading`), release-4.18 to master.
const LABEL = "windowsmachineconfig.openshift.io/upgrading";
const node = (name: string, labels: Record<string, string> = {}) => ({ name, labels });

test("only a node labelled upgrading=true counts; the names are sorted", () => {
  const nodes = [
    node("win-b", { [LABEL]: "true" }),
    node("win-a", { [LABEL]: "true" }),
    node("win-c"),
    // Not WMCO's value: WMCO writes "true" and removes the label when the node is configured (pkg/nodeconfig).
    node("win-d", { [LABEL]: "false" }),
    node("win-e", { "windowsmachineconfig.openshift.io/byoh": "true" }),
  ];
  expect(wmcoUpgradingNodes(nodes)).toEqual(["win-a", "win-b"]);
});

test("no upgrading node: nothing to say, nothing refused", () => {
  expect(wmcoUpgradeNotice([node("win-a"), node("win-b")])).toBeUndefined();
  expect(wmcoUpgradeRefusal([], "rolling reboot")).toBeUndefined();
});

test("the refusal names the operation, every upgrading node and when to run again", () => {
  expect(wmcoUpgradeRefusal([node("win-a"), node("win-b", { [LABEL]: "true" })], "patching")).toBe(
    `the patching did not start; nothing was changed: WMCO is upgrading Windows nodes (node win-b); run again when no node carries ${LABEL}`,
  );
});

test("the preview notice names the nodes and says what is held back", () => {
  expect(wmcoUpgradeNotice([node("win-a", { [LABEL]: "true" })])).toMatch(
    /^WMCO is upgrading Windows nodes \(win-a labelled windowsmachineconfig\.openshift\.io\/upgrading=true\): it drains and reconfigures every Windows node, one at a time; rolling reboots, patching and Machine rollouts will not start/,
  );
});
