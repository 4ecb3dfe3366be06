import * as pulumi from "@pulumi/pulumi";
import { ConfigErrors, RawConfig, Reader, stackKeyValues } from "./load";
import { ConfigIssue, STACK_AUDIENCE } from "./config-issue";
import { stackFileShapeIssues } from "./stack-file-shape";
import * as fs from "fs";
import * as path from "path";
import { parse } from "yaml";
import { get, obj } from "../lib/json";
import { isComponentKey, NAMESPACE } from "./schema";

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
function rawConfigFromRuntime(): RawConfig {
  return { values: pulumi.runtime.allConfig(), secretKeys: secretKeysFromHost() };
}

/**
 * The stack's `windows-estate:<key>` values as a component's args (`<key>`), each decoded once (stacks/load.ts
 * stackKeyValues), the WMCO key a secret when the stack keeps it one; the stack's other problems (its file, other
 * namespaces, unknown keys) end the run here, with nothing declared. `vanilla`: `cluster.platform: Kubernetes`, the args
 * of a VanillaEstate, else of a WindowsEstate.
 */
export function argsFromStack<A extends object>(
  raw: RawConfig = rawConfigFromRuntime(),
  fileIssues: readonly ConfigIssue[] = stackFileIssuesIn(process.cwd(), pulumi.getStack()),
): { args: A; reader: Reader; vanilla: boolean } {
  let kv;
  try {
    kv = stackKeyValues(raw, fileIssues);
    // Problems of the stack config around the args (its file, other namespaces, unknown keys) end the run here, before
    // the component is registered: nothing at all is declared.
    if (kv.issues.length > 0) throw new ConfigErrors([...kv.issues]);
  } catch (e) {
    if (e instanceof ConfigErrors) throw new pulumi.RunError(e.message);
    throw e;
  }
  const { values: all, ...around } = kv;
  // The keys the scripts alone read (`pipeline`) are no arg of a component.
  const values = Object.fromEntries(Object.entries(all).filter(([k]) => isComponentKey(k)));
  const key = values.privateKey;
  const args =
    key !== undefined && raw.secretKeys.has(`${NAMESPACE}:privateKey`)
      ? { ...values, privateKey: pulumi.secret(key) }
      : values;
  return {
    args: args as A, // the keys the loader checks as the component's, by the names the args interfaces use
    reader: { audience: STACK_AUDIENCE, ...around },
    vanilla: get(values.cluster, "platform") === "Kubernetes",
  };
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
