import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import { OperatorConfig } from "../../stacks/schema/operator";
import { ClusterAccess } from "../cluster-access";
import { OperatorReady } from "../../providers/kube-wait/resources";
import { buildNamespace, buildOperatorGroup, buildSubscription } from "./builders";

export interface WmcoOperatorArgs {
  /** The validated `windows-estate:operator` settings (defaults applied). */
  operator: OperatorConfig;
  /**
   * How to reach the cluster's API to wait for the operator. When undefined (render mode: no cluster), nothing
   * waits and dependents follow as soon as the OLM objects are declared.
   */
  access?: ClusterAccess;
}

/**
 * WMCO installed through OLM: Namespace, OperatorGroup (OwnNamespace) and Subscription, plus a wait resource
 * that completes only when the installed CSV reports `Succeeded`.
 *
 * Why a wait resource and not `pulumi.com/waitFor` on the Subscription: a Subscription reaches `AtLatestKnown`
 * before its CSV has finished installing, and with `Manual` approval it sits in `UpgradePending` forever. The
 * wait resource follows Subscription → InstallPlan → CSV, fails fast naming an InstallPlan that awaits approval,
 * and reports a failed CSV's reason instead of timing out silently. It also reads what OLM (v0.41.0) leaves unsaid:
 * the namespace's OperatorGroups (OLM resolves nothing unless there is exactly one, and only logs it) and the
 * CatalogSource's connection (OLM calls an address source healthy whether or not it answers).
 */
export class WmcoOperator extends pulumi.ComponentResource {
  /** Namespace WMCO runs in. */
  readonly namespace: pulumi.Output<string>;
  /** Subscription name (the OLM package). */
  readonly subscriptionName: pulumi.Output<string>;
  /** The CSV that is installed and `Succeeded`, e.g. `windows-machine-config-operator.v10.19.3`; unknown in render mode. */
  readonly installedCSV: pulumi.Output<string | undefined>;
  /** That CSV's `spec.version`, e.g. `10.19.3`; unknown in render mode. */
  readonly version: pulumi.Output<string | undefined>;

  constructor(name: string, args: WmcoOperatorArgs, opts?: pulumi.ComponentResourceOptions) {
    super("windows-estate:index:WmcoOperator", name, {}, opts);
    const op = args.operator;
    const ns = new k8s.core.v1.Namespace(`${name}-namespace`, buildNamespace(op), { parent: this });
    // Named like the package, so a new package (operator.community, operator.package) replaces it. Created before the
    // old one went, the namespace would have two OperatorGroups, and OLM resolves nothing then (resolver/
    // fail_forward.go `IsFailForwardEnabled`): the new Subscription would never install, the wait would fail, and
    // the old group, deleted only after the wait, would stay. So the old one goes first.
    const group = new k8s.apiextensions.CustomResource(`${name}-operatorgroup`, buildOperatorGroup(op), {
      parent: this,
      dependsOn: [ns],
      deleteBeforeReplace: true,
    });
    const sub = new k8s.apiextensions.CustomResource(`${name}-subscription`, buildSubscription(op), {
      parent: this,
      dependsOn: [group],
    });
    this.namespace = ns.metadata.name;
    this.subscriptionName = pulumi.output(op.package);
    if (args.access) {
      const ready = new OperatorReady(
        `${name}-ready`,
        {
          namespace: op.namespace,
          subscription: op.package,
          // A new channel, source or startingCSV updates the Subscription in place: OLM resolves again, and so the
          // wait must run again rather than keep what it saw for the old spec.
          subscriptionSpec: {
            channel: op.channel,
            installPlanApproval: op.installPlanApproval,
            source: op.source,
            sourceNamespace: op.sourceNamespace,
            startingCSV: op.startingCSV,
          },
          kubeconfig: args.access.kubeconfig,
          context: args.access.context,
          timeoutSeconds: op.waitTimeoutSeconds,
        },
        { parent: this, dependsOn: [sub] },
      );
      this.installedCSV = ready.installedCSV;
      this.version = ready.version;
    } else {
      this.installedCSV = pulumi.output(undefined);
      this.version = pulumi.output(undefined);
    }
    this.registerOutputs({
      namespace: this.namespace,
      subscriptionName: this.subscriptionName,
      installedCSV: this.installedCSV,
    });
  }
}
