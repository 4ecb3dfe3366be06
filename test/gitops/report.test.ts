import * as fs from "fs";
import * as path from "path";
import { COMMENT_LIMIT, report } from "../../scripts/gitops/report";
import { pulumiCommand } from "../../scripts/gitops/main";
import { PROJECT_DIR } from "../../scripts/synth/main";

// The report the workflows post, from the CLI's text. The "Resources:" lines are the CLI's change summary (pulumi
// pkg/backend/display: `+ 17 to create`, `~ 1 to update`, `2 unchanged`); the e2e suite checks the real CLI's output
// end to end (test/e2e/gitops.e2e.ts).

const PREVIEW = [
  "Previewing update (lab):",
  "    + pulumi:pulumi:Stack: (create)",
  "Resources:",
  "    + 17 to create",
  "    ~ 1 to update",
  "    3 unchanged",
  "",
  "Policy Packs run:",
].join("\n");

test("the summary line is the CLI's change summary", () => {
  const r = report("preview", "lab", PREVIEW, 0);
  expect(r.summary).toBe("17 to create, 1 to update, 3 unchanged");
  // The first line is the marker the comment job finds this stack's comment by (test/gitops/comment.test.ts).
  expect(r.markdown.split("\n").slice(0, 2)).toEqual([
    "<!-- windows-estate-preview:lab -->",
    "### `pulumi preview` of stack `lab`: 17 to create, 1 to update, 3 unchanged",
  ]);
});

test("the up report goes to the job summary: no comment marker", () => {
  expect(report("up", "lab", PREVIEW, 0).markdown.split("\n")[0]).toBe(
    "### `pulumi up` of stack `lab`: 17 to create, 1 to update, 3 unchanged",
  );
});

test("a failed run says so with its exit status and lists policy violations", () => {
  const out =
    "Policies:\n    ❌ windows-estate@v0.1.0 (local: policy)\n        - [mandatory]  private-key-only-in-secret  (kubernetes:core/v1:ConfigMap: leaked)\n";
  const r = report("preview", "prod", out, 255);
  expect(r.summary).toBe("failed (exit 255): 1 policy violation(s)");
  expect(r.violations).toEqual([
    "- [mandatory]  private-key-only-in-secret  (kubernetes:core/v1:ConfigMap: leaked)".slice(2),
  ]);
  expect(r.markdown).toContain("**Policy violations**");
});

test("no Resources section and success: no changes", () => {
  expect(report("up", "lab", "Updating (lab):\n", 0).summary).toBe("no changes");
});

test("a huge output is cut from the top to fit a comment, keeping the end; backtick fences cannot close the block", () => {
  const out = "x".repeat(200_000) + "\n```\nResources:\n    + 1 to create\n";
  const r = report("preview", "big", out, 0);
  expect(r.markdown.length).toBeLessThanOrEqual(COMMENT_LIMIT);
  expect(r.markdown).toContain("+ 1 to create");
  expect(r.markdown).toMatch(/… \(cut: the first \d+ characters\)/);
  expect(r.markdown.match(/```/g)).toHaveLength(2);
});

// Audit row 16 (issue 41): the workflow's `up` refreshes first, as the Kubernetes Operator's Stack does
// (deploy/stack.yaml `refresh: true`), so drift since the last run is converged by this one.
test("the workflows' up refreshes before it converges; the preview does not touch the hosts", () => {
  expect(pulumiCommand("up")).toEqual(["up", "--yes", "--skip-preview", "--refresh"]);
  expect(pulumiCommand("preview")).toEqual(["preview", "--diff"]);
  const stack = fs.readFileSync(path.join(PROJECT_DIR, "deploy", "stack.yaml"), "utf8");
  expect(stack).toMatch(/^\s+refresh: true$/m);
});
