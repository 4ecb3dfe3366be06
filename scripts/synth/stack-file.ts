import * as fs from "fs";
import * as path from "path";
import { parse } from "yaml";
import { ConfigIssue } from "../../stacks/config-issue";
import { stackFileShapeIssues } from "../../stacks/stack-file-shape";
import { RawConfig } from "../../stacks/load";
import { UNDECRYPTED_SECRET } from "../../stacks/offline";
import { NAMESPACE } from "../../stacks/schema";
import { messageOf } from "../../lib/errors";
import { isObject, obj } from "../../lib/json";

/** A problem with the stack file itself (missing, not YAML), as opposed to a config value. */
export class StackFileError extends Error {}

export interface StackFile {
  raw: RawConfig;
  /** Things synth could not do offline (ESC environments), said once. */
  notes: string[];
  /** Problems with the file's shape (unknown top-level keys, no `config:`), listed with the config's problems. */
  issues: ConfigIssue[];
}

/** Replaces `secure:` leaves (set with `--path --secret`) by the offline placeholder; reports whether any was found. */
function stripSecure(v: unknown): { value: unknown; secret: boolean } {
  if (isObject(v) && Object.keys(v).length === 1 && "secure" in v) return { value: UNDECRYPTED_SECRET, secret: true };
  if (!isObject(v) && !Array.isArray(v)) return { value: v, secret: false };
  const children = Object.entries(v).map(([k, child]) => ({ k, ...stripSecure(child) }));
  return {
    value: Array.isArray(v) ? children.map((c) => c.value) : Object.fromEntries(children.map((c) => [c.k, c.value])),
    secret: children.some((c) => c.secret),
  };
}

/**
 * Reads `Pulumi.<stack>.yaml` into the same shape the engine gives a program: `namespace:key` → string, objects as
 * JSON text, and the set of secret keys. `secure:` values cannot be decrypted without the CLI; they become a
 * placeholder that stays marked secret.
 */
export function readStackFile(file: string): StackFile {
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch {
    throw new StackFileError(`stack file ${file} not found; create it (docs/getting-started.md) or pass --config-file`);
  }
  let doc: unknown;
  try {
    doc = parse(text);
  } catch (e) {
    throw new StackFileError(`stack file ${file} is not valid YAML: ${yamlProblem(e)}`);
  }
  const root = doc === null || doc === undefined ? {} : obj(doc);
  if (!root) throw new StackFileError(`stack file ${file} must be a YAML mapping with a 'config:' section`);
  const config = root.config ?? {};
  if (!isObject(config))
    throw new StackFileError(`stack file ${file}: 'config:' must be a mapping of keys like ${NAMESPACE}:cluster`);
  const values: Record<string, string> = {};
  const secretKeys = new Set<string>();
  for (const [rawKey, rawValue] of Object.entries(config)) {
    // Pulumi puts un-namespaced keys in the project's namespace.
    const key = rawKey.includes(":") ? rawKey : `${NAMESPACE}:${rawKey}`;
    const { value, secret } = stripSecure(rawValue);
    if (secret) secretKeys.add(key);
    values[key] = typeof value === "string" ? value : JSON.stringify(value);
  }
  const notes: string[] = [];
  if (root.environment !== undefined)
    notes.push(
      "the stack imports a Pulumi ESC environment; synth cannot resolve it offline, so only the values in the file are used",
    );
  return { raw: { values, secretKeys }, notes, issues: stackFileShapeIssues(root, path.basename(file)) };
}

/**
 * The yaml library's message is one line of text, then the offending lines and a caret under the column; all of it
 * is kept (indented), since the position alone does not show which line of a long file is wrong.
 */
function yamlProblem(e: unknown): string {
  const [first, ...frame] = messageOf(e).split("\n");
  const shown = frame.filter((l) => l.trim() !== "");
  return shown.length > 0 ? `${first}\n${shown.map((l) => `    ${l}`).join("\n")}` : first;
}
