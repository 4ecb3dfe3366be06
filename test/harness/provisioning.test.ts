import * as path from "path";
import { PROJECT_DIR } from "./dynamic-plugin";
import { errorsOf, runProgram, RunResult, stackConfig } from "./program";
import { allStrings, isSecret, plaintextStrings } from "./wire";
import { get } from "../../lib/json";

// `pulumi preview` of the two cloud BYOH examples through the real language host, against the engine stand-in, which
// refuses default providers for the packages a stack disables (as the engine's `shouldDenyRequest` does): a cloud
// resource without its explicit provider fails the run. What only AWS/Azure prove: the VMs booting and running
// their first-boot script; the script itself is parsed by tree-sitter in test/components/provisioning.
jest.setTimeout(120_000);

const PASSWORD = "an-Azure-admin-password-0123";
const runs = new Map<string, RunResult>();

beforeAll(async () => {
  for (const stack of ["byoh-aws", "byoh-azure"]) {
    const file = path.join(PROJECT_DIR, "stacks", "examples", `Pulumi.${stack}.yaml`);
    const c = stackConfig(file, {}, stack === "byoh-azure" ? { "windows-estate:byohAdminPassword": PASSWORD } : {});
    runs.set(stack, await runProgram({ ...c, stack, preview: true }));
  }
});

const run = (stack: string) => runs.get(stack) as RunResult;

test.each(["byoh-aws", "byoh-azure"])("%s previews, every cloud resource on an explicit provider", (stack) => {
  const r = run(stack);
  expect({ exit: r.exitCode, errors: errorsOf(r) }).toEqual({ exit: 0, errors: "" });
  const cloud = r.engine.registrations.filter(
    (x) => x.custom && /^(aws|azure-native):/.test(x.type) && !x.type.startsWith("pulumi:providers:"),
  );
  expect(cloud.length).toBeGreaterThan(0);
  const pkg = stack === "byoh-aws" ? "aws" : "azure-native";
  for (const c of cloud) expect(c.provider).toMatch(new RegExp(`[$:]pulumi:providers:${pkg}::estate-byoh-vms-`));
  expect(r.engine.registrations.filter((x) => x.type.startsWith("pulumi:providers:") && x.name === "default")).toEqual(
    [],
  );
});

test("order: each VM before its WindowsHost, every WindowsHost before windows-instances", () => {
  const r = run("byoh-aws");
  const reg = (type: string) => r.engine.registrations.filter((x) => x.type === type);
  const vms = reg("aws:ec2/instance:Instance");
  const hosts = reg("pulumi-nodejs:dynamic/windows-estate:WindowsHost");
  expect(vms.map((v) => v.name).sort()).toEqual(["estate-byoh-vms-winbyoh-1", "estate-byoh-vms-winbyoh-2"]);
  for (const h of hosts) {
    const vm = vms.find((v) => v.name === h.name.replace("estate-byoh-", "estate-byoh-vms-"));
    expect(h.dependencies).toContain(vm?.urn);
  }
  const [cm] = reg("kubernetes:core/v1:ConfigMap").filter((x) => x.name === "estate-byoh-windows-instances");
  expect(cm.dependencies).toEqual(expect.arrayContaining(hosts.map((h) => h.urn)));
});

test("the Azure admin password is only ever a secret; nothing in state holds it in plaintext", () => {
  const r = run("byoh-azure");
  const [vm] = r.engine.registrations.filter((x) => x.type === "azure-native:compute:VirtualMachine");
  // The password is a secret where it sits (the SDK marks the value, not the whole osProfile).
  expect(isSecret(get(vm.inputs, "osProfile", "adminPassword"))).toBe(true);
  const plain = r.state.resources.flatMap((x) => [...plaintextStrings(x.inputs), ...plaintextStrings(x.outputs)]);
  expect(plain.filter((s) => s.includes(PASSWORD))).toEqual([]);
  // ... while it is really there, as a secret, where Azure needs it.
  expect(allStrings(get(vm.inputs, "osProfile", "adminPassword"))).toEqual([PASSWORD]);
});
