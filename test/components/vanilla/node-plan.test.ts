import { parse as parseToml } from "smol-toml";
import { parse as parseYaml } from "yaml";
import {
  containerdConfigToml,
  flannelCniConf,
  nodeNoProxy,
  flannelNetConf,
  HOSTNAME_PLACEHOLDER,
  NODE_IP_PLACEHOLDER,
  ResolvedKubernetes,
  TOKEN_PLACEHOLDER,
  vanillaNodePlan,
} from "../../../components/vanilla/node-plan";
import { nodesSchema } from "../../../stacks/schema/kubernetes";
import { expandNodes } from "../../../components/vanilla/hosts";
import { mirrored } from "../../../facts/kubernetes";
import { releaseDownloads } from "../../helpers/vanilla-fixtures";

const k: ResolvedKubernetes = {
  version: "1.36.2",
  podNetworkCidr: "10.244.0.0/16",
  serviceCidr: "10.96.0.0/12",
  dnsServiceIp: "10.96.0.10",
  apiServerEndpoint: "10.0.0.10:6443",
  containerdVersion: "2.3.4",
  flannel: {
    vni: 4096,
    port: 4789,
    version: "v0.28.9",
    flanneldSha256: "7d43b3de5635891e68b36458d912a94c2eb94e15d878d486f539309db5845861",
    // RKE2's pin (rancher/rke2 Dockerfile.windows), as facts/kubernetes.ts FLANNEL_CNI_SHA256 holds it.
    cniVersion: "v1.9.1-flannel3",
    cniSha256: "768c4a04e6ee3f7e3f9280488359b7e4bba4220246795261994a77a366860cc6",
  },
  hostProcessImage: "mcr.microsoft.com/oss/kubernetes/windows-host-process-containers-base-image:v1.0.0",
};
const node = (over: Record<string, unknown> = {}) =>
  expandNodes(
    nodesSchema.parse([{ address: "10.0.0.21", username: "Administrator", trustOnFirstUse: true, ...over }]),
  )[0];

test("containerd's config is TOML version 3 with the pause image, CNI dirs and registry dir (image-builder config.toml; containerd 2.x keys)", () => {
  const t = parseToml(containerdConfigToml()) as Record<string, Record<string, Record<string, unknown>>>;
  expect(t.version).toBe(3);
  expect(t.plugins["io.containerd.cri.v1.images"]).toEqual({
    pinned_images: { sandbox: "registry.k8s.io/pause:3.10.2" },
    registry: { config_path: "C:\\k\\containerd\\registries" },
  });
  // containerd 2.1+ reads bin_dirs (a list); CNI files live where flannel's Windows setup puts them.
  expect(t.plugins["io.containerd.cri.v1.runtime"]).toEqual({
    cni: { bin_dirs: ["C:\\opt\\cni\\bin"], conf_dir: "C:\\etc\\cni\\net.d" },
  });
});

test("flannel's net-conf has the VXLAN backend Windows flanneld accepts (VNI 4096, port 4789: sig-windows-tools guides/flannel.md)", () => {
  expect(JSON.parse(flannelNetConf(k))).toEqual({
    Network: "10.244.0.0/16",
    Backend: { Type: "vxlan", VNI: 4096, Port: 4789 },
  });
});

test("the CNI conf delegates to win-overlay (HNS v2) with NAT exceptions, the service route and the provider address (rancher/rke2 pkg/windows/flannel.go flannelCniConflistTemplate)", () => {
  const c = JSON.parse(flannelCniConf(k, "10.0.0.21"));
  expect(c).toMatchObject({
    name: "flannel.4096",
    cniVersion: "1.0.0",
    type: "flannel",
    capabilities: { portMappings: true, dns: true },
  });
  expect(c.delegate).toMatchObject({ type: "win-overlay", apiVersion: 2 });
  expect(c.delegate.Policies.map((a: { Value: unknown }) => a.Value)).toEqual([
    { Type: "OutBoundNAT", Settings: { Exceptions: ["10.244.0.0/16", "10.96.0.0/12"] } },
    { Type: "SDNRoute", Settings: { DestinationPrefix: "10.96.0.0/12", NeedEncap: true } },
    { Type: "ProviderAddress", Settings: { ProviderAddress: "10.0.0.21" } },
  ]);
});

test("every CNI plugin the conf names is installed on the node: the flannel plugin and its delegate", () => {
  // containernetworking/plugins v1.9.1 plugins/windows_only.txt: the Windows tarball holds host-local, win-bridge and
  // win-overlay only (no sdnoverlay, which microsoft/windows-container-networking ships separately).
  const windowsTarball = ["host-local", "win-bridge", "win-overlay"];
  const plan = vanillaNodePlan(node(), k, {});
  const c = JSON.parse(plan.files["C:\\etc\\cni\\net.d\\10-flannel.conf"]);
  const installed = new Set([
    ...(plan.downloads.some((d) => d.name === "cni-plugins" && /cni-plugins-windows-amd64-v1\.9\.1\.tgz$/.test(d.url))
      ? windowsTarball
      : []),
    ...plan.downloads
      .filter((d) => /\\opt\\cni\\bin\\[^\\]+\.exe$/i.test(d.target))
      .map((d) =>
        d.target
          .split("\\")
          .pop()
          ?.replace(/\.exe$/i, ""),
      ),
  ]);
  expect(installed.has(c.type)).toBe(true);
  expect(installed.has(c.delegate.type)).toBe(true);
});

test("the join file is a kubeadm v1beta4 JoinConfiguration: token discovery with the CA hash, containerd's pipe, the Windows taint, labels as a list; the token is never in it", () => {
  const plan = vanillaNodePlan(node({ labels: { pool: "windows" } }), { ...k, caCertHash: "sha256:abc" }, {});
  const join = parseYaml(plan.files["C:\\k\\kubeadm\\join.yaml"]);
  expect(join).toEqual({
    apiVersion: "kubeadm.k8s.io/v1beta4",
    kind: "JoinConfiguration",
    discovery: {
      bootstrapToken: { token: TOKEN_PLACEHOLDER, apiServerEndpoint: "10.0.0.10:6443", caCertHashes: ["sha256:abc"] },
    },
    nodeRegistration: {
      name: HOSTNAME_PLACEHOLDER,
      criSocket: "npipe:////./pipe/containerd-containerd",
      taints: [{ key: "os", value: "windows", effect: "NoSchedule" }],
      kubeletExtraArgs: [{ name: "node-labels", value: "pool=windows" }],
    },
  });
});

test("a named node registers under its name; a node given by DNS name gets its IP filled in on the host", () => {
  const named = vanillaNodePlan(node({ name: "win-a" }), k, {});
  expect(parseYaml(named.files["C:\\k\\kubeadm\\join.yaml"]).nodeRegistration.name).toBe("win-a");
  const byName = vanillaNodePlan(node({ address: "win-b.lab.example.com" }), k, {});
  const cni = JSON.parse(byName.files["C:\\etc\\cni\\net.d\\10-flannel.conf"]);
  expect(cni.delegate.Policies[2].Value.Settings.ProviderAddress).toBe(NODE_IP_PLACEHOLDER);
});

test("a declared node IP is the CNI's provider address, whatever address SSH uses (NAT, a second NIC)", () => {
  const plan = vanillaNodePlan(node({ address: "203.0.113.7", nodeIp: "10.0.0.21" }), k, {});
  const cni = JSON.parse(plan.files["C:\\etc\\cni\\net.d\\10-flannel.conf"]);
  expect(cni.delegate.Policies[2].Value.Settings.ProviderAddress).toBe("10.0.0.21");
});

test("downloads come from the public release URLs with their checksum files, or from the mirror with the same path", () => {
  const plan = vanillaNodePlan(node(), k, {});
  // The release sites' URLs as test/helpers/vanilla-fixtures.ts spells them; containerd's archive has a top-level bin/
  // directory: extracted with it stripped (Install-Containerd.ps1).
  const [containerd, kubelet] = releaseDownloads("1.36.2", ["kubelet"]);
  expect(plan.downloads.find((d) => d.name === "kubelet")).toEqual(kubelet);
  expect(plan.downloads.find((d) => d.name === "containerd")).toEqual(containerd);
  expect(
    mirrored("https://dl.k8s.io/release/v1.36.2/bin/windows/amd64/kubelet.exe", "https://mirror.example.com/k8s/"),
  ).toBe("https://mirror.example.com/k8s/dl.k8s.io/release/v1.36.2/bin/windows/amd64/kubelet.exe");
});

test("flannel's Windows binaries come from their release URLs, checked against the digests RKE2 pins (rancher/rke2 Dockerfile.windows @6ce1a80)", () => {
  const plan = vanillaNodePlan(node(), k, {});
  expect(plan.downloads.find((d) => d.name === "flanneld")).toEqual({
    name: "flanneld",
    url: "https://github.com/flannel-io/flannel/releases/download/v0.28.9/flanneld.exe",
    sha256: "7d43b3de5635891e68b36458d912a94c2eb94e15d878d486f539309db5845861",
    kind: "file",
    target: "C:\\k\\flanneld.exe",
    version: "v0.28.9",
  });
  // The CNI conf says `type: flannel`: the plugin must be flannel.exe in the CNI bin directory (CNI SPEC, plugin lookup).
  expect(plan.downloads.find((d) => d.name === "flannel-cni")).toEqual({
    name: "flannel-cni",
    url: "https://github.com/flannel-io/cni-plugin/releases/download/v1.9.1-flannel3/flannel-amd64.exe",
    sha256: "768c4a04e6ee3f7e3f9280488359b7e4bba4220246795261994a77a366860cc6",
    kind: "file",
    target: "C:\\opt\\cni\\bin\\flannel.exe",
    version: "v1.9.1-flannel3",
  });
  // Every download is verified one way or the other, never neither and never both.
  for (const d of plan.downloads) expect([d.checksumUrl, d.sha256].filter(Boolean)).toHaveLength(1);
});

test("registry files land in the registry directory containerd is pointed at", () => {
  const plan = vanillaNodePlan(node(), k, { "registry.k8s.io": 'server = "https://registry.k8s.io"\n' });
  expect(plan.files["C:\\k\\containerd\\registries\\registry.k8s.io\\hosts.toml"]).toBe(
    'server = "https://registry.k8s.io"\n',
  );
});

test("NO_PROXY keeps the kubelet's way to the API server and the cluster's networks off the proxy", () => {
  expect(nodeNoProxy(["corp.example.com"], { ...k, apiServerEndpoint: "10.0.0.10:6443" }).split(",")).toEqual([
    "corp.example.com",
    "10.244.0.0/16",
    "10.96.0.0/12",
    ".svc",
    ".cluster.local",
    "10.0.0.10",
  ]);
  expect(nodeNoProxy([], { ...k, apiServerEndpoint: "api.lab.example.com:6443" })).toContain(",api.lab.example.com");
});

test("registry files this program writes itself: a source with a port goes to containerd's host_port_ directory", () => {
  // containerd remotes/docker/config/hosts.go hostDirectory: `host:port` is looked up as `host_port_` first; Windows
  // allows no ':' in a name, so the literal `host:port` directory WMCO would use could not be written here.
  const plan = vanillaNodePlan(node(), k, { "registry.local:5000": "a", "quay.io": "b" });
  const registries = Object.keys(plan.files).filter((f) => f.startsWith("C:\\k\\containerd\\registries\\"));
  expect(registries.sort()).toEqual([
    "C:\\k\\containerd\\registries\\quay.io\\hosts.toml",
    "C:\\k\\containerd\\registries\\registry.local_5000_\\hosts.toml",
  ]);
});
