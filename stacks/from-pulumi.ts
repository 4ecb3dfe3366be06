import * as pulumi from "@pulumi/pulumi";
import { AnyEstateConfig, ConfigErrors, loadAnyConfig, RawConfig, Validator } from "./load";
import { isOffline } from "./offline";

/**
 * The language host hands the program its config in `PULUMI_CONFIG` and the keys the engine decrypted (set with
 * `--secret`) in `PULUMI_CONFIG_SECRET_KEYS`, a JSON list; no public SDK API tells a secret key from a plain one, and
 * the loader needs that to refuse a private key stored in plain text. Synth sets the same variable.
 */
export const SECRET_KEYS_ENV = "PULUMI_CONFIG_SECRET_KEYS";

function secretKeysFromHost(env: NodeJS.ProcessEnv = process.env): Set<string> {
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
 * Loads and validates the stack config inside a Pulumi program. A config problem ends the run with a RunError:
 * every problem listed, no stack trace, nothing declared.
 */
export function loadStackConfig(validators: readonly Validator[]): AnyEstateConfig {
  const denied = defaultProviderProblem(pulumi.runtime.allConfig()["pulumi:disable-default-providers"]);
  if (denied) throw new pulumi.RunError(denied);
  try {
    const cfg = loadAnyConfig(rawConfigFromRuntime(), {
      projectDir: process.cwd(),
      stackName: pulumi.getStack(),
      offline: isOffline(),
      validators,
    });
    // Offline, synth has printed the warnings already, before running the program.
    if (!isOffline()) for (const w of cfg.warnings) pulumi.log.warn(`windows-estate:${w.path}: ${w.message}`);
    return cfg;
  } catch (e) {
    if (e instanceof ConfigErrors) throw new pulumi.RunError(e.message);
    throw e;
  }
}

/**
 * `pulumi:disable-default-providers: ["*"]` also denies the `pulumi-nodejs` provider that every dynamic resource
 * (the waits, the BYOH hosts, the AMI pin) runs under: the engine exempts only the package `pulumi`
 * (pulumi/pulumi pkg/resource/deploy/default_providers.go `shouldDenyRequest`). Said before anything is declared.
 */
export function defaultProviderProblem(raw: string | undefined): string | undefined {
  if (raw === undefined || raw === "") return undefined;
  let list: unknown;
  try {
    list = JSON.parse(raw);
  } catch {
    return `pulumi:disable-default-providers must be a list, e.g. ["kubernetes", "aws"]`;
  }
  if (Array.isArray(list) && list.some((s) => typeof s === "string" && s.trim() === "*")) {
    return (
      `pulumi:disable-default-providers: "*" also disables the pulumi-nodejs provider this program's dynamic resources need; ` +
      `list the packages instead: pulumi config set --path 'pulumi:disable-default-providers[0]' kubernetes (and [1] aws)`
    );
  }
  return undefined;
}
