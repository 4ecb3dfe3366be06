import * as fs from "fs";
import { Job, runStep, step, Workflow, workflow, WORKFLOWS_DIR } from "./workflow-file";

// Who gets what in the two workflows. A job's `permissions` replace the workflow's (GitHub docs, "Controlling
// permissions for GITHUB_TOKEN"); `id-token: write` is what lets a job ask GitHub for an OIDC token (GitHub docs,
// "About security hardening with OpenID Connect"); runs of pull requests from forks get no secrets (GitHub docs,
// "Using secrets in GitHub Actions").

const files = fs.readdirSync(WORKFLOWS_DIR).filter((f) => f === "preview.yml" || f === "up.yml");
const preview = workflow("preview.yml");
const up = workflow("up.yml");

/** The permissions a job runs with: its own, else the workflow's (GitHub's default token when neither says). */
const granted = (wf: Workflow, job: Job) => job.permissions ?? wf.permissions ?? { "(default)": "write" };
/** A job that runs the repository's code: checks it out and runs npm, or the program through the CLI. */
const runsCode = (job: Job) =>
  job.steps.some((s) => s.uses?.startsWith("actions/checkout") || /\bnpm\b/.test(s.run ?? ""));
/** A job that exchanges GitHub's OIDC token: AWS through the action, Azure through azure-native's ARM_USE_OIDC. */
const usesOidc = (job: Job) =>
  job.steps.some(
    (s) => s.uses?.startsWith("aws-actions/configure-aws-credentials") || s.env?.ARM_USE_OIDC !== undefined,
  );

test.each(files)("%s grants nothing workflow-wide: each job names its permissions", (file) => {
  const wf = workflow(file);
  expect(wf.permissions).toEqual({});
  for (const [name, job] of Object.entries(wf.jobs))
    expect([name, job.permissions]).toEqual([name, expect.any(Object)]);
});

test.each(files)(
  "%s: no job that runs the repository's code can write to it, its pull requests or anything",
  (file) => {
    const wf = workflow(file);
    const writers = Object.entries(wf.jobs)
      .filter(([, job]) => runsCode(job))
      .flatMap(([name, job]) =>
        Object.entries(granted(wf, job))
          .filter(([scope, level]) => level === "write" && scope !== "id-token")
          .map(([scope]) => `${name}: ${scope}`),
      );
    expect(writers).toEqual([]);
  },
);

test.each(files)("%s: id-token: write exactly on the jobs that exchange it for cloud credentials", (file) => {
  const wf = workflow(file);
  const withToken = Object.entries(wf.jobs)
    .filter(([, job]) => granted(wf, job)["id-token"] === "write")
    .map(([name]) => name);
  const needing = Object.entries(wf.jobs)
    .filter(([, job]) => usesOidc(job))
    .map(([name]) => name);
  expect(withToken).toEqual(needing);
  expect(needing.length).toBe(1);
});

test.each(files)("%s: no long-lived cloud keys; credentials only for the stacks whose matrix entry asks", (file) => {
  const text = fs.readFileSync(`${WORKFLOWS_DIR}/${file}`, "utf8");
  expect(text).not.toMatch(/AWS_ACCESS_KEY_ID|AWS_SECRET_ACCESS_KEY|ARM_CLIENT_SECRET/);
  const job = Object.values(workflow(file).jobs).find(usesOidc);
  const aws = job?.steps.find((s) => s.uses?.startsWith("aws-actions/configure-aws-credentials"));
  expect(aws?.if).toBe("matrix.aws");
  expect(aws?.with?.["role-to-assume"]).toMatch(/^\$\{\{ vars\.AWS_(PREVIEW|UP)_ROLE_ARN \}\}$/);
  const env = job?.steps.find((s) => s.env?.ARM_USE_OIDC)?.env ?? {};
  expect(env.ARM_USE_OIDC).toBe("${{ matrix.azure && 'true' || '' }}");
  expect(env.ARM_CLIENT_ID).toMatch(/^\$\{\{ matrix\.azure && vars\.AZURE_(PREVIEW|UP)_CLIENT_ID \|\| '' \}\}$/);
});

test("previews use the read-only role and identity, up the ones that may change resources", () => {
  const roles = (wf: Workflow) => JSON.stringify(wf.jobs);
  expect(roles(preview)).toContain("vars.AWS_PREVIEW_ROLE_ARN");
  expect(roles(preview)).toContain("vars.AZURE_PREVIEW_CLIENT_ID");
  expect(roles(preview)).not.toMatch(/AWS_UP_ROLE_ARN|AZURE_UP_CLIENT_ID/);
  expect(roles(up)).toContain("vars.AWS_UP_ROLE_ARN");
  expect(roles(up)).not.toMatch(/AWS_PREVIEW_ROLE_ARN|AZURE_PREVIEW_CLIENT_ID/);
});

test.each([
  ["preview.yml", "AWS_PREVIEW_ROLE_ARN", "AZURE_PREVIEW_CLIENT_ID"],
  ["up.yml", "AWS_UP_ROLE_ARN", "AZURE_UP_CLIENT_ID"],
])("%s: a stack needing a cloud whose variables are missing fails at once, naming them", (file, awsVar, azureVar) => {
  const job = Object.values(workflow(file).jobs).find(usesOidc);
  if (!job) throw new Error("no OIDC job");
  const check = step(job, "Cloud credentials for");
  expect(check.if).toBe("matrix.aws || matrix.azure");
  expect(check.env).toMatchObject({
    AWS_ROLE: `\${{ vars.${awsVar} }}`,
    AWS_ROLE_VAR: awsVar,
    AZURE_CLIENT_VAR: azureVar,
  });
  const run = (env: NodeJS.ProcessEnv) =>
    runStep(check, {
      STACK: "prod-east",
      NEEDS_AWS: "false",
      NEEDS_AZURE: "false",
      AWS_ROLE_VAR: awsVar,
      AZURE_CLIENT_VAR: azureVar,
      AWS_ROLE: "",
      AZURE_CLIENT: "",
      AZURE_TENANT: "",
      ...env,
    });
  const aws = run({ NEEDS_AWS: "true" });
  expect(aws.status).toBe(1);
  expect(aws.stdout).toContain(
    `::error::stack prod-east creates cloud VMs or looks up an AMI, and the repository variables ${awsVar} are not set`,
  );
  const azure = run({ NEEDS_AZURE: "true", AZURE_TENANT: "t" });
  expect([azure.status, azure.stdout]).toEqual([1, expect.stringContaining(`variables ${azureVar} are not set`)]);
  expect(run({ NEEDS_AWS: "true", AWS_ROLE: "arn:aws:iam::1:role/r" }).status).toBe(0);
  expect(run({ NEEDS_AZURE: "true", AZURE_CLIENT: "c", AZURE_TENANT: "t" }).status).toBe(0);
});

describe("pull requests from forks", () => {
  const SAME_REPO = "github.event.pull_request.head.repo.full_name == github.repository";
  const FORK = "github.event.pull_request.head.repo.full_name != github.repository";

  test("the preview and comment jobs run for branches of this repository only", () => {
    expect(preview.jobs.preview.if).toContain(SAME_REPO);
    expect(preview.jobs.comment.if).toContain(SAME_REPO);
  });

  test("a fork gets a notice job, with no permission at all, instead of a failing preview", () => {
    const notice = preview.jobs["fork-notice"];
    expect(notice.if).toContain(FORK);
    expect(notice.permissions).toEqual({});
    const r = runStep(notice.steps[0], { HEAD_REPO: "someone/windows-estate", AUTHOR: "someone" });
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(
      /^::notice title=Previews skipped::this pull request \(someone\/windows-estate, by someone\)/,
    );
  });

  test("the tests and synth still run for a fork: they need no secret", () => {
    expect(preview.jobs.test.if).toBeUndefined();
    expect(preview.jobs.test.steps.map((s) => s.run ?? "")).toEqual(expect.arrayContaining(["npm test"]));
  });
});

test("previews of one pull request share a concurrency group; a new push cancels the previous run", () => {
  expect(preview.concurrency).toEqual({
    group: "preview-${{ github.event.pull_request.number }}",
    "cancel-in-progress": true,
  });
  // up is serialized and never cancelled halfway.
  expect(up.concurrency).toEqual({ group: "pulumi-up", "cancel-in-progress": false });
});
