import * as pulumi from "@pulumi/pulumi";
import * as k8s from "@pulumi/kubernetes";
import { EstateConfig, VanillaEstateConfig } from "../stacks/load";
import { FromStack } from "../stacks/from-args";
import { providerArgs } from "./cluster-access";
import { annotateSyncWaves } from "./gitops/sync-waves";

/**
 * What WindowsEstate and VanillaEstate share as components taking args (components/estate.ts,
 * components/vanilla/estate.ts): their options, their Kubernetes provider, their outputs, and when they are declared.
 */

type Cluster = EstateConfig["cluster"] | VanillaEstateConfig["cluster"];

const declaredOf = new WeakMap<pulumi.ComponentResource, Promise<void>>();

/**
 * Records when a component's children are declared. Kept beside the component, not in a property: every property of
 * a component class is an output of its schema (@pulumi/pulumi provider/experimental analyzer `analyzeComponent`).
 * A failure is reported through the outputs (and whenDeclared), so this promise alone never counts as unhandled.
 */
export function declared<P>(c: pulumi.ComponentResource, built: P | Promise<P>): void {
  const done = Promise.resolve(built).then(() => undefined);
  done.catch(() => undefined);
  declaredOf.set(c, done);
}

/** Resolves once `c` has declared its children; rejects with the problems its args had. */
export function whenDeclared(c: pulumi.ComponentResource): Promise<void> {
  return declaredOf.get(c) ?? Promise.resolve();
}

/**
 * Each output of a component from what it declared, now (through the program) or once declared (as a library): one
 * Output per field, so each carries only its own dependencies and secrecy.
 */
export function partOf<P>(built: P | Promise<P>) {
  return <T>(f: (p: P) => pulumi.Input<T>): pulumi.Output<T> =>
    // output() of an Input<T>, or of a promise of one, is an Output<T>.
    (built instanceof Promise ? pulumi.output(built.then(f)) : pulumi.output(f(built))) as pulumi.Output<T>;
}

/**
 * The Kubernetes provider the estate's objects use: the program's (made once the config is complete), or the
 * component's own child made from `cluster`, with ConfigMaps and Secrets changed in place (a replaced
 * `windows-instances` would make WMCO deconfigure every BYOH host; components/cluster-access.ts providerArgs). A
 * provider in the component's options is not used for that reason.
 */
export function kubernetesFor(
  parent: pulumi.ComponentResource,
  name: string,
  cluster: Cluster,
  fromStack: FromStack<unknown> | undefined,
): pulumi.ProviderResource {
  return fromStack
    ? fromStack.kubernetesProvider(cluster)
    : new k8s.Provider(`${name}-cluster`, providerArgs(cluster), { parent });
}

/**
 * The component's options with its transformations: in render mode the sync waves of the rendered objects
 * (components/gitops/sync-waves.ts), and every descendant of type `kubernetes:*` without a provider of its own gets
 * the one `provider()` returns (a transformation runs in this process as each child registers, so a provider made
 * after the component, once its config is validated, still reaches every object).
 */
export function componentOptions(
  opts: pulumi.ComponentResourceOptions | undefined,
  cluster: { render?: string } | undefined,
  provider: () => pulumi.ProviderResource | undefined,
): pulumi.ComponentResourceOptions {
  const use: pulumi.ResourceTransformation = (a) => {
    const p = provider();
    return p && a.type.startsWith("kubernetes:") && !a.opts.provider
      ? { props: a.props, opts: pulumi.mergeOptions(a.opts, { provider: p }) }
      : undefined;
  };
  const waves = cluster?.render === undefined ? [] : [annotateSyncWaves];
  return { ...opts, transformations: [...(opts?.transformations ?? []), ...waves, use] };
}
