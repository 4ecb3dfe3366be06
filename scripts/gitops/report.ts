/**
 * What the GitOps workflows post: a pull-request comment for `pulumi preview` and a job summary for `pulumi up`, made
 * from the CLI's own text output (plain, `--color never`). Pure: the text in, Markdown out.
 */

/** GitHub refuses a comment body over 65,536 characters; the CLI's output is cut from the top to fit. */
export const COMMENT_LIMIT = 65_536;

export interface Report {
  /** One line: what the run would do or did, from the CLI's "Resources:" section. */
  summary: string;
  /** Policy violations the CLI printed (`[mandatory]` / `[advisory]` lines), as they are. */
  violations: string[];
  markdown: string;
}

/**
 * The "Resources:" section of `pulumi preview` / `pulumi up` (pulumi pkg/backend/display/progress.go `printChangeSummary`):
 * lines such as `+ 3 to create`, `~ 1 updated`, `12 unchanged`.
 */
function changeSummary(output: string): string[] {
  const lines = output.split("\n");
  const at = lines.findIndex((l) => /^Resources:\s*$/.test(l.trim()));
  if (at < 0) return [];
  const out: string[] = [];
  for (const l of lines.slice(at + 1)) {
    const t = l.trim();
    if (t === "") break;
    out.push(t.replace(/^[+~\-]+\s*/, ""));
  }
  return out;
}

/**
 * The first line of a preview's comment: hidden in the rendered comment, it is how the workflow finds the comment of
 * this stack to edit on the next run instead of adding another (.github/workflows/preview.yml, job `comment`).
 */
export function commentMarker(stack: string): string {
  return `<!-- windows-estate-preview:${stack} -->`;
}

/** The report of one `pulumi preview` or `pulumi up` of `stack`, from its output and exit status. */
export function report(command: "preview" | "up", stack: string, output: string, status: number): Report {
  const changes = changeSummary(output);
  const violations = output
    .split("\n")
    .map((l) => l.trim().replace(/^-\s*/, ""))
    .filter((l) => /^\[(mandatory|advisory)\]/.test(l));
  const failed = status !== 0;
  const summary = failed
    ? `failed (exit ${status})${violations.length ? `: ${violations.length} policy violation(s)` : ""}`
    : changes.length > 0
      ? changes.join(", ")
      : "no changes";
  const marker = command === "preview" ? `${commentMarker(stack)}\n` : "";
  const head = `${marker}### \`pulumi ${command}\` of stack \`${stack}\`: ${summary}\n`;
  const policy = violations.length
    ? `\n**Policy violations**\n\n${violations.map((v) => `- \`${v}\``).join("\n")}\n`
    : "";
  const open = "\n<details><summary>Output</summary>\n\n```diff\n";
  const close = "\n```\n\n</details>\n";
  const room = COMMENT_LIMIT - head.length - policy.length - open.length - close.length - 40;
  const body =
    output.length > room ? `… (cut: the first ${output.length - room} characters)\n${output.slice(-room)}` : output;
  return { summary, violations, markdown: head + policy + open + body.replace(/```/g, "ʼʼʼ") + close };
}
