import * as fs from "fs";
import * as ts from "typescript";
import type { TopLevelKey } from "../../stacks/schema";
import type { JsonObject } from "../../lib/json";

/** The TSDoc of one `z.strictObject({...})` literal: its keys in order, and each documented key's text. */
export interface ObjectDocs {
  file: string;
  keys: string[];
  docs: Record<string, string>;
  /** Key → the identifier its value is built from (`aws: aws.optional()` → `aws`), whose own TSDoc is the fallback. */
  refs: Record<string, string>;
}

/** What the schema sources say about themselves: every object literal's property docs, and each named schema's. */
export interface SourceDocs {
  objects: ObjectDocs[];
  /** `file` → declared name (`const aws = …`, `export const machineSetsSchema = …`) → its TSDoc. */
  declarations: Map<string, Map<string, string>>;
}

/** The TSDoc comment text before a node (`/** … *\/`), with its lines joined; undefined when there is none. */
function docOf(node: ts.Node): string | undefined {
  const docs = ts.getJSDocCommentsAndTags(node).filter(ts.isJSDoc);
  const last = docs[docs.length - 1];
  if (!last) return undefined;
  const text = ts.getTextOfJSDocComment(last.comment);
  return text ? text.replace(/\s*\n\s*/g, " ").trim() : undefined;
}

/** The identifier an expression is built from: `aws.optional()` → `aws`, `z.array(node).default([])` → undefined. */
function rootIdentifier(e: ts.Expression): string | undefined {
  let cur: ts.Expression = e;
  for (;;) {
    if (ts.isIdentifier(cur)) return cur.text;
    if (ts.isCallExpression(cur) && ts.isPropertyAccessExpression(cur.expression)) cur = cur.expression.expression;
    else return undefined;
  }
}

function propertyName(p: ts.ObjectLiteralElementLike): string | undefined {
  if (!ts.isPropertyAssignment(p) && !ts.isShorthandPropertyAssignment(p)) return undefined;
  const n = p.name;
  return ts.isIdentifier(n) || ts.isStringLiteral(n) ? n.text : undefined;
}

/**
 * Reads the TSDoc of the schema sources with the TypeScript compiler's parser: the docs are written once, beside
 * the zod fields they describe, and the reference and JSON Schema are generated from them.
 */
export function readSourceDocs(files: readonly string[]): SourceDocs {
  const objects: ObjectDocs[] = [];
  const declarations = new Map<string, Map<string, string>>();
  const sources = files.map((file) => ({
    file,
    source: ts.createSourceFile(file, fs.readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true),
  }));
  // Shared fields: `const x = { … }` object literals spread into several `z.strictObject({ …, ...x })` (one field
  // set, documented once, used by two schemas), from any schema file.
  const fragments = new Map<string, Omit<ObjectDocs, "file">>();
  const fieldsOf = (literal: ts.ObjectLiteralExpression): Omit<ObjectDocs, "file"> => {
    const keys: string[] = [];
    const docs: Record<string, string> = {};
    const refs: Record<string, string> = {};
    for (const p of literal.properties) {
      if (ts.isSpreadAssignment(p) && ts.isIdentifier(p.expression)) {
        const f = fragments.get(p.expression.text);
        if (f) {
          keys.push(...f.keys);
          Object.assign(docs, f.docs);
          Object.assign(refs, f.refs);
        }
        continue;
      }
      const name = propertyName(p);
      if (name === undefined) continue;
      keys.push(name);
      const doc = docOf(p);
      if (doc) docs[name] = doc;
      if (ts.isPropertyAssignment(p)) {
        const ref = rootIdentifier(p.initializer);
        if (ref) refs[name] = ref;
      }
    }
    return { keys, docs, refs };
  };
  for (const { source } of sources)
    for (const st of source.statements)
      if (ts.isVariableStatement(st))
        for (const d of st.declarationList.declarations)
          if (ts.isIdentifier(d.name) && d.initializer && ts.isObjectLiteralExpression(d.initializer))
            fragments.set(d.name.text, fieldsOf(d.initializer));
  for (const { file, source } of sources) {
    const decls = new Map<string, string>();
    const visit = (node: ts.Node) => {
      if (ts.isVariableStatement(node)) {
        const doc = docOf(node);
        for (const d of node.declarationList.declarations)
          if (doc && ts.isIdentifier(d.name)) decls.set(d.name.text, doc);
      }
      if (
        ts.isCallExpression(node) &&
        ts.isPropertyAccessExpression(node.expression) &&
        node.expression.name.text === "strictObject" &&
        node.arguments[0] &&
        ts.isObjectLiteralExpression(node.arguments[0])
      ) {
        objects.push({ file, ...fieldsOf(node.arguments[0]) });
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
    declarations.set(file, decls);
  }
  return { objects, declarations };
}

/** The docs of the property literal `TOP_LEVEL_KEYS = { … }` in stacks/schema/index.ts: key → (doc or identifier). */
export function readTopLevel(file: string): Map<string, { doc?: string; identifier?: string }> {
  const source = ts.createSourceFile(file, fs.readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true);
  const out = new Map<string, { doc?: string; identifier?: string }>();
  const visit = (node: ts.Node) => {
    if (
      ts.isVariableDeclaration(node) &&
      ts.isIdentifier(node.name) &&
      node.name.text === "TOP_LEVEL_KEYS" &&
      node.initializer
    ) {
      let init: ts.Expression = node.initializer;
      while (ts.isAsExpression(init) || ts.isSatisfiesExpression(init)) init = init.expression;
      if (ts.isObjectLiteralExpression(init))
        for (const p of init.properties) {
          const name = propertyName(p);
          if (name === undefined || !ts.isPropertyAssignment(p)) continue;
          const doc = docOf(p);
          // Each entry is `{ schema: <zod schema>, scope, … }` (stacks/schema/index.ts): the schema names the declaration.
          const schema = ts.isObjectLiteralExpression(p.initializer)
            ? p.initializer.properties.find((q) => propertyName(q) === "schema")
            : undefined;
          const identifier = schema && ts.isPropertyAssignment(schema) ? rootIdentifier(schema.initializer) : undefined;
          out.set(name, { ...(doc ? { doc } : {}), ...(identifier ? { identifier } : {}) });
        }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return out;
}

/** One top-level key, its TSDoc and its JSON Schema (descriptions filled in from the TSDoc of every field). */
export interface KeyReference {
  key: TopLevelKey;
  doc: string;
  json: JsonObject;
}
