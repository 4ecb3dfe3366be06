import * as pulumi from "@pulumi/pulumi";
import { AnyEstateConfig, Reader } from "../stacks/load";
import { completeArgs, EstateOptions, estateOptions, EstateSteps, kubernetesFor } from "./component-args";

/**
 * The shell WindowsEstate (components/estate.ts) and VanillaEstate (components/vanilla/estate.ts) share: the one way
 * in (components/component-args.ts), when the children are declared, and the outputs made from them. Each component
 * states its type token, its steps (completion and declaration) and its outputs.
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

  protected constructor(
    type: string,
    name: string,
    args: { cluster?: { render?: string } },
    opts: EstateOptions<C> | undefined,
    steps: EstateSteps<AnyEstateConfig, C, P>,
  ) {
    const { reader, completed, options, provider } = estateOptions(`${type.split(":").pop()} ${name}`, args, opts);
    super(type, name, {}, options);
    this.#reader = reader;
    const declare = (c: C): P => {
      provider.current = kubernetesFor(this, name, steps.cluster(c), reader);
      return steps.declare(this, name, c);
    };
    // Completed already (the program's): declared at once, as the program always has, so that a failure is thrown
    // here, to the program, and no output can fail after it. Else (a library user) once the args are validated (the
    // key may be a secret Output) and completed (discovery asks the cluster), asynchronously: nothing is declared
    // until both have passed, and the outputs and whenDeclared reject with the problems.
    // A library user's problems are told on the component; a stack's user's among the stack's own.
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
