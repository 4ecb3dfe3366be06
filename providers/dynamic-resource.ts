/**
 * The one shape of the project's dynamic resources, declared once: a class whose constructor hands Pulumi the thin
 * provider registered under the resource's type (providers/thin.ts), the inputs made from its arguments, its output
 * names and the options with the outputs kept secret. Each resource then declares only what is its own.
 *
 * The type token stays `pulumi-nodejs:dynamic/windows-estate:<type>` (pulumi sdk/nodejs/dynamic/index.ts `Resource`),
 * so URNs and state are those of the classes that spelled this out by hand.
 */
import * as pulumi from "@pulumi/pulumi";
import { thinProvider } from "./thin";

export interface DynamicResourceSpec<Args> {
  /** The resource's inputs from its arguments (a key set to undefined is sent as absent). */
  inputs: (args: Args) => pulumi.Inputs;
  /**
   * The outputs the provider fills in that are not inputs. Pulumi makes an Output property of the resource for each
   * key of the props and only for those (sdk/nodejs/runtime/rpc.ts `transferProperties`), so a declared output must be
   * named here or among the inputs.
   */
  outputs?: readonly string[];
  /** `additionalSecretOutputs`, which replace the caller's: secret inputs stay secret in the provider's outputs too. */
  secretOutputs?: string[];
}

/** A dynamic resource's constructor, by its arguments. */
export type DynamicResourceClass<Args> = new (
  name: string,
  args: Args,
  opts?: pulumi.CustomResourceOptions,
) => pulumi.dynamic.Resource;

/**
 * The base class of the dynamic resource registered as `type` in providers/registry.ts. Typed as a constructor of
 * `pulumi.dynamic.Resource`, not the class expression: the declarations `npm run build` emits cannot spell out an
 * anonymous class whose base has private members (TS4094), and every subclass is exported.
 */
export function dynamicResource<Args>(type: string, spec: DynamicResourceSpec<Args>): DynamicResourceClass<Args> {
  return class extends pulumi.dynamic.Resource {
    constructor(name: string, args: Args, opts?: pulumi.CustomResourceOptions) {
      const outputs = Object.fromEntries((spec.outputs ?? []).map((k) => [k, undefined]));
      const secret = spec.secretOutputs;
      super(
        thinProvider(type),
        name,
        { ...spec.inputs(args), ...outputs },
        secret ? { ...opts, additionalSecretOutputs: secret } : opts,
        "windows-estate",
        type,
      );
    }
  };
}

/** The named arguments as inputs, each as given (an unset one becomes an Output property that stays undefined). */
export function pick<A>(args: A, keys: readonly (keyof A & string)[]): pulumi.Inputs {
  return Object.fromEntries(keys.map((k) => [k, args[k]]));
}

/** A secret input when set; unset stays unset (not a secret holding undefined). */
export function secretIf<T>(value: pulumi.Input<T> | undefined): pulumi.Output<pulumi.Unwrap<T>> | undefined {
  return value === undefined ? undefined : pulumi.secret(value);
}

/** The holder the cluster-wide day-2 lock records for this stack (providers/day2/day2-lock.ts). */
export function lockStack(): string {
  return `${pulumi.getProject()}/${pulumi.getStack()}`;
}

/** The arguments of a resource whose provider asks the cluster itself. */
export interface KubeAccessArgs {
  /**
   * Kubeconfig content or path; stored only as a secret. Default: KUBECONFIG, ~/.kube/config, then the in-cluster
   * service account (so it also works under the Pulumi Kubernetes Operator; providers/kube-wait/api.ts loadKubeConfig).
   */
  kubeconfig?: pulumi.Input<string>;
  /** Kubeconfig context. Default: the current context. */
  context?: pulumi.Input<string>;
}

/** How a resource's provider reaches the cluster: the kubeconfig (content or path) only ever as a secret, the context. */
export function kubeAccess(args: KubeAccessArgs) {
  return { kubeconfig: secretIf(args.kubeconfig), context: args.context };
}
