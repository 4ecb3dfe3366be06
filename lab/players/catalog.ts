/**
 * The lab's catalog: what a CatalogSource's registry would serve OLM, reduced to channel entries (oldest first, the
 * last is the channel head) and the ClusterServiceVersion manifest of each bundle. Resolution follows OLM's
 * resolver for one Subscription (operator-lifecycle-manager pkg/controller/registry/resolver/resolver.go
 * `getSubscriptionVariables`): catalog → package → channel → startingCSV narrow the candidates, an installed CSV is
 * replaced only by an entry that `replaces` it or whose `olm.skipRange` covers it, and each failed step has OLM's
 * message. Overridable with `--catalog <file.json>` (a list shaped like CATALOG).
 */
import { createHash } from "crypto";
import * as fs from "fs";
import { JsonObject } from "./kube";

export interface Bundle {
  /** CSV name, `<package>.v<version>`. */
  name: string;
  version: string;
  replaces?: string;
  /** `olm.skipRange`, e.g. `>=10.19.0 <10.20.1`. */
  skipRange?: string;
  minKubeVersion?: string;
}
export interface CatalogPackage {
  name: string;
  defaultChannel: string;
  channels: Record<string, Bundle[]>;
}
export interface CatalogSourceDef {
  name: string;
  namespace: string;
  displayName: string;
  publisher: string;
  image: string;
  packages: CatalogPackage[];
}

/** A WMCO channel whose entries replace each other in order and skip everything since `skipFrom`. */
function wmcoChannel(pkg: string, versions: string[], skipFrom: string, minKubeVersion: string): Bundle[] {
  return versions.map((version, i) => ({
    name: `${pkg}.v${version}`,
    version,
    replaces: i > 0 ? `${pkg}.v${versions[i - 1]}` : undefined,
    skipRange: `>=${skipFrom} <${version}`,
    minKubeVersion,
  }));
}

/**
 * OpenShift 4.20's catalogs as far as WMCO goes: Red Hat's package on `stable` (bundle/metadata/annotations.yaml:
 * channels `preview,stable`, default `stable`) with head 10.20.1, and the community build on `preview`
 * (hack/community/generate.sh). minKubeVersion 1.33.0 is what release-4.20's CSV asks for.
 */
export let CATALOG: CatalogSourceDef[] = [
  {
    name: "redhat-operators",
    namespace: "openshift-marketplace",
    displayName: "Red Hat Operators",
    publisher: "Red Hat",
    image: "registry.redhat.io/redhat/redhat-operator-index:v4.20",
    packages: [
      {
        name: "windows-machine-config-operator",
        defaultChannel: "stable",
        channels: {
          stable: wmcoChannel("windows-machine-config-operator", ["10.20.0", "10.20.1"], "10.19.0", "1.33.0"),
          preview: wmcoChannel("windows-machine-config-operator", ["10.20.1"], "10.19.0", "1.33.0"),
        },
      },
    ],
  },
  {
    name: "community-operators",
    namespace: "openshift-marketplace",
    displayName: "Community Operators",
    publisher: "Red Hat",
    image: "registry.redhat.io/redhat/community-operator-index:v4.20",
    packages: [
      {
        name: "community-windows-machine-config-operator",
        defaultChannel: "preview",
        channels: {
          preview: wmcoChannel(
            "community-windows-machine-config-operator",
            ["10.20.0", "10.20.1"],
            "10.19.0",
            "1.33.0",
          ),
        },
      },
    ],
  },
];

/** Replaces the built-in catalog with a JSON file of the same shape. */
export function loadCatalog(file: string): void {
  const parsed: unknown = JSON.parse(fs.readFileSync(file, "utf8"));
  if (!Array.isArray(parsed) || parsed.length === 0) throw new Error(`${file}: expected a non-empty list of catalogs`);
  CATALOG = parsed;
}

/**
 * The 7-character git commit WMCO's build stamps after the version (build/build.sh `add_git_data_to_version`:
 * `<semver>-<sha>`). The lab's builds are not real ones: the commit is derived from the CSV name.
 */
export const buildCommit = (csvName: string) => createHash("sha1").update(csvName).digest("hex").slice(0, 7);

const parts = (v: string) => v.split(/[.-]/).slice(0, 3).map(Number);
export function compareVersions(a: string, b: string): number {
  const [x, y] = [parts(a), parts(b)];
  for (let i = 0; i < 3; i++) if ((x[i] ?? 0) !== (y[i] ?? 0)) return (x[i] ?? 0) - (y[i] ?? 0);
  return 0;
}
/** Whether `version` satisfies a blang/semver range of space-separated `>=x`, `>x`, `<x`, `<=x` terms. */
export function inRange(version: string, range: string | undefined): boolean {
  if (!range) return false;
  return range
    .split(/\s+/)
    .filter(Boolean)
    .every((term) => {
      const m = /^(>=|<=|>|<|=)?(\d+\.\d+\.\d+)$/.exec(term);
      if (!m) return false;
      const c = compareVersions(version, m[2]);
      return { ">=": c >= 0, "<=": c <= 0, ">": c > 0, "<": c < 0, "=": c === 0 }[m[1] ?? "="] ?? false;
    });
}

export interface SubscriptionWants {
  name: string;
  package: string;
  channel?: string;
  source: string;
  sourceNamespace: string;
  startingCSV?: string;
}

export type Resolution = { bundle: Bundle; source: CatalogSourceDef; channel: string } | { unsatisfiable: string };

/** What the Subscription resolves to, given the CSV installed for it now (if any). */
export function resolve(sub: SubscriptionWants, installed?: { name: string; version: string }): Resolution {
  const source = CATALOG.find((s) => s.name === sub.source && s.namespace === sub.sourceNamespace);
  if (!source)
    return {
      unsatisfiable: `no operators found from catalog ${sub.source} in namespace ${sub.sourceNamespace} referenced by subscription ${sub.name}`,
    };
  const pkg = source.packages.find((p) => p.name === sub.package);
  if (!pkg)
    return {
      unsatisfiable: `no operators found in package ${sub.package} in the catalog referenced by subscription ${sub.name}`,
    };
  const channelName = sub.channel || pkg.defaultChannel;
  const entries = pkg.channels[channelName];
  if (!entries || entries.length === 0)
    return {
      unsatisfiable: `no operators found in channel ${channelName} of package ${sub.package} in the catalog referenced by subscription ${sub.name}`,
    };
  if (installed) {
    const replacing = entries.filter((b) => b.replaces === installed.name || inRange(installed.version, b.skipRange));
    const newest = replacing.sort((a, b) => compareVersions(b.version, a.version))[0];
    const current = entries.find((b) => b.name === installed.name);
    const bundle = newest ?? current;
    if (bundle) return { bundle, source, channel: channelName };
  }
  if (sub.startingCSV && !installed) {
    const start = entries.find((b) => b.name === sub.startingCSV);
    if (!start)
      return {
        unsatisfiable: `no operators found with name ${sub.startingCSV} in channel ${channelName} of package ${sub.package} in the catalog referenced by subscription ${sub.name}`,
      };
    return { bundle: start, source, channel: channelName };
  }
  return { bundle: entries[entries.length - 1], source, channel: channelName };
}

/** The operator Deployment WMCO's bundle ships (bundle/manifests CSV `install.spec.deployments`). */
function wmcoDeployment(b: Bundle): JsonObject {
  const selector = { name: "windows-machine-config-operator" };
  return {
    name: "windows-machine-config-operator",
    label: selector,
    spec: {
      replicas: 1,
      selector: { matchLabels: selector },
      strategy: {},
      template: {
        metadata: { labels: selector, annotations: { "kubectl.kubernetes.io/default-container": "manager" } },
        spec: {
          containers: [
            {
              name: "manager",
              image: `registry.redhat.io/openshift4-wincw/windows-machine-config-rhel9-operator@sha256:${createHash("sha256").update(b.name).digest("hex")}`,
              command: ["windows-machine-config-operator"],
              args: ["--metrics-bind-address=0.0.0.0:9182"],
              env: [
                {
                  name: "WATCH_NAMESPACE",
                  valueFrom: { fieldRef: { fieldPath: "metadata.annotations['olm.targetNamespaces']" } },
                },
                { name: "POD_NAME", valueFrom: { fieldRef: { fieldPath: "metadata.name" } } },
                { name: "OPERATOR_NAME", value: "windows-machine-config-operator" },
              ],
              ports: [{ containerPort: 9182, name: "https", protocol: "TCP" }],
              resources: { requests: { cpu: "20m", memory: "300Mi" }, limits: { cpu: "200m", memory: "1Gi" } },
            },
          ],
          hostNetwork: true,
          dnsPolicy: "ClusterFirstWithHostNet",
          // config/manager/manager.yaml: on the control plane, tolerating its taint, and riding out a node going
          // unreachable for two minutes.
          nodeSelector: { "node-role.kubernetes.io/master": "" },
          tolerations: [
            { key: "node-role.kubernetes.io/master", operator: "Exists", effect: "NoSchedule" },
            { key: "node.kubernetes.io/unreachable", operator: "Exists", effect: "NoExecute", tolerationSeconds: 120 },
            { key: "node.kubernetes.io/not-ready", operator: "Exists", effect: "NoExecute", tolerationSeconds: 120 },
          ],
          priorityClassName: "system-cluster-critical",
          serviceAccountName: "windows-machine-config-operator",
          terminationGracePeriodSeconds: 10,
        },
      },
    },
  };
}

/** The bundle's ClusterServiceVersion as the catalog serves it (before OLM adds its annotations). */
export function csvManifest(b: Bundle, source: CatalogSourceDef): JsonObject {
  return {
    apiVersion: "operators.coreos.com/v1alpha1",
    kind: "ClusterServiceVersion",
    metadata: {
      name: b.name,
      annotations: {
        ...(b.skipRange ? { "olm.skipRange": b.skipRange } : {}),
        capabilities: "Seamless Upgrades",
        categories: "OpenShift Optional",
        "operatorframework.io/suggested-namespace": "openshift-windows-machine-config-operator",
        "operatorframework.io/cluster-monitoring": "true",
        "operators.openshift.io/valid-subscription": '["Red Hat OpenShift support for Windows Containers"]',
        repository: "https://github.com/openshift/windows-machine-config-operator",
        support: source.publisher,
      },
    },
    spec: {
      displayName: "Windows Machine Config Operator",
      description: "Configures Windows instances into OpenShift worker nodes (lab catalog entry).",
      version: b.version,
      ...(b.replaces ? { replaces: b.replaces } : {}),
      ...(b.minKubeVersion ? { minKubeVersion: b.minKubeVersion } : {}),
      maturity: "stable",
      provider: { name: source.publisher },
      installModes: [
        { type: "OwnNamespace", supported: true },
        { type: "SingleNamespace", supported: false },
        { type: "MultiNamespace", supported: false },
        { type: "AllNamespaces", supported: false },
      ],
      install: {
        strategy: "deployment",
        spec: {
          deployments: [wmcoDeployment(b)],
          // The bundle's permissions name the operator's ServiceAccount (OLM creates it; its pod runs as it). The
          // rules here are a token: nothing runs as the operator in the lab, so they are not what WMCO's bundle lists.
          permissions: [
            {
              serviceAccountName: "windows-machine-config-operator",
              rules: [{ apiGroups: [""], resources: ["configmaps", "secrets"], verbs: ["get", "list", "watch"] }],
            },
          ],
        },
      },
      customresourcedefinitions: {},
      apiservicedefinitions: {},
    },
  };
}
