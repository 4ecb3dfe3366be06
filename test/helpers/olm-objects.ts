/**
 * OLM objects as the API serves them for an installed WMCO (hand-built; validated against operator-framework/api's
 * schemas by the tests that serve them).
 */
export const WMCO_NAMESPACE = "openshift-windows-machine-config-operator";
export const WMCO_PACKAGE = "windows-machine-config-operator";

export function wmcoSubscription(installedCSV: string, extraStatus: Record<string, unknown> = {}) {
  return {
    apiVersion: "operators.coreos.com/v1alpha1",
    kind: "Subscription",
    metadata: { name: WMCO_PACKAGE, namespace: WMCO_NAMESPACE },
    spec: { name: WMCO_PACKAGE, source: "redhat-operators", sourceNamespace: "openshift-marketplace" },
    status: { installedCSV, lastUpdated: "2026-11-01T00:00:00Z", ...extraStatus },
  };
}
