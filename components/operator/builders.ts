import { NAMESPACE_LABELS } from "../../facts/wmco";
import { OperatorConfig } from "../../stacks/schema/operator";

/** Labels every object this program creates carries, so `oc get -l` finds them and nobody mistakes their owner. */
export const MANAGED_BY = { "app.kubernetes.io/managed-by": "windows-estate" } as const;

interface ObjectMeta {
  name: string;
  namespace?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}

interface NamespaceObject {
  apiVersion: "v1";
  kind: "Namespace";
  metadata: ObjectMeta;
}

interface OperatorGroupObject {
  apiVersion: "operators.coreos.com/v1";
  kind: "OperatorGroup";
  metadata: ObjectMeta;
  spec: { targetNamespaces: string[]; upgradeStrategy: "Default" };
}

interface SubscriptionObject {
  apiVersion: "operators.coreos.com/v1alpha1";
  kind: "Subscription";
  metadata: ObjectMeta;
  spec: {
    channel: string;
    installPlanApproval: "Automatic" | "Manual";
    name: string;
    source: string;
    sourceNamespace: string;
    startingCSV?: string;
    config?: { env: { name: string; value: string }[] };
  };
}

/**
 * The operator's namespace with the labels WMCO's install script sets (`NAMESPACE_LABELS`): cluster monitoring, PodSecurity
 * label sync, and the `privileged` PodSecurity level the operator pod needs (it uses host networking).
 */
export function buildNamespace(op: OperatorConfig): NamespaceObject {
  return {
    apiVersion: "v1",
    kind: "Namespace",
    metadata: { name: op.namespace, labels: { ...MANAGED_BY, ...NAMESPACE_LABELS } },
  };
}

/** WMCO supports only the OwnNamespace install mode and refuses to start with any other target. */
export function buildOperatorGroup(op: OperatorConfig): OperatorGroupObject {
  return {
    apiVersion: "operators.coreos.com/v1",
    kind: "OperatorGroup",
    metadata: { name: op.package, namespace: op.namespace, labels: { ...MANAGED_BY } },
    spec: { targetNamespaces: [op.namespace], upgradeStrategy: "Default" },
  };
}

export function buildSubscription(op: OperatorConfig): SubscriptionObject {
  const env = Object.entries(op.env)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([name, value]) => ({ name, value }));
  return {
    apiVersion: "operators.coreos.com/v1alpha1",
    kind: "Subscription",
    metadata: { name: op.package, namespace: op.namespace, labels: { ...MANAGED_BY } },
    spec: {
      channel: op.channel,
      installPlanApproval: op.installPlanApproval,
      name: op.package,
      source: op.source,
      sourceNamespace: op.sourceNamespace,
      ...(op.startingCSV ? { startingCSV: op.startingCSV } : {}),
      ...(env.length > 0 ? { config: { env } } : {}),
    },
  };
}
