import * as fs from "fs";
import * as path from "path";
import { parse, parseAllDocuments } from "yaml";
import { PROJECT_DIR } from "../../scripts/synth/main";

const workflowsDir = path.join(PROJECT_DIR, ".github", "workflows");
const pkg = JSON.parse(fs.readFileSync(path.join(PROJECT_DIR, "package.json"), "utf8")) as {
  scripts: Record<string, string>;
};

interface Step {
  run?: string;
  uses?: string;
  with?: Record<string, unknown>;
}
interface Workflow {
  on: Record<string, unknown>;
  jobs: Record<string, { steps: Step[] }>;
}

const workflows = fs.readdirSync(workflowsDir).filter((f) => f.endsWith(".yml"));

test("there are workflows for pull requests and for main", () => {
  const triggers = workflows.map((f) =>
    Object.keys((parse(fs.readFileSync(path.join(workflowsDir, f), "utf8")) as Workflow).on),
  );
  expect(triggers.flat()).toEqual(expect.arrayContaining(["pull_request", "push"]));
});

test.each(workflows)("%s parses and every npm command it runs exists in package.json", (file) => {
  const wf = parse(fs.readFileSync(path.join(workflowsDir, file), "utf8")) as Workflow;
  expect(Object.keys(wf.jobs).length).toBeGreaterThan(0);
  for (const job of Object.values(wf.jobs)) {
    for (const step of job.steps) {
      for (const m of (step.run ?? "").matchAll(/npm run (?:--silent )?([\w:-]+)/g))
        expect(Object.keys(pkg.scripts)).toContain(m[1]);
      if (/\bnpm test\b/.test(step.run ?? "")) expect(pkg.scripts.test).toBeDefined();
      // The policy pack the workflows name must exist where they say.
      const packs = step.with?.policyPacks;
      if (typeof packs === "string")
        expect(fs.existsSync(path.join(PROJECT_DIR, packs, "PulumiPolicy.yaml"))).toBe(true);
    }
  }
});

test.each(workflows)(
  "%s passes secrets and event data through environment variables, never into a command line",
  (file) => {
    const wf = parse(fs.readFileSync(path.join(workflowsDir, file), "utf8")) as Workflow;
    for (const [name, job] of Object.entries(wf.jobs)) {
      for (const step of job.steps) {
        // An expression inside `run:` is pasted into the script before the shell sees it (script injection, and the
        // secret ends up in the command line); actionlint's "expression in run" check.
        expect(`${name}: ${(step.run ?? "").match(/\$\{\{[^}]*\b(secrets|github\.event)\b[^}]*\}\}/g) ?? []}`).toBe(
          `${name}: `,
        );
      }
    }
  },
);

test.each(workflows)("%s prepares the SSH test lab before npm test", (file) => {
  const wf = parse(fs.readFileSync(path.join(workflowsDir, file), "utf8")) as Workflow;
  for (const job of Object.values(wf.jobs)) {
    const i = job.steps.findIndex((s) => /\bnpm test\b/.test(s.run ?? ""));
    if (i < 0) continue;
    const before = job.steps
      .slice(0, i)
      .map((s) => s.run ?? "")
      .join("\n");
    expect(before).toMatch(/apt-get install -y -q openssh-server/);
    expect(before).toMatch(/ip_unprivileged_port_start=22/);
  }
});

test("the pull-request preview runs the gitops script (policy pack enforced, see scripts/gitops) and keeps its report", () => {
  const wf = parse(fs.readFileSync(path.join(workflowsDir, "preview.yml"), "utf8")) as Workflow;
  const steps = wf.jobs.preview.steps;
  const preview = steps.findIndex((s) =>
    /npm run --silent gitops -- preview --stack "\$STACK" --out "\$RUNNER_TEMP\/comment\.md"/.test(s.run ?? ""),
  );
  // Uploaded even when the preview fails, for the comment job (test/gitops/comment.test.ts), which posts it.
  const upload = steps.findIndex(
    (s) => s.uses === "actions/upload-artifact@v4" && s.with?.name === "preview-report-${{ matrix.stack }}",
  );
  expect({ preview: preview >= 0, upload: upload > preview }).toEqual({ preview: true, upload: true });
  expect((steps[upload] as Step & { if?: string }).if).toBe("always()");
  expect(steps[upload].with?.path).toBe("${{ runner.temp }}/comment.md");
});

test("main runs up through the gitops script into the job summary", () => {
  const wf = parse(fs.readFileSync(path.join(workflowsDir, "up.yml"), "utf8")) as Workflow;
  const runs = Object.values(wf.jobs).flatMap((j) => j.steps.map((s) => s.run ?? ""));
  expect(runs).toContain('npm run --silent gitops -- up --stack "$STACK" --out "$GITHUB_STEP_SUMMARY"');
});

test("the operator Stack references its secrets and inlines none", () => {
  const text = fs.readFileSync(path.join(PROJECT_DIR, "deploy", "stack.yaml"), "utf8");
  const docs = parseAllDocuments(text).map((d) => d.toJS() as { kind: string; spec?: Record<string, unknown> });
  const stack = docs.find((d) => d.kind === "Stack");
  expect(stack?.spec).toMatchObject({ projectRepo: expect.any(String), stack: expect.any(String), branch: "main" });
  expect(JSON.stringify(stack?.spec?.envRefs)).toMatch(/"type":"Secret"/);
  expect(text).not.toMatch(/pul-[0-9a-f]{20,}|ghp_[A-Za-z0-9]{20,}/);
});

test.each(workflows)("%s builds the program before any pulumi step runs it (the fast start-up path)", (file) => {
  const wf = parse(fs.readFileSync(path.join(workflowsDir, file), "utf8")) as Workflow;
  for (const job of Object.values(wf.jobs)) {
    const pulumi = job.steps.findIndex((s) => /npm run --silent gitops -- (preview|up)/.test(s.run ?? ""));
    if (pulumi < 0) continue;
    const build = job.steps.findIndex((s) => /\bnpm run build\b/.test(s.run ?? ""));
    expect({ build: build >= 0, before: build < pulumi }).toEqual({ build: true, before: true });
  }
});
