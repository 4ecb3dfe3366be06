import {
  containerdServiceScript,
  featuresScript,
  hostSettingsScript,
  installScript,
  joinScript,
  kubeletServiceScript,
  probeScript,
  resetScript,
  startServicesScript,
  stopServicesScript,
  proxyScript,
  KubeletRegistration,
  kubeadmUpgradeScript,
} from "../../../providers/vanilla-node/scripts";
import { parseNodeProbe, pendingSteps } from "../../../providers/vanilla-node/steps";
import { REMOVED_KUBELET_FLAGS } from "../../../facts/kubernetes";
import { powershellErrors } from "../../helpers/powershell-parser";
import { releaseDownloads } from "../../helpers/vanilla-fixtures";

const items = releaseDownloads("1.36.2", ["kubelet"]);

const REG: KubeletRegistration = {
  nodeName: "win-a",
  labels: { pool: "windows" },
  taints: [{ key: "os", value: "windows", effect: "NoSchedule" }],
};

test.each([
  ["probe", probeScript(["containerd", "kubelet"], 4789)],
  ["features", featuresScript()],
  ["host settings", hostSettingsScript(4789)],
  ["install", installScript(items)],
  ["containerd service", containerdServiceScript("C:\\k\\containerd\\config.toml")],
  ["kubelet service", kubeletServiceScript(REG)],
  ["join", joinScript("C:\\k\\kubeadm\\join.yaml", REG)],
  ["start services", startServicesScript(["containerd", "kubelet"])],
  ["stop services", stopServicesScript(["kubelet"])],
  ["reset", resetScript()],
  [
    "proxy",
    proxyScript({ HTTP_PROXY: "http://proxy:3128", HTTPS_PROXY: "http://proxy:3128", NO_PROXY: "10.96.0.0/12,.svc" }),
  ],
  ["proxy removed", proxyScript({ HTTP_PROXY: "", HTTPS_PROXY: "", NO_PROXY: "" })],
  ["install through a proxy", installScript(items, "http://proxy:3128")],
])("the %s script parses as PowerShell without errors", async (_n, script) => {
  expect(await powershellErrors(script)).toEqual([]);
});

test("the checksum is compared before anything is placed, and a mismatch names both hashes", () => {
  const s = installScript(items);
  expect(s.indexOf("Get-FileHash")).toBeLessThan(s.indexOf("Move-IntoPlace $it.name"));
  expect(s.indexOf("Get-FileHash")).toBeLessThan(s.indexOf("tar.exe"));
  expect(s).toContain("checksum mismatch, published ' + $published + ', downloaded ' + $actual");
});

test("a published checksum that arrives as bytes is decoded before it is read (Windows PowerShell 5.1, octet-stream)", () => {
  // Windows PowerShell 5.1's Invoke-WebRequest gives `.Content` as byte[] unless the response is text; GitHub
  // release assets are application/octet-stream (PowerShell WebResponseObject.Content vs BasicHtmlWebResponseObject).
  const s = installScript(items);
  const read = s.indexOf("(Invoke-WebRequest @web -Uri $it.sum).Content");
  const decode = s.indexOf(
    "if ($content -is [byte[]]) { $content = [System.Text.Encoding]::ASCII.GetString($content) }",
  );
  const split = s.indexOf("$published = (([string]$content).Trim() -split");
  expect(read).toBeGreaterThan(0);
  expect(decode).toBeGreaterThan(read);
  expect(split).toBeGreaterThan(decode);
  // A checksum file that holds no SHA-256 (an HTML error page, a redirect body) stops before anything is placed.
  expect(s.indexOf("-notmatch '^[0-9a-f]{64}$'")).toBeGreaterThan(split);
  expect(s.indexOf("-notmatch '^[0-9a-f]{64}$'")).toBeLessThan(s.indexOf("Move-IntoPlace $it.name"));
});

test("a checksum mismatch names the config keys that set the download source and the pins", () => {
  expect(installScript(items)).toMatch(
    /checksum mismatch.*kubernetes\.artifacts\.baseUrl.*kubernetes\.flannel\.flanneldSha256/,
  );
});

test("containerd's re-registration: sc.exe delete checked, dependents read before the stop, a failure says what stays stopped", () => {
  const lines = containerdServiceScript("C:\\k\\containerd\\config.toml").split("\n");
  const at = (t: string) => lines.findIndex((l) => l.includes(t));
  expect(at("$dependents = @(Get-Service -Name containerd -DependentServices")).toBeLessThan(
    at("Stop-Service -Name containerd"),
  );
  expect(lines[at("sc.exe delete containerd | Out-Null") + 1]).toMatch(
    /^\s*if \(\$LASTEXITCODE -ne 0\) \{ throw \('sc\.exe delete containerd failed with ' .*run up again'\) \}$/,
  );
  expect(lines[at("--register-service --config $config") + 1]).toContain("run up again");
  // Every failing step inside the try, whose catch names the dependents left stopped; they start only after it.
  expect(at("try {")).toBeLessThan(at("Stop-Service -Name containerd"));
  expect(at("} catch {")).toBeGreaterThan(at("Start-Service -Name containerd"));
  expect(lines[at("} catch {") + 1]).toContain("(the next up starts them)");
  expect(at("foreach ($d in $dependents) { Start-Service -Name $d }")).toBeGreaterThan(at("} catch {"));
});

test("Move-IntoPlace's messages leave the host to the runner (no NetBIOS COMPUTERNAME)", () => {
  const s = installScript(items);
  expect(s.slice(s.indexOf("function Move-IntoPlace"), s.indexOf("$items = @("))).not.toContain("COMPUTERNAME");
});

test("the kubelet is registered as the service kubeadm drives (`kubelet`, after containerd) and never with a removed flag", () => {
  const s = kubeletServiceScript(REG);
  expect(s).toContain("sc.exe create kubelet binPath= $bin depend= containerd start= auto");
  // The failure names the fix (sc.exe's own words go to Out-Null).
  expect(s).toMatch(
    /^if \(\$LASTEXITCODE -ne 0\) \{ throw \('registering the kubelet service failed with ' \+ \$LASTEXITCODE \+ .*restart the host\), then run up again'\) \}$/m,
  );
  // Restarted by the service manager when it dies, as containerd registers itself (service_windows.go: 15 s).
  expect(s).toContain("sc.exe failure kubelet reset= 86400 actions= restart/15000/restart/15000/restart/60000");
  expect(s.indexOf("sc.exe failure kubelet")).toBeGreaterThan(s.indexOf("sc.exe config kubelet"));
  for (const { flag } of REMOVED_KUBELET_FLAGS) expect(s).not.toContain(`'${flag}=`);
  // kubeadm's own flags file may still carry one from an older kubeadm: merged without it.
  expect(s).toContain("if ($have -notcontains $n -and $removed -notcontains $n) { $flags += $f }");
  expect(/^\$removed = @\((.*)\)$/m.exec(s)?.[1]).toContain("'--pod-infra-container-image'");
});

test("the Node registers right at its first start: name, taints and labels on the kubelet's own command line", () => {
  // kubeadm adds --register-with-taints and --hostname-override only through kubeadm-flags.env at the join
  // (cmd/kubeadm/app/phases/kubelet/flags.go); a kubelet started before that registers untainted, and a node whose
  // name is not its hostname is refused by NodeRestriction. sig-windows-tools' StartKubelet.ps1 always passes
  // --hostname-override.
  const s = kubeletServiceScript(REG);
  const flags = /^\$flags = @\((.*)\)$/m.exec(s)?.[1] ?? "";
  expect(flags).toContain("'--hostname-override=win-a'");
  expect(flags).toContain("'--register-with-taints=os=windows:NoSchedule'");
  expect(flags).toContain("'--node-labels=pool=windows'");
  // Empty values without quotes: Windows PowerShell 5.1 hands embedded quotes to sc.exe mangled; pflag reads
  // `--enforce-node-allocatable=` as an empty list (spf13/pflag string_slice.go readAsCSV).
  expect(flags).toContain("'--enforce-node-allocatable='");
  expect(flags).toContain("'--resolv-conf='");
  expect(flags).not.toContain('"');
});

test("one node IP: the kubelet registers with --node-ip when the stack knows it, and picks its own otherwise", () => {
  // kubelet --node-ip sets the Node's InternalIP (cmd/kubelet/app/options/options.go NodeIP), which flanneld reads
  // back as status.hostIP (--iface) and the CNI conf names as its ProviderAddress: all three must agree.
  const flags = (r: typeof REG) => /^\$flags = @\((.*)\)$/m.exec(kubeletServiceScript(r))?.[1] ?? "";
  expect(flags({ ...REG, nodeIp: "10.0.0.21" })).toContain("'--node-ip=10.0.0.21'");
  expect(flags(REG)).not.toContain("--node-ip");
});

test("every run merges kubeadm-flags.env, so re-registering the service (an upgrade, start-type drift) keeps kubeadm's flags", () => {
  for (const s of [kubeletServiceScript(REG), joinScript("C:\\k\\kubeadm\\join.yaml", REG)]) {
    const read = s.indexOf("Get-Content -LiteralPath $envFile -Raw");
    const bin = s.indexOf("$bin = 'C:\\k\\kube-log-runner.exe");
    expect(read).toBeGreaterThan(0);
    expect(bin).toBeGreaterThan(read);
  }
  const join = joinScript("C:\\k\\kubeadm\\join.yaml", REG);
  expect(join.indexOf("kubeadm.exe' join --config $join")).toBeLessThan(
    join.indexOf("Get-Content -LiteralPath $envFile"),
  );
  expect(join).toContain(
    "if ($LASTEXITCODE -ne 0) { throw ('updating the kubelet service after the join failed with '",
  );
});

test("the kubelet's log rotates (component-base logs/kube-log-runner: -log-file-size, -log-file-age)", () => {
  expect(kubeletServiceScript(REG)).toMatch(
    /kube-log-runner\.exe --log-file=\S+ --log-file-size=100M --log-file-age=168h /,
  );
});

test("the join removes the token file whatever happens, and never runs twice", () => {
  const s = joinScript("C:\\k\\kubeadm\\join.yaml", REG);
  expect(s).toMatch(/finally \{\n\s+Remove-Item -LiteralPath \$join/);
  expect(s).toContain("if (Test-Path -LiteralPath 'C:\\etc\\kubernetes\\kubelet.conf')");
});

const probe = (over: Record<string, unknown> = {}) =>
  parseNodeProbe(
    "\uFEFF" +
      JSON.stringify({
        hostname: "WIN-A",
        osBuild: "20348",
        containersFeature: "Installed",
        versions: { containerd: "2.3.4", kubelet: "1.36.2" },
        services: {
          containerd: { status: "Running", startType: "Automatic" },
          kubelet: { status: "Running", startType: "Automatic" },
        },
        firewall: { kubelet: true, vxlan: true },
        joined: true,
        ...over,
      }) +
      "\r\n",
  );

test("a converged node needs nothing; each kind of drift maps to its step", () => {
  expect(pendingSteps(probe(), items)).toEqual([]);
  expect(pendingSteps(probe({ containersFeature: "InstallPending" }), items).map((p) => p.step)).toEqual(["features"]);
  expect(pendingSteps(probe({ versions: { containerd: "2.3.4", kubelet: "1.36.1" } }), items)).toEqual([
    { step: "binaries", why: "kubelet 1.36.1 → 1.36.2" },
    { step: "kubelet service", why: "kubelet upgraded" },
    { step: "services", why: "kubelet is running (Automatic)" },
  ]);
  expect(
    pendingSteps(
      probe({ joined: false, services: { containerd: { status: "Running", startType: "Automatic" } } }),
      items,
    ),
  ).toEqual([
    { step: "kubelet service", why: "kubelet service is not registered" },
    { step: "join", why: "the node has not joined (no kubelet.conf)" },
  ]);
});

test("a Kubernetes version change on a joined node runs kubeadm upgrade node after the binaries, before the kubelet starts", async () => {
  // Kubernetes' "Upgrading Windows nodes" task: new kubeadm, drain, `kubeadm upgrade node`, new kubelet, uncordon.
  const both = releaseDownloads("1.36.3", ["kubelet", "kubeadm"]);
  const joined = probe({ versions: { containerd: "2.3.4", kubelet: "1.36.2", kubeadm: "1.36.2" } });
  expect(pendingSteps(joined, both).map((p) => p.step)).toEqual([
    "binaries",
    "kubelet service",
    "kubeadm upgrade",
    "services",
  ]);
  // Not joined yet: the join itself brings the cluster's kubelet config.
  expect(pendingSteps({ ...joined, joined: false }, both).map((p) => p.step)).not.toContain("kubeadm upgrade");
  const s = kubeadmUpgradeScript();
  expect(await powershellErrors(s)).toEqual([]);
  expect(s).toContain("& 'C:\\k\\kubeadm.exe' upgrade node");
  expect(s).toContain("if ($LASTEXITCODE -ne 0) { throw ('kubeadm upgrade node failed with ' + $LASTEXITCODE) }");
});

test("garbage from the probe is a clear error", () => {
  expect(() => parseNodeProbe("Get-WindowsFeature : not recognized")).toThrow(/the node probe printed no JSON/);
});

test("a proxy that differs from the machine's is a step; downloads go through it explicitly", () => {
  const want = { HTTP_PROXY: "", HTTPS_PROXY: "http://proxy.example.com:3128", NO_PROXY: "10.96.0.0/12" };
  expect(pendingSteps(probe(), items, want)).toEqual([{ step: "proxy", why: "machine HTTPS_PROXY, NO_PROXY differ" }]);
  expect(pendingSteps(probe({ proxy: want }), items, want)).toEqual([]);
  expect(installScript(items, "http://proxy.example.com:3128")).toContain(
    "$web['Proxy'] = 'http://proxy.example.com:3128'",
  );
  expect(installScript(items)).not.toContain("$web['Proxy']");
});
