import { generateKeyPairSync } from "crypto";
import * as pulumi from "@pulumi/pulumi";
import { argsReader, loadArgs } from "../../stacks/from-args";
import { DOMAIN_VALIDATORS } from "../../components/validators";
import { isVanillaConfig, loadAnyConfig } from "../../stacks/load";
import { argsFromStack } from "../../stacks/from-pulumi";
import type { WindowsEstateArgs } from "../../components/args";

// A library user's args go through the stack config's loader (stacks/load.ts) and every domain check, and the
// problems are named by their path in the args, never by a `windows-estate:` config key.

const pem = generateKeyPairSync("ed25519", {
  privateKeyEncoding: { type: "pkcs8", format: "pem" },
  publicKeyEncoding: { type: "spki", format: "pem" },
}).privateKey;

const good = (over: Partial<WindowsEstateArgs> = {}): WindowsEstateArgs => ({
  cluster: { platform: "Azure", infrastructureId: "win-tmk9g", region: "westus", discovery: false },
  privateKey: pulumi.secret(pem),
  machineSets: [{ name: "winworker", replicas: 1, windowsServer: "2022", azure: { vmSize: "Standard_D2s_v3" } }],
  ...over,
});

async function problems(args: WindowsEstateArgs): Promise<string> {
  try {
    await loadArgs(argsReader("WindowsEstate estate"), args, DOMAIN_VALIDATORS);
  } catch (e) {
    if (e instanceof pulumi.RunError) return e.message;
    throw e;
  }
  throw new Error("the args were accepted");
}

test("good args load into the same config the stack config would, the key from a secret Output", async () => {
  const args = good({ reboot: { token: "t1", maxUnavailable: "2" } });
  args.cluster.discovery = true; // a reboot plans from the cluster's nodes
  const cfg = await loadArgs(argsReader("WindowsEstate estate"), args, DOMAIN_VALIDATORS);
  if (isVanillaConfig(cfg)) throw new Error("an OpenShift config was expected");
  expect(cfg.privateKey.pem).toBe(pem);
  expect(cfg.privateKey.parsed?.publicKey).toMatch(/^ssh-ed25519 /);
  expect(cfg.machineSets.map((s) => s.name)).toEqual(["winworker"]);
  // A whole number as text, as the component schema carries it (no number-or-text type there), is that number.
  expect(cfg.reboot?.maxUnavailable).toBe(2);
  expect(cfg.reboot?.drainTimeoutSeconds).toBe(600);
});

test("a problem is named by its path in the args, headed by the component, never as a config key", async () => {
  const msg = await problems(
    good({
      machineSets: [
        { name: "winworker-too-long", replicas: 1, windowsServer: "2022", azure: { vmSize: "Standard_D2s_v3" } },
      ],
    }),
  );
  expect(msg).toMatch(/^WindowsEstate estate: the args have 1 problem:\n {2}machineSets\[0\]\.name: /);
  expect(msg).not.toContain("windows-estate:");
});

test("every problem at once", async () => {
  const msg = await problems(
    good({
      cluster: { platform: "Azure", infrastructureId: "win-tmk9g", discovery: false },
      reboot: { token: "t", maxUnavailable: "many" },
    }),
  );
  expect(msg).toMatch(/the args have \d+ problems/);
  expect(msg).toContain("reboot.maxUnavailable");
  expect(msg).toContain("region");
  // The shared checks' messages speak of keys; as args, without the config namespace.
  expect(msg).not.toContain("windows-estate:");
});

test("a key in plain text is refused: it would sit in the state unencrypted", async () => {
  const msg = await problems(good({ privateKey: pem }));
  expect(msg).toContain("privateKey: must be a secret");
  expect(msg).not.toContain(pem.split("\n")[1]);
});

test("an argument the component does not take is named, not ignored", async () => {
  const args = { ...good(), clsuter: {} } as WindowsEstateArgs; // a JavaScript caller's typo
  expect(await problems(args)).toContain("clsuter: is not an argument of this component");
});

test("a key the scripts alone read is no argument either", async () => {
  const args = { ...good(), pipeline: false } as WindowsEstateArgs; // a JavaScript caller's
  expect(await problems(args)).toContain("pipeline: is not an argument of this component");
});

test("the program's mapping of a stack file onto the args loads the same config as the stack file itself", async () => {
  // program.ts hands the components argsFromStack(raw), decoded once from the same raw config the stack file is;
  // the args, loaded as a library user's, must come to the same thing.
  const raw = {
    values: {
      "windows-estate:cluster": JSON.stringify({ platform: "Azure", infrastructureId: "win-tmk9g", region: "westus" }),
      "windows-estate:privateKey": pem,
      "windows-estate:machineSets": JSON.stringify([
        { name: "winworker", replicas: 2, windowsServer: 2022, azure: { vmSize: "Standard_D2s_v3" } },
      ]),
      "windows-estate:reboot": JSON.stringify({ token: "t1", maxUnavailable: "50%" }),
      // Read by the scripts alone (npm run gitops:stacks): no arg of the component.
      "windows-estate:pipeline": "false",
      "pulumi:disable-default-providers": JSON.stringify(["kubernetes"]),
    },
    secretKeys: new Set(["windows-estate:privateKey"]),
  };
  const fromFile = loadAnyConfig(raw, { projectDir: process.cwd(), offline: false, validators: DOMAIN_VALIDATORS });
  const { args, reader, vanilla } = argsFromStack<WindowsEstateArgs>(raw, []);
  expect(vanilla).toBe(false);
  expect(Object.keys(args).sort()).toEqual(["cluster", "machineSets", "privateKey", "reboot"]);
  // The key is a secret because the stack keeps it one, as a library user passes it.
  expect(await pulumi.isSecret(pulumi.output(args.privateKey))).toBe(true);
  const fromArgs = await loadArgs(reader, args, DOMAIN_VALIDATORS);
  expect(fromArgs).toEqual(fromFile);
});

test("each reader reads the same problems with keys named its own way; the stack's own end the program first", async () => {
  const raw = {
    values: {
      "windows-estate:cluster": JSON.stringify({ platform: "Kubernetes", discovery: false }),
      "windows-estate:privateKey": pem,
      "windows-estate:byoh": "[]",
    },
    secretKeys: new Set<string>(),
  };
  // A problem around the args (an unknown key) ends the program before any component is registered.
  const typo = { ...raw, values: { ...raw.values, "windows-estate:clsuter": "{}" } };
  expect(() => argsFromStack(typo, [])).toThrow(
    /windows-estate:clsuter: unknown key; did you mean 'windows-estate:cluster'\?/,
  );
  const { args, reader, vanilla } = argsFromStack<WindowsEstateArgs>(raw, []);
  expect(vanilla).toBe(true);
  const asStack = await loadArgs(reader, args, DOMAIN_VALIDATORS).catch((e: Error) => e.message);
  expect(asStack).toMatch(/^the stack configuration has 2 problems:\n/);
  expect(asStack).toContain(
    "windows-estate:byoh: applies to OpenShift/OKD with WMCO; with cluster.platform Kubernetes, Windows hosts go in windows-estate:nodes",
  );
  expect(asStack).toContain("windows-estate:privateKey: is stored in plain text; set it again with `pulumi config set");
  const asLibrary = await loadArgs(argsReader("VanillaEstate estate"), args, DOMAIN_VALIDATORS).catch(
    (e: Error) => e.message,
  );
  expect(asLibrary).toMatch(/^VanillaEstate estate: the args have 2 problems:\n/);
  expect(asLibrary).toContain(
    "byoh: applies to OpenShift/OKD with WMCO; with cluster.platform Kubernetes, Windows hosts go in nodes",
  );
  expect(asLibrary).toContain("privateKey: must be a secret");
  expect(asLibrary).not.toContain("windows-estate:");
  expect(asLibrary).not.toContain("pulumi config set");
});

test("the secret keys that BYOH hosts and vanilla nodes name for their passwords are known keys, not typos", () => {
  const host = (passwordSecret: string) => JSON.stringify([{ address: "10.0.0.5", bootstrap: { passwordSecret } }]);
  const stack = (values: Record<string, string>) => ({ values, secretKeys: new Set(Object.keys(values)) });
  const vanilla = { "windows-estate:cluster": JSON.stringify({ platform: "Kubernetes" }) };
  expect(() =>
    argsFromStack(
      stack({ ...vanilla, "windows-estate:nodes": host("nodePassword"), "windows-estate:nodePassword": "x" }),
      [],
    ),
  ).not.toThrow();
  expect(() =>
    argsFromStack(
      stack({ ...vanilla, "windows-estate:byoh": host("byohPassword"), "windows-estate:byohPassword": "x" }),
      [],
    ),
  ).not.toThrow();
  // A key no host names is still a typo.
  expect(() => argsFromStack(stack({ ...vanilla, "windows-estate:nodePasword": "x" }), [])).toThrow(
    /windows-estate:nodePasword: unknown key/,
  );
});
