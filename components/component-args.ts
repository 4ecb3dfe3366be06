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
 * What WindowsEstate and VanillaEstate share as components taking args (components/estate.ts,
 * components/vanilla/estate.ts): the one way in (args validated and completed, problems and warnings told to whoever
 * reads them), their options, their Kubernetes provider, their outputs, and when they are declared.
 */

type Cluster = EstateConfig["cluster"] | VanillaEstateConfig["cluster"];

const declaredOf = new WeakMap<pulumi.ComponentResource, Promise<void>>();

/**
 * Records when a component's children are declared. Kept beside the component, not in a property: every property of
 * a component class is an output of its schema (@pulumi/pulumi provider/experimental analyzer `analyzeComponent`).
 * A failure is reported through the outputs (and whenDeclared), so this promise alone never counts as unhandled.
 */
function declared<P>(c: pulumi.ComponentResource, built: Promise<P>): void {
  const done = built.then(() => undefined);
  done.catch(() => undefined);
  declaredOf.set(c, done);
}

/** Resolves once `c` has declared its children; rejects with the problems its args had. */
export function whenDeclared(c: pulumi.ComponentResource): Promise<void> {
  return declaredOf.get(c) ?? Promise.resolve();
}

/**
 * Each output of a component from what it declared: one Output per field, with only its own dependencies and secrecy.
 * Through the program a failure ends the run with the problems (program.ts awaits whenDeclared), told once: the
 * outputs, never read then, do not fail again (in-process runs such as synth have no host to report a rejection once).
 */
export function partOf<P>(built: Promise<P>, reader: Reader) {
  const failed = (e: unknown) => {
    if (reader.audience.stack) return undefined;
    throw e;
  };
  // output() of a promise of an Input<T> is an Output<T>.
  return <T>(f: (p: P) => pulumi.Input<T>): pulumi.Output<T> =>
    pulumi.output(built.then(f, failed)) as pulumi.Output<T>;
}

/**
 * A component's options. `reader` (a stack's user) and `completed` (the args as its static `complete` returned them)
 * are the program's alone (program.ts): it completes the args first, so that a problem ends the run before the
 * component is registered, and hands the result over here instead of having it done twice.
 */
export type EstateOptions<C = never> = pulumi.ComponentResourceOptions & { reader?: Reader; completed?: C };

/**
 * How one component completes its args: takes its kind of config (else says why not), completes it from the cluster
 * (the completed config unless there are issues, and every warning), says what it found.
 */
export interface EstateCompletion<L extends AnyEstateConfig, C> {
  accepts(c: AnyEstateConfig): c is L;
  otherKind(c: AnyEstateConfig): string;
  complete(loaded: L): Promise<{ completed?: C; issues: ConfigIssue[]; warnings: readonly ConfigIssue[] }>;
  announce?(c: C, log: Pick<typeof pulumi.log, "warn" | "info">): void;
}

/** And how it declares what it completed. */
interface EstateSteps<L extends AnyEstateConfig, C, P> extends EstateCompletion<L, C> {
  cluster(c: C): Cluster;
  declare(c: C): P;
}

/** Who reads a component, the args completed already (the program's), and the provider its objects get once made. */
type Way<C> = { reader: Reader; completed?: C; provider: { current?: pulumi.ProviderResource } };

/**
 * A component's way in (a library user's reader unless the program gave one) and its options for `super`, with its
 * transformations: in render mode the sync waves of the rendered objects (components/gitops/sync-waves.ts), and every
 * descendant of type `kubernetes:*` without a provider of its own gets the way's (a transformation runs in this
 * process as each child registers, so a provider made after the component, once its config is complete, still
 * reaches every object).
 */
export function estateOptions<C>(
  component: string,
  cluster: { render?: string } | undefined,
  opts: EstateOptions<C> | undefined,
): { way: Way<C>; options: pulumi.ComponentResourceOptions } {
  const { reader = argsReader(component), completed, ...rest } = opts ?? {};
  const provider: Way<C>["provider"] = {};
  const use: pulumi.ResourceTransformation = (a) => {
    const p = provider.current;
    return p && a.type.startsWith("kubernetes:") && !a.opts.provider
      ? { props: a.props, opts: pulumi.mergeOptions(a.opts, { provider: p }) }
      : undefined;
  };
  const waves = cluster?.render === undefined ? [] : [annotateSyncWaves];
  const transformations = [...(rest.transformations ?? []), ...waves, use];
  return {
    way: { reader, ...(completed !== undefined ? { completed } : {}), provider },
    options: { ...rest, transformations },
  };
}

/**
 * The args validated (stacks/from-args.ts), completed from the cluster, the problems thrown and the warnings told in
 * the reader's terms (on the component `on` for a library user; among the stack's own for a stack's user).
 */
export async function completeArgs<L extends AnyEstateConfig, C>(
  args: object,
  reader: Reader,
  steps: EstateCompletion<L, C>,
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
 * The one way in, for both components and both readers: the args completed (completeArgs, unless the program did it
 * before registering the component), then the Kubernetes provider made and the children declared. Nothing is declared
 * until all of that has passed.
 */
export function wayIn<L extends AnyEstateConfig, C, P>(
  self: pulumi.ComponentResource,
  name: string,
  args: object,
  way: Way<C>,
  steps: EstateSteps<L, C, P>,
): Promise<P> {
  // A stack's user reads them among the stack's own, as before the component took args; a library user's on it.
  const on = way.reader.audience.stack ? undefined : self;
  const completed =
    way.completed !== undefined ? Promise.resolve(way.completed) : completeArgs(args, way.reader, steps, on);
  const built = completed.then((c) => {
    way.provider.current = kubernetesFor(self, name, steps.cluster(c), way.reader);
    return steps.declare(c);
  });
  declared(self, built);
  return built;
}

/**
 * The outputs a component registers: through the program, its own once declared, as it always has (none if it fails:
 * the program ends with the problems, once); a library user's none, as the SDK would (its outputs are read from the
 * component's properties, by its program or the component provider, not from the state).
 */
export function registered<P>(reader: Reader, built: Promise<P>, outputs: pulumi.Inputs): Promise<pulumi.Inputs> {
  const none = () => ({});
  return reader.audience.stack ? built.then(() => outputs, none) : Promise.resolve(none());
}

/**
 * The Kubernetes provider the estate's objects use: the program's (a top-level resource, as every existing stack has
 * it), or a library user's component's own child made from `cluster`, with ConfigMaps and Secrets changed in place (a
 * replaced `windows-instances` would make WMCO deconfigure every BYOH host; components/cluster-access.ts
 * providerArgs). A provider in the component's options is not used for that reason.
 */
function kubernetesFor(parent: pulumi.ComponentResource, name: string, cluster: Cluster, reader: Reader) {
  const own = () => new k8s.Provider(`${name}-cluster`, providerArgs(cluster), { parent });
  return reader.audience.stack ? kubernetesProvider(cluster) : own();
}
