import Ajv, { AnySchema, ErrorObject, ValidateFunction } from "ajv";
import addFormats from "ajv-formats";
import * as fs from "fs";
import * as net from "net";
import * as path from "path";

/** The schemas the tests use, kept in the repository (sources and refreshing: test/schemas/README.md). */
export const SCHEMA_DIR = path.resolve(__dirname, "..", "schemas");

interface IndexEntry {
  apiVersion?: string;
  kind: string;
  schema?: string;
}

type JsonObject = Record<string, unknown>;

function readJson(file: string): unknown {
  return JSON.parse(fs.readFileSync(path.join(SCHEMA_DIR, file), "utf8"));
}

/**
 * "Closed" mode: the apiserver prunes unknown fields silently, so a typo in a rendered object would vanish. Adding
 * `additionalProperties: false` to every object schema that lists properties (outside anyOf/oneOf/allOf/not, whose
 * branches hold partial property sets, and not where unknown fields are preserved) turns typos into failures.
 */
export function closeSchema(node: unknown, inCombinator = false): unknown {
  if (Array.isArray(node)) return node.map((n) => closeSchema(n, inCombinator));
  if (typeof node !== "object" || node === null) return node;
  const o = node as JsonObject;
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(o)) {
    const combinator = ["anyOf", "oneOf", "allOf", "not"].includes(k);
    out[k] =
      k === "enum" || k === "const" || k === "default" || k === "examples"
        ? v
        : closeSchema(v, combinator || (inCombinator && k !== "properties" && k !== "items" && k !== "definitions"));
  }
  if (
    !inCombinator &&
    typeof o.properties === "object" &&
    o.additionalProperties === undefined &&
    o["x-kubernetes-preserve-unknown-fields"] !== true
  ) {
    out.additionalProperties = false;
  }
  return out;
}

function newAjv(): Ajv {
  const ajv = new Ajv({ strict: false, allErrors: true });
  addFormats(ajv);
  ajv.addFormat("ip", (s: string) => net.isIP(s) !== 0);
  ajv.addFormat("cidr", (s: string) => /^[^/]+\/\d+$/.test(s) && net.isIP(s.split("/")[0]) !== 0);
  return ajv;
}

const cache = new Map<string, ValidateFunction>();

/** A patch sets some fields of an object: the same schema, nothing required. */
export function withoutRequired(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(withoutRequired);
  if (typeof node !== "object" || node === null) return node;
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(node as JsonObject))
    if (!(k === "required" && Array.isArray(v))) out[k] = k === "enum" || k === "const" ? v : withoutRequired(v);
  return out;
}

function compiled(file: string, closed: boolean, partial = false): ValidateFunction {
  const key = `${closed ? "closed" : "loose"}:${partial ? "partial" : "whole"}:${file}`;
  let v = cache.get(key);
  if (!v) {
    const whole = readJson(file) as JsonObject;
    const schema = partial ? (withoutRequired(whole) as JsonObject) : whole;
    const body = closed ? (closeSchema(schema) as JsonObject) : schema;
    v = newAjv().compile({ ...body, $id: undefined } as AnySchema);
    cache.set(key, v);
  }
  return v;
}

/** The schema file for an object, routed by apiVersion + kind (or a providerSpec value's `kind`) through index.json. */
export function schemaFileFor(apiVersion: string | undefined, kind: string): string {
  const index = readJson("index.json") as { kinds: IndexEntry[]; providerSpecs: IndexEntry[] };
  const hit =
    index.kinds.find((e) => e.kind === kind && e.apiVersion === apiVersion) ??
    index.providerSpecs.find((e) => e.kind === kind);
  if (!hit?.schema) throw new Error(`no schema in ${SCHEMA_DIR}/index.json for ${apiVersion ?? ""} ${kind}`);
  return hit.schema;
}

function format(errors: ErrorObject[] | null | undefined): string {
  return (errors ?? [])
    .map((e) => `${e.instancePath || "/"} ${e.message}${e.params ? " " + JSON.stringify(e.params) : ""}`)
    .join("\n");
}

/** Validates an object against a schema file; returns the problems as text, empty when valid. */
export function validateAgainstSchema(
  obj: unknown,
  schemaFile: string,
  opts: { closed?: boolean; partial?: boolean } = {},
): string {
  const v = compiled(schemaFile, opts.closed ?? false, opts.partial ?? false);
  return v(obj) ? "" : format(v.errors);
}

/** Validates a Kubernetes object against the schema index.json routes it to. */
export function validateObject(
  obj: { apiVersion: string; kind: string },
  opts: { closed?: boolean; partial?: boolean } = {},
): string {
  return validateAgainstSchema(obj, schemaFileFor(obj.apiVersion, obj.kind), opts);
}
