import { reachFor, WindowsPatchingInputs } from "../../../providers/day2/patching-provider";
import type { WindowsNode } from "../../../providers/day2/inventory";

// How the patch rollout reaches a vanilla node (the program hands it each node's connection,
// components/vanilla/declare.ts): pinned to the key the stack configures; a trust-on-first-use node pinned to the key
// an earlier run recorded at its first contact (rollout.ts `workOne` records it), so only that first contact trusts.
const PIN = "SHA256:3KkVtdpSNxjs6Ca4vpFpuZcMj2LsmiUbk1FD6nfTDsc";
const RECORDED = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIJ6ghUa7b1TmyDf0ySx2RT1I6dIm5oXzmBHvBOMiFB0d";

const inputs = (connections: WindowsPatchingInputs["connections"]): WindowsPatchingInputs => ({
  minimumUpdateRevision: { "20348": 2900 },
  categories: [],
  batches: [],
  disableEviction: false,
  drainTimeoutSeconds: 30,
  readyTimeoutSeconds: 30,
  installTimeoutMinutes: 60,
  connections,
});
const node = (name: string, address: string): WindowsNode => ({
  name,
  address,
  source: { kind: "other" },
  unschedulable: false,
  labels: {},
});

test("a pinned vanilla node is reached pinned to its configured key, whatever was recorded", () => {
  const c = { host: "10.0.0.21", user: "Administrator", hostKey: PIN };
  const reach = reachFor(inputs({ "10.0.0.21": c }), { "win-vm1": RECORDED });
  expect(reach(node("win-vm1", "10.0.0.21"))).toEqual({ connection: c, hostKey: PIN });
});

test("a trust-on-first-use vanilla node: trusted at first contact only, then pinned to the key recorded then", () => {
  const c = { host: "10.0.0.23", user: "Administrator", trustOnFirstUse: true };
  const i = inputs({ "win-vm3": c });
  expect(reachFor(i, {})(node("win-vm3", "10.0.0.23"))).toEqual({ connection: c });
  expect(reachFor(i, { "win-vm3": RECORDED })(node("win-vm3", "10.0.0.23"))).toEqual({
    connection: c,
    hostKey: RECORDED,
  });
});
