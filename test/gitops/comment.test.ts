import { spawnSync } from "child_process";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { commentMarker, report } from "../../scripts/gitops/report";
import { runStep, step, workflow } from "./workflow-file";

// The comment job of preview.yml: one comment per stack, found by the marker on its first line and edited on each run
// (REST API "Issue comments": list, update, create; a pull request's comments are its issue's). Its script runs here
// against a stand-in `gh` on PATH that answers the list call from a canned API response, through the real jq as
// `gh api --jq` does, and records every call.

const job = workflow("preview.yml").jobs.comment;
const commentStep = step(job, "Comment on the pull request");

const hasJq = spawnSync("jq", ["--version"]).status === 0;

describe("the comment job", () => {
  let tmp: string;
  let bin: string;
  beforeEach(() => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), "gitops-comment-"));
    bin = path.join(tmp, "bin");
    fs.mkdirSync(bin);
    // `gh api [--paginate] PATH [--jq FILTER] [--method M] [-F body=@FILE]`: one JSON line per call in calls.jsonl,
    // the body file's text with it; the list call prints comments.json through `jq -r FILTER`.
    fs.writeFileSync(
      path.join(bin, "gh"),
      `#!/usr/bin/env node
const fs = require("fs");
const { execFileSync } = require("child_process");
const args = process.argv.slice(2);
const at = (flag) => (args.includes(flag) ? args[args.indexOf(flag) + 1] : undefined);
const field = args.find((a) => a.startsWith("body=@"));
fs.appendFileSync(process.env.GH_CALLS, JSON.stringify({ args, body: field ? fs.readFileSync(field.slice(6), "utf8") : undefined }) + "\\n");
const jq = at("--jq");
if (jq) process.stdout.write(execFileSync("jq", ["-r", jq], { input: fs.readFileSync(process.env.GH_COMMENTS) }));
`,
      { mode: 0o755 },
    );
    fs.mkdirSync(path.join(tmp, "report"));
  });
  afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

  const run = (comments: unknown[], reportText?: string) => {
    fs.writeFileSync(path.join(tmp, "comments.json"), JSON.stringify(comments));
    if (reportText !== undefined) fs.writeFileSync(path.join(tmp, "report", "comment.md"), reportText);
    const r = runStep(commentStep, {
      PATH: `${bin}:${process.env.PATH ?? ""}`,
      GH_CALLS: path.join(tmp, "calls.jsonl"),
      GH_COMMENTS: path.join(tmp, "comments.json"),
      RUNNER_TEMP: tmp,
      REPO: "acme/windows-estate",
      PR: "7",
      STACK: "prod-east",
      RUN_URL: "https://github.com/acme/windows-estate/actions/runs/99",
    });
    expect(r.stderr).toBe("");
    expect(r.status).toBe(0);
    return fs
      .readFileSync(path.join(tmp, "calls.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { args: string[]; body?: string });
  };
  const bot = { login: "github-actions[bot]" };
  const preview = report("preview", "prod-east", "Resources:\n    + 3 to create\n", 0).markdown;

  test("jq is there (GitHub's runners have it; gh's --jq is jq)", () => {
    expect(hasJq).toBe(true);
  });

  test("the stack's own comment is edited with the new report, not a new one added", () => {
    const calls = run(
      [
        { id: 11, user: { login: "alice" }, body: `${commentMarker("prod-east")}\nquoted by a person` },
        { id: 12, user: bot, body: `${commentMarker("prod-east-2")}\n### other stack` },
        {
          id: 13,
          user: bot,
          body: `${commentMarker("prod-east")}\n### \`pulumi preview\` of stack \`prod-east\`: old`,
        },
      ],
      preview,
    );
    expect(calls.map((c) => c.args.slice(0, 4))).toEqual([
      ["api", "--paginate", "repos/acme/windows-estate/issues/7/comments", "--jq"],
      ["api", "--method", "PATCH", "repos/acme/windows-estate/issues/comments/13"],
    ]);
    expect(calls[1].body).toBe(preview);
  });

  test("the first run creates the comment, headed by the marker the next run finds", () => {
    const calls = run([{ id: 12, user: bot, body: `${commentMarker("prod-east-2")}\n### other` }], preview);
    expect(calls[1].args.slice(0, 4)).toEqual([
      "api",
      "--method",
      "POST",
      "repos/acme/windows-estate/issues/7/comments",
    ]);
    expect(calls[1].body?.split("\n")[0]).toBe(commentMarker("prod-east"));
  });

  test("a preview that left no report still gets its comment, saying so and linking the run", () => {
    const calls = run([]);
    expect(calls[1].body).toBe(
      `${commentMarker("prod-east")}\n### \`pulumi preview\` of stack \`prod-east\`: no report\n\n` +
        "The preview stopped before the Pulumi CLI ran: see https://github.com/acme/windows-estate/actions/runs/99\n",
    );
  });

  test("runs nothing of the pull request: no checkout, no npm; only pull-requests: write", () => {
    expect(job.permissions).toEqual({ "pull-requests": "write" });
    expect(job.steps.filter((s) => s.uses?.startsWith("actions/checkout") || /\bnpm\b/.test(s.run ?? ""))).toEqual([]);
    // It reads the report the preview job uploaded for this stack, and runs after it even when it failed.
    expect(job.steps[0]).toMatchObject({
      uses: "actions/download-artifact@v4",
      with: { name: "preview-report-${{ matrix.stack }}" },
    });
    expect(job.if).toMatch(/^always\(\) && needs\.stacks\.result == 'success'/);
  });
});
