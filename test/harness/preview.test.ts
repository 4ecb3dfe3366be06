import * as fs from "fs";
import * as path from "path";
import { ensureDevKey } from "../../scripts/synth/dev-key";
import { ResourceState } from "./engine";
import { PROJECT_DIR } from "./dynamic-plugin";
import { PolicyHost } from "./policy-host";
import { runProgram, RunResult, stackConfig } from "./program";
import { allStrings, UNKNOWN } from "./wire";

// `pulumi preview` of the dev stack and every example stack, through the real Node language host and the real
// dynamic-provider plugin against the engine stand-in; then the policy pack under the real policy-pack host.
// Discovery is off: previews here reach no cluster (the lifecycle tests run against the API stand-in).
jest.setTimeout(180_000);

const EXAMPLES = fs
  .readdirSync(path.join(PROJECT_DIR, "stacks", "examples"))
  .filter((f) => /^Pulumi\..+\.yaml$/.test(f));
const stacks: [string, string][] = [
  ["dev", path.join(PROJECT_DIR, "Pulumi.dev.yaml")],
  ...EXAMPLES.map((f): [string, string] => [f.split(".")[1], path.join(PROJECT_DIR, "stacks", "examples", f)]),
];

/** The plaintext a test gives for an example's `secure:` values (the CLI would decrypt them). */
const SECRETS: Record<string, Record<string, string>> = {
  "byoh-azure": { "windows-estate:byohAdminPassword": "an-Azure-admin-password-0123" },
};

function preview(stack: string, file: string, overrides: Record<string, unknown> = {}): Promise<RunResult> {
  const raw = stackConfig(file, {}, SECRETS[stack]).config["windows-estate:cluster"];
  const cluster = { ...JSON.parse(raw), discovery: false };
  return runProgram({ ...stackConfig(file, { cluster, ...overrides }, SECRETS[stack]), stack, preview: true });
}

const runs = new Map<string, RunResult>();
beforeAll(async () => {
  // The dev key the stacks point at (synth generates it the same way on a fresh clone).
  ensureDevKey(
    { values: stackConfig(path.join(PROJECT_DIR, "Pulumi.dev.yaml")).config, secretKeys: new Set() },
    PROJECT_DIR,
  );
  for (const [stack, file] of stacks) runs.set(stack, await preview(stack, file));
});

test.each(stacks)("%s previews under the real language host with no engine refusal", (stack) => {
  const r = runs.get(stack) as RunResult;
  expect({ exit: r.exitCode, errors: r.engine.errors, stderr: r.exitCode === 0 ? "" : r.stderr.slice(-1500) }).toEqual({
    exit: 0,
    errors: [],
    stderr: "",
  });
  expect(r.engine.registrations.length).toBeGreaterThan(5);
});

test.each(stacks)(
  "%s: Kubernetes objects and cloud VMs use explicit providers; only dynamic resources use a default provider",
  (stack) => {
    const r = runs.get(stack) as RunResult;
    const custom = r.state.resources.filter((x) => x.custom && !x.type.startsWith("pulumi:providers:"));
    const cloud = (t: string) => /^(aws|azure-native):/.test(t);
    for (const x of custom) {
      const providerUrn = x.provider.split("::").slice(0, -1).join("::");
      if (x.type.startsWith("pulumi-nodejs:"))
        expect(providerUrn).toMatch(/::pulumi:providers:pulumi-nodejs::default$/);
      else if (cloud(x.type))
        // The VMs' own providers, one per region or subscription (components/provisioning/cloud-hosts.ts).
        expect(`${x.type} ${providerUrn}`).toMatch(/[$:]pulumi:providers:(aws|azure-native)::estate-byoh-vms-[^:]+$/);
      else expect(`${x.type} ${providerUrn}`).toMatch(/::pulumi:providers:kubernetes::cluster$/);
    }
    expect(
      r.state.resources
        .map((x) => x.type)
        .filter((t) => t.startsWith("pulumi:providers:"))
        .sort(),
    ).toEqual(
      [
        ...new Set([
          "pulumi:providers:kubernetes",
          ...(custom.some((x) => x.type.startsWith("pulumi-nodejs:")) ? ["pulumi:providers:pulumi-nodejs"] : []),
          ...custom.filter((x) => cloud(x.type)).map((x) => `pulumi:providers:${x.type.split(":")[0]}`),
        ]),
      ].sort(),
    );
  },
);

test('disable-default-providers ["*"] is refused by the program, naming the key and the fix, before anything is declared', async () => {
  const r = await preview("dev", path.join(PROJECT_DIR, "Pulumi.dev.yaml"), {
    "pulumi:disable-default-providers": ["*"],
  });
  expect(r.exitCode).not.toBe(0);
  const errors = r.engine.logs.filter((l) => l.severity === "error").map((l) => l.message);
  expect(errors.join("\n")).toContain('pulumi:disable-default-providers: "*" also disables the pulumi-nodejs provider');
  expect(errors.join("\n")).not.toMatch(/\n\s+at /); // a message, not a stack trace
  expect(r.engine.registrations.filter((x) => x.type !== "pulumi:pulumi:Stack")).toEqual([]);
});

test("the engine rule itself: a dynamic resource under a denied pulumi-nodejs default provider is refused", async () => {
  // What happened before the fix, reproduced with the package named explicitly (the program only refuses "*").
  const r = await preview("dev", path.join(PROJECT_DIR, "Pulumi.dev.yaml"), {
    "pulumi:disable-default-providers": ["kubernetes", "pulumi-nodejs"],
  });
  expect(r.exitCode).not.toBe(0);
  expect(r.engine.errors.join("\n")).toMatch(
    /Default provider for 'pulumi-nodejs' disabled\. 'urn:pulumi:dev::windows-estate::.*' must use an explicit provider\./,
  );
});

test("logical names do not contain the stack name: a second stack registers the same names", async () => {
  const other = await preview("prod-east", path.join(PROJECT_DIR, "Pulumi.dev.yaml"));
  const names = (r: RunResult) =>
    r.engine.registrations
      .filter((x) => x.type !== "pulumi:pulumi:Stack")
      .map((x) => `${x.type}::${x.name}`)
      .sort();
  expect(names(other)).toEqual(names(runs.get("dev") as RunResult));
  expect(names(other).join("\n")).not.toContain("prod-east");
});

test("AWS preview makes no AWS call: no invoke, no AWS provider; the AMI is unknown and the log says when it is resolved", () => {
  const r = runs.get("aws") as RunResult;
  expect(r.engine.invokes).toEqual([]);
  expect(r.state.resources.some((x) => x.type.startsWith("aws:") || x.type === "pulumi:providers:aws")).toBe(false);
  const pins = r.state.resources.filter((x) => x.type === "pulumi-nodejs:dynamic/windows-estate:PinnedAmi");
  expect(pins.map((p) => p.inputs.nameFilter)).toEqual(["Windows_Server-2022-English-Core-Base-????.??.??"]);
  // The set without an AMI has its whole spec unknown until the pin resolves; the set with one is fully known.
  const sets = r.state.resources.filter((x) => x.type === "kubernetes:machine.openshift.io/v1beta1:MachineSet");
  const amis = sets.map((s) => {
    const spec = (s.inputs as { spec: unknown }).spec;
    return spec === UNKNOWN
      ? "unknown"
      : (spec as { template: { spec: { providerSpec: { value: { ami: { id: string } } } } } }).template.spec
          .providerSpec.value.ami.id;
  });
  expect(amis.sort()).toEqual(["ami-0123456789abcdef0", "unknown"]);
  expect(
    r.engine.logs.some(
      (l) => l.severity === "info" && /looked up at the first `pulumi up` and then pinned/.test(l.message),
    ),
  ).toBe(true);
});

test("render mode leaves cloud-private-key out and says how to create it; renderKeySecret opts in", async () => {
  const file = path.join(PROJECT_DIR, "stacks", "examples", "Pulumi.byoh.yaml");
  const r = runs.get("byoh") as RunResult;
  const isKeySecret = (x: ResourceState) =>
    x.type === "kubernetes:core/v1:Secret" &&
    (x.inputs as { metadata?: { name?: string } }).metadata?.name === "cloud-private-key";
  expect(r.state.resources.some(isKeySecret)).toBe(false);
  expect(
    r.engine.logs.some((l) => l.severity === "warning" && l.message.includes("cloud-private-key is not rendered")),
  ).toBe(true);
  const cluster = { ...JSON.parse(stackConfig(file).config["windows-estate:cluster"]), renderKeySecret: true };
  const opted = await runProgram({ ...stackConfig(file, { cluster }), stack: "byoh", preview: true });
  expect(opted.state.resources.filter(isKeySecret)).toHaveLength(1);
});

test("the private key appears in no resource's inputs or outputs in plaintext", () => {
  const pem = fs
    .readFileSync(path.join(PROJECT_DIR, ".dev", "wmco-dev-key.pem"), "utf8")
    .trim()
    .split("\n")[1];
  const r = runs.get("dev") as RunResult;
  for (const x of r.state.resources) {
    const plain = JSON.stringify(
      [x.inputs, x.outputs].map((v) =>
        JSON.parse(
          JSON.stringify(v, (_k, val) =>
            val && typeof val === "object" && "4dabf18193072939515e22adb298388d" in val ? "[secret]" : val,
          ),
        ),
      ),
    );
    expect(`${x.urn} ${plain.includes(pem)}`).toBe(`${x.urn} false`);
  }
  // ... while it is really there (as a secret) where WMCO needs it.
  expect(r.state.resources.some((x) => allStrings(x.inputs).some((s) => s.includes(pem)))).toBe(true);
});

describe("policy pack under the real policy-pack host", () => {
  const host = new PolicyHost();
  beforeAll(() => host.start());
  afterAll(() => host.stop());

  test("starts, and the dev stack's resources (providers included) pass every policy", async () => {
    const r = runs.get("dev") as RunResult;
    const violations = (await Promise.all(r.state.resources.map((x) => host.analyze(x)))).flat();
    expect(violations).toEqual([]);
    expect(await host.analyzeStack(r.state.resources)).toEqual([]);
  });

  test("the default pulumi-nodejs provider, whose inputs are the whole stack config, is not flagged for the inline key", async () => {
    const file = path.join(PROJECT_DIR, "Pulumi.dev.yaml");
    const pem = fs.readFileSync(path.join(PROJECT_DIR, ".dev", "wmco-dev-key.pem"), "utf8");
    const cluster = { ...JSON.parse(stackConfig(file).config["windows-estate:cluster"]), discovery: false };
    const r = await runProgram({
      ...stackConfig(file, { cluster, privateKeyPath: undefined }, { "windows-estate:privateKey": pem }),
      stack: "dev",
      preview: true,
    });
    const provider = r.state.resources.find((x) => x.type === "pulumi:providers:pulumi-nodejs") as ResourceState;
    expect(allStrings(provider.inputs).some((v) => v.includes("PRIVATE KEY"))).toBe(true);
    expect(await host.analyze(provider)).toEqual([]);
  });

  test("reports a key leaked into a ConfigMap, by policy name", async () => {
    const r = runs.get("dev") as RunResult;
    const cm = r.state.resources.find((x) => x.type === "kubernetes:core/v1:ConfigMap") as ResourceState;
    const pem = fs.readFileSync(path.join(PROJECT_DIR, ".dev", "wmco-dev-key.pem"), "utf8");
    const leaked = { ...cm, inputs: { ...cm.inputs, data: { "key.pem": pem } } };
    expect((await host.analyze(leaked)).map((v) => v.policy)).toEqual(["private-key-only-in-secret"]);
  });
});
