/**
 * The cluster prerequisites WMCO refuses to run without (openshift/windows-machine-config-operator
 * pkg/cluster/config.go: `getNetworkType`, `ovnKubernetes.Validate`), and the ones users trip on: a class E cluster
 * network (OpenShift docs, "Windows container workloads": class E CIDRs are not compatible with Windows nodes) and
 * the vSphere custom VXLAN port (docs/wmco-prerequisites.md). Pure: given the objects discovery read, what is wrong
 * and the fix. WMCO's docs (docs/wmco-prerequisites.md "Supported Networking", release-4.18 to master) say the network
 * configuration must be completed while the cluster is installed, so the fix is never a patch of a running cluster.
 */
import type { ConfigIssue } from "../../stacks/config-issue";
import type { Platform } from "../../stacks/schema/cluster";

import type { NetworkFacts, ProxyFacts } from "../cluster-objects";

/** The hybrid network the OpenShift docs use in their example ("Configuring hybrid networking"). */
const EXAMPLE_HYBRID_NETWORK = { cidr: "10.132.0.0/14", hostPrefix: 23 };
/** The custom VXLAN port of the docs' vSphere example; anything but 4789 (the default, held by OVN on Linux). */
const EXAMPLE_VXLAN_PORT = 9898;

/** The `hybridOverlayConfig` an install-time `networks.operator.openshift.io` manifest would carry (docs' example). */
export function hybridOverlayConfig(platform: Platform): string {
  const hybrid: Record<string, unknown> = { hybridClusterNetwork: [EXAMPLE_HYBRID_NETWORK] };
  if (platform === "VSphere") hybrid.hybridOverlayVXLANPort = EXAMPLE_VXLAN_PORT;
  return JSON.stringify(hybrid);
}

/** Where the fix goes, per WMCO's docs; said once, in every hybrid networking message. */
const AT_INSTALLATION =
  "WMCO's prerequisites (docs/wmco-prerequisites.md) require hybrid networking to be configured when the cluster is installed";

/** IPv4 `a.b.c.d/n` inside 240.0.0.0/4 (class E)? */
export function isClassE(cidr: string): boolean {
  const first = Number(/^(\d{1,3})\./.exec(cidr)?.[1]);
  return Number.isInteger(first) && first >= 240 && first <= 255;
}

/**
 * Every prerequisite the cluster misses, each naming `cluster` (the key whose cluster it is) and the fix. Run at
 * `pulumi preview/up` before any MachineSet or BYOH host is touched.
 */
export function networkIssues(platform: Platform, n: NetworkFacts): ConfigIssue[] {
  const out: ConfigIssue[] = [];
  const networkType = n.config?.networkType;
  if (networkType !== undefined && networkType !== "OVNKubernetes") {
    out.push({
      path: "cluster",
      message: `the cluster's network type is ${networkType}; WMCO supports only OVNKubernetes with hybrid networking (WMCO: "network type not supported")`,
    });
    return out;
  }
  const hybrid = n.operator?.hybrid;
  const networks = hybrid?.networks ?? 0;
  if (n.operator && networks === 0) {
    out.push({
      path: "cluster",
      message: `the cluster is not configured for OVN hybrid networking, which WMCO requires (the operator exits without it); ${AT_INSTALLATION}: run Windows nodes on a cluster installed with spec.defaultNetwork.ovnKubernetesConfig.hybridOverlayConfig in its Network manifest, e.g. ${hybridOverlayConfig(platform)} (a CIDR that overlaps no cluster, service or machine network)`,
    });
  }
  const port = hybrid?.vxlanPort;
  if (networks > 0 && platform === "VSphere" && (port === undefined || port === 4789)) {
    out.push({
      path: "cluster",
      message: `vSphere needs a custom VXLAN port for hybrid networking (not 4789; WMCO's vSphere prerequisites); ${AT_INSTALLATION}, with hybridOverlayConfig.hybridOverlayVXLANPort set, e.g. ${EXAMPLE_VXLAN_PORT}`,
    });
  }
  for (const cidr of (n.config?.clusterNetworks ?? []).filter(isClassE)) {
    out.push({
      path: "cluster",
      message: `the cluster network ${cidr} is class E (240.0.0.0/4), which Windows cannot use; Windows nodes need a cluster installed with another clusterNetwork`,
    });
  }
  return out;
}

/** The cluster-wide proxy as WMCO will apply it to Windows nodes, credentials in proxy URLs removed. */
export function proxySummary(proxy: ProxyFacts | undefined): Partial<ProxyFacts> | undefined {
  const redact = (u: string | undefined) => u?.replace(/\/\/[^/@]*@/, "//[credentials]@");
  const { httpProxy, httpsProxy, noProxy, trustedCA } = proxy ?? {};
  const set = Object.entries({ httpProxy: redact(httpProxy), httpsProxy: redact(httpsProxy), noProxy, trustedCA });
  const known = set.filter(([, v]) => v !== undefined);
  return known.length > 0 ? Object.fromEntries(known) : undefined;
}
