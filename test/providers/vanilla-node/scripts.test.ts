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
} from "../../../providers/vanilla-node/scripts";
import { parseNodeProbe, pendingSteps } from "../../../providers/vanilla-node/steps";
import { REMOVED_KUBELET_FLAGS } from "../../../facts/kubernetes";
import { powershellErrors } from "../../helpers/powershell-parser";
import { releaseDownloads } from "../../helpers/vanilla-fixtures";

const items = releaseDownloads("1.36.2", ["kubelet"]);

test.each([
  ["probe", probeScript(["containerd", "kubelet"], 4789)],
  ["features", featuresScript()],
  ["host settings", hostSettingsScript(4789)],
  ["install", installScript(items)],
  ["containerd service", containerdServiceScript("C:\\k\\containerd\\config.toml")],
  ["kubelet service", kubeletServiceScript()],
  ["join", joinScript("C:\\k\\kubeadm\\join.yaml")],
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
  expect(s.indexOf("Get-FileHash")).toBeLessThan(s.indexOf("Move-Item"));
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
  expect(s.indexOf("-notmatch '^[0-9a-f]{64}$'")).toBeLessThan(s.indexOf("Move-Item"));
});

test("the kubelet is registered as the service kubeadm drives (`kubelet`, after containerd) and never with a removed flag", () => {
  const s = kubeletServiceScript();
  expect(s).toContain("sc.exe create kubelet binPath= $bin depend= containerd start= auto");
  for (const { flag } of REMOVED_KUBELET_FLAGS) expect(s).not.toContain(flag + "=");
  // kubeadm's own flags file may still carry one from an older kubeadm: the join drops it.
  expect(joinScript("C:\\k\\kubeadm\\join.yaml")).toContain("--pod-infra-container-image=\\S+', ''");
});

test("the join removes the token file whatever happens, and never runs twice", () => {
  const s = joinScript("C:\\k\\kubeadm\\join.yaml");
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
