import { NAMESPACE_LABELS } from "../../facts/wmco";
import { OperatorConfig } from "../../stacks/schema/operator";

/** Labels every object this program creates carries, so `oc get -l` finds them and nobody mistakes their owner. */
export const MANAGED_BY = { "app.kubernetes.io/managed-by": "windows-estate" } as const;

/**
 * The operator's namespace with the labels WMCO's install script sets (`NAMESPACE_LABELS`): cluster monitoring, PodSecurity
 * label sync, and the `privileged` PodSecurity level the operator pod needs (it uses host networking).
 */
export function buildNamespace(op: OperatorConfig) {
  const labels: Record<string, string> = { ...MANAGED_BY, ...NAMESPACE_LABELS };
  return {
    apiVersion: "v1" as const,
    kind: "Namespace" as const,
    metadata: { name: op.namespace, labels },
  };
}

/** WMCO supports only the OwnNamespace install mode and refuses to start with any other target. */
export function buildOperatorGroup(op: OperatorConfig) {
  return {
    apiVersion: "operators.coreos.com/v1",
    kind: "OperatorGroup",
    metadata: { name: op.package, namespace: op.namespace, labels: { ...MANAGED_BY } },
    spec: { targetNamespaces: [op.namespace], upgradeStrategy: "Default" },
  };
}

export function buildSubscription(op: OperatorConfig) {
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
