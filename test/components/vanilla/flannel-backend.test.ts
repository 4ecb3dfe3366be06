import {
  flannelBackendIssues,
  netConfChangeWarning,
  planNetConf,
  runningVxlan,
} from "../../../components/vanilla/flannel-backend";
import { flannelIssues } from "../../../components/vanilla/complete";
import { parseVanillaFacts } from "../../../components/vanilla/discover";
import { flannelRestartPatch } from "../../../components/vanilla/objects";

// flannel Documentation/kube-flannel.yml's net-conf.json: VXLAN without VNI or port.
const upstream = { Network: "10.244.0.0/16", EnableNFTables: false, Backend: { Type: "vxlan" } };
const windows = { vni: 4096, port: 4789 };

test("a kube-flannel.yml cluster runs VNI 1 on port 8472 (flannel vxlan.go defaultVNI; the kernel's port for 0)", () => {
  expect(runningVxlan(upstream)).toEqual({ vni: 1, port: 8472 });
  expect(runningVxlan({ Backend: { Type: "vxlan", VNI: 4096, Port: 4789 } })).toEqual(windows);
});

test("the plan keeps the cluster's settings, sets only VNI and port, and names the change from what flanneld runs", () => {
  const plan = planNetConf(upstream, windows);
  expect(JSON.parse(plan.text)).toEqual({
    Network: "10.244.0.0/16",
    EnableNFTables: false,
    Backend: { Type: "vxlan", VNI: 4096, Port: 4789 },
  });
  expect(plan.change).toEqual({ from: { vni: 1, port: 8472 }, to: windows });
  // Kept options the Windows side allows (flannel's MacPrefix default) survive.
  const withMac = planNetConf({ ...upstream, Backend: { Type: "vxlan", MacPrefix: "0E-2A" } }, windows);
  expect(JSON.parse(withMac.text).Backend).toEqual({ Type: "vxlan", MacPrefix: "0E-2A", VNI: 4096, Port: 4789 });
});

test("once applied, the same text again and no change: the patch stays declared and unchanged on every later run", () => {
  // Dropping the patch would relinquish net-conf.json, which server-side apply then deletes
  // (pulumi-kubernetes provider/pkg/ssa/relinquish.go Relinquish); a changed text would re-apply it every run.
  const applied = planNetConf(upstream, windows).text;
  const again = planNetConf(JSON.parse(applied), windows);
  expect(again).toEqual({ text: applied });
});

test("backends Windows cannot join are refused, never switched: host-gw, wireguard, none at all (udp)", () => {
  const refused = (netConf: Record<string, unknown>) => flannelBackendIssues(netConf).map((i) => i.message);
  expect(refused({ ...upstream, Backend: { Type: "host-gw" } })[0]).toMatch(
    /^the cluster's flannel runs the 'host-gw' backend; Windows nodes joined by this stack need 'vxlan'/,
  );
  expect(refused({ ...upstream, Backend: { Type: "wireguard" } })[0]).toContain("'wireguard' backend");
  // No Backend at all is flannel's UDP backend (pkg/subnet/config.go parseBackendType).
  expect(refused({ Network: "10.244.0.0/16" })[0]).toContain("'udp' backend");
  expect(refused(upstream)).toEqual([]);
});

test("DirectRouting, GBP and a malformed MacPrefix are refused with vxlan_windows.go's reason, not dropped", () => {
  const issues = flannelBackendIssues({
    ...upstream,
    Backend: { Type: "vxlan", DirectRouting: true, GBP: true, MacPrefix: "0E2A" },
  });
  expect(issues.map((i) => i.path)).toEqual(["kubernetes.flannel", "kubernetes.flannel", "kubernetes.flannel"]);
  expect(issues[0].message).toContain(
    'DirectRouting: true, which Windows flanneld refuses (vxlan_windows.go: "DirectRouting is not supported on Windows")',
  );
  expect(issues[1].message).toContain('"GBP is not supported on Windows"');
  expect(issues[2].message).toContain('MacPrefix "0E2A"');
  // false is what flanneld assumes anyway: nothing to refuse.
  expect(flannelBackendIssues({ ...upstream, Backend: { Type: "vxlan", DirectRouting: false, GBP: false } })).toEqual(
    [],
  );
});

test("with the cluster's facts: refusals whatever `manage` says, the fix command only when this stack may not patch", () => {
  const facts = (netConf: unknown) =>
    parseVanillaFacts({ flannelConfig: { data: { "net-conf.json": JSON.stringify(netConf) } } });
  const managed = { manage: true, ...windows };
  const unmanaged = { manage: false, ...windows };
  expect(flannelIssues(facts(upstream), managed)).toEqual([]);
  const [fix] = flannelIssues(facts(upstream), unmanaged);
  expect(fix.path).toBe("kubernetes.flannel.manage");
  expect(fix.message).toContain("kubectl -n kube-flannel rollout restart daemonset kube-flannel-ds");
  expect(flannelIssues(facts({ ...upstream, Backend: { Type: "host-gw" } }), managed)).toHaveLength(1);
  expect(
    flannelIssues(
      facts({ Network: "10.244.0.0/16", Backend: { Type: "vxlan", ...{ VNI: 4096, Port: 4789 } } }),
      unmanaged,
    ),
  ).toEqual([]);
  // A net-conf.json flanneld cannot read is named, never replaced by a file holding only the backend.
  const broken = parseVanillaFacts({ flannelConfig: { data: { "net-conf.json": "{ Network: 10.244" } } });
  expect(flannelIssues(broken, managed).map((i) => i.message)).toEqual([
    "kube-flannel/kube-flannel-cfg's net-conf.json is not a JSON object, so flanneld cannot read it either; fix the ConfigMap first",
  ]);
  expect(flannelIssues(parseVanillaFacts({}), managed)[0].message).toContain(
    "install flannel (kube-flannel.yml) first",
  );
});

test("a change restarts Linux flanneld by its pod template and says what the roll does, with the Linux node count", () => {
  const patch = flannelRestartPatch(windows);
  expect(patch.metadata).toMatchObject({ name: "kube-flannel-ds", namespace: "kube-flannel" });
  expect(patch.spec.template.metadata.annotations).toEqual({
    "windows-estate.io/flannel-backend": "vxlan vni=4096 port=4789",
  });
  const change = planNetConf(upstream, windows).change!;
  expect(netConfChangeWarning(change, 3)).toContain(
    "from VNI 1 / port 8472 to VNI 4096 / port 4789, which Windows needs: kube-flannel-ds restarts on 3 Linux nodes, one at a time",
  );
  expect(netConfChangeWarning(change)).toContain("restarts on every Linux node");
});

test("the Linux node count comes from one page of the list and its remainingItemCount, and is unknown when the API gives none", () => {
  const list = (items: number, metadata: Record<string, unknown>) => ({ items: Array(items).fill({}), metadata });
  expect(parseVanillaFacts({ linuxNodes: list(1, { remainingItemCount: 41, continue: "x" }) }).linuxNodes).toBe(42);
  expect(parseVanillaFacts({ linuxNodes: list(0, {}) }).linuxNodes).toBe(0);
  expect(parseVanillaFacts({ linuxNodes: list(1, { continue: "x" }) }).linuxNodes).toBeUndefined();
});

test("the restart annotation this stack left on kube-flannel-ds is read back, so its patch stays declared unchanged", () => {
  const ds = (annotations: Record<string, string>) => ({ spec: { template: { metadata: { annotations } } } });
  expect(
    parseVanillaFacts({ flannelDaemonSet: ds({ "windows-estate.io/flannel-backend": "vxlan vni=4096 port=4789" }) })
      .flannelRestartedFor,
  ).toBe("vxlan vni=4096 port=4789");
  // A cluster this stack never restarted: nothing read, nothing declared (adopting it restarts no flanneld).
  expect(parseVanillaFacts({ flannelDaemonSet: ds({ other: "x" }) }).flannelRestartedFor).toBeUndefined();
});
