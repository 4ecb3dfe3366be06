import * as pulumi from "@pulumi/pulumi";
import { PinnedAmi } from "../../providers/aws-ami/resource";
import { secretIf } from "../../providers/dynamic-resource";
import { NodeFiles } from "../../providers/node-files";

// What a dynamic resource hands the SDK decides its URN and state: its type token, its props and its options. A
// transformation sees exactly those, before the resource is registered.
beforeAll(() =>
  pulumi.runtime.setMocks(
    { newResource: (a) => ({ id: `${a.name}-id`, state: a.inputs }), call: () => ({}) },
    "windows-estate",
    "test",
    false,
  ),
);

async function declared<R extends pulumi.Resource>(
  make: (opts: pulumi.CustomResourceOptions) => R,
): Promise<{ res: R; seen: pulumi.ResourceTransformationArgs }> {
  const seen: pulumi.ResourceTransformationArgs[] = [];
  const res = make({
    protect: true,
    additionalSecretOutputs: ["callers"],
    transformations: [
      (a) => {
        seen.push(a);
        return undefined;
      },
    ],
  });
  // Registered before the test ends (the SDK serializes `__provider` meanwhile).
  await new Promise<void>((resolve) => res.urn.apply(() => resolve()));
  expect(seen).toHaveLength(1);
  return { res, seen: seen[0] };
}

test("a dynamic resource keeps its type token, inputs and outputs; its secret outputs replace the caller's", async () => {
  const { res, seen } = await declared(
    (o) => new NodeFiles("f", { connection: { host: "h", user: "u" }, directory: "C:\\d", files: {} }, o),
  );
  expect(seen.type).toBe("pulumi-nodejs:dynamic/windows-estate:NodeFiles");
  expect(Object.keys(seen.props).sort()).toEqual([
    "__provider",
    "checksums",
    "connection",
    "directory",
    "files",
    "hostGone",
    "hostKey",
    "hostKeyFingerprint",
  ]);
  expect(await pulumi.isSecret(seen.props.connection)).toBe(true);
  expect(seen.opts).toMatchObject({ additionalSecretOutputs: ["connection"], protect: true });
  // Each output is an Output property of the resource, filled from the provider's outputs.
  expect(pulumi.Output.isInstance(res.checksums)).toBe(true);
});

test("without secret outputs of its own, a resource passes the caller's options as given", async () => {
  const { seen } = await declared(
    (o) => new PinnedAmi("a", { region: "r", owners: ["amazon"], nameFilter: "Windows_Server-2022-*" }, o),
  );
  expect(seen.type).toBe("pulumi-nodejs:dynamic/windows-estate:PinnedAmi");
  expect(seen.opts).toMatchObject({ additionalSecretOutputs: ["callers"], protect: true });
});

test("an unset secret input stays unset (not a secret of undefined); a set one is a secret", async () => {
  expect(secretIf(undefined)).toBeUndefined();
  const s = secretIf("kubeconfig");
  expect(s && (await pulumi.isSecret(s))).toBe(true);
});
