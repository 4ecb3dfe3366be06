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
