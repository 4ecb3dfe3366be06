import { stateSize, stateSizeLines } from "../../bench/state-size";

// The shape of `pulumi stack export` (pulumi sdk/go/common/apitype UntypedDeployment → DeploymentV3.Resources).
const host = (key: string) => ({
  urn: "urn:pulumi:s::p::pulumi-nodejs:dynamic/windows-estate:WindowsHost::h",
  // Our dynamic resources carry their own type token (providers/dynamic-resource.ts).
  type: "pulumi-nodejs:dynamic/windows-estate:WindowsHost",
  inputs: { __provider: "x".repeat(98), wmcoPrivateKey: key },
  outputs: { __provider: "x".repeat(98), wmcoPrivateKey: key, hostKey: "k" },
});
const doc = {
  version: 3,
  deployment: {
    manifest: {},
    resources: [
      host("a".repeat(48)),
      host("b".repeat(148)),
      { urn: "urn:pulumi:s::p::kubernetes:core/v1:Secret::s", type: "kubernetes:core/v1:Secret", outputs: { a: 1 } },
    ],
  },
};

describe("stateSize (where the checkpoint's bytes go)", () => {
  const s = stateSize(doc);

  it("counts the resources and weighs the whole deployment as `stack export` prints it", () => {
    expect(s.resources).toBe(3);
    expect(s.bytes).toBe(Buffer.byteLength(JSON.stringify(doc.deployment)));
  });

  it("orders the types by the bytes they hold in all, heaviest first", () => {
    expect(s.types.map((t) => [t.type, t.count])).toEqual([
      ["pulumi-nodejs:dynamic/windows-estate:WindowsHost", 2],
      ["kubernetes:core/v1:Secret", 1],
    ]);
  });

  it("splits the heaviest type by property, inputs and outputs together, averaged per resource", () => {
    // __provider: a 100-byte JSON string twice per resource; wmcoPrivateKey: (50 + 150) ÷ 2 twice = 200; hostKey 3.
    expect(s.heaviest.props).toEqual([
      { name: "__provider", avgBytes: 200 },
      { name: "wmcoPrivateKey", avgBytes: 200 },
      { name: "hostKey", avgBytes: 3 },
    ]);
  });

  it("reads an empty or foreign document as nothing rather than throwing", () => {
    expect(stateSize({}).resources).toBe(0);
    expect(stateSizeLines("ours", stateSize({}))[0]).toContain("0 resources");
  });
});
