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
 * components/vanilla/estate.ts, through their base components/estate-resource.ts): the one way in (args validated
 * and completed, problems and warnings told to whoever reads them), their options and their Kubernetes provider.
 */

type Cluster = EstateConfig["cluster"] | VanillaEstateConfig["cluster"];

/**
 * A component's options. `reader` (a stack's user) and `completed` (the args as completeArgs returned them) are the
 * program's alone (program.ts, through components/estate-resource.ts `create`): it completes the args first, so that
 * a problem ends the run before the component is registered, and hands the result over here instead of having it
 * done twice.
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

/** And how it declares what it completed, under the component `self` (components/estate-resource.ts). */
export interface EstateSteps<L extends AnyEstateConfig, C, P = unknown> extends EstateCompletion<L, C> {
  cluster(c: C): Cluster;
  declare(self: pulumi.ComponentResource, name: string, c: C): P;
}

/**
 * Who reads a component (a library user unless the program said), the args completed already (the program's), and
 * its options for `super`, with its transformations: in render mode the sync waves of the rendered objects
 * (components/gitops/sync-waves.ts), and every descendant of type `kubernetes:*` without a provider of its own gets
 * `provider.current` (a transformation runs in this process as each child registers, so a provider made after the
 * component, once its config is complete, still reaches every object).
 */
export function estateOptions<C>(
  component: string,
  args: { cluster?: { render?: string } },
  opts: EstateOptions<C> | undefined,
): {
  reader: Reader;
  completed?: C;
  options: pulumi.ComponentResourceOptions;
  provider: { current?: pulumi.ProviderResource };
} {
  const { reader = argsReader(component), completed, ...rest } = opts ?? {};
  const provider: { current?: pulumi.ProviderResource } = {};
  const use: pulumi.ResourceTransformation = (a) => {
    const p = provider.current;
    return p && a.type.startsWith("kubernetes:") && !a.opts.provider
      ? { props: a.props, opts: pulumi.mergeOptions(a.opts, { provider: p }) }
      : undefined;
  };
  const waves = args.cluster?.render === undefined ? [] : [annotateSyncWaves];
  const transformations = [...(rest.transformations ?? []), ...waves, use];
  return { reader, ...(completed !== undefined ? { completed } : {}), options: { ...rest, transformations }, provider };
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
 * The Kubernetes provider the estate's objects use: the program's (a top-level resource, as every existing stack has
 * it), or a library user's component's own child made from `cluster`, with ConfigMaps and Secrets changed in place (a
 * replaced `windows-instances` would make WMCO deconfigure every BYOH host; components/cluster-access.ts
 * providerArgs). A provider in the component's options is not used for that reason.
 */
export function kubernetesFor(parent: pulumi.ComponentResource, name: string, cluster: Cluster, reader: Reader) {
  const own = () => new k8s.Provider(`${name}-cluster`, providerArgs(cluster), { parent });
  return reader.audience.stack ? kubernetesProvider(cluster) : own();
}
