import * as pulumi from "@pulumi/pulumi";
import { RawConfig } from "../../stacks/load";
import { OFFLINE_ENV } from "../../stacks/offline";
import { get, str } from "../../lib/json";
import { SECRET_KEYS_ENV } from "../../stacks/from-pulumi";

/** One resource the program declared, as the engine would have received it. */

/** The mocked monitor's registration call, whose request carries each resource's dependencies. */
function hasRegisterResource(m: unknown): m is {
  registerResource(
    req: { getType(): string; getName(): string; getDependenciesList(): string[] },
    callback: unknown,
  ): unknown;
} {
  return typeof m === "object" && m !== null && "registerResource" in m && typeof m.registerResource === "function";
}

export interface DeclaredResource {
  type: string;
  name: string;
  /** `type::name`, unique in a stack (what the tree links parents by). */
  key: string;
  /** The parent's key. */
  parent?: string;
  custom: boolean;
  inputs: Record<string, unknown>;
  /**
   * The keys of the resources it depends on, as the SDK sends them to the engine (explicit `dependsOn`, a component
   * expanded to its resources, and the resources its inputs come from): what the engine orders creation and
   * deletion by.
   */
  dependsOn: string[];
}

export interface ProgramRun {
  resources: DeclaredResource[];
  /** The program's exports (stack outputs), resolved; secret ones flagged. */
  outputs: Record<string, { value: unknown; secret: boolean }>;
}

const keyOf = (type: string, name: string) => `${type}::${name}`;
/** `urn:pulumi:<stack>::<project>::<parent types>$<type>::<name>` → `type::name`. */
function keyOfUrn(urn: string): string {
  const [, , qualifiedType, ...name] = urn.split("::");
  return keyOf(qualifiedType.split("$").pop() ?? qualifiedType, name.join("::"));
}

/** An Output's value once resolved (mocks run as an update, so every value is known). */
function valueOf<T>(o: pulumi.Output<T>): Promise<T> {
  return new Promise((resolve) => o.apply((v) => (resolve(v), v)));
}

/**
 * Runs the real program under Pulumi's mock runtime (public APIs only: `setMocks`, a stack transformation to learn
 * each resource's parent, `pulumi.isSecret`, `runtime.getMonitor`): every resource is recorded with its inputs, its
 * parent and the dependencies the SDK registers it with, nothing is sent anywhere. Resources' outputs echo their
 * inputs, as a fresh `up` would. How the real engine then orders a plan is shown through the CLI
 * (test/e2e/plan.e2e.ts).
 */
export async function runProgram(
  programPath: string,
  project: string,
  stack: string,
  raw: RawConfig,
): Promise<ProgramRun> {
  process.env[OFFLINE_ENV] = "1";
  pulumi.runtime.setAllConfig({ ...raw.values }, [...raw.secretKeys]);
  // As the language host does: which keys the engine decrypted (stacks/from-pulumi.ts reads it).
  process.env[SECRET_KEYS_ENV] = JSON.stringify([...raw.secretKeys]);
  const byKey = new Map<string, DeclaredResource>();
  const parents = new Map<string, string | undefined>();
  const keys = new Map<pulumi.Resource, string>();
  const dependencies = new Map<string, string[]>();
  await pulumi.runtime.setMocks(
    {
      newResource(args) {
        const key = keyOf(args.type, args.name);
        byKey.set(key, {
          type: args.type,
          name: args.name,
          key,
          parent: parents.get(key),
          custom: args.custom ?? true,
          inputs: args.inputs,
          dependsOn: dependencies.get(key) ?? [],
        });
        return { id: str(get(args.inputs, "metadata", "name")) ?? `${args.name}-id`, state: args.inputs };
      },
      call(args) {
        throw new Error(
          `offline synth cannot call ${args.token}; the program must not look anything up when ${OFFLINE_ENV}=1`,
        );
      },
    },
    project,
    stack,
    false,
  );
  // The dependencies travel in the registration request, not in what the mocks see: read them on the way.
  const monitor: unknown = pulumi.runtime.getMonitor();
  if (!hasRegisterResource(monitor))
    throw new Error("offline synth: the mocked resource monitor has no registerResource to read dependencies from");
  const register = monitor.registerResource.bind(monitor);
  monitor.registerResource = (req, callback) => {
    dependencies.set(keyOf(req.getType(), req.getName()), req.getDependenciesList().map(keyOfUrn));
    return register(req, callback);
  };
  // The program runs inside a root Stack, as the language host runs it (`runInPulumiStack`, public). A stack
  // transformation sees every resource, parents first, before it is registered: enough to learn the tree.
  const outputs: ProgramRun["outputs"] = {};
  let failure: { error: unknown } | undefined;
  await pulumi.runtime.runInPulumiStack(async () => {
    pulumi.runtime.registerStackTransformation((args) => {
      const key = keyOf(args.type, args.name);
      keys.set(args.resource, key);
      parents.set(key, args.opts.parent ? keys.get(args.opts.parent) : undefined);
      return undefined;
    });
    // A program exports its outputs, or (like index.ts, which discovers before declaring) an async function
    // returning them; Pulumi accepts both.
    // layers-allow: the program under mocks, named by the caller (index.ts, program.ts or an example's).
    const mod: Record<string, unknown> | (() => Promise<Record<string, unknown>>) = require(programPath);
    let exported;
    try {
      exported = typeof mod === "function" ? await mod() : mod;
    } catch (e) {
      // Rethrown after the runtime is shut down: a rejection out of the root Stack's init also rejects promises the
      // SDK keeps internally, which nothing awaits (an unhandled rejection that ends an in-process caller).
      failure = { error: e };
      return undefined;
    }
    for (const [k, v] of Object.entries(exported)) {
      outputs[k] = pulumi.Output.isInstance(v)
        ? { value: await valueOf(v), secret: await pulumi.isSecret(v) }
        : { value: v, secret: false };
    }
    return undefined;
  });
  await pulumi.runtime.disconnect();
  if (failure) throw failure.error;
  // Components are registered without a `newResource` call; they are known from the transformation.
  for (const [key, parent] of parents) {
    if (byKey.has(key)) continue;
    const [type, name] = [key.slice(0, key.indexOf("::")), key.slice(key.indexOf("::") + 2)];
    byKey.set(key, { type, name, key, parent, custom: false, inputs: {}, dependsOn: dependencies.get(key) ?? [] });
  }
  return { resources: [...byKey.values()], outputs };
}
