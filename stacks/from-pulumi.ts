import * as pulumi from "@pulumi/pulumi";
import { AnyEstateConfig, ConfigErrors, decode, formatIssue, loadAnyConfig, RawConfig, Validator } from "./load";
import { ConfigIssue } from "./config-issue";
import { isOffline } from "./offline";
import { stackFileShapeIssues } from "./stack-file-shape";
import * as fs from "fs";
import * as path from "path";
import { parse } from "yaml";
import { obj } from "../lib/json";
import { isTopLevelKey, NAMESPACE } from "./schema";

/**
 * The language host hands the program its config in `PULUMI_CONFIG` and the keys the engine decrypted (set with
 * `--secret`) in `PULUMI_CONFIG_SECRET_KEYS`, a JSON list; no public SDK API tells a secret key from a plain one, and
 * the loader needs that to refuse a private key stored in plain text. Synth sets the same variable.
 */
export const SECRET_KEYS_ENV = "PULUMI_CONFIG_SECRET_KEYS";

export function secretKeysFromHost(env: NodeJS.ProcessEnv = process.env): Set<string> {
  try {
    const list: unknown = JSON.parse(env[SECRET_KEYS_ENV] ?? "[]");
    return new Set(Array.isArray(list) ? list.filter((k): k is string => typeof k === "string") : []);
  } catch {
    return new Set();
  }
}

/** The running stack's config as the engine hands it to the program. */
export function rawConfigFromRuntime(): RawConfig {
  return { values: pulumi.runtime.allConfig(), secretKeys: secretKeysFromHost() };
}

/**
 * The stack's `windows-estate:<key>` values as a component's args (`<key>`), decoded as the loader decodes them;
 * the WMCO key as a secret. The components take the same keys (library/args.ts is generated from the same schemas).
 */
export function argsFromStack<A extends object>(raw: RawConfig = rawConfigFromRuntime()): A {
  const args: Record<string, unknown> = {};
  for (const [fullKey, text] of Object.entries(raw.values)) {
    const key = fullKey.startsWith(`${NAMESPACE}:`) ? fullKey.slice(NAMESPACE.length + 1) : "";
    if (!isTopLevelKey(key)) continue;
    args[key] = key === "privateKey" ? pulumi.secret(text) : decode(key, text);
  }
  return args as A; // the keys loadStackConfig validated, by the names the args interfaces use
}

/**
 * Loads and validates the stack config inside a Pulumi program. A config problem ends the run with a RunError:
 * every problem listed, no stack trace, nothing declared.
 */
export function loadStackConfig(validators: readonly Validator[]): AnyEstateConfig {
  try {
    const cfg = loadAnyConfig(rawConfigFromRuntime(), {
      projectDir: process.cwd(),
      stackName: pulumi.getStack(),
      offline: isOffline(),
      validators,
      stackFileIssues: stackFileIssuesIn(process.cwd(), pulumi.getStack()),
    });
    // Offline, synth has printed the warnings already, before running the program.
    if (!isOffline()) for (const w of cfg.warnings) pulumi.log.warn(formatIssue(w));
    return cfg;
  } catch (e) {
    if (e instanceof ConfigErrors) throw new pulumi.RunError(e.message);
    throw e;
  }
}

/**
 * The CLI drops unknown top-level keys of `Pulumi.<stack>.yaml` without a word (a mistyped `config:` leaves the stack
 * with no settings), so the program reads the file beside it, when there is one, and says so. A file the CLI parsed
 * but this cannot is left to the CLI.
 */
function stackFileIssuesIn(projectDir: string, stack: string): ConfigIssue[] {
  const name = `Pulumi.${stack}.yaml`;
  let root;
  try {
    root = obj(parse(fs.readFileSync(path.join(projectDir, name), "utf8")));
  } catch {
    return [];
  }
  return root ? stackFileShapeIssues(root, name) : [];
}
