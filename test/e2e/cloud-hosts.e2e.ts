import { execFileSync, spawnSync } from "child_process";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import type { LabInfo } from "../../lab/record";
import { PROJECT_DIR, stopLab } from "./lab";
import { playedCloudPlugins, playedCloudStack } from "./played-cloud/plugins";
import { labProject, PlanStep, Stack, writeWmcoKey } from "./project";

/** The last commit before issue 41 changed how VMs are declared: stacks made by it are upgraded below. */
const BEFORE = "a4e686b";

// Issue 41 item 2 (audit row 5): first-boot data is first boot only. Through the real CLI, with the played cloud
// plugins (test/e2e/played-cloud: what pulumi-aws and azure-native document of a change, Azure's 409 on customData):
// the VMs of the example stacks are created (`pulumi up --target` on them alone: the hosts' SSH side is proven
// elsewhere), then the WMCO key is rotated and the first-boot script reworded (the program upgraded), and the plan
// must leave every Instance and VirtualMachine as it is while the hosts' WindowsHost takes the new key over SSH.
// The same edit with `ignoreChanges` taken out of the program shows what it prevents: an update of each VM (on AWS a
// stop/start), which Azure refuses.

const LAB = "e2e-cloud-hosts";
let lab: LabInfo;
let dir: string;
let cloudLog: string;

const typeOf = (s: PlanStep) => s.newState?.type ?? "";
const VM_TYPES = ["aws:ec2/instance:Instance", "azure-native:compute:VirtualMachine"];

beforeAll(async () => {
  ({ lab, dir } = await labProject("azure", LAB));
  cloudLog = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "played-cloud-log-")), "calls.jsonl");
}, 900_000);
afterAll(() => stopLab(LAB));

/**
 * The example stack with its VMs created through the played cloud by the program in `where` (default: this
 * version): the stack, and its cloud resources' URNs.
 */
function created(
  example: "byoh-aws" | "byoh-azure",
  where = dir,
  stackName: string = example,
): { stack: Stack; cloud: { urn: string; type: string }[] } {
  const stack = playedCloudStack(where, example, lab, { stackName, env: { PLAYED_CLOUD_LOG: cloudLog }, pinAmi: true });
  const p = stack.previewJson();
  if (p.status !== 0) throw new Error(`preview of ${example} failed: ${p.stdout.slice(-3000)}${p.stderr.slice(-1500)}`);
  const cloud = p.steps
    .filter((s) => s.newState?.custom && /^(aws|azure-native):/.test(typeOf(s)))
    .map((s) => ({ urn: s.urn, type: typeOf(s) }));
  if (cloud.length === 0) throw new Error(`the preview of ${example} declares no cloud resource`);
  // The engine creates a targeted resource only with its parents (components) targeted too.
  const parentOf = new Map(p.steps.map((s) => [s.urn, s.newState?.parent]));
  const targets = new Set<string>();
  for (const c of cloud)
    for (let u: string | undefined = c.urn; u && !u.includes("::pulumi:pulumi:Stack::"); u = parentOf.get(u))
      targets.add(u);
  const up = stack.pulumi(["up", "--yes", "--skip-preview", ...[...targets].flatMap((u) => ["--target", u])]);
  if (up.status !== 0)
    throw new Error(
      `targeted up of ${example} failed: ${up.stdout
        .split("\n")
        .filter((l) => /error/i.test(l))
        .join("\n")
        .slice(0, 4000)}${up.stderr}`,
    );
  return { stack, cloud };
}

/** The played plugins' Diff calls for the VM named `vm` since `from` (a line count of the log): the inputs that differed. */
function diffsOf(vm: string, from: number): string[][] {
  return fs
    .readFileSync(cloudLog, "utf8")
    .split("\n")
    .slice(from)
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { method: string; name: string; changed?: string[] })
    .filter((e) => e.method === "diff" && e.name === vm)
    .map((e) => e.changed ?? []);
}
const logLines = () => fs.readFileSync(cloudLog, "utf8").split("\n").length - 1;
const vmName = (urn: string) => urn.split("::").pop() ?? "";

/** Edits the project copy's source file `rel`, replacing `from` by `to` (it must be there). */
function edit(rel: string, from: string, to: string): () => void {
  const file = path.join(dir, rel);
  const before = fs.readFileSync(file, "utf8");
  if (!before.includes(from)) throw new Error(`${rel} no longer has ${JSON.stringify(from)}`);
  fs.writeFileSync(file, before.replace(from, to));
  return () => fs.writeFileSync(file, before);
}

/** The first-boot script reworded as by a later release: a comment line `# <words>` added (`edit`; returns the undo). */
const rewordFirstBoot = (words: string) =>
  edit(
    "components/provisioning/user-data.ts",
    `"$ErrorActionPreference = 'Stop'",\n    // The serial console`,
    `"$ErrorActionPreference = 'Stop'",\n    "# ${words}",\n    // The serial console`,
  );

describe.each(["byoh-aws", "byoh-azure"] as const)("%s", (example) => {
  let stack: Stack;
  let vms: string[];
  beforeAll(() => {
    const c = created(example);
    stack = c.stack;
    vms = c.cloud.filter((x) => VM_TYPES.includes(x.type)).map((x) => x.urn);
  }, 900_000);

  test("a rotated key and a reworded first-boot script leave every VM as it is (the engine keeps the first-boot data)", () => {
    expect(vms.length).toBeGreaterThan(0);
    writeWmcoKey(dir);
    const undo = rewordFirstBoot("reworded by a later release");
    try {
      const mark = logLines();
      const p = stack.previewJson(["--show-sames"]);
      expect(p.status).toBe(0);
      const ops = new Map(p.steps.map((s) => [s.urn, s.op]));
      for (const vm of vms) expect(`${vm}: ${ops.get(vm)}`).toBe(`${vm}: same`);
      // The engine asked each VM's provider with the first-boot data as created (ignoreChanges), so it saw no change.
      for (const vm of vms) expect(diffsOf(vmName(vm), mark)).toEqual([[]]);
      // The key is the hosts' to take, over SSH: each has its WindowsHost (key rotation: byoh.e2e.ts).
      const hosts = p.steps.filter((s) => typeOf(s) === "pulumi-nodejs:dynamic/windows-estate:WindowsHost");
      expect(hosts.length).toBe(vms.length);
    } finally {
      undo();
    }
  });

  test("without ignoreChanges the same edit would update every VM (AWS: a stop/start; Azure: refused with 409)", () => {
    const file =
      example === "byoh-aws" ? "components/provisioning/aws-host.ts" : "components/provisioning/azure-host.ts";
    const from =
      example === "byoh-aws"
        ? `ignoreChanges: ["userData"]`
        : `ignoreChanges: ["osProfile.customData", "storageProfile.osDisk.diskSizeGB"]`;
    const undo = edit(
      file,
      from,
      example === "byoh-aws" ? "ignoreChanges: []" : `ignoreChanges: ["storageProfile.osDisk.diskSizeGB"]`,
    );
    const undoScript = rewordFirstBoot("reworded again");
    try {
      const mark = logLines();
      const p = stack.previewJson();
      expect(p.status).toBe(0);
      const steps = p.steps.filter((s) => vms.includes(s.urn));
      expect(steps.map((s) => s.op)).toEqual(vms.map(() => "update"));
      for (const vm of vms)
        expect(diffsOf(vmName(vm), mark)).toEqual([
          expect.arrayContaining([example === "byoh-aws" ? "userData" : "osProfile"]),
        ]);
      if (example === "byoh-azure") {
        const up = stack.pulumi(["up", "--yes", "--skip-preview", ...vms.flatMap((u) => ["--target", u])]);
        expect(up.status).not.toBe(0);
        expect(up.stdout + up.stderr).toContain("PropertyChangeNotAllowed");
      }
    } finally {
      undoScript();
      undo();
    }
  });
});

/** The project as it was at `commit` (its tracked files), node_modules beside, built. */
function projectAt(commit: string): string {
  const at = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "e2e-before-")), "windows-estate");
  fs.mkdirSync(at);
  const tar = execFileSync("git", ["archive", "--format=tar", commit], {
    cwd: PROJECT_DIR,
    maxBuffer: 256 * 1024 * 1024,
  });
  execFileSync("tar", ["-x", "-C", at], { input: tar });
  fs.symlinkSync(path.join(PROJECT_DIR, "node_modules"), path.join(at, "node_modules"));
  const build = spawnSync("npm", ["run", "--silent", "build"], { cwd: at, encoding: "utf8", timeout: 600_000 });
  if (build.status !== 0) throw new Error(`npm run build of ${commit} failed: ${build.stdout}${build.stderr}`);
  writeWmcoKey(at);
  return at;
}

// An edit to a stack never destroys what it did not mean to: VMs created by the program before issue 41 are updated
// in place by this one (instance profile, boot diagnostics), never replaced, their first-boot data left alone.
describe("VMs created before issue 41, previewed by this version", () => {
  let before: string;
  beforeAll(() => {
    before = projectAt(BEFORE);
  }, 900_000);

  test.each(["byoh-aws", "byoh-azure"] as const)("%s: nothing is replaced or deleted", (example) => {
    const stackName = `${example}-upgrade`;
    const { cloud } = created(example, before, stackName);
    // The same stack (the lab's backend), its file as the user has it, now run by this version of the program.
    fs.copyFileSync(path.join(before, `Pulumi.${stackName}.yaml`), path.join(dir, `Pulumi.${stackName}.yaml`));
    fs.copyFileSync(path.join(before, ".dev", "wmco-dev-key.pem"), path.join(dir, ".dev", "wmco-dev-key.pem"));
    const now = new Stack(dir, stackName, lab, { PATH: `${playedCloudPlugins()}:${lab.env.PATH}` });
    const p = now.previewJson(["--show-sames"]);
    if (p.status !== 0) throw new Error(`preview failed: ${p.stdout.slice(-3000)}${p.stderr.slice(-1500)}`);
    const ops = new Map(p.steps.map((s) => [s.urn, s.op]));
    for (const c of cloud) expect(`${c.urn}: ${ops.get(c.urn)}`).toMatch(/: (same|update)$/);
    expect(p.steps.filter((s) => /^(replace|delete|delete-replaced|create-replacement|discard)/.test(s.op))).toEqual(
      [],
    );
  });
});
