import { execFileSync, execSync } from "child_process";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { caCertHash, parseVanillaFacts, resolveKubernetes } from "../../../components/vanilla/discover";
import { kubernetesSchema } from "../../../stacks/schema/kubernetes";
import { validateObject } from "../../helpers/schemas";
import { kubeadmSeed } from "../../../lab/seed/kubeadm";
import { get } from "../../../lib/json";

// What a kubeadm cluster with flannel serves: the lab's seed (lab/seed/kubeadm.ts, hand-built in the shapes kubeadm's
// init phases and kube-flannel.yml write; each ConfigMap read here validated against the core/v1 schema), with a CA
// made here by openssl.
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "vanilla-ca-"));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
execFileSync(
  "openssl",
  [
    "req",
    "-x509",
    "-newkey",
    "rsa:2048",
    "-nodes",
    "-keyout",
    path.join(dir, "ca.key"),
    "-out",
    path.join(dir, "ca.crt"),
    "-days",
    "1",
    "-subj",
    "/CN=kubernetes",
  ],
  { stdio: "ignore" },
);
const caPem = fs.readFileSync(path.join(dir, "ca.crt"), "utf8");

const seed = kubeadmSeed({ kubernetesVersion: "v1.36.2", server: "https://10.0.0.10:6443", caPem });
const served = (namespace: string, name: string) => {
  const o = seed.find((x) => get(x, "metadata", "namespace") === namespace && get(x, "metadata", "name") === name);
  if (!o) throw new Error(`the seed has no ${namespace}/${name}`);
  return { ...o, apiVersion: String(o.apiVersion), kind: String(o.kind) };
};
const kubeadmConfig = served("kube-system", "kubeadm-config");
const kubeDns = served("kube-system", "kube-dns");
const clusterInfo = served("kube-public", "cluster-info");
const flannelConfig = served("kube-flannel", "kube-flannel-cfg");
// kube-flannel.yml's default: VXLAN without VNI/port (Linux defaults 1 and 8472, which Windows cannot use).
const upstreamNetConf = { Network: "10.244.0.0/16", EnableNFTables: false, Backend: { Type: "vxlan" } };

test("the objects served here are valid core/v1 objects", () => {
  for (const o of [kubeadmConfig, clusterInfo, flannelConfig]) expect(validateObject(o)).toBe("");
});

test("the CA pin is the SHA-256 of the CA's SubjectPublicKeyInfo, as kubeadm's docs compute it with openssl", () => {
  // kubeadm docs (kubeadm join, "discovery-token-ca-cert-hash"): openssl x509 -pubkey | openssl rsa -pubin -outform der | sha256
  const expected = execSync(
    `openssl x509 -pubkey -in ${path.join(dir, "ca.crt")} | openssl rsa -pubin -outform der 2>/dev/null | openssl dgst -sha256 -hex`,
  )
    .toString()
    .trim()
    .split(" ")
    .pop();
  expect(caCertHash(caPem)).toBe(`sha256:${expected}`);
});

test("facts: version from /version, networks from kubeadm-config, DNS IP from kube-dns, endpoint and CA from cluster-info", () => {
  const f = parseVanillaFacts({
    version: { gitVersion: "v1.36.2", major: "1", minor: "36" },
    kubeadmConfig,
    kubeDns,
    clusterInfo,
    flannelConfig,
  });
  expect(f).toMatchObject({
    serverVersion: "1.36.2",
    podNetworkCidr: "10.244.0.0/16",
    serviceCidr: "10.96.0.0/12",
    dnsServiceIp: "10.96.0.10",
    apiServerEndpoint: "10.0.0.10:6443",
    caCertHash: caCertHash(caPem),
    netConf: upstreamNetConf,
  });
});

test("config wins over discovery; what neither gives is named with its key", () => {
  const k = kubernetesSchema.unwrap().parse({ serviceCidr: "10.100.0.0/16" });
  const r = resolveKubernetes(k, {
    serverVersion: "1.36.2",
    podNetworkCidr: "10.244.0.0/16",
    serviceCidr: "10.96.0.0/12",
  });
  expect(r.issues).toEqual([
    {
      path: "kubernetes.dnsServiceIp",
      message: "is needed and the cluster does not say it (kube-system/kube-dns clusterIP); set it",
    },
    // Windows flanneld and kube-proxy reach the API server there (kube-public/cluster-info's kubeconfig `server`).
    {
      path: "kubernetes.apiServerEndpoint",
      message: "is needed and the cluster does not say it (kube-public/cluster-info); set it",
    },
    // kubeadm refuses a join without the CA pin (cmd/kubeadm/app/util/pubkeypin); it used to be written as "".
    {
      path: "kubernetes.caCertHash",
      message: "is needed and the cluster does not say it (kube-public/cluster-info's CA); set it",
    },
  ]);
  const ok = resolveKubernetes(
    kubernetesSchema.unwrap().parse({ serviceCidr: "10.100.0.0/16", dnsServiceIp: "10.100.0.10" }),
    {
      serverVersion: "1.36.2",
      podNetworkCidr: "10.244.0.0/16",
      apiServerEndpoint: "10.0.0.10:6443",
      caCertHash: "sha256:abababababababababababababababababababababababababababababababab",
    },
  );
  expect(ok.issues).toEqual([]);
  expect(ok.resolved).toMatchObject({ version: "1.36.2", serviceCidr: "10.100.0.0/16", containerdVersion: "2.3.4" });
});

test("render mode needs no API server endpoint nor CA pin (nothing joins); applying does", () => {
  const k = kubernetesSchema.unwrap().parse({
    version: "1.36.2",
    podNetworkCidr: "10.244.0.0/16",
    serviceCidr: "10.96.0.0/12",
    dnsServiceIp: "10.96.0.10",
  });
  expect(resolveKubernetes(k, undefined, { render: true }).issues).toEqual([]);
  expect(resolveKubernetes(k, undefined, { render: false }).issues).toEqual([
    {
      path: "kubernetes.apiServerEndpoint",
      message: "is needed and discovery is off (synth, or cluster.discovery: false); set it",
    },
    {
      path: "kubernetes.caCertHash",
      message: "is needed and discovery is off (synth, or cluster.discovery: false); set it",
    },
  ]);
  // With discovery off, the pin comes from the config and reaches the join file (it was `caCertHashes: [""]`).
  const pinned = resolveKubernetes(
    kubernetesSchema.unwrap().parse({
      version: "1.36.2",
      podNetworkCidr: "10.244.0.0/16",
      serviceCidr: "10.96.0.0/12",
      dnsServiceIp: "10.96.0.10",
      apiServerEndpoint: "10.0.0.10:6443",
      caCertHash: "sha256:abababababababababababababababababababababababababababababababab",
    }),
    undefined,
  );
  expect(pinned.issues).toEqual([]);
  expect(pinned.resolved?.caCertHash).toBe("sha256:abababababababababababababababababababababababababababababababab");
});

test("a configured CA pin that is not the cluster's is refused, naming both, before any join fails on it", () => {
  // kubeadm discovery refuses a cluster-info CA no pin allows (cmd/kubeadm/app/util/pubkeypin Set.CheckAny).
  const theirs = "sha256:abababababababababababababababababababababababababababababababab";
  const mine = "sha256:cdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcd";
  const facts = {
    serverVersion: "1.36.2",
    podNetworkCidr: "10.244.0.0/16",
    serviceCidr: "10.96.0.0/12",
    dnsServiceIp: "10.96.0.10",
    apiServerEndpoint: "10.0.0.10:6443",
    caCertHash: theirs,
  };
  const k = (caCertHash: string) => kubernetesSchema.unwrap().parse({ caCertHash });
  expect(resolveKubernetes(k(mine), facts).issues).toEqual([
    {
      path: "kubernetes.caCertHash",
      message: `${mine} is not the pin of the CA the cluster publishes in kube-public/cluster-info (${theirs}); every join would refuse the API server. Remove caCertHash (discovery fills it in) or correct it`,
    },
  ]);
  expect(resolveKubernetes(k(theirs), facts).issues).toEqual([]);
});

test("skew: nodes never newer than the API server, at most 3 minors older (version-skew-policy)", () => {
  const at = (version: string, server: string) =>
    resolveKubernetes(
      kubernetesSchema
        .unwrap()
        .parse({ version, podNetworkCidr: "10.244.0.0/16", serviceCidr: "10.96.0.0/12", dnsServiceIp: "10.96.0.10" }),
      {
        serverVersion: server,
        apiServerEndpoint: "10.0.0.10:6443",
        caCertHash: "sha256:abababababababababababababababababababababababababababababababab",
      },
    ).issues.map((i) => i.message);
  expect(at("1.36.2", "1.36.0")).toEqual([]);
  expect(at("1.35.0", "1.37.1")).toEqual([]);
  expect(at("1.37.0", "1.36.4")).toEqual([
    "1.37.0 is outside the skew the API server (1.36.4) allows: kubelets may be at most 3 minors older and never newer (version-skew-policy)",
  ]);
});

test("a configured containerd is checked against the API server's release when the version is discovered", () => {
  // containerd RELEASES.md "Kubernetes support" (facts/kubernetes.ts CONTAINERD_MINIMUM): 1.37 needs 2.3.0 or later.
  const r = resolveKubernetes(
    kubernetesSchema.unwrap().parse({
      podNetworkCidr: "10.244.0.0/16",
      serviceCidr: "10.96.0.0/12",
      dnsServiceIp: "10.96.0.10",
      containerd: { version: "2.2.1" },
    }),
    {
      serverVersion: "1.37.1",
      apiServerEndpoint: "10.0.0.10:6443",
      caCertHash: "sha256:abababababababababababababababababababababababababababababababab",
    },
  );
  expect(r.issues).toEqual([
    {
      path: "kubernetes.containerd.version",
      message:
        "containerd 2.2.1 does not support Kubernetes 1.37 (containerd RELEASES.md: 2.3.0+), the API server's release",
    },
  ]);
});
