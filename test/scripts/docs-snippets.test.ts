import * as fs from "fs";
import * as path from "path";
import { parse, stringify } from "yaml";
import { ROOT } from "../../scripts/docs/config-docs";
import { runSynth, scratch } from "../helpers/stack";

// The stack-file snippets the docs show are stacks a user pastes: a whole file (`config:`) must synthesize as it
// stands, a fragment (`windows-estate:byoh:` …) once put into a minimal stack. Only the key (a placeholder in the
// docs) and placeholders written as `…` are filled in.
const s = scratch();
afterAll(() => s.cleanup());

interface Snippet {
  file: string;
  line: number;
  text: string;
}

function snippets(): Snippet[] {
  const out: Snippet[] = [];
  const pages = ["README.md", ...fs.readdirSync(path.join(ROOT, "docs")).map((f) => path.join("docs", f))];
  for (const file of pages.filter((f) => f.endsWith(".md"))) {
    const lines = fs.readFileSync(path.join(ROOT, file), "utf8").split("\n");
    for (let i = 0; i < lines.length; i++) {
      if (lines[i].trim() !== "```yaml") continue;
      const end = lines.findIndex((l, j) => j > i && l.trim() === "```");
      const text = lines.slice(i + 1, end).join("\n");
      if (/^(config:|windows-estate:)/m.test(text)) out.push({ file, line: i + 1, text });
      i = end;
    }
  }
  return out;
}

const base = () => ({
  "windows-estate:cluster": { platform: "None", infrastructureId: "win-tmk9g" },
  "windows-estate:privateKeyPath": s.keyPath,
});

/** The docs' `…` placeholders, filled with values of the right shape. */
function fill(v: unknown, key = ""): unknown {
  if (Array.isArray(v)) return v.map((x) => fill(x, key));
  if (v !== null && typeof v === "object")
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, fill(x, k)]));
  if (typeof v !== "string" || !v.includes("…")) return v;
  const byKey: Record<string, string> = {
    hostKey: "SHA256:3KkVtdpSNxjs6Ca4vpFpuZcMj2LsmiUbk1FD6nfTDsc",
    subnetId: "subnet-0a1b2c3d",
    subscriptionId: "00000000-0000-0000-0000-000000000000",
  };
  return byKey[key] ?? (/^sg-/.test(v) ? "sg-0a1b2c3d" : v.replace("…", "x"));
}

const all = snippets();

test("the docs show stack snippets (the README's front door and the topic pages)", () => {
  expect(all.length).toBeGreaterThanOrEqual(4);
});

test.each(all.map((sn) => [`${sn.file}:${sn.line}`, sn] as const))("%s synthesizes", async (_at, sn) => {
  const doc = parse(sn.text) as Record<string, unknown>;
  const snippet = (doc.config ?? doc) as Record<string, unknown>;
  const config: Record<string, unknown> = doc.config ? {} : base();
  for (const [k, v] of Object.entries(snippet)) config[k] = fill(v);
  // The docs show the key as a secret; offline it would not be decrypted, so the scratch key stands in.
  if (config["windows-estate:privateKey"] !== undefined) {
    delete config["windows-estate:privateKey"];
    config["windows-estate:privateKeyPath"] = s.keyPath;
  }
  // A password a snippet names must exist as a secret, as the docs say to set it.
  const secrets = JSON.stringify(config).match(/"(?:passwordSecret|adminPasswordSecret)":"([^"]+)"/g) ?? [];
  for (const m of secrets) config[`windows-estate:${m.split(":")[1].replace(/"/g, "")}`] = { secure: "v1:x" };
  const file = path.join(s.dir, `Pulumi.snippet.yaml`);
  fs.writeFileSync(file, stringify({ config }));
  const r = await runSynth(["--stack", "snippet", "--config-file", file, "--out", path.join(s.dir, "out"), "--quiet"]);
  expect(r.stderr).toBe("");
  expect(r.code).toBe(0);
});
