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

/**
 * The program's own path into the components (program.ts): the stack config it has loaded, validated and completed
 * from the cluster (in config keys' terms, before anything is declared, as it always has), carried beside the args
 * under a symbol (never part of the args' type, so not of the component schema). The component then declares its
 * children at once, as it did before it took args.
 */
const FROM_STACK = Symbol.for("windows-estate.fromStack");

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

/** The args with the config they were mapped from attached (program.ts). */
export function fromStackConfig<A extends object, C>(args: A, from: FromStack<C>): A {
  Object.defineProperty(args, FROM_STACK, { value: from, enumerable: false });
  return args;
}

/** What the program attached to the args, if they came from it. */
export function stackConfigOf<C>(args: object): FromStack<C> | undefined {
  const v: unknown = Reflect.get(args, FROM_STACK);
  return v === undefined ? undefined : (v as FromStack<C>); // set only by fromStackConfig, for this component's C
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

/** How long a preview waits for an unknown `privateKey` before it says why (a secret from config is known at once). */
const UNKNOWN_KEY_MS = 60_000;

/**
 * The value and secrecy of the `privateKey` arg: a plain string, a promise, or an Output (a secret from
 * `config.requireSecret`, or what a component provider hands over for a secret input).
 */
async function resolveKey(
  component: string,
  key: pulumi.Input<string> | undefined,
): Promise<{ value?: string; secret: boolean }> {
  if (key === undefined) return { secret: false };
  if (!pulumi.Output.isInstance(key)) return { value: await key, secret: false };
  const out = pulumi.output(key);
  const secret = await pulumi.isSecret(out);
  const value = await new Promise<string>((resolve, reject) => {
    // An unknown value (another resource's output, at preview) never reaches apply: say so instead of waiting.
    const timer = pulumi.runtime.isDryRun()
      ? setTimeout(
          () =>
            reject(
              new pulumi.RunError(
                `${component}: privateKey is not known at preview; pass the key from config (config.requireSecret) or a file (privateKeyPath)`,
              ),
            ),
          UNKNOWN_KEY_MS,
        )
      : undefined;
    out.apply((v) => {
      if (timer) clearTimeout(timer);
      resolve(v);
      return v;
    });
  });
  return { value, secret };
}

/**
 * The component's config from its args: the same loader and checks as the stack config (stacks/load.ts), each
 * problem named by its args path. `privateKey` must be a secret, as `windows-estate:privateKey` must be.
 */
export async function loadArgs(
  component: string,
  args: { privateKey?: pulumi.Input<string> },
  validators: readonly Validator[],
): Promise<AnyEstateConfig> {
  const values: Record<string, string> = {};
  const secretKeys = new Set<string>();
  const issues: ConfigIssue[] = [];
  for (const [key, value] of Object.entries(args)) {
    if (value === undefined) continue;
    if (!isTopLevelKey(key)) {
      issues.push({ path: key, message: "is not an argument of this component (docs/library.md lists them)" });
      continue;
    }
    if (key === "privateKey") {
      const k = await resolveKey(component, args.privateKey);
      if (k.value === undefined) continue;
      if (!k.secret && !isOffline())
        issues.push({
          path: key,
          message:
            "must be a secret, or it is stored in plain text in the state: pass pulumi.secret(key) or config.requireSecret(...), or use privateKeyPath",
        });
      values[`${NAMESPACE}:${key}`] = k.value;
      secretKeys.add(`${NAMESPACE}:${key}`);
      continue;
    }
    values[`${NAMESPACE}:${key}`] = typeof value === "string" ? value : JSON.stringify(value);
  }
  if (issues.length > 0) throw new pulumi.RunError(formatArgsIssues(component, issues));
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
