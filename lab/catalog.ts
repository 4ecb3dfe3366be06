/**
 * The lab's operator catalogs, as file-based catalogs (FBC) that `opm serve` serves to the real OLM through
 * CatalogSources of `sourceType: grpc`. What they offer is derived from facts/wmco.ts, not written out here: the WMCO
 * releases that run on the lab's Kubernetes minor (`wmcoForKubernetesMinor`), each with the minKubeVersion of its
 * branch (`WMCO_BASE_KUBERNETES_MINOR`), oldest first in one channel, so that the newest is the channel head and the
 * one before it is there to upgrade from. A channel entry `replaces` the entry before it and skips everything since
 * the release before its own (`olm.skipRange`), as WMCO's bundles do (bundle/manifests CSV annotations).
 *
 * The FBC schema is operator-registry's (alpha/declcfg/declcfg.go `Package`, `Channel`, `ChannelEntry`, `Bundle`;
 * alpha/property/property.go `olm.package`, `olm.bundle.object`). Each bundle carries its CSV inline as an
 * `olm.bundle.object` and has no image (`image: ""`): OLM's InstallPlan then takes every step from the catalog and
 * runs no unpack Job (which would need an image and a pod that runs).
 */
import { createHash } from "crypto";
import * as fs from "fs";
import * as path from "path";
import { compareVersions, minorOf } from "../facts/kubernetes";
import { WMCO_BASE_KUBERNETES_MINOR, wmcoForKubernetesMinor } from "../facts/wmco";
import { COMMUNITY_OPERATOR, REDHAT_OPERATOR } from "../stacks/schema/operator";

type Obj = Record<string, unknown>;

/** One channel entry and its bundle. */
export interface LabBundle {
  /** `<package>.v<version>`. */
  name: string;
  version: string;
  replaces?: string;
  /** `olm.skipRange`, e.g. `>=10.22.0 <11.0.0`. */
  skipRange?: string;
  minKubeVersion?: string;
}

export interface LabPackage {
  name: string;
  defaultChannel: string;
  /** Channel name → entries, oldest first (the last is the channel head). */
  channels: Record<string, LabBundle[]>;
}

/** A CatalogSource the lab creates in openshift-marketplace, and what its `opm serve` serves. */
export interface LabCatalog {
  name: string;
  displayName: string;
  publisher: string;
  packages: LabPackage[];
}

/** The WMCO releases the fact table knows, oldest first. */
function knownReleases(): string[] {
  return Object.keys(WMCO_BASE_KUBERNETES_MINOR).sort(compareVersions);
}

/**
 * The WMCO channel for a cluster on Kubernetes `kubernetesVersion`: one `.0` release of each WMCO minor that runs on
 * it, oldest first. Each skips the releases since the one before its own minor in the fact table.
 */
export function wmcoChannel(pkg: string, kubernetesVersion: string): LabBundle[] {
  const minor = Number(minorOf(kubernetesVersion.replace(/^v/, "")).split(".")[1]);
  const releases = wmcoForKubernetesMinor(minor);
  const all = knownReleases();
  return releases.map((release, i) => {
    const version = `${release}.0`;
    const before = all[all.indexOf(release) - 1];
    return {
      name: `${pkg}.v${version}`,
      version,
      replaces: i > 0 ? `${pkg}.v${releases[i - 1]}.0` : undefined,
      skipRange: before ? `>=${before}.0 <${version}` : undefined,
      minKubeVersion: `1.${WMCO_BASE_KUBERNETES_MINOR[release]}.0`,
    };
  });
}

/**
 * The catalogs of an OpenShift cluster as far as WMCO goes: Red Hat's package on `stable` (WMCO's
 * bundle/metadata/annotations.yaml: default channel `stable`) in `redhat-operators`, and the community build on
 * `preview` in `community-operators` (hack/community/generate.sh).
 */
export function labCatalogs(kubernetesVersion: string): LabCatalog[] {
  return [
    { operator: REDHAT_OPERATOR, displayName: "Red Hat Operators" },
    { operator: COMMUNITY_OPERATOR, displayName: "Community Operators" },
  ].map(({ operator, displayName }) => ({
    name: operator.source,
    displayName,
    publisher: "Red Hat",
    packages: [
      {
        name: operator.package,
        defaultChannel: operator.channel,
        channels: { [operator.channel]: wmcoChannel(operator.package, kubernetesVersion) },
      },
    ],
  }));
}

/** The name OLM and the WMCO player know the operator's Deployment by (WMCO config/manager/manager.yaml). */
export const WMCO_DEPLOYMENT = "windows-machine-config-operator";

/** The operator Deployment a WMCO bundle ships (bundle/manifests CSV `install.spec.deployments`). */
function wmcoDeployment(b: LabBundle): Obj {
  const selector = { name: WMCO_DEPLOYMENT };
  return {
    name: WMCO_DEPLOYMENT,
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
              // No image of WMCO runs here (the played kubelet reports the pod Running): a digest per bundle.
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
              resources: { requests: { cpu: "20m", memory: "300Mi" } },
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
          serviceAccountName: "windows-machine-config-operator",
          terminationGracePeriodSeconds: 10,
        },
      },
    },
  };
}

/** A bundle's ClusterServiceVersion, as its bundle image would hold it. */
export function csvManifest(b: LabBundle, catalog: LabCatalog): Obj {
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
        repository: "https://github.com/openshift/windows-machine-config-operator",
        support: catalog.publisher,
      },
    },
    spec: {
      displayName: "Windows Machine Config Operator",
      description: "Configures Windows instances into OpenShift worker nodes (lab catalog entry).",
      version: b.version,
      ...(b.replaces ? { replaces: b.replaces } : {}),
      ...(b.minKubeVersion ? { minKubeVersion: b.minKubeVersion } : {}),
      maturity: "stable",
      provider: { name: catalog.publisher },
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
          // OLM makes the operator's ServiceAccount from these and binds the rules; the operator pod runs as it.
          // Nothing runs as the operator in the lab, so the rules are a token, not WMCO's list.
          permissions: [
            {
              serviceAccountName: "windows-machine-config-operator",
              rules: [{ apiGroups: [""], resources: ["configmaps", "secrets"], verbs: ["get", "list", "watch"] }],
            },
          ],
        },
      },
    },
  };
}

/** The FBC objects of a catalog, in operator-registry's order (package, channels, bundles). */
export function fbcObjects(catalog: LabCatalog): Obj[] {
  const out: Obj[] = [];
  for (const pkg of catalog.packages) {
    out.push({ schema: "olm.package", name: pkg.name, defaultChannel: pkg.defaultChannel });
    for (const [channel, entries] of Object.entries(pkg.channels))
      out.push({
        schema: "olm.channel",
        package: pkg.name,
        name: channel,
        entries: entries.map((b) => ({
          name: b.name,
          ...(b.replaces ? { replaces: b.replaces } : {}),
          ...(b.skipRange ? { skipRange: b.skipRange } : {}),
        })),
      });
    const bundles = new Map<string, LabBundle>();
    for (const entries of Object.values(pkg.channels)) for (const b of entries) bundles.set(b.name, b);
    for (const b of bundles.values())
      out.push({
        schema: "olm.bundle",
        name: b.name,
        package: pkg.name,
        image: "",
        properties: [
          { type: "olm.package", value: { packageName: pkg.name, version: b.version } },
          {
            type: "olm.bundle.object",
            value: { data: Buffer.from(JSON.stringify(csvManifest(b, catalog))).toString("base64") },
          },
        ],
      });
  }
  return out;
}

/** Writes a catalog as an FBC folder for `opm serve` (one JSON document per object, as `opm render` writes them). */
export function writeFbc(dir: string, catalog: LabCatalog): void {
  fs.mkdirSync(dir, { recursive: true });
  const text = fbcObjects(catalog)
    .map((o) => JSON.stringify(o))
    .join("\n");
  fs.writeFileSync(path.join(dir, "catalog.json"), text + "\n");
}
