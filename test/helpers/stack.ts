import { generateKeyPairSync } from "crypto";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { stringify } from "yaml";
import { DOMAIN_VALIDATORS } from "../../components/validators";
import { synth } from "../../scripts/synth/main";
import { AnyEstateConfig, loadAnyConfig } from "../../stacks/load";

/** A scratch directory with a real, valid WMCO key in it; removed by `cleanup`. */
export function scratch(): { dir: string; keyPath: string; cleanup: () => void } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "estate-"));
  const keyPath = path.join(dir, "wmco.pem");
  const { privateKey } = generateKeyPairSync("ed25519", {
    privateKeyEncoding: { type: "pkcs8", format: "pem" },
    publicKeyEncoding: { type: "spki", format: "pem" },
  });
  fs.writeFileSync(keyPath, privateKey, { mode: 0o600 });
  return { dir, keyPath, cleanup: () => fs.rmSync(dir, { recursive: true, force: true }) };
}

/**
 * Loads a stack's config as `pulumi` hands it to the program, through stacks/load.ts `loadAnyConfig` with every domain
 * check: keys without their `windows-estate:` namespace, objects as their JSON text, the scratch key as
 * `privateKeyPath`, and `secrets` the keys the stack keeps encrypted.
 */
export function loadScratchStack(
  s: { dir: string; keyPath: string },
  config: Record<string, unknown>,
  opts: { offline?: boolean; secrets?: string[] } = {},
): AnyEstateConfig {
  const values: Record<string, string> = { "windows-estate:privateKeyPath": s.keyPath };
  for (const [k, v] of Object.entries(config))
    values[`windows-estate:${k}`] = typeof v === "string" ? v : JSON.stringify(v);
  const secretKeys = new Set((opts.secrets ?? []).map((k) => `windows-estate:${k}`));
  return loadAnyConfig(
    { values, secretKeys },
    { projectDir: s.dir, offline: opts.offline ?? false, validators: DOMAIN_VALIDATORS },
  );
}

/** Writes a stack file (`config:` map, keys without namespace get `windows-estate:`). */
export function writeStack(dir: string, name: string, config: Record<string, unknown>): string {
  const file = path.join(dir, `Pulumi.${name}.yaml`);
  const namespaced: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(config)) namespaced[k.includes(":") ? k : `windows-estate:${k}`] = v;
  fs.writeFileSync(file, stringify({ config: namespaced }));
  return file;
}

export interface SynthResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs synth in-process, capturing what it prints. */
export async function runSynth(argv: string[]): Promise<SynthResult> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await synth(argv, { out: (l) => out.push(l), err: (l) => err.push(l) });
  return { code, stdout: out.join("\n"), stderr: err.join("\n") };
}

/** Every file under a directory, relative paths → text. */
export function readTree(dir: string): Map<string, string> {
  const files = new Map<string, string>();
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else files.set(path.relative(dir, p), fs.readFileSync(p, "utf8"));
    }
  };
  walk(dir);
  return files;
}
