import * as pulumi from "@pulumi/pulumi";
import { AnyEstateConfig, ConfigErrors, KeyValues, loadKeyValues, Reader, Validator } from "./load";
import { argsAudience, ConfigIssue, formatIssues } from "./config-issue";
import { isOffline } from "./offline";
import { isComponentKey, NAMESPACE } from "./schema";
import { secretKeysFromHost } from "./from-pulumi";

/** A library user of `component` (`WindowsEstate estate`): the caller's own stack config holds its secrets. */
export function argsReader(component: string): Reader {
  return {
    audience: argsAudience(component),
    secretKeys: secretKeysFromHost(),
    secretText: () => undefined,
    issues: [],
  };
}

/** How long a preview waits for an unknown arg before it says why (a secret from config is known at once). */
const UNKNOWN_ARG_MS = 60_000;

/** The args the component keeps secret in what it declares (the key Secret; the provider's and jobs' kubeconfig). */
const SECRET_ARGS = new Set(["privateKey", "cluster.kubeconfig"]);

/** The value of one Output arg, once known; at preview an unknown one (another resource's output) is an error. */
function valueOf(component: string, where: string, out: pulumi.Output<unknown>): Promise<unknown> {
  return new Promise((resolve, reject) => {
    // An unknown value never reaches apply: say so instead of waiting for ever.
    const timer = pulumi.runtime.isDryRun()
      ? setTimeout(
          () =>
            reject(
              new pulumi.RunError(
                `${component}: ${where} is not known at preview; pass a value from config (config.require, config.requireSecret) or a literal`,
              ),
            ),
          UNKNOWN_ARG_MS,
        )
      : undefined;
    out.apply((v) => {
      if (timer) clearTimeout(timer);
      resolve(v);
      return v;
    });
  });
}

/**
 * The args as plain data: every Output or promise in them (a component provider hands over secret and
 * resource-dependent inputs as Outputs; a TypeScript caller may pass them) resolved, and the paths that were secret.
 */
async function settle(component: string, where: string, v: unknown, secrets: string[]): Promise<unknown> {
  if (pulumi.Output.isInstance(v)) {
    const out = pulumi.output(v);
    if (await pulumi.isSecret(out)) secrets.push(where);
    return settle(component, where, await valueOf(component, where, out), secrets);
  }
  if (v instanceof Promise) return settle(component, where, await v, secrets);
  if (Array.isArray(v)) return Promise.all(v.map((x, i) => settle(component, `${where}[${i}]`, x, secrets)));
  if (typeof v === "object" && v !== null) {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) out[k] = await settle(component, where ? `${where}.${k}` : k, x, secrets);
    return out;
  }
  return v;
}

/**
 * The component's config from its args: the same loader and checks as the stack config (stacks/load.ts), each
 * problem named as the reader names it. `privateKey` must be a secret, as `windows-estate:privateKey` must be; a
 * secret anywhere the component would not keep one secret is refused rather than stored in plain text. Passwords
 * that BYOH hosts and nodes name (`passwordSecret`) are the caller's stack config secrets, as for the program.
 */
export async function loadArgs(
  reader: Reader,
  args: object,
  validators: readonly Validator[],
): Promise<AnyEstateConfig> {
  const { audience } = reader;
  const values: KeyValues["values"] = {};
  const secretKeys = new Set<string>(reader.secretKeys);
  const issues: ConfigIssue[] = [];
  const secrets: string[] = [];
  for (const [key, arg] of Object.entries(args)) {
    const value = await settle(audience.who, key, arg, secrets);
    if (value === undefined) continue;
    if (!isComponentKey(key)) {
      issues.push({ path: key, message: "is not an argument of this component (docs/library.md lists them)" });
      continue;
    }
    values[key] = value;
  }
  // Offline (synth), a library user's key is taken as given: nothing is stored.
  if (secrets.includes("privateKey") || (isOffline() && !audience.stack)) secretKeys.add(`${NAMESPACE}:privateKey`);
  for (const where of secrets.filter((w) => !SECRET_ARGS.has(w)))
    issues.push({
      path: where,
      message: `is a secret, which the component would store in plain text: only ${[...SECRET_ARGS].join(" and ")} are kept secret`,
    });
  if (issues.length > 0) throw new pulumi.RunError(formatIssues(issues, audience));
  try {
    return loadKeyValues(
      { ...reader, values, secretKeys },
      { projectDir: process.cwd(), stackName: pulumi.getStack(), offline: isOffline(), validators },
    );
  } catch (e) {
    if (e instanceof ConfigErrors) throw new pulumi.RunError(formatIssues(e.issues, audience));
    throw e;
  }
}
