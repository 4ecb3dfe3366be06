import * as fs from "fs";
import * as path from "path";
import { PROVIDERS, providerFor } from "../../providers/registry";
import { codeVersion, thinProvider } from "../../providers/thin";
import { serializedProviderOf } from "../helpers/dynamic-host";
import { WindowsHost } from "../../providers/windows-host";

// The dynamic-provider host (cmd/dynamic-provider) calls only the methods a provider has and treats a missing one its
// own way, so the serialized stand-in must offer exactly the real provider's methods.
test.each(Object.keys(PROVIDERS))("%s: the stand-in offers exactly the real provider's methods", (type) => {
  const real = providerFor(type);
  const offered = ["check", "diff", "create", "read", "update", "delete"].filter(
    (m) => typeof Reflect.get(thinProvider(type), m) === "function",
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

test("a check failure names no property: the engine would print that property's value, secrets included", async () => {
  // pulumi v3.248.0 pkg/resource/deploy/step_generator.go `issueCheckFailures` prints `inputs[failure.Property]`
  // with %v beside the reason; for a secret connection that is the private key (seen through the real CLI).
  const key = "-----BEGIN OPENSSH PRIVATE KEY-----\nAAAAthe-secret-key\n-----END OPENSSH PRIVATE KEY-----\n";
  const check = thinProvider("WindowsHost").check as NonNullable<ReturnType<typeof thinProvider>["check"]>;
  const r = await check({}, { connection: { host: "", user: "Administrator", privateKey: key }, wmcoPublicKey: "k" });
  expect(r.failures?.map((f) => f.reason.split(":")[0])).toContain("connection");
  for (const f of r.failures ?? []) {
    expect(f.property).toBe("");
    expect(f.reason).toMatch(/^(connection|wmcoPublicKey): /);
    expect(f.reason).not.toContain("the-secret-key");
  }
});
