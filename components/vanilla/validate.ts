import { isIP } from "net";
import { ConfigIssue, joinPath } from "../../stacks/config-issue";
import type { KubernetesConfig, VanillaNodeConfig } from "../../stacks/schema/kubernetes";
import { createdEntryIssues, givenHostIssues, givenHostMissing } from "../provisioning/validate";
import type { MirrorsConfigInput } from "../../stacks/schema/mirrors";
import { cidrContains, cidrsOverlap, networkAddress, parseCidr } from "../../lib/cidr";
import { isClassE } from "../wmco/prerequisites";
import {
  compareVersions,
  CONTAINERD_MINIMUM,
  FLANNEL_WINDOWS,
  FLANNELD_SHA256,
  minorOf,
  kubernetesSupport,
  DEFAULT_CONTAINERD,
  kubeletAcceptsLabel,
  KUBELET_LABEL_NAMESPACES,
  FLANNEL_WINDOWS_MAX_VNI,
  SUPPORTED_MINORS,
  PAUSE_IMAGE,
  FLANNEL_CNI_SHA256,
} from "../../facts/kubernetes";

// Kubernetes label keys: optional DNS-subdomain prefix and a name of at most 63 characters (apimachinery validation).
const LABEL_KEY =
  /^(([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*)\/)?[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$/;
const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]{0,61})?[A-Za-z0-9])?$/;

/**
 * Checks a vanilla Kubernetes stack beyond its shape: a supported Kubernetes version and a containerd that supports
 * it, networks that parse and do not overlap (and no class E), the VXLAN backend Windows flanneld accepts, and nodes
 * that can be told apart and verified. Each problem names its key and the fix.
 */
export function validateVanilla(
  k: KubernetesConfig | undefined,
  nodes: readonly VanillaNodeConfig[],
  mirrors: MirrorsConfigInput | undefined,
  secretKeys: ReadonlySet<string> = new Set(),
): { errors: ConfigIssue[]; warnings: ConfigIssue[] } {
  const errors: ConfigIssue[] = [];
  const warnings: ConfigIssue[] = [];
  // containerd pulls the sandbox image by its tag (config.toml sandbox = PAUSE_IMAGE), and a digest mirror serves only
  // pulls by digest (hosts.toml capabilities without `resolve`): such a mirror is never used for it.
  const pauseRepo = PAUSE_IMAGE.replace(/:[^:/]+$/, "");
  const covers = (source: string) => pauseRepo === source || pauseRepo.startsWith(`${source}/`);
  if (mirrors && !mirrors.tag.some((e) => covers(e.source)))
    mirrors.digest.forEach((e, i) => {
      if (covers(e.source))
        warnings.push({
          path: `mirrors.digest[${i}].source`,
          message: `${e.source} is mirrored for pulls by digest only, but containerd pulls the sandbox image ${PAUSE_IMAGE} by its tag, so the nodes never use this mirror for it; list it under mirrors.tag as well`,
        });
    });
  const cd = k?.containerd.version;
  const cdMajor = cd === undefined ? undefined : Number(cd.split(".")[0]);
  // The node's config.toml is `version = 3` (components/vanilla/node-plan.ts), which containerd reads from 2.0 on;
  // 1.7 stops at start ("max version is 2": containerd v1.7 services/server/config/config.go).
  if (cd && cdMajor !== undefined && cdMajor < 2)
    errors.push({
      path: "kubernetes.containerd.version",
      message: `containerd ${cd} reads config version 2 only, and the nodes get a version 3 config; use containerd 2.x (default ${DEFAULT_CONTAINERD})`,
    });
  if (k?.version) {
    const issue = versionSupportIssue(k.version, "");
    if (issue) (issue.fatal ? errors : warnings).push(issue.issue);
    const c = cd && cdMajor !== undefined && cdMajor >= 2 ? containerdSupportIssue(k.version, cd) : undefined;
    if (c) errors.push(c);
  }
  const nets: [string, string | undefined][] = [
    ["kubernetes.podNetworkCidr", k?.podNetworkCidr],
    ["kubernetes.serviceCidr", k?.serviceCidr],
  ];
  const parsed = new Map<string, { address: string; prefix: number }>();
  for (const [key, value] of nets) {
    if (value === undefined) continue;
    const c = parseCidr(value);
    if (!c) errors.push({ path: key, message: `${JSON.stringify(value)} is not an IPv4 CIDR like 10.244.0.0/16` });
    else if (isClassE(value))
      errors.push({
        path: key,
        message: `${value} is in 240.0.0.0/4 (class E), which Windows does not route; choose another range`,
      });
    else if (networkAddress(c) !== c.address)
      // kubeadm and flannel's net-conf.json would carry it as written; say which network was meant.
      errors.push({
        path: key,
        message: `${value} has host bits set; write the network itself: ${networkAddress(c)}/${c.prefix}`,
      });
    else parsed.set(key, c);
  }
  const pod = parsed.get("kubernetes.podNetworkCidr");
  const svc = parsed.get("kubernetes.serviceCidr");
  if (pod && svc && cidrsOverlap(pod, svc))
    errors.push({
      path: "kubernetes.serviceCidr",
      message: `${k?.serviceCidr} overlaps the pod network ${k?.podNetworkCidr}; they must be disjoint`,
    });
  if (k?.dnsServiceIp !== undefined) {
    if (isIP(k.dnsServiceIp) !== 4)
      errors.push({ path: "kubernetes.dnsServiceIp", message: `${k.dnsServiceIp} is not an IPv4 address` });
    else if (svc && !cidrContains(svc, k.dnsServiceIp))
      errors.push({
        path: "kubernetes.dnsServiceIp",
        message: `${k.dnsServiceIp} is outside the service network ${k.serviceCidr}; the cluster DNS Service IP lies inside it`,
      });
  }
  if (k && k.flannel.vni < FLANNEL_WINDOWS.minVni)
    errors.push({
      path: "kubernetes.flannel.vni",
      message: `${k.flannel.vni} is below ${FLANNEL_WINDOWS.minVni}, which Windows flanneld refuses (vxlan_windows.go); use 4096`,
    });
  if (k && k.flannel.vni > FLANNEL_WINDOWS_MAX_VNI)
    errors.push({
      path: "kubernetes.flannel.vni",
      message: `${k.flannel.vni} is above ${FLANNEL_WINDOWS_MAX_VNI}: Windows flanneld casts the VNI to 16 bits (vxlan_windows.go); use 4096`,
    });
  if (k && k.flannel.port !== FLANNEL_WINDOWS.port)
    errors.push({
      path: "kubernetes.flannel.port",
      message: `Windows flanneld accepts only UDP ${FLANNEL_WINDOWS.port} (vxlan_windows.go); set 4789, and on vSphere check that no NSX overlay already uses 4789 (move NSX's port, not flannel's)`,
    });
  if (k?.flannel.version && !k.flannel.flanneldSha256 && !FLANNELD_SHA256[k.flannel.version])
    errors.push({
      path: "kubernetes.flannel.flanneldSha256",
      message: `flanneld ${k.flannel.version} has no pinned checksum (pinned: ${Object.keys(FLANNELD_SHA256).join(", ")}) and flannel publishes none; set flanneldSha256 to the sha256sum of that release's flanneld.exe, or leave flannel.version out`,
    });
  if (k?.flannel.cniVersion && !k.flannel.cniSha256 && !FLANNEL_CNI_SHA256[k.flannel.cniVersion])
    errors.push({
      path: "kubernetes.flannel.cniSha256",
      message: `flannel's CNI plugin ${k.flannel.cniVersion} has no pinned checksum (pinned: ${Object.keys(FLANNEL_CNI_SHA256).join(", ")}) and flannel publishes none; set cniSha256 to the sha256sum of that release's flannel-amd64.exe, or leave cniVersion out`,
    });
  if (k?.flannel.cniSha256 && !k.flannel.cniVersion)
    errors.push({
      path: "kubernetes.flannel.cniSha256",
      message: "a checksum without flannel.cniVersion: set the version it belongs to, or remove cniSha256",
    });
  if (k?.flannel.flanneldSha256 && !k.flannel.version)
    errors.push({
      path: "kubernetes.flannel.flanneldSha256",
      message: "a checksum without flannel.version: set the version it belongs to, or remove flanneldSha256",
    });
  if (k?.artifacts.baseUrl && !k.artifacts.baseUrl.startsWith("https://"))
    errors.push({
      path: "kubernetes.artifacts.baseUrl",
      message: "must be an https:// URL: binaries and their checksums both come from it",
    });

  const seen = new Map<string, number>();
  nodes.forEach((n, i) => {
    const at = (...p: (string | number)[]) => joinPath(["nodes", i, ...p]);
    if (n.aws || n.azure) {
      if (n.forceRemove)
        errors.push({
          path: at("forceRemove"),
          message:
            "applies to hosts given by address; a node this stack creates goes with its entry (delete the entry)",
        });
      errors.push(...createdEntryIssues(n, at, secretKeys));
      return;
    }
    if (n.address === undefined || n.username === undefined) {
      errors.push(givenHostMissing(n, at, "an administrator account on the host"));
      return;
    }
    if (n.count !== 1)
      errors.push({ path: at("count"), message: "applies to nodes this stack creates (with an aws or azure block)" });
    errors.push(
      ...givenHostIssues({ ...n, address: n.address }, "nodes", i, seen, {
        ipv6: "give an IPv4 address or a DNS name",
        hostKey:
          "is required (or trustOnFirstUse: true): host keys are always verified; `ssh-keyscan <address>` shows it",
        pin: "must be an OpenSSH public-key line or a SHA256: fingerprint",
      }),
    );
    // The node's own addresses (its IPv4 address, its declared node IP) never lie in the cluster's networks.
    const v4 = isIP(n.address) === 4;
    const own = [...(v4 ? [["address", n.address]] : []), ...(n.nodeIp ? [["nodeIp", n.nodeIp]] : [])];
    for (const [field, ip] of own)
      for (const [key, c] of parsed)
        if (cidrContains(c, ip))
          errors.push({
            path: at(field),
            message: `${ip} lies inside ${key.split(".")[1]} ${c.address}/${c.prefix}; a node's own address must not`,
          });
    for (const [key, value] of Object.entries(n.labels)) {
      if (!LABEL_KEY.test(key))
        errors.push({ path: at("labels", key), message: "is not a valid Kubernetes label key" });
      if (!LABEL_VALUE.test(value))
        errors.push({ path: at("labels", key), message: `${JSON.stringify(value)} is not a valid label value` });
      if (LABEL_KEY.test(key) && !kubeletAcceptsLabel(key))
        errors.push({
          path: at("labels", key),
          message:
            `is in a namespace the kubelet reserves: it refuses it in --node-labels and does not start ` +
            `(cmd/kubelet/app/options/options.go ValidateKubeletFlags); use ${KUBELET_LABEL_NAMESPACES.join(" or ")} ` +
            `keys, or set it after the join (kubectl label node)`,
        });
    }
    (n.taints ?? []).forEach((t, j) => {
      if (!LABEL_KEY.test(t.key)) errors.push({ path: at("taints", j, "key"), message: "is not a valid taint key" });
    });
  });
  return { errors, warnings };
}

/**
 * A version past upstream support: refused when no longer a release Windows nodes are supported on, a warning for the
 * minor just below the oldest supported (facts/kubernetes.ts `kubernetesSupport`). `whose` says where it came from.
 */
export function versionSupportIssue(
  version: string,
  whose: string,
): { fatal: boolean; issue: ConfigIssue } | undefined {
  const support = kubernetesSupport(version);
  if (support === "supported") return undefined;
  const supported = SUPPORTED_MINORS.join(", ");
  return support === "end-of-life"
    ? {
        fatal: false,
        issue: {
          path: "kubernetes.version",
          message: `${version}${whose} is past upstream support (supported minors: ${supported}): it gets no more patches; plan an upgrade`,
        },
      }
    : {
        fatal: true,
        issue: {
          path: "kubernetes.version",
          message: `${version}${whose} is not a supported Kubernetes release for Windows nodes (supported minors: ${supported})`,
        },
      };
}

/**
 * A configured containerd below the lowest release of its line that supports the Kubernetes minor (containerd
 * RELEASES.md "Kubernetes support", facts/kubernetes.ts CONTAINERD_MINIMUM). Checked for the configured version by the
 * loader and for the API server's by discovery.
 */
export function containerdSupportIssue(version: string, cd: string): ConfigIssue | undefined {
  const minor = minorOf(version);
  const minimum = CONTAINERD_MINIMUM[minor];
  if (!minimum) return undefined;
  const line = minimum.find((m) => minorOf(m) === minorOf(cd));
  if (line && compareVersions(cd, line) >= 0) return undefined;
  return {
    path: "kubernetes.containerd.version",
    message: `containerd ${cd} does not support Kubernetes ${minor} (containerd RELEASES.md: ${minimum.map((m) => `${m}+`).join(", ")})`,
  };
}
