import { componentKeys, isInputKey, NAMESPACE, OPTIONAL_KEYS, TopLevelKey } from "../../stacks/schema";
import { isObject, JsonObject } from "../../lib/json";
import type { KeyReference } from "./tsdoc";

/**
 * Where the generated args live (relative to the project root): beside the components that take them, below the
 * library that re-exports them (library/index.ts).
 */
export const ARGS_FILE = "components/args.ts";

/**
 * Each component's args: the keys the table gives it (stacks/schema/index.ts TOP_LEVEL_KEYS), in the order the stack
 * file has them, with the same names as the stack config (`windows-estate:<key>` is the arg `<key>`).
 */
export const COMPONENT_KEYS = {
  WindowsEstateArgs: {
    doc: "What a `WindowsEstate` (OpenShift/OKD with WMCO) is built from: the keys of a stack's `windows-estate:` config, with the same names, shapes and defaults (docs/configuration.md).",
    keys: componentKeys("openshift"),
  },
  VanillaEstateArgs: {
    doc: "What a `VanillaEstate` (Windows hosts joined to a kubeadm cluster with flannel) is built from: the keys of a stack's `windows-estate:` config, with the same names, shapes and defaults (docs/configuration.md).",
    keys: componentKeys("vanilla"),
  },
} as const satisfies Record<string, { doc: string; keys: readonly TopLevelKey[] }>;

const pascal = (s: string) => s.replace(/(^|[^A-Za-z0-9])([A-Za-z0-9])/g, (_m, _p, c: string) => c.toUpperCase());
/** A list's items are named in the singular: `machineSets[]` → `MachineSet`, `nodes[]` → `Node`. */
const singular = (s: string) => (/[^s]s$/.test(s) && s.length > 3 ? s.slice(0, -1) : s);

function comment(text: string | undefined, indent: string): string {
  if (!text) return "";
  // A `*/` in a description would end the comment early.
  const body = text.replace(/\*\//g, "*\\/");
  return `${indent}/** ${body} */\n`;
}

/**
 * Emits TypeScript interfaces from the stack config's JSON Schema (the one docs/configuration.md is made of, with
 * the schema sources' TSDoc as descriptions), in the shape Pulumi's component-provider analyzer accepts
 * (`@pulumi/pulumi/provider/experimental/analyzer.js`): named interfaces, no unions other than a named enum of
 * string literals (the `as const` object pattern) and `T | undefined`, maps as index signatures.
 */
class Emitter {
  private readonly blocks: string[] = [];
  private readonly names = new Map<string, string>();
  private readonly enums = new Map<string, string>();

  private unique(name: string, shape: string, where: string): { name: string; fresh: boolean } {
    const seen = this.names.get(name);
    if (seen === undefined) {
      this.names.set(name, shape);
      return { name, fresh: true };
    }
    if (seen === shape) return { name, fresh: false };
    throw new Error(`${where}: the generated name ${name} is taken by another shape; rename one of the fields`);
  }

  private enumType(values: readonly string[], name: string, doc: string | undefined): string {
    const key = values.join("\0");
    const known = this.enums.get(key);
    if (known) return known;
    const { name: n } = this.unique(name, `enum:${key}`, name);
    this.enums.set(key, n);
    const member = (v: string) => (/^[A-Za-z_][A-Za-z0-9_]*$/.test(v) ? v : `V${v.replace(/[^A-Za-z0-9_]/g, "_")}`);
    const lines = values.map((v) => `  ${member(v)}: ${JSON.stringify(v)},`);
    this.blocks.push(
      `${comment(doc, "")}export const ${n} = {\n${lines.join("\n")}\n} as const;\n` +
        `${comment(doc, "")}export type ${n} = (typeof ${n})[keyof typeof ${n}];\n`,
    );
    return n;
  }

  /** The TypeScript type of a JSON Schema node at `path` (segments name the generated types). */
  type(json: JsonObject, path: string[], where: string): string {
    if (Array.isArray(json.enum)) {
      const values = json.enum.map(String);
      return this.enumType(values, path.map(pascal).join(""), undefined);
    }
    if (Array.isArray(json.anyOf)) {
      // maxUnavailable: a whole number or a percentage; one text type carries both ("2", "25%"), and the loader reads
      // digits as the number (stacks/schema/day2.ts).
      const types = json.anyOf.filter(isObject).map((a) => a.type);
      if (types.every((t) => t === "integer" || t === "number" || t === "string")) return "string";
      throw new Error(`${where}: a union the component schema cannot carry (${JSON.stringify(json.anyOf)})`);
    }
    switch (json.type) {
      case "string":
        return "string";
      case "integer":
      case "number":
        return "number";
      case "boolean":
        return "boolean";
      case "array": {
        if (!isObject(json.items)) throw new Error(`${where}: a list without items`);
        const last = path[path.length - 1] ?? "";
        return `${this.type(json.items, [...path.slice(0, -1), singular(last)], `${where}[]`)}[]`;
      }
      case "object": {
        if (isObject(json.properties) && Object.keys(json.properties).length > 0)
          return this.object(json, path, where, undefined);
        if (isObject(json.additionalProperties))
          return `{ [key: string]: ${this.type(json.additionalProperties, [...path, "value"], `${where}.<name>`)} }`;
        return "{ [key: string]: string }";
      }
      default:
        throw new Error(`${where}: no TypeScript type for ${JSON.stringify(json).slice(0, 200)}`);
    }
  }

  object(json: JsonObject, path: string[], where: string, doc: string | undefined): string {
    const props = isObject(json.properties) ? json.properties : {};
    const required = new Set(Array.isArray(json.required) ? json.required.map(String) : []);
    const fields: string[] = [];
    for (const [k, v] of Object.entries(props)) {
      if (!isObject(v)) continue;
      const t = this.type(v, [...path, k], `${where}.${k}`);
      fields.push(
        `${comment(typeof v.description === "string" ? v.description : undefined, "  ")}  ${k}${required.has(k) ? "" : "?"}: ${t};`,
      );
    }
    const body = fields.join("\n");
    const { name, fresh } = this.unique(`${path.map(pascal).join("")}Args`, body, where);
    if (fresh)
      this.blocks.push(
        `${comment(doc ?? (typeof json.description === "string" ? json.description : undefined), "")}export interface ${name} {\n${body}\n}\n`,
      );
    return name;
  }

  component(name: string, doc: string, keys: readonly TopLevelKey[], refs: readonly KeyReference[]): void {
    const fields = keys.map((key) => {
      const ref = refs.find((r) => r.key === key);
      if (!ref) throw new Error(`${NAMESPACE}:${key} has no schema`);
      const t = this.type(ref.json, [key], key);
      const type = isInputKey(key) ? `pulumi.Input<${t}>` : t;
      return `${comment(ref.doc, "  ")}  ${key}${OPTIONAL_KEYS.has(key) ? "?" : ""}: ${type};`;
    });
    this.blocks.push(`${comment(doc, "")}export interface ${name} {\n${fields.join("\n")}\n}\n`);
  }

  text(): string {
    return this.blocks.join("\n");
  }
}

/** The generated args (ARGS_FILE): every component's args, from the same schemas and TSDoc as the config reference. */
export function libraryArgs(refs: readonly KeyReference[]): string {
  const e = new Emitter();
  for (const [name, c] of Object.entries(COMPONENT_KEYS)) e.component(name, c.doc, c.keys, refs);
  return (
    `// Generated from stacks/schema/*.ts by \`npm run docs:config\`; do not edit. The reference is docs/configuration.md.\n` +
    `import type * as pulumi from "@pulumi/pulumi";\n\n` +
    e.text()
  );
}
