import {
  flanneldDaemonSet,
  kubeProxyDaemonSet,
  networkAgentObjects,
  SCRIPT_HASH_ANNOTATION,
} from "../../../components/vanilla/network-objects";
import { flanneldScript, kubeProxyScript } from "../../../components/vanilla/network-scripts";
import { validateObject } from "../../helpers/schemas";
import { powershellErrors } from "../../helpers/powershell-parser";

const input = {
  apiServerEndpoint: "10.0.0.10:6443",
  podNetworkCidr: "10.244.0.0/16",
  vni: 4096,
  image: "mcr.microsoft.com/oss/kubernetes/windows-host-process-containers-base-image:v1.0.0",
};

const all = () => {
  const o = networkAgentObjects(input);
  return [...o.serviceAccounts, o.clusterRole, ...o.clusterRoleBindings, o.configMap, ...o.daemonSets];
};

test.each(all().map((o) => [`${o.kind} ${o.metadata.name}`, o]))(
  "%s is valid against its Kubernetes schema (closed: no field the API would drop)",
  (_n, o) => {
    expect(validateObject(o, { closed: true })).toBe("");
  },
);

test("both agents are HostProcess pods on every Windows node: SYSTEM, host network, every taint tolerated, node-critical", () => {
  for (const ds of [flanneldDaemonSet(input), kubeProxyDaemonSet(input)]) {
    const spec = ds.spec.template.spec;
    // website tasks/configure-pod-container/create-hostprocess-pod: hostProcess needs hostNetwork and a Windows user.
    expect(spec.securityContext.windowsOptions).toEqual({ hostProcess: true, runAsUserName: "NT AUTHORITY\\SYSTEM" });
    expect(spec.hostNetwork).toBe(true);
    expect(spec.nodeSelector).toEqual({ "kubernetes.io/os": "windows" });
    // kubeadm's kube-proxy DaemonSet tolerates everything (cmd/kubeadm/app/phases/addons/proxy/manifests.go).
    expect(spec.tolerations).toEqual([{ operator: "Exists" }]);
    expect(spec.priorityClassName).toBe("system-node-critical");
    expect(spec.serviceAccountName).toBe(ds.metadata.name);
    expect(ds.spec.selector.matchLabels).toEqual(ds.spec.template.metadata.labels);
  }
});

test("the agents reach the real API server, not the Service IP a host process cannot route to (sig-windows-tools#277)", () => {
  const env = (ds: ReturnType<typeof flanneldDaemonSet>) => ds.spec.template.spec.containers[0].env;
  expect(env(flanneldDaemonSet(input))).toEqual(
    expect.arrayContaining([
      { name: "KUBERNETES_SERVICE_HOST", value: "10.0.0.10" },
      { name: "KUBERNETES_SERVICE_PORT", value: "6443" },
      // flannel finds its Node by NODE_NAME (pkg/subnet/kube/kube.go) and binds VXLAN to the node IP (--iface).
      { name: "NODE_NAME", valueFrom: { fieldRef: { fieldPath: "spec.nodeName" } } },
      { name: "NODE_IP", valueFrom: { fieldRef: { fieldPath: "status.hostIP" } } },
    ]),
  );
  // kube-proxy's HNS network is flannel's, named flannel.<VNI> (vxlan_windows.go; winkernel getNetworkName).
  expect(env(kubeProxyDaemonSet(input))).toContainEqual({ name: "KUBE_NETWORK", value: "flannel.4096" });
  // An IPv6 endpoint and the default HTTPS port (kube-public/cluster-info may omit :443).
  const v6 = flanneldDaemonSet({ ...input, apiServerEndpoint: "[fd00::10]:6443" });
  expect(env(v6).slice(0, 2)).toEqual([
    { name: "KUBERNETES_SERVICE_HOST", value: "fd00::10" },
    { name: "KUBERNETES_SERVICE_PORT", value: "6443" },
  ]);
  expect(env(flanneldDaemonSet({ ...input, apiServerEndpoint: "api.example.com" })).slice(0, 2)).toEqual([
    { name: "KUBERNETES_SERVICE_HOST", value: "api.example.com" },
    { name: "KUBERNETES_SERVICE_PORT", value: "443" },
  ]);
});

test("RBAC: flannel gets what kube-flannel.yml grants, kube-proxy what kubeadm binds its own to", () => {
  const o = networkAgentObjects(input);
  // flannel Documentation/kube-flannel.yml, ClusterRole flannel.
  expect(o.clusterRole.rules).toEqual([
    { apiGroups: [""], resources: ["pods"], verbs: ["get"] },
    { apiGroups: [""], resources: ["nodes"], verbs: ["get", "list", "watch"] },
    { apiGroups: [""], resources: ["nodes/status"], verbs: ["patch"] },
  ]);
  // kubeadm's proxy addon: ClusterRoleBinding kubeadm:node-proxier → ClusterRole system:node-proxier.
  const proxier = o.clusterRoleBindings.find((b) => b.roleRef.name === "system:node-proxier");
  expect(proxier?.subjects).toEqual([
    { kind: "ServiceAccount", name: "windows-estate-kube-proxy", namespace: "kube-system" },
  ]);
  for (const b of o.clusterRoleBindings)
    expect(o.serviceAccounts.map((s) => s.metadata.name)).toContain(b.subjects[0].name);
});

test.each([
  ["flanneld", flanneldScript()],
  ["kube-proxy", kubeProxyScript("10.244.0.0/16")],
])("the %s start script parses as PowerShell without errors", async (_n, script) => {
  expect(await powershellErrors(script)).toEqual([]);
});

test("each agent runs a sandbox copy of the host binary, so VanillaNode can replace the host file while it runs", () => {
  for (const [script, host] of [
    [flanneldScript(), "C:\\k\\flanneld.exe"],
    [kubeProxyScript("10.244.0.0/16"), "C:\\k\\kube-proxy.exe"],
  ]) {
    expect(script).toContain(`Copy-Item -LiteralPath '${host}' -Destination $exe -Force`);
    expect(script).toMatch(/\n& \$exe /);
    expect(script).not.toContain(`& '${host}'`);
  }
});

test("kube-proxy: kernelspace with a source VIP reserved under flannel's network name, cached per subnet, and no WinOverlay gate", () => {
  const s = kubeProxyScript("10.244.0.0/16");
  expect(s).toContain("'--proxy-mode=kernelspace'");
  expect(s).toContain("('--source-vip=' + $vip)");
  expect(s).toContain("'--cluster-cidr=10.244.0.0/16'");
  // WinOverlay is locked to true from 1.34; passing the gate makes kube-proxy exit (k/k #133042, AgentBaker #6925).
  expect(s).not.toContain("--feature-gates");
  // The reservation is released before it is taken again, and a cached VIP is reused only for the same subnet.
  expect(s.indexOf("$env:CNI_COMMAND = 'DEL'")).toBeLessThan(s.indexOf("$env:CNI_COMMAND = 'ADD'"));
  expect(s).toContain("if ($c.subnet -eq $subnet -and $c.network -eq $env:KUBE_NETWORK) { $vip = $c.ip }");
  expect(s).toContain('"name":"\' + $env:KUBE_NETWORK + \'"');
  // The cache is replaced atomically.
  expect(s).toMatch(
    /Set-Content -LiteralPath \$tmp[^\n]*\n\s+Move-Item -LiteralPath \$tmp -Destination \$cache -Force/,
  );
});

test("a changed start script changes the pod template (so the pods roll); the same input does not", () => {
  const hash = (podNetworkCidr: string) =>
    kubeProxyDaemonSet({ ...input, podNetworkCidr }).spec.template.metadata.annotations[SCRIPT_HASH_ANNOTATION];
  expect(hash("10.244.0.0/16")).toBe(hash("10.244.0.0/16"));
  expect(hash("10.245.0.0/16")).not.toBe(hash("10.244.0.0/16"));
  expect(hash("10.244.0.0/16")).toMatch(/^[0-9a-f]{16}$/);
});
