import * as path from "path";
import { ComponentProvider } from "@pulumi/pulumi/provider/experimental";
import { WindowsEstate } from "../../components/estate";
import { VanillaEstate } from "../../components/vanilla/estate";
import { keyReferences } from "../../scripts/docs/config-docs";
import { COMPONENT_KEYS } from "../../scripts/docs/library-args";
import { isObject, JsonObject } from "../../lib/json";

// The schema other languages get (`pulumi package add`), made by Pulumi's own component-provider analyzer
// (@pulumi/pulumi provider/experimental: ComponentProvider.getSchema reads the TypeScript sources, as the plugin does),
// checked against what the args are generated from: the stack config's JSON Schema and the schema sources' TSDoc.

const ROOT = path.resolve(__dirname, "..", "..");
const PKG = "windows-estate";
let schema: JsonObject;
const refs = keyReferences();

beforeAll(async () => {
  const provider = new ComponentProvider({ dirname: ROOT, name: PKG, components: [WindowsEstate, VanillaEstate] });
  schema = JSON.parse(await provider.getSchema());
}, 240_000);

function obj(v: unknown, what: string): JsonObject {
  if (!isObject(v)) throw new Error(`${what} is not an object: ${JSON.stringify(v)}`);
  return v;
}
const resource = (component: string) => obj(obj(schema.resources, "resources")[`${PKG}:index:${component}`], component);
const typeOf = (ref: string) => obj(obj(schema.types, "types")[ref.replace(/^#\/types\//, "")], ref);

test("each component takes exactly the stack config's keys, each described by the key's own TSDoc", () => {
  for (const [argsName, c] of Object.entries(COMPONENT_KEYS)) {
    const inputs = obj(resource(argsName.replace(/Args$/, "")).inputProperties, `${argsName} inputs`);
    expect(Object.keys(inputs).sort()).toEqual([...c.keys].sort());
    for (const key of c.keys) {
      const doc = refs.find((r) => r.key === key)?.doc;
      expect(doc).toBeTruthy();
      expect(obj(inputs[key], key).description).toBe(doc);
    }
    // Only the cluster is required; the rest default (or are checked by the validators, in config terms).
    expect(resource(argsName.replace(/Args$/, "")).requiredInputs).toEqual(["cluster"]);
  }
});

test("every property of every type and every output is documented", () => {
  const missing: string[] = [];
  for (const [name, t] of Object.entries(obj(schema.types, "types"))) {
    const props = obj(t, name).properties;
    if (props === undefined) continue;
    for (const [k, p] of Object.entries(obj(props, name))) if (!obj(p, k).description) missing.push(`${name}.${k}`);
  }
  for (const component of ["WindowsEstate", "VanillaEstate"])
    for (const [k, p] of Object.entries(obj(resource(component).properties, component)))
      if (!obj(p, k).description) missing.push(`${component} output ${k}`);
  expect(missing).toEqual([]);
});

/**
 * The component schema's property against the config's JSON Schema for the same field: the same kind, the same
 * enum values, the same fields (and required ones), recursively. Returns the differences, by path.
 */
function compare(json: JsonObject, prop: JsonObject, where: string): string[] {
  const ref = typeof prop.$ref === "string" ? typeOf(prop.$ref) : undefined;
  if (Array.isArray(json.enum)) {
    // The same values; their order is TypeScript's order of the union's members, which carries no meaning.
    const values = ref && Array.isArray(ref.enum) ? ref.enum.map((m) => String(obj(m, where).value)).sort() : [];
    const declared = json.enum.map(String).sort();
    return JSON.stringify(values) === JSON.stringify(declared) ? [] : [`${where}: enum ${JSON.stringify(values)}`];
  }
  if (Array.isArray(json.anyOf)) return prop.type === "string" ? [] : [`${where}: ${prop.type} for number-or-text`];
  switch (json.type) {
    case "string":
    case "boolean":
      return prop.type === json.type ? [] : [`${where}: ${prop.type} for ${json.type}`];
    case "integer":
    case "number":
      return prop.type === "number" || prop.type === "integer" ? [] : [`${where}: ${prop.type} for ${json.type}`];
    case "array":
      if (prop.type !== "array") return [`${where}: ${prop.type} for a list`];
      return compare(obj(json.items, where), obj(prop.items, where), `${where}[]`);
    case "object": {
      if (isObject(json.properties) && Object.keys(json.properties).length > 0) {
        if (!ref) return [`${where}: no object type`];
        const ours = obj(ref.properties, where);
        const out: string[] = [];
        const keys = Object.keys(json.properties);
        if (JSON.stringify(Object.keys(ours).sort()) !== JSON.stringify([...keys].sort()))
          out.push(`${where}: fields ${Object.keys(ours).join(",")} for ${keys.join(",")}`);
        const required = Array.isArray(json.required) ? json.required.map(String).sort() : [];
        const optional = (k: string) => obj(ours[k], k).optional === true;
        if (JSON.stringify(keys.filter((k) => k in ours && !optional(k)).sort()) !== JSON.stringify(required))
          out.push(`${where}: required ${keys.filter((k) => !optional(k)).join(",")} for ${required.join(",")}`);
        for (const k of keys)
          if (k in ours) out.push(...compare(obj(json.properties[k], k), obj(ours[k], k), `${where}.${k}`));
        return out;
      }
      if (prop.type !== "object" || !isObject(prop.additionalProperties)) return [`${where}: not a map`];
      return isObject(json.additionalProperties)
        ? compare(json.additionalProperties, prop.additionalProperties, `${where}.<name>`)
        : [];
    }
  }
  return [`${where}: nothing to compare ${JSON.stringify(json).slice(0, 100)}`];
}

test("every arg has the type the config's schema declares, down to each field, enum and required field", () => {
  for (const [argsName, c] of Object.entries(COMPONENT_KEYS)) {
    const inputs = obj(resource(argsName.replace(/Args$/, "")).inputProperties, argsName);
    const diffs = c.keys.flatMap((key) => {
      const ref = refs.find((r) => r.key === key);
      return ref ? compare(ref.json, obj(inputs[key], key), `${argsName}.${key}`) : [`${key}: no config schema`];
    });
    expect(diffs).toEqual([]);
  }
});

test("plain data everywhere but the key, which may be a secret Output (the component checks it is secret)", () => {
  const inputs = obj(resource("WindowsEstate").inputProperties, "WindowsEstate");
  expect(obj(inputs.privateKey, "privateKey").plain).toBeUndefined();
  expect(obj(inputs.cluster, "cluster").plain).toBe(true);
  expect(obj(inputs.machineSets, "machineSets").plain).toBe(true);
});
