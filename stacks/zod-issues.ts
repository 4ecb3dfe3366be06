import { z } from "zod";
import { Audience, ConfigIssue, joinPath, worded } from "./config-issue";
import { suggest } from "./did-you-mean";

type Schema = z.core.$ZodType;

/** Looks through wrappers (optional, default, nullable, transform pipes…) to the schema of the value's shape. */
export function unwrap(s: Schema): Schema {
  let cur: Schema = s;
  for (;;) {
    if (
      cur instanceof z.ZodOptional ||
      cur instanceof z.ZodNullable ||
      cur instanceof z.ZodDefault ||
      cur instanceof z.ZodPrefault ||
      cur instanceof z.ZodReadonly ||
      cur instanceof z.ZodCatch ||
      cur instanceof z.ZodNonOptional
    ) {
      cur = cur.def.innerType;
    } else if (cur instanceof z.ZodPipe) {
      cur = cur.in;
    } else {
      return cur;
    }
  }
}

/** The schema of the value at `path` inside `schema` (wrappers looked through), or undefined past its shape. */
function schemaAt(schema: Schema, path: ReadonlyArray<PropertyKey>): Schema | undefined {
  let cur = unwrap(schema);
  for (const seg of path) {
    if (cur instanceof z.ZodObject && typeof seg === "string" && seg in cur.shape) cur = unwrap(cur.shape[seg]);
    else if (cur instanceof z.ZodArray) cur = unwrap(cur.element);
    else if (cur instanceof z.ZodRecord) cur = unwrap(cur.valueType);
    else return undefined;
  }
  return cur;
}

/** The field names an object at `path` inside `schema` allows, used for "did you mean" hints. */
function allowedKeysAt(schema: Schema, path: ReadonlyArray<PropertyKey>): string[] {
  const at = schemaAt(schema, path);
  return at instanceof z.ZodObject ? Object.keys(at.shape) : [];
}

/** Whether a schema is a union with a number among its options (`maxUnavailable`: a whole number or a percentage). */
function takesNumberOrText(s: Schema | undefined): boolean {
  return s instanceof z.ZodUnion && s.options.some((o) => unwrap(o) instanceof z.ZodNumber);
}

function describeValue(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "a list";
  if (typeof v === "object") return "an object";
  if (typeof v === "string") return v.length > 40 ? `a string of ${v.length} characters` : `"${v}"`;
  return `${typeof v} ${String(v)}`;
}

function valueAt(root: unknown, path: ReadonlyArray<PropertyKey>): unknown {
  let cur: unknown = root;
  for (const seg of path) {
    if (cur === null || typeof cur !== "object") return undefined;
    cur = Reflect.get(cur, seg);
  }
  return cur;
}

const ARTICLE: Record<string, string> = {
  object: "an object",
  array: "a list",
  string: "a string",
  number: "a number",
  boolean: "true or false",
  int: "an integer",
  record: "a mapping of names to values (key: value)",
  tuple: "a list",
  map: "a mapping of names to values (key: value)",
};

/**
 * How to keep YAML (and `pulumi config set --path`) from turning a version like 1.30 into the number 1.3; in args, a
 * number where text is expected is the caller's own.
 */
const quoteHint = (a: Audience) =>
  a.stack
    ? '; quote it in the stack file ("1.30", not 1.30) or set it with `pulumi config set --path --type string`'
    : "; pass it as text";

/**
 * YAML and `pulumi config set --path` store `2022` or `1` as numbers; where a string is expected, an integer has one
 * reading, so it is taken as its text (`2022` → `"2022"`). The other way, whole-number text where a union takes a
 * number or text (`maxUnavailable: "2"`) is that number: a component's args carry such a union as text, since a
 * component schema has no unions (scripts/docs/library-args.ts). Returns the value with those leaves rewritten, or
 * undefined when no issue is such a leaf (a decimal like 1.30 is not: YAML already lost its zero, so it is refused
 * with a hint).
 */
export function coerceIntegers(value: unknown, issues: readonly z.core.$ZodIssue[], schema: Schema): unknown {
  let out = value;
  let changed = false;
  for (const issue of issues) {
    const segs = issue.path.filter((p): p is string | number => typeof p !== "symbol");
    const found = valueAt(out, segs);
    if (segs.length === 0) continue;
    if (typeof found === "string" && /^\d+$/.test(found) && takesNumberOrText(schemaAt(schema, segs))) {
      out = withValueAt(out, segs, Number(found));
      changed = true;
      continue;
    }
    if (typeof found !== "number" || !Number.isSafeInteger(found)) continue;
    const text = String(found);
    const wantsString =
      (issue.code === "invalid_type" && issue.expected === "string") ||
      (issue.code === "invalid_value" && issue.values.some((v) => v === text));
    if (!wantsString) continue;
    out = withValueAt(out, segs, text);
    changed = true;
  }
  return changed ? out : undefined;
}

/** A copy of `root` with the leaf at `path` replaced (containers along the path copied, the rest shared). */
function withValueAt(root: unknown, path: ReadonlyArray<string | number>, leaf: unknown): unknown {
  if (path.length === 0) return leaf;
  const [head, ...rest] = path;
  if (Array.isArray(root)) return root.map((v, i) => (i === head ? withValueAt(v, rest, leaf) : v));
  if (root !== null && typeof root === "object")
    return { ...root, [head]: withValueAt(Reflect.get(root, head), rest, leaf) };
  return root;
}

/**
 * Turns zod's issues for one config key into our messages: the full key path, what was found, and what is allowed.
 */
export function fromZodIssues(
  key: string,
  schema: Schema,
  value: unknown,
  issues: readonly z.core.$ZodIssue[],
): ConfigIssue[] {
  const out: ConfigIssue[] = [];
  for (const issue of issues) {
    const segs = issue.path.filter((p): p is string | number => typeof p !== "symbol");
    const base = [key, ...segs];
    switch (issue.code) {
      case "unrecognized_keys": {
        const allowed = allowedKeysAt(schema, segs);
        for (const k of issue.keys) {
          const hint = suggest(k, allowed);
          out.push({
            path: joinPath([...base, k]),
            message: `unknown field${hint ? `; did you mean '${hint}'?` : ""} Allowed here: ${allowed.join(", ")}`,
          });
        }
        break;
      }
      case "invalid_type": {
        const found = valueAt(value, segs);
        const expected = ARTICLE[issue.expected] ?? issue.expected;
        const hint = (a: Audience) => (issue.expected === "string" && typeof found === "number" ? quoteHint(a) : "");
        out.push({
          path: joinPath(base),
          ...worded((a) =>
            found === undefined
              ? `is required (${expected})`
              : `must be ${expected}, not ${describeValue(found)}${hint(a)}`,
          ),
        });
        break;
      }
      case "invalid_value": {
        const found = valueAt(value, segs);
        const allowed = issue.values.map((v) => JSON.stringify(v)).join(", ");
        const hint = typeof found === "string" ? suggest(found, issue.values.map(String)) : undefined;
        const quote = (a: Audience) =>
          typeof found === "number" && !Number.isSafeInteger(found) && issue.values.every((v) => typeof v === "string")
            ? quoteHint(a)
            : "";
        out.push({
          path: joinPath(base),
          ...worded(
            (a) =>
              `${describeValue(found)} is not allowed; use one of ${allowed}${hint ? ` (did you mean "${hint}"?)` : ""}${quote(a)}`,
          ),
        });
        break;
      }
      case "too_small":
      case "too_big": {
        const found = valueAt(value, segs);
        if (issue.code === "too_small" && issue.origin === "string" && Number(issue.minimum) === 1) {
          out.push({ path: joinPath(base), message: "must not be empty" });
          break;
        }
        const bound = issue.code === "too_small" ? `at least ${issue.minimum}` : `at most ${issue.maximum}`;
        const unit = issue.origin === "string" ? " characters long" : issue.origin === "array" ? " entries" : "";
        const what = typeof found === "string" ? `has ${found.length} characters` : `is ${describeValue(found)}`;
        out.push({ path: joinPath(base), message: `${what}; must be ${bound}${unit}` });
        break;
      }
      case "invalid_key": {
        // zod reports the key's own problems nested; the first one says what a key must look like.
        const inner = issue.issues[0]?.message ?? "is not allowed";
        out.push({ path: joinPath(base), message: `is not a valid name: ${inner}` });
        break;
      }
      default:
        out.push({ path: joinPath(base), message: issue.message });
    }
  }
  return out;
}

/**
 * What a left-out key means: its schema's default, or an empty object or list so the schema's own defaults fill it;
 * undefined when neither is a value (an optional block such as `reboot`, the private keys the loader checks itself).
 */
export function absentValue<S extends z.ZodType>(schema: S): z.output<S> | undefined {
  const unset = schema.safeParse(undefined);
  if (unset.success) return unset.data;
  const inner = unwrap(schema);
  const empty = schema.safeParse(inner instanceof z.ZodObject ? {} : inner instanceof z.ZodArray ? [] : undefined);
  return empty.success ? empty.data : undefined;
}
