import * as pulumi from "@pulumi/pulumi";
import * as k8s from "@pulumi/kubernetes";
import { AnyEstateConfig, EstateConfig, Reader, VanillaEstateConfig } from "../stacks/load";
import { argsReader, loadArgs } from "../stacks/from-args";
import { ConfigIssue, formatIssue, formatIssues } from "../stacks/config-issue";
import { isOffline } from "../stacks/offline";
import { kubernetesProvider, providerArgs } from "./cluster-access";
import { annotateSyncWaves } from "./gitops/sync-waves";
import { DOMAIN_VALIDATORS } from "./validators";

/**
 * A component's options. `reader` (a stack's user) and `completed` (the args as completeArgs returned them) are the
 * program's alone (program.ts, through ComponentResource.create): it completes the args first, so that a problem ends
 * the run before the component is registered, and hands the result over here instead of having it done twice.
 */
export type EstateOptions<C = never> = pulumi.ComponentResourceOptions & { reader?: Reader; completed?: C };

/**
 * What a component states of its args: takes its kind of config (else says why not), completes it from the cluster
 * (the completed config unless there are issues, and every warning), says what it found, and declares the result
 * under the component `self`.
 */
export interface EstateSteps<L extends AnyEstateConfig, C, P = unknown> {
  accepts(c: AnyEstateConfig): c is L;
  otherKind(c: AnyEstateConfig): string;
  complete(loaded: L): Promise<{ completed?: C; issues: ConfigIssue[]; warnings: readonly ConfigIssue[] }>;
  announce?(c: C, log: Pick<typeof pulumi.log, "warn" | "info">): void;
  cluster(c: C): EstateConfig["cluster"] | VanillaEstateConfig["cluster"];
  declare(self: pulumi.ComponentResource, name: string, c: C): P;
}

/**
 * The args validated (stacks/from-args.ts), completed from the cluster, the problems thrown and the warnings told in
 * the reader's terms (on the component `on` for a library user; among the stack's own for a stack's user).
 */
async function completeArgs<L extends AnyEstateConfig, C>(
  args: object,
  reader: Reader,
  steps: EstateSteps<L, C>,
  on?: pulumi.Resource,
): Promise<C> {
  const { audience } = reader;
  const log = { warn: (m: string) => pulumi.log.warn(m, on), info: (m: string) => pulumi.log.info(m, on) };
  const loaded = await loadArgs(reader, args, DOMAIN_VALIDATORS);
  if (!steps.accepts(loaded)) throw new pulumi.RunError(`${audience.who}: ${steps.otherKind(loaded)}`);
  // Offline, synth has printed the stack's warnings already, before running the program.
  if (!audience.stack || !isOffline()) for (const w of loaded.warnings) log.warn(formatIssue(w, audience));
  const { completed, issues, warnings } = await steps.complete(loaded);
  if (issues.length > 0 || completed === undefined) throw new pulumi.RunError(formatIssues(issues, audience));
  // The warnings completion added (those of the args alone were told above).
  for (const w of warnings.slice(loaded.warnings.length)) log.warn(formatIssue(w, audience));
  steps.announce?.(completed, log);
  return completed;
}

/**
 * What WindowsEstate (components/estate.ts) and VanillaEstate (components/vanilla/estate.ts) share as components
 * taking args: the one way in (args validated and completed, problems and warnings told to whoever reads them), their
 * options and Kubernetes provider, when their children are declared, and the outputs made from them. Each component
 * states its type token, its steps and its outputs.
 *
 * Named `ComponentResource`, in a file whose name ends in `resource.ts`, because that is how the component analyzer
 * that makes the schema other languages get knows a component (@pulumi/pulumi 3.248.0
 * provider/experimental/analyzer.js `isPulumiComponent`): the class a component's `extends` names must be called
 * ComponentResource and be declared in a file so named; a subclass of a base named otherwise is "not found" (tried).
 * test/library/schema.test.ts runs that analyzer. The analyzer takes the outputs from the component class's own
 * members alone (`analyzeComponent`: `classSymbol.members`, every symbol with the Property flag), so what this base
 * keeps is no output; in a component itself even a `#private` or `private` field is one (`__#1@#declared`, refused as
 * an unsupported type; tried), hence the state is kept here.
 */
export abstract class ComponentResource<C, P> extends pulumi.ComponentResource {
  /** The parts declared, once the args are completed (rejects with the problems). */
  readonly #built: Promise<P>;
  readonly #reader: Reader;

  /**
   * The program's way in (program.ts): the args completed in the reader's terms before the component exists, so that
   * a problem ends the run with nothing registered; then the component, given the result, declares at once. A library
   * user needs none of this (the constructor completes the args itself).
   */
  static async create<A extends object, C, E>(
    this: { new (name: string, args: A, opts?: EstateOptions<C>): E; readonly steps: EstateSteps<AnyEstateConfig, C> },
    name: string,
    args: A,
    reader: Reader,
    opts?: pulumi.ComponentResourceOptions,
  ): Promise<E> {
    const completed = await completeArgs(args, reader, this.steps);
    return new this(name, args, { ...opts, reader, completed });
  }

  /**
   * `opts.transformations` gets two more: in render mode the sync waves of the rendered objects
   * (components/gitops/sync-waves.ts), and every descendant of type `kubernetes:*` without a provider of its own gets
   * the component's (a transformation runs in this process as each child registers, so a provider made after the
   * component, once its config is complete, still reaches every object).
   */
  protected constructor(
    type: string,
    name: string,
    args: { cluster?: { render?: string } },
    opts: EstateOptions<C> | undefined,
    steps: EstateSteps<AnyEstateConfig, C, P>,
  ) {
    const { reader = argsReader(`${type.split(":").pop()} ${name}`), completed, ...rest } = opts ?? {};
    let provider: pulumi.ProviderResource | undefined;
    const use: pulumi.ResourceTransformation = (a) =>
      provider && a.type.startsWith("kubernetes:") && !a.opts.provider
        ? { props: a.props, opts: pulumi.mergeOptions(a.opts, { provider }) }
        : undefined;
    const waves = args.cluster?.render === undefined ? [] : [annotateSyncWaves];
    super(type, name, {}, { ...rest, transformations: [...(rest.transformations ?? []), ...waves, use] });
    this.#reader = reader;
    const declare = (c: C): P => {
      // The program's provider (a top-level resource, as every existing stack has it), or a library user's
      // component's own child made from `cluster`, with ConfigMaps and Secrets changed in place (a replaced
      // `windows-instances` would make WMCO deconfigure every BYOH host; components/cluster-access.ts providerArgs).
      // A provider in the component's options is not used for that reason.
      const cluster = steps.cluster(c);
      provider = reader.audience.stack
        ? kubernetesProvider(cluster)
        : new k8s.Provider(`${name}-cluster`, providerArgs(cluster), { parent: this });
      return steps.declare(this, name, c);
    };
    // Completed already (the program's): declared at once, as the program always has, so that a failure is thrown
    // here, to the program, and no output can fail after it. Else (a library user) once the args are validated (the
    // key may be a secret Output) and completed (discovery asks the cluster), asynchronously: nothing is declared
    // until both have passed, and the outputs and whenDeclared reject with the problems, which are told on the
    // component (a stack's user's among the stack's own).
    this.#built =
      completed !== undefined
        ? Promise.resolve(declare(completed))
        : completeArgs(args, reader, steps, reader.audience.stack ? undefined : this).then(declare);
    // Reported through the outputs (and whenDeclared), so this promise alone never counts as unhandled.
    this.#built.catch(() => undefined);
  }

  /**
   * Resolves once the args are validated (and completed from the cluster) and every child is declared; rejects with
   * the problems found. A program that awaits it ends with that message alone, before any output is read.
   */
  whenDeclared(): Promise<void> {
    return this.#built.then(() => undefined);
  }

  /** One output from what the component declared: one Output per field, with only its own dependencies and secrecy. */
  protected part<T>(f: (p: P) => pulumi.Input<T>): pulumi.Output<T> {
    // output() of a promise of an Input<T> is an Output<T>.
    return pulumi.output(this.#built.then(f)) as pulumi.Output<T>;
  }

  /**
   * The outputs the component registers: through the program, its own once declared, as it always has; a library
   * user's none, as the SDK would (its outputs are read from the component's properties, by its program or the
   * component provider, not from the state).
   */
  protected registerDeclared(outputs: pulumi.Inputs): void {
    this.registerOutputs(this.#reader.audience.stack ? this.#built.then(() => outputs) : {});
  }
}
