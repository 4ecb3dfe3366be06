/**
 * What WMCO (openshift/windows-machine-config-operator) requires, in one place. MachineSet builders, config
 * validation, the BYOH host checks and the policy pack read these; nothing restates a build number, a limit, a
 * label or a port elsewhere. Each fact names the WMCO file it comes from (master = WMCO 11.0.0, `release-4.22` =
 * 10.22.2, as of the snapshot noted in docs/wmco.md).
 */
/** The platforms WMCO supports, spelled as `Infrastructure/cluster` `.spec.platformSpec.type` spells them. */
export const PLATFORMS = ["AWS", "Azure", "GCP", "VSphere", "Nutanix", "None"] as const;
export type Platform = (typeof PLATFORMS)[number];

/** Windows Server versions WMCO can configure; which platform supports which is `supportedVersions` below. */
export const WINDOWS_SERVERS = ["2019", "2022", "2025"] as const;
export type WindowsServer = (typeof WINDOWS_SERVERS)[number];

/** A Windows Server version's build, as `CurrentBuildNumber` and as the Node label value. */
interface WindowsServerFacts {
  /** `CurrentBuildNumber` in the registry, e.g. `20348`. */
  build: string;
  /** `node.kubernetes.io/windows-build` on Nodes (test/e2e/windows/version.go `BuildNumber`). */
  buildLabel: string;
  /** Lowest update revision (`UBR`) WMCO accepts, and why. */
  minUpdateRevision?: { revision: number; why: string };
}

export const WINDOWS_SERVER: Record<WindowsServer, WindowsServerFacts> = {
  "2019": { build: "17763", buildLabel: "10.0.17763" },
  "2022": {
    build: "20348",
    buildLabel: "10.0.20348",
    // docs/wmco-prerequisites.md: "the Windows Server 2022 image must contain ... KB5012637" (OS build 20348.681).
    minUpdateRevision: {
      revision: 681,
      why: "KB5012637 (OS-level container networking, build 20348.681), which WMCO's prerequisites require",
    },
  },
  "2025": { build: "26100", buildLabel: "10.0.26100" },
};

/** The version of a build number, if WMCO knows it. */
export function versionOfBuild(build: string): WindowsServer | undefined {
  return WINDOWS_SERVERS.find((v) => WINDOWS_SERVER[v].build === build);
}

/** A WMCO release, by major and minor (10.22 = OpenShift 4.22, 11.0 = OpenShift 5.x). */
export interface WmcoVersion {
  major: number;
  minor: number;
}

/** `windows-machine-config-operator.v10.19.3`, `community-windows-machine-config-operator.v11.0.0` or `10.19.3`. */
export function parseWmcoVersion(text: string | undefined): WmcoVersion | undefined {
  const m = /(?:^|\.v|^v)(\d+)\.(\d+)\.\d+/.exec(text ?? "");
  return m ? { major: Number(m[1]), minor: Number(m[2]) } : undefined;
}

/**
 * The WMCO release an OpenShift version ships with: 4.y → 10.y (release-4.y Makefiles: `WMCO_VERSION ?= 10.y.z`), 5.x →
 * 11.0 (release-5.0 to 5.2 Makefiles: `11.0.0`). Undefined for versions before WMCO 10 (unsupported here).
 */
export function wmcoForOpenShift(version: string | undefined): WmcoVersion | undefined {
  const m = /^(\d+)\.(\d+)/.exec(version ?? "");
  if (!m) return undefined;
  const [major, minor] = [Number(m[1]), Number(m[2])];
  if (major === 4 && minor >= 16) return { major: 10, minor };
  if (major >= 5) return { major: 11, minor: 0 };
  return undefined;
}

export const format = (v: WmcoVersion) => `${v.major}.${v.minor}`;

/** The newest rules, used when neither the config nor the cluster says which WMCO runs. */
export const NEWEST_WMCO: WmcoVersion = { major: 11, minor: 0 };

/**
 * The lowest Kubernetes minor (of 1.x) each WMCO release accepts: pkg/cluster/config.go `baseK8sVersion` of its
 * branch. `validateK8sVersion` also accepts the next minor and nothing else: the operator exits with "unsupported
 * server version" on any other cluster, and its CSV never succeeds.
 */
export const WMCO_BASE_KUBERNETES_MINOR: Readonly<Record<string, number>> = {
  "10.18": 31, // release-4.18: baseK8sVersion = "v1.31"
  "10.19": 32, // release-4.19: "v1.32"
  "10.20": 33, // release-4.20: "v1.33"
  "10.21": 34, // release-4.21: "v1.34"
  "10.22": 35, // release-4.22: "v1.35"
  "11.0": 36, // master: "v1.36"
};

/** The Kubernetes 1.x minors a WMCO release runs on (base and base + 1), if the table knows the release. */
export function acceptedKubernetesMinors(wmco: WmcoVersion): { min: number; max: number } | undefined {
  const base = WMCO_BASE_KUBERNETES_MINOR[format(wmco)];
  return base === undefined ? undefined : { min: base, max: base + 1 };
}

/** The WMCO releases the table knows that run on Kubernetes 1.`minor`, oldest first (for the fix in a message). */
export function wmcoForKubernetesMinor(minor: number): string[] {
  return Object.entries(WMCO_BASE_KUBERNETES_MINOR)
    .filter(([, base]) => minor >= base && minor <= base + 1)
    .map(([release]) => release);
}

/**
 * Windows Server versions WMCO supports per platform:
 * - WMCO 11 (master, release-5.0+): 2022 and 2025 only (test/e2e/windows/version.go `SupportedVersions`,
 *   hack/machineset.sh `-w 2022|2025`; commit "[e2e] Drop Windows Server 2019 support").
 * - WMCO 10.y (release-4.y): 2019 on AWS, Azure and BYOH (platform None), never on vSphere (it needs a custom VXLAN
 *   port, which 2019 lacks: docs/wmco-prerequisites.md "Custom VXLAN port"), nor on GCP and Nutanix; 2022 everywhere;
 *   2025 from 10.22: release-4.22 docs/wmco-prerequisites.md is the first to list it, while release-4.21's docs list
 *   2019 and 2022 only and say unlisted versions are NOT supported (its e2e version.go already tests Server2025).
 */
export function supportedVersions(platform: Platform, wmco: WmcoVersion = NEWEST_WMCO): WindowsServer[] {
  if (wmco.major >= 11) return ["2022", "2025"];
  const out: WindowsServer[] = [];
  if (["AWS", "Azure", "None"].includes(platform)) out.push("2019");
  out.push("2022");
  if (wmco.minor >= 22) out.push("2025");
  return out;
}

/** Which WMCO releases support a version on a platform, for messages ("WMCO 10.16–10.22"). */
export function supportedBy(platform: Platform, version: WindowsServer): string {
  if (version === "2019")
    return ["AWS", "Azure", "None"].includes(platform) ? "WMCO 10.x only (dropped in WMCO 11)" : "no WMCO release";
  if (version === "2025") return "WMCO 10.22 and later";
  return "every WMCO release";
}

/**
 * MachineSet name limits. On Azure and vSphere the Windows computer name is the Machine name, capped at 15
 * characters, and the Machine API appends `-xxxxx`: 9 characters left (Azure: docs/machineset-azure.md;
 * vSphere: README "IMPORTANT"; WMCO has no vSphere MachineSet page). Elsewhere the name is a label value (63); WMCO's
 * Nutanix docs name sets
 * `<infrastructure_id>-windows-worker-<suffix>` (docs/machineset-nutanix.md).
 */
export const SHORT_NAME_PLATFORMS: ReadonlySet<Platform> = new Set(["Azure", "VSphere"]);
export const SHORT_NAME_LIMIT = 9;
export const LABEL_VALUE_LIMIT = 63;
export function machineSetNameLimit(platform: Platform): number {
  return SHORT_NAME_PLATFORMS.has(platform) ? SHORT_NAME_LIMIT : LABEL_VALUE_LIMIT;
}
/** Provider spec kinds of the short-name platforms, for the policy pack (which sees objects, not config). */
export const SHORT_NAME_PROVIDER_KINDS: ReadonlySet<string> = new Set([
  "AzureMachineProviderSpec",
  "VSphereMachineProviderSpec",
]);

/** Labels WMCO's install script puts on its namespace (hack/common.sh "required labels for WMCO namespace"). */
export const NAMESPACE_LABELS: Readonly<Record<string, string>> = {
  "openshift.io/cluster-monitoring": "true",
  "security.openshift.io/scc.podSecurityLabelSync": "true",
  "pod-security.kubernetes.io/enforce": "privileged",
};

/** WMCO dials every Windows node on port 22 (pkg/windows/connectivity.go `sshPort`). */
export const SSH_PORT = 22;
/** Ports WMCO needs open: SSH, kubelet logs (10250), windows_exporter metrics (9182) (docs/byoh-instance-pre-requisites.md). */
export const WMCO_PORTS = [22, 10250, 9182] as const;

/** Windows services WMCO installs and runs (pkg/windows/windows.go `*ServiceName`). */
export const WMCO_SERVICES = {
  containerd: "containerd",
  kubelet: "kubelet",
  kubeProxy: "kube-proxy",
  hybridOverlay: "hybrid-overlay-node",
  windowsExporter: "windows_exporter",
  wicd: "windows-instance-config-daemon",
} as const;

/** The label WMCO puts on BYOH nodes (controllers/configmap_controller.go `BYOHLabel`). */
export const BYOH_NODE_LABEL = "windowsmachineconfig.openshift.io/byoh";

/** The list of the BYOH Nodes (BYOH_NODE_LABEL=true), as the waits and the key check read it. */
export const BYOH_NODES_PATH = `/api/v1/nodes?labelSelector=${encodeURIComponent(`${BYOH_NODE_LABEL}=true`)}`;

/** Images that Windows nodes pull from `mcr.microsoft.com` through WMCO's containerd (the pause image above all). */
export const WINDOWS_REGISTRY = "mcr.microsoft.com";

/**
 * The directory WMCO replaces on every Windows node with one `<source registry>\hosts.toml` per mirrored registry
 * (pkg/windows/windows.go `ContainerdConfigDir`, written by `ReplaceDir`; the same on release-4.18 to master). The
 * subdirectory is the source registry as the mirror set spells it, port or `*.` wildcard included
 * (pkg/registries/registries.go `GenerateConfigFiles`, `fmt.Sprintf("%s\\hosts.toml", ms.source)`).
 */
export const WMCO_REGISTRIES_DIR = "C:\\k\\containerd\\registries";

/**
 * Characters a Windows file or directory name may not contain (Microsoft, "Naming Files, Paths, and Namespaces":
 * `< > : " / \ | ? *`). Of these, a source registry the API server admits can carry `:` (a port) and `*` (a wildcard).
 */
export const WINDOWS_NAME_FORBIDDEN = /[<>:"|?*\\/]/;

/** The node label the MachineSet builders set with the Windows build; the policy pack reads it. */
export const WINDOWS_BUILD_LABEL = "node.kubernetes.io/windows-build";

/** Where the Machine API keeps Machines, MachineSets and MachineHealthChecks, and WMCO its user data. */
export const MACHINE_API_NAMESPACE = "openshift-machine-api";
/** WMCO's user data Secret in that namespace (pkg/secrets/secrets.go `UserDataSecret`); it carries the public key. */
export const USER_DATA_SECRET = "windows-user-data";
