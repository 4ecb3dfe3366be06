import * as pulumi from "@pulumi/pulumi";
import {
  AnyEstateConfig,
  ConfigErrors,
  EstateConfig,
  loadAnyConfig,
  RawConfig,
  Validator,
  VanillaEstateConfig,
} from "./load";
import { ConfigIssue } from "./config-issue";
import { isOffline } from "./offline";
import { isTopLevelKey, NAMESPACE } from "./schema";
import { secretKeysFromHost } from "./from-pulumi";

/**
 * The program's own path into the components (program.ts): the stack config it has loaded, validated and completed
 * from the cluster (in config keys' terms, before anything is declared, as it always has), handed beside the args
 * (components/estate.ts withCompletedConfig; never part of the args, so not of the component schema). The component
 * then declares its children at once, as it did before it took args.
 */
/** What the program hands a component beside the args. */
export interface FromStack<C> {
  /** The stack config, loaded, validated and completed by discovery (program.ts). */
  completed: C;
  /**
   * Makes the program's Kubernetes provider (a top-level `cluster`, as every existing stack has it); a library user's
   * component makes its own child provider instead.
   */
  kubernetesProvider: (cluster: EstateConfig["cluster"] | VanillaEstateConfig["cluster"]) => pulumi.ProviderResource;
}

/** One problem as a library user reads it: the args path (`machineSets[0].aws.availabilityZone`) and the message. */
export function formatArgsIssue(i: ConfigIssue): string {
  // The checks are shared with the stack config, whose messages may name a key (`windows-estate:reboot`); as args,
  // the same names without the namespace.
  return `${i.key ?? i.path}: ${i.message.split(`${NAMESPACE}:`).join("")}`;
}

/** Every problem of a component's args, headed by the component (`WindowsEstate estate`). */
export function formatArgsIssues(component: string, issues: readonly ConfigIssue[]): string {
  const lines = issues.map((i) => `  ${formatArgsIssue(i)}`);
  return `${component}: the args have ${issues.length} problem${issues.length === 1 ? "" : "s"}:\n${lines.join("\n")}`;
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
 * `maxUnavailable` is a number or a percentage in the stack config; the args carry one text type for both (a
 * component schema has no unions: library/args.ts), so a whole number written as text is that number here.
 */
function wholeNumbers(key: string, value: unknown): unknown {
  if ((key !== "reboot" && key !== "patching") || typeof value !== "object" || value === null) return value;
  const m: unknown = Reflect.get(value, "maxUnavailable");
  return typeof m === "string" && /^\d+$/.test(m) ? { ...value, maxUnavailable: Number(m) } : value;
}

/**
 * The component's config from its args: the same loader and checks as the stack config (stacks/load.ts), each
 * problem named by its args path. `privateKey` must be a secret, as `windows-estate:privateKey` must be; a secret
 * anywhere the component would not keep one secret is refused rather than stored in plain text. Passwords that BYOH
 * hosts and nodes name (`passwordSecret`) are the caller's stack config secrets, as for the program.
 */
export async function loadArgs(
  component: string,
  args: object,
  validators: readonly Validator[],
): Promise<AnyEstateConfig> {
  const values: Record<string, string> = {};
  const secretKeys = new Set<string>(secretKeysFromHost());
  const issues: ConfigIssue[] = [];
  const secrets: string[] = [];
  for (const [key, arg] of Object.entries(args)) {
    const value = await settle(component, key, arg, secrets);
    if (value === undefined) continue;
    if (!isTopLevelKey(key)) {
      issues.push({ path: key, message: "is not an argument of this component (docs/library.md lists them)" });
      continue;
    }
    values[`${NAMESPACE}:${key}`] = typeof value === "string" ? value : JSON.stringify(wholeNumbers(key, value));
  }
  if (values[`${NAMESPACE}:privateKey`] !== undefined) {
    if (secrets.includes("privateKey")) secretKeys.add(`${NAMESPACE}:privateKey`);
    else if (!isOffline())
      issues.push({
        path: "privateKey",
        message:
          "must be a secret, or it is stored in plain text in the state: pass pulumi.secret(key) or config.requireSecret(...), or use privateKeyPath",
      });
  }
  for (const where of secrets.filter((w) => !SECRET_ARGS.has(w)))
    issues.push({
      path: where,
      message: `is a secret, which the component would store in plain text: only ${[...SECRET_ARGS].join(" and ")} are kept secret`,
    });
  if (issues.length > 0) throw new pulumi.RunError(formatArgsIssues(component, issues));
  // With a key that was not secret, the loader would repeat the message in stack-config terms.
  if (values[`${NAMESPACE}:privateKey`] !== undefined) secretKeys.add(`${NAMESPACE}:privateKey`);
  const raw: RawConfig = { values, secretKeys };
  try {
    const config = loadAnyConfig(raw, {
      projectDir: process.cwd(),
      stackName: pulumi.getStack(),
      offline: isOffline(),
      validators,
    });
    return config;
  } catch (e) {
    if (e instanceof ConfigErrors) throw new pulumi.RunError(formatArgsIssues(component, e.issues));
    throw e;
  }
}
