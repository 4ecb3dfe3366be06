import { execFileSync, spawnSync } from "child_process";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { parse } from "yaml";
import type { LabInfo } from "../../lab/record";
import { labApi, PROJECT_DIR, runAsync, startLabAsync, stopLab } from "./lab";
import {
  exampleConfig,
  expectEstateUp,
  expectOk,
  projectCopyAsync,
  rsaKey,
  Stack,
  WINWORKER,
  writeWmcoKey,
} from "./project";

// windows-estate as a component package (issue 28), through the real CLI v3.248.0 against the lab's API server:
// the packed tarball installed by the TypeScript sample, the component provider added to the Pulumi YAML sample with
// `pulumi package add` (run by the real pulumi-language-yaml), and a stack made by the program before it became a
// user of the library previewing with no replacement. OLM is real (lab/olm.ts); WMCO is the lab's player.

const KEY_SECRET = "/api/v1/namespaces/openshift-windows-machine-config-operator/secrets/cloud-private-key";
/** The last commit before the components took args (issue 28): the program as existing stacks were made with it. */
const BEFORE_LIBRARY = "e2b36d0";
const LAB = "e2e-library";

let lab: LabInfo;
let copy: string;
const pem = rsaKey();

beforeAll(async () => {
  [lab, copy] = await Promise.all([startLabAsync("azure", LAB), projectCopyAsync()]);
  // `npm pack` as a user runs it after `npm run build` (the copy is built): the tarball the TypeScript sample installs.
  const pack = await runAsync("npm", ["pack", "--pack-destination", copy], { cwd: copy });
  if (pack.status !== 0) throw new Error(`npm pack failed: ${pack.stderr}`);
}, 900_000);
afterAll(() => stopLab(LAB));

/** `pulumi config set --secret <key>` with the value on stdin, as the samples' READMEs say. */
function setSecret(stack: Stack, key: string, value: string): void {
  const r = spawnSync("pulumi", ["config", "set", "--secret", key, "--stack", stack.name], {
    cwd: stack.dir,
    input: value,
    encoding: "utf8",
    env: { ...process.env, ...lab.env },
  });
  if (r.status !== 0) throw new Error(`pulumi config set --secret ${key} failed: ${r.stderr}`);
}

/**
 * A sample's stack once set up, as both samples go: `up` declares the estate and it converges on the API server
 * (`expectEstateUp`, then `alsoUp`), a second up changes nothing, `destroy` removes what it declared.
 */
function upAgainDestroy(stack: () => Stack, upTitle: string, alsoUp: (stack: Stack) => void = () => {}): void {
  test(upTitle, async () => {
    expectOk(stack().pulumi(["up", "--yes", "--skip-preview"]));
    await expectEstateUp(stack(), pem);
    alsoUp(stack());
  });

  test("a second up changes nothing", () => {
    expectOk(stack().pulumi(["up", "--yes", "--expect-no-changes"]));
  });

  test("destroy removes what it declared", async () => {
    expectOk(stack().pulumi(["destroy", "--yes", "--skip-preview"]));
    const api = labApi(lab);
    expect(await api.status(WINWORKER)).toBe(404);
    expect(await api.status(KEY_SECRET)).toBe(404);
  });
}

describe("the packed library from a TypeScript program", () => {
  let stack: Stack;
  beforeAll(async () => {
    const dir = path.join(copy, "examples", "typescript");
    // The sample's package.json names the tarball `npm pack` wrote: installed as a user installs it, with the
    // dependencies the tarball declares (from npm's cache where it has them).
    const install = await runAsync("npm", ["install", "--prefer-offline", "--no-audit", "--no-fund"], { cwd: dir });
    if (install.status !== 0) throw new Error(`npm install of the tarball failed: ${install.stderr}`);
    // No TypeScript sources of the library are installed, only what `exports` names.
    const installed = path.join(dir, "node_modules", "windows-estate");
    expect(fs.existsSync(path.join(installed, "bin", "library", "index.d.ts"))).toBe(true);
    expect(fs.existsSync(path.join(installed, "program.ts"))).toBe(false);
    stack = new Stack(dir, "e2e", lab);
    stack.init({
      "windows-estate-example:infrastructureId": "win-tmk9g",
      "windows-estate-example:region": "westus",
    });
    setSecret(stack, "wmcoPrivateKey", pem);
  }, 900_000);

  test("bad args fail before anything changes, named by their path in the args", () => {
    fs.writeFileSync(
      path.join(stack.dir, "index.ts"),
      fs
        .readFileSync(path.join(stack.dir, "index.ts"), "utf8")
        .replace('name: "winworker"', 'name: "winworker-too-long"'),
    );
    const bad = stack.pulumi(["preview"]);
    expect(bad.status).not.toBe(0);
    expect(bad.stdout + bad.stderr).toMatch(
      /WindowsEstate estate: the args have 1 problem:\s+machineSets\[0\]\.name: /,
    );
    expect(bad.stdout + bad.stderr).not.toMatch(/windows-estate:machineSets/);
    fs.copyFileSync(path.join(PROJECT_DIR, "examples", "typescript", "index.ts"), path.join(stack.dir, "index.ts"));
  });

  upAgainDestroy(
    () => stack,
    "up declares the estate in the user's own program and it converges on the API server",
    (stack) => {
      const machineSets = JSON.parse(stack.pulumi(["stack", "output", "machineSets", "--json"]).stdout);
      expect(machineSets).toEqual([
        expect.objectContaining({ name: "winworker", platform: "Azure", windowsServer: "2022", replicas: 1 }),
      ]);
      // The component made its own Kubernetes provider from `cluster` (ConfigMaps mutable in place), under itself.
      const state = JSON.parse(stack.pulumi(["stack", "export"]).stdout);
      const urns: string[] = state.deployment.resources.map((r: { urn: string }) => r.urn);
      expect(urns).toContainEqual(
        expect.stringMatching(/windows-estate:index:WindowsEstate\$pulumi:providers:kubernetes::estate-cluster$/),
      );
      const provider = state.deployment.resources.find((r: { urn: string }) => r.urn.endsWith("::estate-cluster"));
      expect(provider.inputs.enableConfigMapMutable).toBe("true");
    },
  );
});

describe("the component from Pulumi YAML, added with pulumi package add", () => {
  let stack: Stack;
  beforeAll(() => {
    const dir = path.join(copy, "examples", "yaml");
    stack = new Stack(dir, "e2e", lab);
    stack.init({
      "windows-estate-example-yaml:infrastructureId": "win-tmk9g",
      "windows-estate-example-yaml:region": "westus",
    });
    // Played: `pulumi package add` installs the resource plugins the package's dependencies declare (aws, azure-native,
    // kubernetes 4.34.2) from get.pulumi.com, which this machine cannot reach (pulumi pkg cmd/pulumi/packageinstallation
    // gatherPackageDependenciesStep skips those the plugin cache has: sdk workspace.HasPlugin, a folder without a
    // .partial file). They are marked present; nothing here starts them: the estate uses no AWS or Azure resource, and
    // the CLI runs the lab's pulumi-resource-kubernetes from PATH, as in every other suite.
    for (const plugin of ["resource-aws-v7.48.0", "resource-azure-native-v3.28.0", "resource-kubernetes-v4.34.2"])
      fs.mkdirSync(path.join(lab.env.PULUMI_HOME ?? "", "plugins", plugin), { recursive: true });
    // The repository as a user has it (the project copy): the CLI runs its PulumiPlugin.yaml through the Node host,
    // which serves the schema Pulumi's analyzer makes from the TypeScript sources.
    const add = spawnSync("pulumi", ["package", "add", "../.."], {
      cwd: dir,
      encoding: "utf8",
      env: { ...process.env, ...lab.env },
      timeout: 600_000,
    });
    if (add.status !== 0) throw new Error(`pulumi package add failed: ${add.stdout}${add.stderr}`);
    const project = parse(fs.readFileSync(path.join(dir, "Pulumi.yaml"), "utf8"));
    expect(Object.keys(project.packages ?? {})).toEqual(["windows-estate"]);
    setSecret(stack, "wmcoPrivateKey", pem);
  }, 900_000);

  upAgainDestroy(() => stack, "up through pulumi-language-yaml declares the same estate");
});

describe("a stack the program made before the library face", () => {
  test("previews with no replacement and no deletion after the upgrade, then goes up unchanged", async () => {
    // The program at BEFORE_LIBRARY, as a user had it: its tracked files, built, the dev stack's config.
    const old = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "e2e-before-")), "windows-estate");
    fs.mkdirSync(old);
    execFileSync("sh", ["-c", `git -C "${PROJECT_DIR}" archive ${BEFORE_LIBRARY} | tar -x -C "${old}"`]);
    fs.symlinkSync(path.join(PROJECT_DIR, "node_modules"), path.join(old, "node_modules"));
    const build = await runAsync("npm", ["run", "--silent", "build"], { cwd: old });
    expect(build.status).toBe(0);
    const key = writeWmcoKey(old);
    const before = new Stack(old, "upgrade", lab);
    before.init(exampleConfig(old, "Pulumi.dev.yaml"));
    before.up();
    const resourcesBefore: { urn: string; inputs?: Record<string, unknown> }[] = JSON.parse(
      before.pulumi(["stack", "export"]).stdout,
    ).deployment.resources;
    const urnsBefore = resourcesBefore.map((r) => r.urn);
    const outputsBefore = JSON.parse(before.pulumi(["stack", "output", "--json"]).stdout);

    // The same stack (one backend), from the code now: its config file and key beside it.
    fs.copyFileSync(path.join(old, "Pulumi.upgrade.yaml"), path.join(copy, "Pulumi.upgrade.yaml"));
    writeWmcoKey(copy, key);
    const after = new Stack(copy, "upgrade", lab);
    const p = after.previewJson();
    expect(p.stderr).not.toMatch(/error:/);
    expect(p.status).toBe(0);
    const ops = new Set(p.steps.map((s) => s.op));
    for (const op of ["replace", "create-replacement", "delete-replaced", "delete", "discard"])
      expect({ op, steps: p.steps.filter((s) => s.op === op).map((s) => s.urn) }).toEqual({ op, steps: [] });
    // The one thing created is a wait added since (issue 30): it owns nothing in the cluster.
    const created = p.steps.filter((s) => s.op === "create").map((s) => s.urn);
    expect(created.map((u) => u.split("::").pop())).toEqual(["estate-nodes-joined"]);
    expect(created[0]).toContain("$pulumi-nodejs:dynamic/windows-estate:WindowsNodesJoined::");
    expect([...ops].every((op) => op === "same" || op === "update" || op === "create")).toBe(true);
    // What does change: the dynamic resources, whose stored provider carries the code version (providers/thin.ts),
    // so their providers re-apply after an upgrade as after any change of the code. No Kubernetes object changes: not
    // even the Azure MachineSet, which the old program declared with `zone: ""` and the code now without (issue 43),
    // since machine-api's defaulting webhook dropped that key when the set was created (openshift/api machine/v1beta1
    // types_azureprovider.go, Zone `json:"zone,omitempty"`) and the provider diffs against the live object.
    const updated = p.steps.filter((s) => s.op === "update").map((s) => s.urn);
    expect(updated.filter((u) => !u.includes("$pulumi-nodejs:dynamic/"))).toEqual([]);
    after.up();
    const urnsAfter = JSON.parse(after.pulumi(["stack", "export"]).stdout).deployment.resources.map(
      (r: { urn: string }) => r.urn,
    );
    expect(urnsAfter.sort()).toEqual([...urnsBefore, ...created].sort());
    // And the stack's outputs are what they were: the same keys (none gained, none lost) and values, but for the
    // inventory, read from the cluster at each up (the MachineSet's node has joined in between).
    const outputsAfter = JSON.parse(after.pulumi(["stack", "output", "--json"]).stdout);
    expect(Object.keys(outputsAfter).sort()).toEqual(Object.keys(outputsBefore).sort());
    expect({ ...outputsAfter, windowsNodeInventory: [] }).toEqual({ ...outputsBefore, windowsNodeInventory: [] });
    const down = after.pulumi(["destroy", "--yes", "--skip-preview"]);
    expect(down.status).toBe(0);
  }, 1_800_000);
});
