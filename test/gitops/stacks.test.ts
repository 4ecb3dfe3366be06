import { execFileSync, spawnSync } from "child_process";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { parse } from "yaml";
import { matrix, projectStacks, secretClashes, secretName, touchedStacks } from "../../scripts/gitops/stacks";
import type { StackFacts } from "../../scripts/gitops/stack-file";

// Which stacks the workflows run and where each one's kubeconfig comes from. GitHub secret names allow only
// alphanumerics and underscores (GitHub docs, "Naming your secrets"), so `prod-east` cannot be `KUBECONFIG_prod-east`.

const ROOT = path.resolve(__dirname, "..", "..");

test("a stack name maps to a valid secret name", () => {
  expect(["prod-east", "dev", "eu.west-2", "Lab_1"].map(secretName)).toEqual([
    "KUBECONFIG_PROD_EAST",
    "KUBECONFIG_DEV",
    "KUBECONFIG_EU_WEST_2",
    "KUBECONFIG_LAB_1",
  ]);
  for (const s of ["prod-east", "eu.west-2"]) expect(secretName(s)).toMatch(/^[A-Z_][A-Z0-9_]*$/);
});

test("stacks come from Pulumi.<stack>.yaml files, none skipped by name", () => {
  expect(projectStacks(["Pulumi.yaml", "Pulumi.dev.yaml", "Pulumi.prod-east.yaml", "README.md"])).toEqual([
    "dev",
    "prod-east",
  ]);
});

test("a change to a stack file touches that stack; a change to the program touches every stack", () => {
  const stacks = ["dev", "prod-east", "prod-west"];
  expect(touchedStacks(stacks, ["Pulumi.prod-east.yaml"])).toEqual(["prod-east"]);
  expect(touchedStacks(stacks, ["Pulumi.prod-east.yaml", "components/estate.ts"])).toEqual(stacks);
  expect(touchedStacks(stacks, [])).toEqual([]);
  expect(touchedStacks(stacks)).toEqual(stacks);
});

test("the matrix keeps the stacks meant for the pipeline, with their secret and clouds", () => {
  const facts = new Map<string, StackFacts>([
    ["dev", { pipeline: false, aws: false, azure: true, warnings: [] }],
    ["prod-east", { pipeline: true, aws: true, azure: false, warnings: [] }],
    ["prod-west", { pipeline: true, aws: false, azure: true, warnings: [] }],
  ]);
  expect(matrix(["dev", "prod-east", "prod-west"], facts)).toEqual([
    { stack: "prod-east", secret: "KUBECONFIG_PROD_EAST", aws: true, azure: false },
    { stack: "prod-west", secret: "KUBECONFIG_PROD_WEST", aws: false, azure: true },
  ]);
});

test("two stacks that would share a secret are an error naming both", () => {
  expect(secretClashes(["prod-east", "prod.east", "dev"])).toEqual([
    "stacks prod-east, prod.east would share the secret KUBECONFIG_PROD_EAST: rename one",
  ]);
});

describe("the scripts the workflows run", () => {
  const wf = (f: string) =>
    parse(fs.readFileSync(path.join(ROOT, ".github", "workflows", f), "utf8")) as {
      jobs: Record<string, { steps: { name?: string; run?: string; env?: Record<string, string> }[] }>;
    };
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "gitops-"));
  afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

  test("the pick step's command leaves the dev stack out: a fresh clone's first merge runs no pulumi up", () => {
    // Pulumi.dev.yaml is the only stack file the repository ships; it sets windows-estate:pipeline: false.
    fs.writeFileSync(path.join(tmp, "changed.txt"), "Pulumi.dev.yaml\n");
    const out = execFileSync(
      "npm",
      ["run", "--silent", "gitops:stacks", "--", "--changed", path.join(tmp, "changed.txt")],
      {
        cwd: ROOT,
        encoding: "utf8",
      },
    );
    expect(JSON.parse(out)).toEqual([]);
  });

  test.each(["preview.yml", "up.yml"])(
    "%s: a missing kubeconfig secret fails at once, naming the secret to create",
    (file) => {
      const step = Object.values(wf(file).jobs)
        .flatMap((j) => j.steps)
        .find((s) => s.name?.startsWith("Kubeconfig for"));
      expect(step?.env?.KUBECONFIG_CONTENT).toBe("${{ secrets[matrix.secret] }}");
      const run = (content: string) =>
        spawnSync("bash", ["-e", "-c", step?.run ?? ""], {
          encoding: "utf8",
          env: {
            ...process.env,
            KUBECONFIG_CONTENT: content,
            SECRET: "KUBECONFIG_PROD_EAST",
            STACK: "prod-east",
            RUNNER_TEMP: tmp,
          },
        });
      const missing = run("");
      expect(missing.status).toBe(1);
      expect(missing.stdout).toContain("the repository secret KUBECONFIG_PROD_EAST is missing or empty");
      // A stack not meant for the pipeline is kept out with the marker, named in the message.
      expect(missing.stdout).toContain("windows-estate:pipeline: false in Pulumi.prod-east.yaml");
      // GitHub hands a secret without its trailing newline; the step writes the file with one.
      const given = run("apiVersion: v1\nkind: Config");
      expect(given.status).toBe(0);
      expect(fs.readFileSync(path.join(tmp, "kubeconfig"), "utf8")).toBe("apiVersion: v1\nkind: Config\n");
    },
  );

  test.each(["preview.yml", "up.yml"])(
    "%s: the backend comes from vars.PULUMI_BACKEND_URL, no stack is dropped by name",
    (file) => {
      const text = fs.readFileSync(path.join(ROOT, ".github", "workflows", file), "utf8");
      expect(text).toContain("PULUMI_BACKEND_URL: ${{ vars.PULUMI_BACKEND_URL }}");
      expect(text).not.toMatch(/grep -vx/);
    },
  );

  test("up.yml runs no test suite (the pull request ran it), only what the deploy needs", () => {
    const runs = Object.values(wf("up.yml").jobs).flatMap((j) => j.steps.map((s) => s.run ?? ""));
    expect(runs.filter((r) => /\bnpm test\b|apt-get install/.test(r))).toEqual([]);
    expect(runs).toEqual(expect.arrayContaining(["npm run typecheck", "npm run build"]));
  });
});
