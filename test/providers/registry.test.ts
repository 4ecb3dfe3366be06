import * as fs from "fs";
import * as path from "path";
import * as pulumi from "@pulumi/pulumi";
import { PROVIDERS, providerFor } from "../../providers/registry";
import { codeVersion, thinProvider } from "../../providers/thin";
import { serializedProviderOf } from "../helpers/dynamic-host";
import { WindowsHost } from "../../providers/windows-host";

const NO_CONFIG: pulumi.dynamic.Config = {
  get: () => undefined,
  require: (key) => {
    throw new Error(`no config ${key}`);
  },
};

// The dynamic-provider host (cmd/dynamic-provider) calls only the methods a provider has and treats a missing one its
// own way, so the serialized stand-in must offer exactly the real provider's methods.
// The stand-in gets them from its `configure`, which the host calls first (providers/thin.ts StandIn).
test.each(Object.keys(PROVIDERS))("%s: the stand-in offers exactly the real provider's methods", async (type) => {
  const real = providerFor(type);
  const thin = { ...thinProvider(type) };
  await thin.configure?.({ config: NO_CONFIG });
  const offered = ["check", "diff", "create", "read", "update", "delete"].filter(
    (m) => typeof Reflect.get(thin, m) === "function",
  );
  expect(offered).toEqual(
    ["check", "diff", "create", "read", "update", "delete"].filter((m) => typeof Reflect.get(real, m) === "function"),
  );
});

test("every dynamic resource class of the project uses a registered type", () => {
  const root = path.resolve(__dirname, "..", "..", "providers");
  const used: string[] = [];
  const walk = (dir: string) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith(".ts"))
        used.push(
          ...[...fs.readFileSync(p, "utf8").matchAll(/(?:dynamicResource|kubeWait<\w+>)\(\s*"(\w+)"/g)].map(
            (m) => m[1],
          ),
        );
    }
  };
  walk(root);
  expect([...new Set(used)].sort()).toEqual(Object.keys(PROVIDERS).sort());
});

test("an unknown type is an error naming it", () => {
  expect(() => providerFor("Nope")).toThrow('windows-estate has no dynamic provider named "Nope"');
  expect(() => thinProvider("Nope")).toThrow('providers/registry.ts has no provider named "Nope"');
});

test("what Pulumi stores per resource is small and carries the code version, not the provider's code", async () => {
  const { text } = await serializedProviderOf(
    () =>
      new WindowsHost("h", {
        connection: { host: "10.0.0.5", user: "Administrator", hostKey: "SHA256:x" },
        wmcoPublicKey: "ssh-ed25519 AAAA",
      }),
  );
  expect(text.length).toBeLessThan(8_000);
  expect(text).toContain(codeVersion());
  // Nothing of the real provider's code travels: its SSH session and scripts stay in the project.
  expect(text).not.toContain("administrators_authorized_keys");
  expect(text).not.toContain("hostVerifier");
});

// Pulumi stores `__provider` twice in every resource (inputs and outputs) and rewrites the whole state after every
// step (pulumi pkg/backend/snapshot.go saveSnapshot): a first `up` grew faster than linearly with 8 KB of it per host
// (docs/benchmarks.md, cost curve). What reached lib/project.ts (projectRoot, builtModule, sourceHash and their
// constants) was serialized with it; the loader now stays in the project (providers/host-loader.js).
test.each(Object.keys(PROVIDERS))("%s: the serialized stand-in is under 2,000 characters", async (type) => {
  const p = thinProvider(type);
  const { text } = await pulumi.runtime.serializeFunction(() => p, { isFactoryFunction: true });
  expect(text.length).toBeLessThan(2_000);
  for (const code of ["sourceHash", "builtModule", "PROGRAM_SOURCES", "createHash", ".source-hash"])
    expect(text).not.toContain(code);
  expect(text).toContain(codeVersion());
});

test("a check failure names no property: the engine would print that property's value, secrets included", async () => {
  // pulumi v3.248.0 pkg/resource/deploy/step_generator.go `issueCheckFailures` prints `inputs[failure.Property]`
  // with %v beside the reason; for a secret connection that is the private key (seen through the real CLI).
  const key = "-----BEGIN OPENSSH PRIVATE KEY-----\nAAAAthe-secret-key\n-----END OPENSSH PRIVATE KEY-----\n";
  const thin = { ...thinProvider("WindowsHost") };
  await thin.configure?.({ config: NO_CONFIG });
  const check = thin.check as NonNullable<ReturnType<typeof thinProvider>["check"]>;
  const r = await check({}, { connection: { host: "", user: "Administrator", privateKey: key }, wmcoPublicKey: "k" });
  expect(r.failures?.map((f) => f.reason.split(":")[0])).toContain("connection");
  for (const f of r.failures ?? []) {
    expect(f.property).toBe("");
    expect(f.reason).toMatch(/^(connection|wmcoPublicKey): /);
    expect(f.reason).not.toContain("the-secret-key");
  }
});
