/**
 * How an OpenShift cluster (OPENSHIFT_VERSION) on each platform presents itself to the program: the objects the installer and the
 * cluster operators create and the program reads at preview/up (components/machinesets/discovery.ts,
 * components/wmco/prerequisites.ts). Hand-written in the shapes the real CRDs accept (the API server validates
 * them against openshift/api's schemas when the lab creates them); values follow the installer's naming
 * (openshift/installer pkg/asset/machines/<platform>/machines.go, the worker provider specs; pkg/asset/manifests
 * infrastructure.go, network.go).
 */
import { compareVersions, minorOf } from "../../facts/kubernetes";
import { format as formatWmco, wmcoForKubernetesMinor, wmcoForOpenShift } from "../../facts/wmco";
import { KUBERNETES_VERSION } from "../programs";

export type OpenShiftPlatform = "aws" | "azure" | "gcp" | "vsphere" | "nutanix";

export const PLATFORMS: Record<OpenShiftPlatform, { type: string; infrastructureName: string; region?: string }> = {
  // The infrastructure names of the example stacks (stacks/examples, Pulumi.dev.yaml for Azure): those stacks
  // preview against the lab unchanged.
  aws: { type: "AWS", infrastructureName: "ocp-aws-x7k2p", region: "us-east-1" },
  azure: { type: "Azure", infrastructureName: "win-tmk9g", region: "westus" },
  gcp: { type: "GCP", infrastructureName: "ocp-gcp-9qz2c", region: "us-central1" },
  vsphere: { type: "VSphere", infrastructureName: "ocp-vs-4hd8w" },
  nutanix: { type: "Nutanix", infrastructureName: "ocp-ntnx-2mkp4" },
};

/**
 * The OpenShift release a cluster on Kubernetes `kubernetesVersion` runs, from the fact tables: the newest WMCO release
 * that accepts that minor (facts/wmco.ts `wmcoForKubernetesMinor`, the head of the lab's catalog channel,
 * lab/catalog.ts) and the first OpenShift minor that ships it (`wmcoForOpenShift`: 4.y → 10.y, 5.x → 11.0; WMCO's
 * hack/common.sh `get_OCP_version` and each release branch's Makefile `WMCO_VERSION`). Kubernetes 1.36 gives WMCO 11.0
 * (master, pkg/cluster/config.go `baseK8sVersion = "v1.36"`), hence OpenShift 5.0. Its first release, `.0`: the patch
 * level is nothing the program reads.
 */
export function openshiftVersionFor(kubernetesVersion: string): string {
  const minor = Number(minorOf(kubernetesVersion.replace(/^v/, "")).split(".")[1]);
  // The newest by version, as the catalog's channel orders them (lab/catalog.ts), not by the fact table's key order.
  const head = wmcoForKubernetesMinor(minor).sort(compareVersions).at(-1);
  for (const major of [4, 5])
    for (let m = 0; m < 100; m++) {
      const wmco = wmcoForOpenShift(`${major}.${m}`);
      if (head !== undefined && wmco !== undefined && formatWmco(wmco) === head) return `${major}.${m}.0`;
    }
  throw new Error(`no OpenShift release in facts/wmco.ts ships a WMCO that accepts Kubernetes ${kubernetesVersion}`);
}

/** The OpenShift release the lab's cluster reports (ClusterVersion status.desired.version), for its API server. */
export const OPENSHIFT_VERSION = openshiftVersionFor(KUBERNETES_VERSION);
/** Its `major.minor`, e.g. for the update channel (`stable-5.0`). */
export const OPENSHIFT_MINOR = minorOf(OPENSHIFT_VERSION);

/**
 * CRI-O's minor follows Kubernetes' (cri-o README, "Compatibility matrix: CRI-O ⬄ Kubernetes": CRI-O 1.x for
 * Kubernetes 1.x), so an OpenShift node's runtime is the kubelet's minor: `v1.36.3` → `1.36.0`.
 */
export function crioFor(kubeletVersion: string): string {
  return `${minorOf(kubeletVersion.replace(/^v/, ""))}.0`;
}

type Obj = Record<string, unknown>;

function platformStatus(p: OpenShiftPlatform, id: string): Obj {
  const info = PLATFORMS[p];
  switch (p) {
    case "aws":
      return { type: "AWS", aws: { region: info.region } };
    case "azure":
      return {
        type: "Azure",
        azure: { resourceGroupName: `${id}-rg`, networkResourceGroupName: `${id}-rg`, cloudName: "AzurePublicCloud" },
      };
    case "gcp":
      return { type: "GCP", gcp: { projectID: "lab-project", region: info.region } };
    case "vsphere":
      return { type: "VSphere", vsphere: {} };
    case "nutanix":
      return { type: "Nutanix", nutanix: { apiServerInternalIPs: [], ingressIPs: [] } };
  }
}

/** The Linux worker's provider spec the installer writes for each platform (the fields discovery copies). */
function workerProviderSpec(p: OpenShiftPlatform, id: string): Obj {
  switch (p) {
    case "aws":
      return {
        apiVersion: "machine.openshift.io/v1beta1",
        kind: "AWSMachineProviderConfig",
        ami: { id: "ami-0c1a2b3c4d5e6f708" },
        instanceType: "m6i.xlarge",
        placement: { availabilityZone: "us-east-1a", region: "us-east-1" },
        subnet: { filters: [{ name: "tag:Name", values: [`${id}-subnet-private-us-east-1a`] }] },
        securityGroups: [{ filters: [{ name: "tag:Name", values: [`${id}-node`] }] }],
        iamInstanceProfile: { id: `${id}-worker-profile` },
        tags: [{ name: `kubernetes.io/cluster/${id}`, value: "owned" }],
        userDataSecret: { name: "worker-user-data" },
        credentialsSecret: { name: "aws-cloud-credentials" },
      };
    case "azure":
      return {
        apiVersion: "machine.openshift.io/v1beta1",
        kind: "AzureMachineProviderSpec",
        location: "westus",
        zone: "",
        vmSize: "Standard_D4s_v3",
        vnet: `${id}-vnet`,
        subnet: `${id}-worker-subnet`,
        resourceGroup: `${id}-rg`,
        networkResourceGroup: `${id}-rg`,
        publicLoadBalancer: id,
        managedIdentity: `${id}-identity`,
        image: { resourceID: `/resourceGroups/${id}-rg/providers/Microsoft.Compute/images/${id}` },
        osDisk: { diskSizeGB: 128, managedDisk: { storageAccountType: "Premium_LRS" }, osType: "Linux" },
        userDataSecret: { name: "worker-user-data" },
        credentialsSecret: { name: "azure-cloud-credentials", namespace: "openshift-machine-api" },
      };
    case "gcp":
      return {
        apiVersion: "machine.openshift.io/v1beta1",
        kind: "GCPMachineProviderSpec",
        projectID: "lab-project",
        region: "us-central1",
        zone: "us-central1-a",
        machineType: "n2-standard-4",
        networkInterfaces: [{ network: `${id}-network`, subnetwork: `${id}-worker-subnet` }],
        serviceAccounts: [
          {
            email: `${id}-w@lab-project.iam.gserviceaccount.com`,
            scopes: ["https://www.googleapis.com/auth/cloud-platform"],
          },
        ],
        tags: [`${id}-worker`],
        disks: [
          {
            autoDelete: true,
            boot: true,
            image: `projects/rhcos-cloud/global/images/rhcos`,
            sizeGb: 128,
            type: "pd-ssd",
          },
        ],
        userDataSecret: { name: "worker-user-data" },
        credentialsSecret: { name: "gcp-cloud-credentials" },
      };
    case "vsphere":
      return {
        apiVersion: "machine.openshift.io/v1beta1",
        kind: "VSphereMachineProviderSpec",
        template: `${id}-rhcos-generated-region-generated-zone`,
        numCPUs: 4,
        memoryMiB: 16384,
        diskGiB: 120,
        network: { devices: [{ networkName: "VM Network" }] },
        workspace: {
          server: "vcenter.example.com",
          datacenter: "dc1",
          datastore: "/dc1/datastore/ds1",
          folder: `/dc1/vm/${id}`,
          resourcePool: "/dc1/host/cluster1/Resources",
        },
        userDataSecret: { name: "worker-user-data" },
        credentialsSecret: { name: "vsphere-cloud-credentials" },
      };
    case "nutanix":
      return {
        apiVersion: "machine.openshift.io/v1",
        kind: "NutanixMachineProviderConfig",
        cluster: { type: "uuid", uuid: "00000000-0000-4000-8000-000000000001" },
        subnets: [{ type: "uuid", uuid: "00000000-0000-4000-8000-000000000002" }],
        image: { type: "name", name: `${id}-rhcos` },
        vcpusPerSocket: 1,
        vcpuSockets: 4,
        memorySize: "16Gi",
        systemDiskSize: "120Gi",
        userDataSecret: { name: "worker-user-data" },
        credentialsSecret: { name: "nutanix-credentials" },
      };
  }
}

/** Cluster-scoped and namespaced objects of an OpenShift cluster on `platform`, in creation order. */
export function openshiftSeed(platform: OpenShiftPlatform, infrastructureName?: string): Obj[] {
  const id = infrastructureName ?? PLATFORMS[platform].infrastructureName;
  const type = PLATFORMS[platform].type;
  const zone = platform === "aws" ? "us-east-1a" : platform === "gcp" ? "us-central1-a" : "1";
  return [
    ...["openshift-machine-api", "openshift-config", "openshift-marketplace", "openshift-config-managed"].map(
      (name) => ({
        apiVersion: "v1",
        kind: "Namespace",
        metadata: { name },
      }),
    ),
    {
      apiVersion: "config.openshift.io/v1",
      kind: "Infrastructure",
      metadata: { name: "cluster" },
      spec: { platformSpec: { type }, cloudConfig: { name: "" } },
      status: {
        infrastructureName: id,
        platform: type,
        platformStatus: platformStatus(platform, id),
        apiServerURL: `https://api.${id}.lab.example:6443`,
        apiServerInternalURI: `https://api-int.${id}.lab.example:6443`,
        controlPlaneTopology: "HighlyAvailable",
        infrastructureTopology: "HighlyAvailable",
        cpuPartitioning: "None",
        etcdDiscoveryDomain: "",
      },
    },
    {
      apiVersion: "config.openshift.io/v1",
      kind: "Network",
      metadata: { name: "cluster" },
      spec: {
        networkType: "OVNKubernetes",
        clusterNetwork: [{ cidr: "10.128.0.0/14", hostPrefix: 23 }],
        serviceNetwork: ["172.30.0.0/16"],
      },
      status: {
        networkType: "OVNKubernetes",
        clusterNetwork: [{ cidr: "10.128.0.0/14", hostPrefix: 23 }],
        serviceNetwork: ["172.30.0.0/16"],
      },
    },
    {
      // WMCO requires OVN-Kubernetes with hybrid overlay, configured at installation (WMCO docs,
      // "Configuring hybrid networking"); the lab's cluster was installed so.
      apiVersion: "operator.openshift.io/v1",
      kind: "Network",
      metadata: { name: "cluster" },
      spec: {
        managementState: "Managed",
        defaultNetwork: {
          type: "OVNKubernetes",
          ovnKubernetesConfig: {
            hybridOverlayConfig: {
              hybridClusterNetwork: [{ cidr: "10.132.0.0/14", hostPrefix: 23 }],
              // On vSphere with a custom VXLAN port, as WMCO's prerequisites ask (docs/wmco-prerequisites.md
              // "Custom VXLAN port"; the example's 9898).
              ...(platform === "vsphere" ? { hybridOverlayVXLANPort: 9898 } : {}),
            },
          },
        },
      },
    },
    { apiVersion: "config.openshift.io/v1", kind: "Proxy", metadata: { name: "cluster" }, spec: {} },
    // The installer's APIServer/cluster (no TLS profile set: the default). OLM's operators read it at start
    // (operator-lifecycle-manager pkg/lib/apiserver/syncer.go `SetupAPIServerTLSConfig`).
    { apiVersion: "config.openshift.io/v1", kind: "APIServer", metadata: { name: "cluster" }, spec: {} },
    {
      apiVersion: "config.openshift.io/v1",
      kind: "ClusterVersion",
      metadata: { name: "version" },
      spec: { clusterID: "6e2b3a4c-0f1d-4c8e-9a7b-2d5f8e1c3b6a", channel: `stable-${OPENSHIFT_MINOR}` },
      status: {
        desired: {
          version: OPENSHIFT_VERSION,
          image: "quay.io/openshift-release-dev/ocp-release@sha256:" + "0".repeat(64),
        },
        history: [
          {
            state: "Completed",
            version: OPENSHIFT_VERSION,
            image: "quay.io/openshift-release-dev/ocp-release@sha256:" + "0".repeat(64),
            startedTime: "2026-11-01T00:00:00Z",
            completionTime: "2026-11-01T00:40:00Z",
            verified: true,
          },
        ],
        observedGeneration: 1,
        versionHash: "lab",
        capabilities: {},
        availableUpdates: null,
      },
    },
    {
      apiVersion: "machine.openshift.io/v1beta1",
      kind: "MachineSet",
      metadata: {
        name: `${id}-worker-${zone}`,
        namespace: "openshift-machine-api",
        labels: { "machine.openshift.io/cluster-api-cluster": id },
      },
      spec: {
        replicas: 2,
        selector: {
          matchLabels: {
            "machine.openshift.io/cluster-api-cluster": id,
            "machine.openshift.io/cluster-api-machineset": `${id}-worker-${zone}`,
          },
        },
        template: {
          metadata: {
            labels: {
              "machine.openshift.io/cluster-api-cluster": id,
              "machine.openshift.io/cluster-api-machine-role": "worker",
              "machine.openshift.io/cluster-api-machine-type": "worker",
              "machine.openshift.io/cluster-api-machineset": `${id}-worker-${zone}`,
            },
          },
          spec: { providerSpec: { value: workerProviderSpec(platform, id) } },
        },
      },
    },
  ];
}
