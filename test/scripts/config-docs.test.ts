import Ajv, { AnySchema } from "ajv";
import addFormats from "ajv-formats";
import * as fs from "fs";
import * as path from "path";
import { parse } from "yaml";
import { generated, keyReferences, ROOT, schemaComment, SCHEMA_FILE } from "../../scripts/docs/config-docs";
import { TOP_LEVEL_KEY_NAMES } from "../../stacks/schema";
import { isObject } from "../../lib/json";

// The configuration reference and the stack-file JSON Schema are generated from stacks/schema/*.ts (zod and its
// TSDoc) by `npm run docs:config`; these tests fail when either is stale, when a field has no TSDoc, or when the schema
// and the examples disagree.

const files = generated();
const schema: unknown = JSON.parse(files.get(SCHEMA_FILE) ?? "{}");
const ajv = new Ajv({ strict: false, allErrors: true });
addFormats(ajv);
const validate = ajv.compile(schema as AnySchema);

const exampleFiles = [
  "Pulumi.dev.yaml",
  ...fs
    .readdirSync(path.join(ROOT, "stacks", "examples"))
    .filter((f) => /^Pulumi\..+\.yaml$/.test(f))
    .map((f) => path.join("stacks", "examples", f)),
];

function errorsOf(doc: unknown): string[] {
  return validate(doc) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message ?? ""}`);
}

test.each([...files.keys()])("%s is what `npm run docs:config` generates from the schemas", (rel) => {
  expect(fs.readFileSync(path.join(ROOT, rel), "utf8")).toBe(files.get(rel));
});

test("every field of every key has its TSDoc as description", () => {
  const missing: string[] = [];
  const walk = (json: unknown, at: string) => {
    if (!isObject(json)) return;
    if (isObject(json.properties))
      for (const [k, v] of Object.entries(json.properties)) {
        if (!isObject(v) || typeof v.description !== "string" || v.description.length < 10) missing.push(`${at}.${k}`);
        walk(v, `${at}.${k}`);
      }
    walk(json.items, `${at}[]`);
    walk(json.additionalProperties, `${at}.<name>`);
  };
  const refs = keyReferences();
  for (const r of refs) walk(r.json, r.key);
  expect(missing).toEqual([]);
  // The schema knows exactly the keys the loader reads.
  expect(refs.map((r) => r.key)).toEqual([...TOP_LEVEL_KEY_NAMES]);
});

test("the reference lists every field, in the order of the schema (the order a stack file is written)", () => {
  const page = files.get("docs/configuration.md") ?? "";
  // Spot checks against the sources: a nested field's TSDoc, a default, an enum.
  expect(page).toMatch(
    /- \*\*`byoh\[\]\.azure\.adminPasswordSecret`\*\* \(string, not empty, required\): Name of a secret/,
  );
  expect(page).toContain("- **`machineSets[].aws.instanceType`** (string, not empty, default `m5a.large`)");
  expect(page).toContain("- **`machineSets[].windowsServer`** (one of `2019`, `2022`, `2025`, default `2022`)");
  const headings = [...page.matchAll(/^## (\w+)$/gm)].map((m) => m[1]);
  expect(headings).toEqual([...TOP_LEVEL_KEY_NAMES]);
});

describe("the JSON Schema and the example stacks", () => {
  test.each(exampleFiles)("%s validates against the schema", (file) => {
    expect(errorsOf(parse(fs.readFileSync(path.join(ROOT, file), "utf8")))).toEqual([]);
  });

  test.each(exampleFiles)("%s names the schema on its first line (editors with the YAML language server)", (file) => {
    const first = fs.readFileSync(path.join(ROOT, file), "utf8").split("\n")[0];
    expect(first).toBe(schemaComment(path.dirname(file)));
    // The path it names exists from where the file is.
    const target = first.replace(/^# yaml-language-server: \$schema=/, "");
    expect(fs.existsSync(path.resolve(ROOT, path.dirname(file), target))).toBe(true);
  });

  test("examples never point at the dev stack's throwaway key", () => {
    for (const file of exampleFiles.filter((f) => f !== "Pulumi.dev.yaml")) {
      const config = (parse(fs.readFileSync(path.join(ROOT, file), "utf8")) as { config: Record<string, unknown> })
        .config;
      expect([file, config["windows-estate:privateKeyPath"]]).toEqual([file, "~/.ssh/wmco"]);
    }
  });

  const good = () => ({
    config: {
      "pulumi:disable-default-providers": ["kubernetes"],
      "windows-estate:cluster": { platform: "Azure", infrastructureId: "win-tmk9g", region: "westus" },
      "windows-estate:privateKeyPath": "~/.ssh/wmco",
      "windows-estate:byoh": [{ address: "10.0.0.42", username: "Administrator", trustOnFirstUse: true }],
    },
  });

  test("a good stack passes, with what the loader also accepts: integers for text, a secret password key", () => {
    expect(errorsOf(good())).toEqual([]);
    const doc = good();
    Object.assign(doc.config, {
      "windows-estate:machineSets": [{ windowsServer: 2022, azure: { zone: 1 } }],
      "windows-estate:byohPassword": { secure: "v1:abc" },
      "windows-estate:privateKey": { secure: "v1:def" },
    });
    delete (doc.config as Record<string, unknown>)["windows-estate:privateKeyPath"];
    expect(errorsOf(doc)).toEqual([]);
  });

  test.each([
    ["a mistyped key in our namespace", { "windows-estate:clustr": { platform: "Azure" } }],
    ["a mistyped field", { "windows-estate:byoh": [{ adress: "10.0.0.42", username: "Administrator" }] }],
    ["a namespace a typo away from ours", { "windows_estate:byoh": [] }],
    ["a value of the wrong type", { "windows-estate:byoh": [{ address: "10.0.0.42", port: "22" }] }],
    ["a value outside its enum", { "windows-estate:machineSets": [{ windowsServer: "2023" }] }],
  ])("%s is rejected", (_name, extra) => {
    const doc = good();
    Object.assign(doc.config, extra);
    expect(errorsOf(doc).length).toBeGreaterThan(0);
  });

  test("a mistyped `config:` is rejected", () => {
    const { config } = good();
    expect(errorsOf({ confg: config }).length).toBeGreaterThan(0);
  });
});
