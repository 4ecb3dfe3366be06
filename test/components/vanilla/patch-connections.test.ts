import * as fs from "fs";
import * as path from "path";
import * as pulumi from "@pulumi/pulumi";
import { parse } from "yaml";
import { runUnderMocks } from "../../helpers/program-run";
import { scratch } from "../../helpers/stack";

// The vanilla patch rollout reaches each node by that node's connection (components/vanilla/declare.ts): a node that
// pins its host key in the stack is reached pinned to it, a trust-on-first-use node the way its files and VanillaNode
// reach it. Both come from config alone, so the rollout's connections stay known at preview (vanilla.e2e 'patching:
// the joined nodes below the level are planned'). The kubeadm example (two pinned nodes, one trust on first use) with
// patching, the real program under Pulumi's mocks.

const EXAMPLE = path.resolve(__dirname, "..", "..", "..", "stacks", "examples", "Pulumi.kubeadm.yaml");
const key = scratch();
afterAll(() => key.cleanup());

/** A secret's value, as secrets travel in the inputs the mocks see; anything else is not one. */
function secretValue(v: unknown): unknown {
  const o = v !== null && typeof v === "object" ? Object.fromEntries(Object.entries(v)) : {};
  if (o[pulumi.runtime.specialSigKey] !== pulumi.runtime.specialSecretSig)
    throw new Error(`not a secret: ${JSON.stringify(v)?.slice(0, 100)}`);
  return o.value;
}

test("the patch rollout reaches a pinned node pinned to its configured key, a trust-on-first-use node as its files do", async () => {
  const example: Record<string, unknown> = parse(fs.readFileSync(EXAMPLE, "utf8")).config;
  const nodes = example["windows-estate:nodes"] as { address: string; hostKey?: string }[];
  const result = await runUnderMocks(key.dir, "patch-connections", {
    ...example,
    "windows-estate:cluster": { platform: "Kubernetes", infrastructureId: "lab-kubeadm" },
    "windows-estate:privateKeyPath": key.keyPath,
    // What discovery reads from the cluster (kubeadm's CA), set: the mocks have no cluster.
    "windows-estate:kubernetes": {
      ...(example["windows-estate:kubernetes"] as object),
      caCertHash: `sha256:${"a".repeat(64)}`,
    },
    "windows-estate:patching": { minimumUpdateRevision: { "20348": 2700 } },
  });
  const [patching] = result.resources.filter((r) => r.type.endsWith(":WindowsPatching"));
  const connections = secretValue(patching?.inputs.connections) as Record<string, Record<string, unknown>>;
  expect(Object.keys(connections).sort()).toEqual(nodes.map((n) => n.address).sort());
  const [pinned, pinned2, tofu] = nodes;
  for (const n of [pinned, pinned2]) {
    expect(n.hostKey).toMatch(/^SHA256:/);
    expect(connections[n.address]).toMatchObject({ host: n.address, user: "Administrator", hostKey: n.hostKey });
    expect(connections[n.address].trustOnFirstUse).toBeFalsy();
  }
  expect(connections[tofu.address]).toMatchObject({ host: tofu.address, trustOnFirstUse: true });
  expect(connections[tofu.address].hostKey).toBeUndefined();
  // The same connection the node itself was converged with.
  const [node] = result.resources.filter((r) => r.type.endsWith(":VanillaNode") && r.name.endsWith(pinned.address));
  expect(connections[pinned.address]).toEqual(secretValue(node?.inputs.connection));
}, 120_000);
