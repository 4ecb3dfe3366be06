import { ConfigIssue } from "./config-issue";
import { suggest } from "./did-you-mean";

/**
 * The top-level keys of a stack file, as the CLI reads it (pulumi/pulumi sdk/go/common/workspace/project.go,
 * `ProjectStack`'s yaml tags). Anything else is dropped by the CLI without a word, the next `pulumi config set`
 * rewrites the file without it, and a mistyped `config:` means the stack has no settings at all.
 */
export const STACK_FILE_KEYS = ["config", "environment", "secretsprovider", "encryptedkey", "encryptionsalt"] as const;

/** Problems with the shape of a parsed stack file (its root mapping), each naming the file. */
export function stackFileShapeIssues(root: Readonly<Record<string, unknown>>, fileName: string): ConfigIssue[] {
  const out: ConfigIssue[] = [];
  for (const k of Object.keys(root)) {
    if (STACK_FILE_KEYS.some((known) => known === k)) continue;
    const hint = suggest(k, STACK_FILE_KEYS);
    out.push({
      key: fileName,
      path: "",
      message:
        `unknown top-level key '${k}'${hint ? ` (did you mean '${hint}'?)` : ""}; Pulumi ignores it. ` +
        `A stack file holds ${STACK_FILE_KEYS.join(", ")}`,
    });
  }
  if (root.config === undefined && root.environment === undefined)
    out.push({
      key: fileName,
      path: "",
      message: "has no 'config:' section; the stack's settings go under it, e.g. config: { windows-estate:cluster: … }",
    });
  return out;
}
