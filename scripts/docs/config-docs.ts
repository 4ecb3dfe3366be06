import * as fs from "fs";
import * as path from "path";
import { z } from "zod";
import { NAMESPACE, TOP_LEVEL_KEY_NAMES, TOP_LEVEL_KEYS } from "../../stacks/schema";
import { STACK_FILE_KEYS } from "../../stacks/stack-file-shape";
import { unwrap } from "../../stacks/zod-issues";
import { isObject, JsonObject } from "../../lib/json";
import { KeyReference, ObjectDocs, readSourceDocs, readTopLevel, SourceDocs } from "./tsdoc";
import { ARGS_FILE, libraryArgs } from "./library-args";
import { wrap } from "./wrap";
import { WINDOWS_HOSTS_FILE, windowsHostsPage } from "./standin-rules";

/** The project root, and the files this generator reads and writes (relative to it). */
export const ROOT = path.resolve(__dirname, "..", "..");
export const SCHEMA_DIR = "stacks/schema";
export const SCHEMA_FILE = "schema/stack-config.schema.json";
export const REFERENCE_FILE = "docs/configuration.md";
/** What every stack file starts with, so editors with the YAML language server validate and complete it. */
export function schemaComment(stackFileDir: string): string {
  const rel = path.relative(path.join(ROOT, stackFileDir), path.join(ROOT, SCHEMA_FILE)).split(path.sep).join("/");
  return `# yaml-language-server: $schema=${rel}`;
}

type Schema = z.core.$ZodType;

function sourceFiles(): string[] {
  const dir = path.join(ROOT, SCHEMA_DIR);
  return fs
    .readdirSync(dir)
    .filter((f) => f.endsWith(".ts"))
    .sort()
    .map((f) => path.join(dir, f));
}

/** The TSDoc of a name declared in the schema sources: the same file first, then anywhere. */
function declarationDoc(src: SourceDocs, name: string, file: string): string | undefined {
  const own = src.declarations.get(file)?.get(name);
  if (own) return own;
  for (const decls of src.declarations.values()) if (decls.has(name)) return decls.get(name);
  return undefined;
}

/**
 * The object literal a runtime zod object was written as: the one with exactly its keys, in order. Two literals with
 * the same keys (a taint in two files) are told apart by the file the enclosing schema came from; a remaining tie is
 * a generator error rather than a guess.
 */
function literalFor(src: SourceDocs, keys: string[], file: string | undefined, where: string): ObjectDocs {
  const same = src.objects.filter((o) => o.keys.join(",") === keys.join(","));
  const preferred = same.filter((o) => o.file === file);
  const pick = preferred.length > 0 ? preferred : same;
  if (pick.length === 0) throw new Error(`${where}: no z.strictObject literal with keys ${keys.join(", ")}`);
  const distinct = new Set(pick.map((o) => JSON.stringify(o.docs)));
  if (distinct.size > 1) throw new Error(`${where}: several z.strictObject literals with keys ${keys.join(", ")}`);
  return pick[0];
}

/** Fills `description` into a JSON Schema from the TSDoc of the zod schema it was generated from. */
function annotate(json: unknown, schema: Schema, src: SourceDocs, file: string | undefined, where: string): void {
  if (!isObject(json)) return;
  const inner = unwrap(schema);
  if (inner instanceof z.ZodObject) {
    const keys = Object.keys(inner.shape);
    const literal = literalFor(src, keys, file, where);
    const props = json.properties;
    if (!isObject(props)) return;
    for (const key of keys) {
      const child = props[key];
      if (!isObject(child)) continue;
      const ref = literal.refs[key];
      const doc = literal.docs[key] ?? (ref ? declarationDoc(src, ref, literal.file) : undefined);
      if (doc) child.description = doc;
      annotate(child, inner.shape[key], src, literal.file, `${where}.${key}`);
    }
  } else if (inner instanceof z.ZodArray) {
    annotate(json.items, inner.element, src, file, `${where}[]`);
  } else if (inner instanceof z.ZodRecord) {
    annotate(json.additionalProperties, inner.valueType, src, file, `${where}.<name>`);
  }
}

/**
 * `pulumi config set --path` and YAML store `2022` as a number; the loader takes an integer where text is expected
 * (stacks/zod-issues.ts `coerceIntegers`), so the schema allows it too: free text fields accept integers, and enums
 * of digits accept the same digits as numbers.
 */
function allowIntegersForText(json: unknown): void {
  if (Array.isArray(json)) return json.forEach(allowIntegersForText);
  if (!isObject(json)) return;
  if (json.type === "string" && Array.isArray(json.enum) && json.enum.every((v) => /^\d+$/.test(String(v)))) {
    json.type = ["string", "integer"];
    json.enum = [...json.enum, ...json.enum.map(Number)];
  } else if (json.type === "string" && json.pattern === undefined && json.format === undefined) {
    json.type = ["string", "integer"];
  }
  for (const [k, v] of Object.entries(json)) if (k !== "enum" && k !== "default") allowIntegersForText(v);
}

/** Every top-level key in the order of TOP_LEVEL_KEY_NAMES (the order a stack file is written in). */
export function keyReferences(): KeyReference[] {
  const files = sourceFiles();
  const src = readSourceDocs(files);
  const top = readTopLevel(path.join(ROOT, SCHEMA_DIR, "index.ts"));
  return TOP_LEVEL_KEY_NAMES.map((key) => {
    const schema: Schema = TOP_LEVEL_KEYS[key].schema;
    const entry = top.get(key);
    const declaredIn = entry?.identifier
      ? files.find((f) => src.declarations.get(f)?.has(entry.identifier ?? ""))
      : undefined;
    const doc = entry?.doc ?? (entry?.identifier ? declarationDoc(src, entry.identifier, "") : undefined);
    if (!doc) throw new Error(`${NAMESPACE}:${key} has no TSDoc (stacks/schema/index.ts or its schema's declaration)`);
    const json: JsonObject = { ...z.toJSONSchema(schema, { io: "input", unrepresentable: "any", target: "draft-7" }) };
    delete json.$schema;
    annotate(json, schema, src, declaredIn, key);
    json.description = doc;
    return { key, doc, json };
  });
}

const SECURE: JsonObject = {
  type: "object",
  description: "An encrypted value (`pulumi config set --secret`).",
  properties: { secure: { type: "string" } },
  required: ["secure"],
  additionalProperties: false,
};

/**
 * The JSON Schema of a stack file (`Pulumi.<stack>.yaml`): the CLI's top-level keys, and under `config:` every
 * `windows-estate:` key with its schema. Other packages' namespaces are free; an unknown key in ours (or in a
 * namespace one typo away) is refused, unless it is an encrypted value (a BYOH password named by `passwordSecret`).
 */
export function stackFileSchema(refs: readonly KeyReference[]): JsonObject {
  const definitions: JsonObject = {};
  const config: JsonObject = {};
  for (const r of refs) {
    const json = structuredClone(r.json);
    allowIntegersForText(json);
    definitions[r.key] = r.key === "privateKey" ? { anyOf: [json, SECURE], description: r.doc } : json;
    config[`${NAMESPACE}:${r.key}`] = { $ref: `#/definitions/${r.key}` };
    config[r.key] = { $ref: `#/definitions/${r.key}` };
  }
  // Every top-level key the CLI reads (stacks/stack-file-shape.ts), and nothing else.
  const topLevel: Record<(typeof STACK_FILE_KEYS)[number], JsonObject> = {
    config: {
      type: "object",
      description:
        "The stack's settings: `windows-estate:<key>` (this program) and other packages' `<namespace>:<key>`.",
      properties: config,
      // Other namespaces (pulumi:, kubernetes:, aws:…), but not one a typo away from ours.
      patternProperties: { "^(?![Ww]indows[-_. ]?[Ee]stat)[^:]+:.+$": {} },
      additionalProperties: SECURE,
    },
    environment: { description: "Pulumi ESC environments imported by the stack." },
    secretsprovider: { type: "string" },
    encryptedkey: { type: "string" },
    encryptionsalt: { type: "string" },
  };
  return {
    $schema: "http://json-schema.org/draft-07/schema#",
    title: "windows-estate stack file (Pulumi.<stack>.yaml)",
    description:
      "Generated from stacks/schema/*.ts by `npm run docs:config`; do not edit. The reference is docs/configuration.md.",
    type: "object",
    properties: topLevel,
    additionalProperties: false,
    definitions,
  };
}

// ---- the reference page ----

function code(v: unknown): string {
  const text = typeof v === "string" ? v : JSON.stringify(v);
  return text.includes("`") ? `\`\` ${text} \`\`` : `\`${text}\``;
}

/** A short type for a JSON Schema node: `one of "2019", "2022"`, `integer 1–65535`, `list of objects`, … */
function typeOf(json: JsonObject): string {
  if (Array.isArray(json.enum)) return `one of ${json.enum.map((v) => code(v)).join(", ")}`;
  const range = (lo: unknown, hi: unknown, unit: string) =>
    lo !== undefined && hi !== undefined
      ? ` ${lo}–${hi}${unit}`
      : lo !== undefined
        ? ` ≥ ${lo}${unit}`
        : hi !== undefined
          ? ` ≤ ${hi}${unit}`
          : "";
  switch (json.type) {
    case "string":
      return json.pattern !== undefined
        ? `string matching ${code(json.pattern)}`
        : `string${range(json.minLength, json.maxLength, " characters")
            .replace(/^ 1–/, " of 1–")
            .replace(/^ ≥ 1 characters$/, ", not empty")}`;
    case "integer":
    case "number":
      return `${json.type}${range(json.minimum, json.maximum, "")}`;
    case "boolean":
      return "true or false";
    case "array": {
      const items = isObject(json.items) ? json.items : {};
      const count = range(json.minItems, json.maxItems, " entries");
      return `list${count} of ${items.type === "object" && isObject(items.properties) ? "objects (fields below)" : typeOf(items)}`;
    }
    case "object":
      if (isObject(json.properties)) return "object (fields below)";
      if (isObject(json.additionalProperties)) return `map of name → ${typeOf(json.additionalProperties)}`;
      return "object";
    default:
      return "any";
  }
}

function fieldLines(json: JsonObject, at: string, required: boolean, lines: string[]): void {
  const facts = [typeOf(json)];
  if (required) facts.push("required");
  if (json.default !== undefined) facts.push(`default ${code(json.default)}`);
  const head = `- **${code(at)}** (${facts.join(", ")})`;
  const doc = typeof json.description === "string" ? json.description : "";
  lines.push(wrap(doc ? `${head}: ${doc}` : head, "  "));
  children(json, at, lines);
}

function children(json: JsonObject, at: string, lines: string[]): void {
  const node = json.type === "array" && isObject(json.items) ? json.items : json;
  const prefix = json.type === "array" ? `${at}[]` : at;
  if (isObject(node.properties)) {
    const required = Array.isArray(node.required) ? node.required : [];
    for (const [k, v] of Object.entries(node.properties))
      if (isObject(v)) fieldLines(v, `${prefix}.${k}`, required.includes(k), lines);
  } else if (isObject(node.additionalProperties) && isObject(node.additionalProperties.properties)) {
    children(node.additionalProperties, `${prefix}.<name>`, lines);
  }
}

/** docs/configuration.md: every key in the order a stack file is written, with type, default and TSDoc. */
export function referencePage(refs: readonly KeyReference[]): string {
  const out: string[] = [
    "# Configuration reference",
    "",
    "<!-- Generated from stacks/schema/*.ts (zod schemas and their TSDoc) by `npm run docs:config`; do not edit. -->",
    "",
    wrap(
      `Every key this program reads, in the order a stack file (\`Pulumi.<stack>.yaml\`) is usually written. Each is ` +
        `\`${NAMESPACE}:<key>\` under \`config:\`; paths below are the ones \`pulumi config set --path\` takes ` +
        "(`[]` is any list entry, `<name>` any map key). Editors validate and complete stack files with the JSON Schema " +
        `[\`${SCHEMA_FILE}\`](../${SCHEMA_FILE}) through the first line ` +
        "`# yaml-language-server: $schema=…` (the examples have it). Integers where text is expected (`2022`) are " +
        "taken as text; a decimal such as `1.30` must be quoted.",
      "",
    ),
    "",
    wrap(
      "Where to start: [Getting started](getting-started.md) · example stacks in " +
        "[`stacks/examples/`](../stacks/examples) · [GitOps and CI](gitops.md) · [BYOH](byoh.md) · [kubeadm](kubeadm.md) · " +
        "[Day-2](day2.md) · [Patching](patching.md)",
      "",
    ),
    "",
    wrap("Keys: " + refs.map((r) => `[\`${r.key}\`](#${r.key.toLowerCase()})`).join(" · "), ""),
  ];
  for (const r of refs) {
    // The schemas' own TSDoc starts by naming the key (`windows-estate:byoh`: …); the heading says it already.
    const doc = r.doc.replace(new RegExp(`^\`${NAMESPACE}:${r.key}\`[:.]?\\s*`), "");
    const type = typeOf(r.json).replace(" (fields below)", "");
    out.push("", `## ${r.key}`, "", wrap(`\`${NAMESPACE}:${r.key}\` (${type}): ${doc}`, ""));
    const lines: string[] = [];
    children(r.json, r.key, lines);
    if (lines.length > 0) out.push("", ...lines);
  }
  return out.join("\n") + "\n";
}

/** Every generated file, path (relative to the project) → text. */
export function generated(): Map<string, string> {
  const refs = keyReferences();
  return new Map([
    [SCHEMA_FILE, JSON.stringify(stackFileSchema(refs), null, 2) + "\n"],
    [REFERENCE_FILE, referencePage(refs)],
    [ARGS_FILE, libraryArgs(refs)],
    // Only its stand-in rules table is generated (test/lab/windows-51); the rest of the page is written by hand.
    [WINDOWS_HOSTS_FILE, windowsHostsPage(ROOT)],
  ]);
}
