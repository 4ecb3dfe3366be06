import * as pulumi from "@pulumi/pulumi";
import { thinProvider } from "../thin";

interface AccessArgs {
  /**
   * Kubeconfig content or path. Stored only as a secret. Default: KUBECONFIG, ~/.kube/config, then the in-cluster
   * service account (so the wait also works under the Pulumi Kubernetes Operator).
   */
  kubeconfig?: pulumi.Input<string>;
  /** Kubeconfig context. Default: the current context. */
  context?: pulumi.Input<string>;
  /** Give up after this many seconds (customTimeouts do not reach dynamic providers). */
  timeoutSeconds?: pulumi.Input<number>;
  /** Seconds between checks. Default 5. */
  intervalSeconds?: pulumi.Input<number>;
}

export interface OperatorReadyArgs extends AccessArgs {
  /** Namespace of the Subscription (WMCO's namespace). */
  namespace: pulumi.Input<string>;
  /** Subscription name. */
  subscription: pulumi.Input<string>;
  /**
   * What the Subscription asks OLM for (channel, source, sourceNamespace, startingCSV, installPlanApproval): when it
   * changes, the Subscription is updated in place and OLM resolves again, so the wait runs again (an update).
   */
  subscriptionSpec?: pulumi.Input<Record<string, pulumi.Input<string | undefined>>>;
}

const MODULE = "windows-estate";

function withAccess(args: AccessArgs, defaultTimeout: number) {
  return {
    kubeconfig: args.kubeconfig === undefined ? undefined : pulumi.secret(args.kubeconfig),
    context: args.context,
    timeoutSeconds: args.timeoutSeconds ?? defaultTimeout,
    intervalSeconds: args.intervalSeconds ?? 5,
  };
}

/**
 * Completes when WMCO's installed CSV reports `Succeeded` and OLM is not replacing it (Subscription `AtLatestKnown`, or
 * an upgrade that awaits manual approval); fails fast, naming the InstallPlan, when manual approval is pending with
 * nothing installed, and on what OLM does not retry; says what OLM leaves silent (other than one OperatorGroup, a
 * CatalogSource that does not connect) and fails on it after a short grace (providers/kube-wait/olm.ts). Declare
 * dependents with `dependsOn` on it.
 */
export class OperatorReady extends pulumi.dynamic.Resource {
  /** The installed, succeeded CSV, e.g. `windows-machine-config-operator.v10.19.3`. */
  declare readonly installedCSV: pulumi.Output<string>;
  /** Its version, e.g. `10.19.3`. */
  declare readonly version: pulumi.Output<string>;

  constructor(name: string, args: OperatorReadyArgs, opts?: pulumi.CustomResourceOptions) {
    super(
      thinProvider("OperatorReady"),
      name,
      {
        namespace: args.namespace,
        subscription: args.subscription,
        subscriptionSpec: args.subscriptionSpec,
        ...withAccess(args, 900),
        installedCSV: undefined,
        version: undefined,
      },
      { ...opts, additionalSecretOutputs: ["kubeconfig"] },
      MODULE,
      "OperatorReady",
    );
  }
}

export interface ObjectExistsArgs extends AccessArgs {
  apiVersion: pulumi.Input<string>;
  kind: pulumi.Input<string>;
  namespace: pulumi.Input<string>;
  name: pulumi.Input<string>;
  /** Count the object only once `data[dataKey]` is set. */
  dataKey?: pulumi.Input<string>;
}

/**
 * Completes when a namespaced object exists (e.g. `openshift-machine-api/windows-user-data`, which WMCO writes). Its
 * outputs carry the object's resourceVersion and uid, never its data.
 */
export class ObjectExists extends pulumi.dynamic.Resource {
  declare readonly resourceVersion: pulumi.Output<string>;
  declare readonly uid: pulumi.Output<string>;

  constructor(name: string, args: ObjectExistsArgs, opts?: pulumi.CustomResourceOptions) {
    super(
      thinProvider("ObjectExists"),
      name,
      {
        apiVersion: args.apiVersion,
        kind: args.kind,
        namespace: args.namespace,
        name: args.name,
        dataKey: args.dataKey,
        ...withAccess(args, 600),
        resourceVersion: undefined,
        uid: undefined,
      },
      { ...opts, additionalSecretOutputs: ["kubeconfig"] },
      MODULE,
      "ObjectExists",
    );
  }
}

export interface ByohDeconfiguredArgs extends AccessArgs {
  /** WMCO's namespace (for messages). */
  namespace: pulumi.Input<string>;
}

/**
 * On `pulumi destroy`, waits until WMCO has removed every BYOH node before what it depends on (the WMCO key, the
 * operator, the namespace) is deleted. Make `windows-instances` depend on it.
 */
export class ByohDeconfigured extends pulumi.dynamic.Resource {
  constructor(name: string, args: ByohDeconfiguredArgs, opts?: pulumi.CustomResourceOptions) {
    super(
      thinProvider("ByohDeconfigured"),
      name,
      { namespace: args.namespace, ...withAccess(args, 1800) },
      { ...opts, additionalSecretOutputs: ["kubeconfig"] },
      MODULE,
      "ByohDeconfigured",
    );
  }
}

export interface ByohHostReleasedArgs extends AccessArgs {
  /** The host's address (a created VM's private IP). */
  address: pulumi.Input<string>;
  /** WMCO's namespace: a failure Event on its `windows-instances` there ends the wait with WMCO's words. */
  namespace?: pulumi.Input<string>;
}

/**
 * When a created BYOH host's entry is removed, waits until WMCO has deconfigured its node before the VM goes. Make it
 * depend on the VM (it is then deleted first).
 */
export class ByohHostReleased extends pulumi.dynamic.Resource {
  constructor(name: string, args: ByohHostReleasedArgs, opts?: pulumi.CustomResourceOptions) {
    super(
      thinProvider("ByohHostReleased"),
      name,
      { address: args.address, namespace: args.namespace, ...withAccess(args, 1800) },
      { ...opts, additionalSecretOutputs: ["kubeconfig"] },
      MODULE,
      "ByohHostReleased",
    );
  }
}

export interface WindowsNodesJoinedArgs extends AccessArgs {
  /** WMCO's namespace (where `windows-instances` and its Events are). */
  namespace: pulumi.Input<string>;
  /** The `windows-instances` keys of the BYOH hosts to wait for. */
  byoh: pulumi.Input<pulumi.Input<string>[]>;
  /** The Windows MachineSets to wait for, each with its replicas. */
  machineSets: pulumi.Input<pulumi.Input<{ name: pulumi.Input<string>; replicas: pulumi.Input<number> }>[]>;
  /** The running WMCO's version (the installed CSV's `spec.version`): nodes another WMCO configured do not count. */
  operatorVersion: pulumi.Input<string>;
}

/**
 * Completes when every expected Windows node has joined and the running WMCO has configured it (Ready, `version` ==
 * `desired-version`, of this WMCO, not cordoned, not upgrading); fails as soon as WMCO reports a setup failure for one
 * of them, quoting its Event; reports progress while it waits. Declare it after `windows-instances` and the
 * MachineSets.
 */
export class WindowsNodesJoined extends pulumi.dynamic.Resource {
  /** The joined nodes' names, sorted. */
  declare readonly nodes: pulumi.Output<string[]>;

  constructor(name: string, args: WindowsNodesJoinedArgs, opts?: pulumi.CustomResourceOptions) {
    super(
      thinProvider("WindowsNodesJoined"),
      name,
      {
        namespace: args.namespace,
        byoh: args.byoh,
        machineSets: args.machineSets,
        operatorVersion: args.operatorVersion,
        ...withAccess(args, 2700),
        nodes: undefined,
      },
      { ...opts, additionalSecretOutputs: ["kubeconfig"] },
      MODULE,
      "WindowsNodesJoined",
    );
  }
}
