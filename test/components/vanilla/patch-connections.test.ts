import * as path from "path";
import * as pulumi from "@pulumi/pulumi";
import type { ProgramRun } from "../../../scripts/synth/mock-run";
import { scratch, writeStack } from "../../helpers/stack";

// The vanilla patch rollout reaches each node by that node's connection (components/vanilla/declare.ts): a node that
// pins its host key in the stack is reached pinned to it, a trust-on-first-use node the way its files and VanillaNode
// reach it. Both come from config alone, so the rollout's connections stay known at preview (vanilla.e2e 'patching:
// the joined nodes below the level are planned'). The real program runs under Pulumi's mocks.

const PROJECT = path.resolve(__dirname, "..", "..", "..");
const PIN = "SHA256:3KkVtdpSNxjs6Ca4vpFpuZcMj2LsmiUbk1FD6nfTDsc";
const key = scratch();
afterAll(() => key.cleanup());

/** A secret's value, as secrets travel in the inputs the mocks see; anything else is not one. */
function secretValue(v: unknown): unknown {
  const o = v !== null && typeof v === "object" ? Object.fromEntries(Object.entries(v)) : {};
  if (o[pulumi.runtime.specialSigKey] !== pulumi.runtime.specialSecretSig)
    throw new Error(`not a secret: ${JSON.stringify(v)?.slice(0, 100)}`);
  return o.value;
}

async function run(config: Record<string, unknown>): Promise<ProgramRun> {
  const file = writeStack(key.dir, "patch-connections", {
    "pulumi:disable-default-providers": ["kubernetes", "aws"],
    ...config,
  });
  jest.resetModules();
  const { readStackFile } =
    require("../../../scripts/synth/stack-file") as typeof import("../../../scripts/synth/stack-file");
  const { runProgram } = require("../../../scripts/synth/mock-run") as typeof import("../../../scripts/synth/mock-run");
  const cwd = process.cwd();
  process.chdir(PROJECT);
  const warn = jest.spyOn(console, "warn").mockImplementation(() => undefined);
  try {
    return await runProgram(
      path.join(PROJECT, "index.ts"),
      "windows-estate",
      "patch-connections",
      readStackFile(file).raw,
    );
  } finally {
    warn.mockRestore();
    process.chdir(cwd);
  }
}

test("the patch rollout reaches a pinned node pinned to its configured key, a trust-on-first-use node as its files do", async () => {
  const result = await run({
    cluster: { platform: "Kubernetes", infrastructureId: "lab-kubeadm" },
    privateKeyPath: key.keyPath,
    kubernetes: {
      version: "1.36.2",
      podNetworkCidr: "10.244.0.0/16",
      serviceCidr: "10.96.0.0/12",
      dnsServiceIp: "10.96.0.10",
      apiServerEndpoint: "10.0.0.10:6443",
      caCertHash: `sha256:${"a".repeat(64)}`,
      flannel: { vni: 4096, port: 4789 },
      containerd: { version: "2.3.4" },
    },
    nodes: [
      { address: "10.0.0.21", name: "win-vm1", username: "Administrator", hostKey: PIN },
      { address: "10.0.0.23", username: "Administrator", trustOnFirstUse: true },
    ],
    patching: { minimumUpdateRevision: { "20348": 2700 } },
  });
  const [patching] = result.resources.filter((r) => r.type.endsWith(":WindowsPatching"));
  const connections = secretValue(patching?.inputs.connections) as Record<string, Record<string, unknown>>;
  expect(Object.keys(connections).sort()).toEqual(["10.0.0.21", "10.0.0.23", "win-vm1"]);
  for (const at of ["10.0.0.21", "win-vm1"]) {
    expect(connections[at]).toMatchObject({ host: "10.0.0.21", user: "Administrator", hostKey: PIN });
    expect(connections[at].trustOnFirstUse).toBeFalsy();
  }
  expect(connections["10.0.0.23"]).toMatchObject({ host: "10.0.0.23", trustOnFirstUse: true });
  expect(connections["10.0.0.23"].hostKey).toBeUndefined();
  // The same connection the node itself was converged with.
  const [node] = result.resources.filter((r) => r.type.endsWith(":VanillaNode") && r.name.endsWith("10.0.0.21"));
  expect(connections["10.0.0.21"]).toEqual(secretValue(node?.inputs.connection));
}, 120_000);
