import * as pulumi from "@pulumi/pulumi";
import { dynamicResource, kubeAccess, KubeAccessArgs, pick } from "../dynamic-resource";

/** The cluster access of a wait and how long it waits. */
export interface AccessArgs extends KubeAccessArgs {
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

/**
 * The base class of a wait: its own inputs `own` as given, the cluster access with `timeout` seconds by default and a
 * check every 5 seconds, the kubeconfig kept secret; `outputs` are what the provider reports.
 */
export function kubeWait<Args extends AccessArgs>(
  type: string,
  own: (keyof Args & string)[],
  timeout: number,
  outputs?: string[],
) {
  return dynamicResource(type, {
    inputs: (args: Args) => ({
      ...pick(args, own),
      ...kubeAccess(args),
      timeoutSeconds: args.timeoutSeconds ?? timeout,
      intervalSeconds: args.intervalSeconds ?? 5,
    }),
    outputs,
    secretOutputs: ["kubeconfig"],
  });
}

/**
 * Completes when WMCO's installed CSV reports `Succeeded` and OLM is not replacing it (Subscription `AtLatestKnown`, or
 * an upgrade that awaits manual approval); fails fast, naming the InstallPlan, when manual approval is pending with
 * nothing installed, and on what OLM does not retry; says what OLM leaves silent (other than one OperatorGroup, a
 * CatalogSource that does not connect) and fails on it after a short grace (providers/kube-wait/olm.ts). Declare
 * dependents with `dependsOn` on it.
 */
export class OperatorReady extends kubeWait<OperatorReadyArgs>(
  "OperatorReady",
  ["namespace", "subscription", "subscriptionSpec"],
  900,
  ["installedCSV", "version"],
) {
  /** The installed, succeeded CSV, e.g. `windows-machine-config-operator.v10.19.3`. */
  declare readonly installedCSV: pulumi.Output<string>;
  /** Its version, e.g. `10.19.3`. */
  declare readonly version: pulumi.Output<string>;
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
export class ObjectExists extends kubeWait<ObjectExistsArgs>(
  "ObjectExists",
  ["apiVersion", "kind", "namespace", "name", "dataKey"],
  600,
  ["resourceVersion", "uid"],
) {
  declare readonly resourceVersion: pulumi.Output<string>;
  declare readonly uid: pulumi.Output<string>;
}

export interface ByohDeconfiguredArgs extends AccessArgs {
  /** WMCO's namespace (for messages). */
  namespace: pulumi.Input<string>;
}

/**
 * On `pulumi destroy`, waits until WMCO has removed every BYOH node before what it depends on (the WMCO key, the
 * operator, the namespace) is deleted. Make `windows-instances` depend on it.
 */
export class ByohDeconfigured extends kubeWait<ByohDeconfiguredArgs>("ByohDeconfigured", ["namespace"], 1800) {}

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
export class ByohHostReleased extends kubeWait<ByohHostReleasedArgs>(
  "ByohHostReleased",
  ["address", "namespace"],
  1800,
) {}

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
export class WindowsNodesJoined extends kubeWait<WindowsNodesJoinedArgs>(
  "WindowsNodesJoined",
  ["namespace", "byoh", "machineSets", "operatorVersion"],
  2700,
  ["nodes"],
) {
  /** The joined nodes' names, sorted. */
  declare readonly nodes: pulumi.Output<string[]>;
}
