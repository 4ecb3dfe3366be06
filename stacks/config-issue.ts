/**
 * One problem found in a stack's `windows-estate:*` configuration.
 *
 * `path` is relative to the config namespace and uses the same notation users type in
 * `pulumi config set --path`, e.g. `machineSets[0].azure.vmSize`; the loader prefixes it with
 * `windows-estate:` when it prints it. `message` says what is wrong and what is allowed or how to fix it.
 */
export interface ConfigIssue {
  path: string;
  message: string;
  /**
   * The full config key when the problem is not under `windows-estate:` (a mistyped namespace such as
   * `windows_estate:byoh`, or `pulumi:disable-default-providers`); printed instead of `windows-estate:<path>`.
   */
  key?: string;
}

/** How an issue is printed: `windows-estate:<path>`, or its own full key. */
export function issueKey(issue: ConfigIssue, namespace: string): string {
  return issue.key ?? `${namespace}:${issue.path}`;
}

/** Joins path segments the way `pulumi config set --path` spells them: `a.b[0].c`. */
export function joinPath(segments: ReadonlyArray<string | number>): string {
  let out = "";
  for (const s of segments) {
    if (typeof s === "number") out += `[${s}]`;
    else if (/^[A-Za-z_][A-Za-z0-9_]*$/.test(s)) out += out === "" ? s : `.${s}`;
    else out += `[${JSON.stringify(s)}]`;
  }
  return out;
}
