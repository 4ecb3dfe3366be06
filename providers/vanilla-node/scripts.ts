/**
 * The PowerShell that converges a Windows node of a vanilla cluster (vanilla-windows-facts §9), one script per step
 * so each step is one launch, plus the probe `read` runs. Proven by the tree-sitter parse and the lab's PowerShell
 * stand-in; only a real Windows host proves their effect (docs/testing.md, "What is proven where").
 */
import { psQuote } from "../ssh/powershell";
import { REMOVED_KUBELET_FLAGS } from "../../facts/kubernetes";

/** A binary or archive the node needs: where it comes from, its checksum file, and where it goes. */
export interface Download {
  /** What it is, for messages and the probe (`containerd`, `kubelet`, …). */
  name: string;
  url: string;
  /** URL of the published checksum (first hex word of the file is the SHA-256). Exactly one of this and `sha256`. */
  checksumUrl?: string;
  /** The SHA-256 itself, for assets published without a checksum file (flannel's: facts/kubernetes.ts). */
  sha256?: string;
  /** `file`: saved as `target`; `tgz`: extracted into `target` (tar.exe, top directory stripped when `strip`). */
  kind: "file" | "tgz";
  target: string;
  strip?: boolean;
  /** The version it provides, recorded beside it so the probe can tell without running it. */
  version: string;
}

/** Where version records live: one `<name>.version` file per download. */
export const VERSIONS_DIR = "C:\\k\\windows-estate\\versions";

/**
 * The probe: everything the steps depend on, as one JSON object. Reads only; fails only when PowerShell itself does.
 */
export function probeScript(names: readonly string[], vxlanPort: number): string {
  return [
    "$ErrorActionPreference = 'Stop'",
    `$versionsDir = ${psQuote(VERSIONS_DIR)}`,
    `$names = @(${names.map(psQuote).join(", ")})`,
    "$os = Get-CimInstance -ClassName Win32_OperatingSystem",
    "$feature = Get-WindowsFeature -Name Containers",
    "$versions = @{}",
    "foreach ($n in $names) {",
    "  $f = Join-Path $versionsDir ($n + '.version')",
    "  if (Test-Path -LiteralPath $f) { $versions[$n] = (Get-Content -LiteralPath $f -Raw).Trim() } else { $versions[$n] = '' }",
    "}",
    "$services = @{}",
    "foreach ($s in @('containerd', 'kubelet')) {",
    "  $svc = Get-Service -Name $s -ErrorAction SilentlyContinue",
    "  if ($svc) { $services[$s] = @{ status = [string]$svc.Status; startType = [string]$svc.StartType } }",
    "  else { $services[$s] = @{ status = 'Missing'; startType = '' } }",
    "}",
    "$rules = @{",
    "  kubelet = [bool](Get-NetFirewallRule -Name 'windows-estate-kubelet' -ErrorAction SilentlyContinue)",
    "  vxlan = [bool](Get-NetFirewallRule -Name 'windows-estate-vxlan' -ErrorAction SilentlyContinue)",
    "}",
    "$proxy = @{}",
    "foreach ($v in @('HTTP_PROXY', 'HTTPS_PROXY', 'NO_PROXY')) { $proxy[$v] = [string][Environment]::GetEnvironmentVariable($v, 'Machine') }",
    "[pscustomobject]@{",
    "  hostname = $env:COMPUTERNAME",
    // The name the kubelet registers by default is Go's os.Hostname(), GetComputerNameEx(PhysicalDnsHostname): the DNS
    // host name, whole and in its case. COMPUTERNAME is the NetBIOS name (upper case, cut to 15 characters). Winsock's
    // gethostname, behind .NET's Dns.GetHostName, gives the DNS host name too (it differs from the physical one only
    // inside a failover cluster's virtual server), without compiling a P/Invoke on each probe.
    "  dnsHostname = [System.Net.Dns]::GetHostName()",
    "  proxy = $proxy",
    "  osBuild = [string]$os.BuildNumber",
    // The update revision, where the kubelet reads it too (kubernetes pkg/kubelet/winstats/version.go: UBR).
    "  osRevision = [int](Get-ItemProperty -LiteralPath 'HKLM:\\SOFTWARE\\Microsoft\\Windows NT\\CurrentVersion').UBR",
    "  containersFeature = [string]$feature.InstallState",
    "  versions = $versions",
    "  services = $services",
    "  firewall = $rules",
    `  vxlanPort = ${vxlanPort}`,
    "  joined = (Test-Path -LiteralPath 'C:\\etc\\kubernetes\\kubelet.conf')",
    "} | ConvertTo-Json -Compress -Depth 5",
  ].join("\n");
}

/** Installs the Containers feature; prints `reboot` when Windows needs one to finish. */
export function featuresScript(): string {
  return [
    "$ErrorActionPreference = 'Stop'",
    "$r = Install-WindowsFeature -Name Containers",
    "if ($r.RestartNeeded -eq 'Yes') { Write-Output 'reboot' } else { Write-Output 'features ok' }",
  ].join("\n");
}

/** Opens TCP 10250 (kubelet) and UDP <vxlanPort> (flannel VXLAN): the ports the facts name, nothing wider. */
export function hostSettingsScript(vxlanPort: number): string {
  return [
    "$ErrorActionPreference = 'Stop'",
    "if (-not (Get-NetFirewallRule -Name 'windows-estate-kubelet' -ErrorAction SilentlyContinue)) {",
    "  New-NetFirewallRule -Name 'windows-estate-kubelet' -DisplayName 'kubelet (windows-estate)' -Direction Inbound -Protocol TCP -LocalPort 10250 -Action Allow | Out-Null",
    "}",
    "if (-not (Get-NetFirewallRule -Name 'windows-estate-vxlan' -ErrorAction SilentlyContinue)) {",
    `  New-NetFirewallRule -Name 'windows-estate-vxlan' -DisplayName 'flannel VXLAN (windows-estate)' -Direction Inbound -Protocol UDP -LocalPort ${vxlanPort} -Action Allow | Out-Null`,
    "}",
    "Write-Output 'host settings ok'",
  ].join("\n");
}

/**
 * Downloads each item to a temp file, checks its SHA-256 against the published checksum (or the pinned digest) before
 * anything is placed,
 * then moves it into place (or extracts it) and records its version. A mismatch stops with both hashes, nothing
 * replaced.
 *
 * Nothing is written over a file in use: Windows refuses to overwrite or delete the file of a running executable (it
 * is mapped as an image section: learn.microsoft.com windows-hardware/drivers/ifs/executable-images), and
 * `containerd-shim-runhcs-v1.exe` keeps running for the pods of undrained DaemonSets while containerd is stopped, so
 * tar.exe extracting over it fails (libarchive archive_write_disk_windows.c restore_entry unlinks first). Windows
 * does rename a running executable (restic internal/selfupdate/download_windows.go does the same): an archive is
 * extracted into a folder beside its target, then each file that exists is renamed to `<file>.windows-estate-old`
 * and the new one moved in (renames on one volume); a set-aside file is deleted at once, or, while a process still
 * runs from it, by the next install of that item (the next version change: this step runs only then). The version is recorded last, so a run that fails half-way is finished by the next.
 */
export function installScript(items: readonly Download[], proxy = ""): string {
  const lines = [
    "$ErrorActionPreference = 'Stop'",
    "$ProgressPreference = 'SilentlyContinue'",
    // Windows PowerShell's Invoke-WebRequest follows the WinINet settings, not the proxy variables: pass it.
    `$web = @{ UseBasicParsing = $true }`,
    ...(proxy ? [`$web['Proxy'] = ${psQuote(proxy)}`] : []),
    `$versionsDir = ${psQuote(VERSIONS_DIR)}`,
    "New-Item -ItemType Directory -Force -Path $versionsDir | Out-Null",
    // Sets the file at $dest aside (renamed, which Windows allows for a running executable) and moves $src there;
    // when the move fails the old file is put back. Errors name the item and the file (the runner names the host).
    "function Move-IntoPlace([string]$what, [string]$src, [string]$dest) {",
    "  $old = $null",
    "  if (Test-Path -LiteralPath $dest) {",
    "    $old = $dest + '.windows-estate-old'",
    "    if (Test-Path -LiteralPath $old) { Remove-Item -LiteralPath $old -Force -ErrorAction SilentlyContinue }",
    "    if (Test-Path -LiteralPath $old) { $old = $dest + '.windows-estate-old-' + [guid]::NewGuid().ToString('N') }",
    "    try { Move-Item -LiteralPath $dest -Destination $old }",
    "    catch { throw ($what + ': ' + $dest + ' could not be set aside: ' + $_.Exception.Message + '; the next run retries') }",
    "  }",
    "  try { Move-Item -LiteralPath $src -Destination $dest }",
    "  catch {",
    "    if ($old -and -not (Test-Path -LiteralPath $dest)) { Move-Item -LiteralPath $old -Destination $dest -ErrorAction SilentlyContinue }",
    "    throw ($what + ': ' + $dest + ' could not be replaced: ' + $_.Exception.Message + '; the next run retries')",
    "  }",
    // Gone at once unless a process still runs from it; then the next install of this item deletes it.
    "  if ($old) { Remove-Item -LiteralPath $old -Force -ErrorAction SilentlyContinue }",
    "}",
    "$items = @(",
  ];
  items.forEach((d, i) =>
    lines.push(
      `  @{ name = ${psQuote(d.name)}; url = ${psQuote(d.url)}; sum = ${psQuote(d.checksumUrl ?? "")}; sha = ${psQuote(d.sha256 ?? "")}; kind = ${psQuote(d.kind)}; target = ${psQuote(d.target)}; strip = $${d.strip ? "true" : "false"}; version = ${psQuote(d.version)} }${i < items.length - 1 ? "," : ""}`,
    ),
  );
  lines.push(
    ")",
    "foreach ($it in $items) {",
    "  $tmp = Join-Path $env:TEMP ('windows-estate-' + $it.name + '-' + [guid]::NewGuid().ToString('N'))",
    "  Invoke-WebRequest @web -Uri $it.url -OutFile $tmp",
    "  if ($it.sha) { $published = $it.sha.ToLowerInvariant() }",
    "  else {",
    // Windows PowerShell 5.1's Invoke-WebRequest returns `.Content` as byte[] for a response that is not text, which
    // GitHub release assets (application/octet-stream) are: split as it was, the "published" sum was a decimal byte.
    "    $content = (Invoke-WebRequest @web -Uri $it.sum).Content",
    "    if ($content -is [byte[]]) { $content = [System.Text.Encoding]::ASCII.GetString($content) }",
    "    $published = (([string]$content).Trim() -split '\\s+')[0].ToLowerInvariant()",
    "    if ($published -notmatch '^[0-9a-f]{64}$') { throw ($it.name + ': ' + $it.sum + ' holds no SHA-256; nothing was replaced') }",
    "  }",
    "  $actual = (Get-FileHash -LiteralPath $tmp -Algorithm SHA256).Hash.ToLowerInvariant()",
    "  if ($published -ne $actual) {",
    "    Remove-Item -LiteralPath $tmp -Force",
    "    throw ($it.name + ': checksum mismatch, published ' + $published + ', downloaded ' + $actual + '; nothing was replaced. A mirror (kubernetes.artifacts.baseUrl) must serve the files as published; a pinned SHA-256 (kubernetes.flannel.flanneldSha256, cniSha256) must be that of the file it serves')",
    "  }",
    // Files an earlier install of this item set aside, deleted when nothing runs from them any more (a running one
    // stays). Only here: this step runs when a version changes, so a set-aside file waits for the item's next upgrade.
    "  if ($it.kind -eq 'tgz') { $aside = @(Get-ChildItem -LiteralPath $it.target -Recurse -File -Filter '*.windows-estate-old*' -ErrorAction SilentlyContinue) }",
    "  else { $aside = @(Get-ChildItem -Path ($it.target + '.windows-estate-old*') -File -ErrorAction SilentlyContinue) }",
    "  foreach ($f in $aside) { Remove-Item -LiteralPath $f.FullName -Force -ErrorAction SilentlyContinue }",
    "  if ($it.kind -eq 'tgz') {",
    "    $stage = $it.target + '.windows-estate-new'",
    "    if (Test-Path -LiteralPath $stage) { Remove-Item -LiteralPath $stage -Recurse -Force }",
    "    New-Item -ItemType Directory -Force -Path $stage, $it.target | Out-Null",
    // Quoted: a bare `--` token means "end of parameters" to PowerShell's parser.
    "    if ($it.strip) { tar.exe -xf $tmp -C $stage '--strip-components=1' } else { tar.exe -xf $tmp -C $stage }",
    "    if ($LASTEXITCODE -ne 0) { throw ($it.name + ': tar.exe failed with ' + $LASTEXITCODE + ' extracting into ' + $stage) }",
    "    Remove-Item -LiteralPath $tmp -Force",
    "    foreach ($f in @(Get-ChildItem -LiteralPath $stage -Recurse -File)) {",
    "      $dest = Join-Path $it.target $f.FullName.Substring($stage.Length + 1)",
    "      New-Item -ItemType Directory -Force -Path (Split-Path -Parent $dest) | Out-Null",
    "      Move-IntoPlace $it.name $f.FullName $dest",
    "    }",
    "    Remove-Item -LiteralPath $stage -Recurse -Force",
    "  } else {",
    "    New-Item -ItemType Directory -Force -Path (Split-Path -Parent $it.target) | Out-Null",
    "    Move-IntoPlace $it.name $tmp $it.target",
    "  }",
    "  Set-Content -LiteralPath (Join-Path $versionsDir ($it.name + '.version')) -Value $it.version -Encoding ascii",
    "}",
    "Write-Output 'installed'",
  );
  return lines.join("\n");
}

/**
 * containerd as a Windows service reading our config (containerd's `--register-service`; re-registered when it
 * exists, since registering twice fails), Automatic, started. Registering sets containerd's own recovery actions
 * (cmd/containerd/command/service_windows.go registerService: restart after 15 s twice, then none; reset after a
 * day), so none are added here. `Stop-Service -Force` also stops the services that depend on containerd (the kubelet:
 * PowerShell Service.cs DoStopService); those that were running, read before the stop, are started again after. A
 * step that fails leaves them stopped (they cannot start without containerd) and says so: the next up starts them.
 * `sc.exe delete` of a service that something still holds open only marks it for deletion (1072, DeleteService in
 * winsvc.h), and registering again then fails: both are checked, naming the fix.
 */
export function containerdServiceScript(configPath: string): string {
  return [
    "$ErrorActionPreference = 'Stop'",
    "$exe = Join-Path $env:ProgramFiles 'containerd\\containerd.exe'",
    `$config = ${psQuote(configPath)}`,
    "$existing = [bool](Get-Service -Name containerd -ErrorAction SilentlyContinue)",
    "$dependents = @()",
    "if ($existing) { $dependents = @(Get-Service -Name containerd -DependentServices | Where-Object { $_.Status -eq 'Running' } | ForEach-Object { $_.Name }) }",
    "try {",
    "  if ($existing) {",
    "    Stop-Service -Name containerd -Force",
    "    sc.exe delete containerd | Out-Null",
    "    if ($LASTEXITCODE -ne 0) { throw ('sc.exe delete containerd failed with ' + $LASTEXITCODE + ' (1072: marked for deletion while something holds it open): close services.msc or restart the host, then run up again') }",
    "  }",
    "  & $exe --register-service --config $config",
    "  if ($LASTEXITCODE -ne 0) { throw ('containerd --register-service failed with ' + $LASTEXITCODE + ' (its message is above); if the containerd service is marked for deletion, close services.msc or restart the host, then run up again') }",
    "  Set-Service -Name containerd -StartupType Automatic",
    "  Start-Service -Name containerd",
    "} catch {",
    "  if ($dependents) { throw ($_.Exception.Message + '; stopped with containerd and not started again: ' + ($dependents -join ', ') + ' (the next up starts them)') }",
    "  throw",
    "}",
    "foreach ($d in $dependents) { Start-Service -Name $d }",
    "Write-Output 'containerd ok'",
  ].join("\n");
}

/**
 * Where the node's own name goes in files shown before it is known (the join file's `nodeRegistration.name` without
 * `nodes[].name`); the provider puts the host's DNS host name, lower case, there before the file reaches the host.
 */
export const HOSTNAME_PLACEHOLDER = "<hostname, lower case, read on the host>";

/** What the kubelet registers with: its Node name, and the labels and taints it asks for at first registration. */
export interface KubeletRegistration {
  /** The Node name (`nodes[].name`, or the host's DNS host name in lower case: node-name.ts). */
  nodeName: string;
  /** The kubelet's `--node-ip` (`nodes[].nodeIp`, or the address the stack reaches): what the CNI and flanneld use. */
  nodeIp?: string;
  labels: Readonly<Record<string, string>>;
  taints: readonly { key: string; value?: string; effect: string }[];
}

/**
 * The PowerShell that sets the kubelet service's command line, shared by the service step and the join. The flags are
 * the ones sig-windows-tools' StartKubelet.ps1 passes (hostprocess/PrepareNode.ps1), plus the node's name, labels and
 * taints, so the Node registers right at its first start (kubeadm adds its per-node flags only at the join). kubeadm's
 * `kubeadm-flags.env` is merged in whenever it exists, on every run, so a later run (an upgrade, start-type drift)
 * never drops them; upstream re-reads that file at every start. No value holds a quote: Windows PowerShell 5.1 passes
 * embedded quotes to sc.exe mangled, so empty values are written `--flag=` (pflag reads "" as an empty list).
 */
function kubeletCommandLineLines(r: KubeletRegistration): string[] {
  const labels = Object.entries(r.labels).map(([k, v]) => `${k}=${v}`);
  const taints = r.taints.map((t) => `${t.key}=${t.value ?? ""}:${t.effect}`);
  const flags = [
    "--cert-dir=C:\\var\\lib\\kubelet\\pki",
    "--config=C:\\var\\lib\\kubelet\\config.yaml",
    "--bootstrap-kubeconfig=C:\\etc\\kubernetes\\bootstrap-kubelet.conf",
    "--kubeconfig=C:\\etc\\kubernetes\\kubelet.conf",
    "--enable-debugging-handlers",
    "--cgroups-per-qos=false",
    "--enforce-node-allocatable=",
    "--resolv-conf=",
    "--windows-service",
    `--hostname-override=${r.nodeName}`,
    ...(r.nodeIp ? [`--node-ip=${r.nodeIp}`] : []),
    ...(taints.length > 0 ? [`--register-with-taints=${taints.join(",")}`] : []),
    ...(labels.length > 0 ? [`--node-labels=${labels.join(",")}`] : []),
  ];
  return [
    `$flags = @(${flags.map(psQuote).join(", ")})`,
    `$removed = @(${REMOVED_KUBELET_FLAGS.map((f) => psQuote(f.flag)).join(", ")})`,
    "$envFile = 'C:\\var\\lib\\kubelet\\kubeadm-flags.env'",
    "if (Test-Path -LiteralPath $envFile) {",
    "  $extra = ((Get-Content -LiteralPath $envFile -Raw).Trim() -replace '^KUBELET_KUBEADM_ARGS=\"?', '' -replace '\"$', '')",
    "  $have = @($flags | ForEach-Object { ($_ -split '=', 2)[0] })",
    "  foreach ($f in @($extra -split '\\s+' | Where-Object { $_ })) {",
    "    $n = ($f -split '=', 2)[0]",
    "    if ($have -notcontains $n -and $removed -notcontains $n) { $flags += $f }",
    "  }",
    "}",
    // kube-log-runner rotates the kubelet's log (component-base logs/kube-log-runner: -log-file-size, -log-file-age).
    "$bin = 'C:\\k\\kube-log-runner.exe --log-file=C:\\var\\log\\kubelet\\kubelet.log --log-file-size=100M --log-file-age=168h C:\\k\\kubelet.exe ' + ($flags -join ' ')",
  ];
}

/** Registers (or re-registers) the `kubelet` service kubeadm drives: after containerd, automatic start. */
export function kubeletServiceScript(r: KubeletRegistration): string {
  return [
    "$ErrorActionPreference = 'Stop'",
    ...kubeletCommandLineLines(r),
    "New-Item -ItemType Directory -Force -Path 'C:\\var\\log\\kubelet', 'C:\\var\\lib\\kubelet\\pki' | Out-Null",
    "if (Get-Service -Name kubelet -ErrorAction SilentlyContinue) {",
    "  sc.exe config kubelet binPath= $bin depend= containerd start= auto | Out-Null",
    "} else {",
    "  sc.exe create kubelet binPath= $bin depend= containerd start= auto | Out-Null",
    "}",
    "if ($LASTEXITCODE -ne 0) { throw ('registering the kubelet service failed with ' + $LASTEXITCODE + ' (`net helpmsg ' + $LASTEXITCODE + '` on the host says why; 1072: the kubelet service is marked for deletion, close services.msc or restart the host), then run up again') }",
    // A kubelet that dies is restarted by the service manager, as containerd registers itself (containerd
    // cmd/containerd/command/service_windows.go: restart after 15 s, reset after a day) and Kubernetes' GCE Windows
    // nodes register the kubelet (cluster/gce/windows/k8s-node-setup.psm1). A deliberate stop (before its binaries are
    // replaced) is not a failure: the kubelet reports SERVICE_STOPPED (pkg/windows/service/service.go), so nothing
    // restarts it mid-replacement.
    "sc.exe failure kubelet reset= 86400 actions= restart/15000/restart/15000/restart/60000 | Out-Null",
    "if ($LASTEXITCODE -ne 0) { throw ('setting the kubelet service recovery failed with ' + $LASTEXITCODE) }",
    "Write-Output 'kubelet service ok'",
  ].join("\n");
}

/**
 * `kubeadm join` with the join file (it holds the token: written over SFTP, removed after), once: skipped when the
 * node already has its kubelet.conf. A partial earlier attempt is reset first (vanilla-windows-facts §4, §7). `return`,
 * never `exit`: the script runs in the operation's PowerShell runner, which `exit` would end.
 */
export function joinScript(joinConfigPath: string, r: KubeletRegistration): string {
  return [
    "$ErrorActionPreference = 'Stop'",
    `$join = ${psQuote(joinConfigPath)}`,
    "if (Test-Path -LiteralPath 'C:\\etc\\kubernetes\\kubelet.conf') { Remove-Item -LiteralPath $join -Force -ErrorAction SilentlyContinue; Write-Output 'already joined'; return }",
    "if (Test-Path -LiteralPath 'C:\\etc\\kubernetes\\bootstrap-kubelet.conf') {",
    "  & 'C:\\k\\kubeadm.exe' reset -f --cri-socket 'npipe:////./pipe/containerd-containerd' | Out-Null",
    "}",
    "try {",
    "  & 'C:\\k\\kubeadm.exe' join --config $join",
    "  if ($LASTEXITCODE -ne 0) { throw ('kubeadm join failed with ' + $LASTEXITCODE) }",
    "} finally {",
    "  Remove-Item -LiteralPath $join -Force -ErrorAction SilentlyContinue",
    "}",
    // kubeadm wrote its per-node flags: the same command line, now with them (a flag the kubelet no longer knows,
    // from an older kubeadm, is dropped: facts/kubernetes.ts).
    ...kubeletCommandLineLines(r),
    "sc.exe config kubelet binPath= $bin | Out-Null",
    "if ($LASTEXITCODE -ne 0) { throw ('updating the kubelet service after the join failed with ' + $LASTEXITCODE) }",
    "Restart-Service -Name kubelet",
    "Write-Output 'joined'",
  ].join("\n");
}

/** Stops services before their binaries are replaced (Windows cannot overwrite a running executable). */
export function stopServicesScript(names: readonly string[]): string {
  return [
    "$ErrorActionPreference = 'Stop'",
    `foreach ($s in @(${names.map(psQuote).join(", ")})) {`,
    "  if (Get-Service -Name $s -ErrorAction SilentlyContinue) { Stop-Service -Name $s -Force }",
    "}",
    "Write-Output 'services stopped'",
  ].join("\n");
}

/** Starts the services that should run, Automatic. */
export function startServicesScript(names: readonly string[]): string {
  return [
    "$ErrorActionPreference = 'Stop'",
    `foreach ($s in @(${names.map(psQuote).join(", ")})) {`,
    "  Set-Service -Name $s -StartupType Automatic",
    "  Start-Service -Name $s",
    "}",
    "Write-Output 'services ok'",
  ].join("\n");
}

/**
 * `kubeadm upgrade node` after a Kubernetes version change, with the new kubeadm.exe in place and before the kubelet
 * starts again: on a worker it rewrites the kubelet's config.yaml from the cluster's kubelet-config ConfigMap, with
 * kubelet.conf as its credentials (cmd/kubeadm/app/cmd/upgrade/node.go; the steps of Kubernetes' "Upgrading Windows
 * nodes" task: kubeadm, drain, `kubeadm upgrade node`, kubelet, uncordon, kube-proxy).
 */
export function kubeadmUpgradeScript(): string {
  return [
    "$ErrorActionPreference = 'Stop'",
    "& 'C:\\k\\kubeadm.exe' upgrade node",
    "if ($LASTEXITCODE -ne 0) { throw ('kubeadm upgrade node failed with ' + $LASTEXITCODE) }",
    "Write-Output 'kubeadm upgraded'",
  ].join("\n");
}

/**
 * Leaves the cluster cleanly on the host (vanilla-windows-facts §7): `kubeadm reset`, the kubelet service removed, CNI
 * config, flannel's state and kube-proxy's source-VIP reservation and cache deleted (a stale VIP breaks Services after
 * a re-join). containerd stays (it may serve other things). Succeeds when already clean.
 */
export function resetScript(): string {
  return [
    "$ErrorActionPreference = 'Stop'",
    "if (Test-Path -LiteralPath 'C:\\k\\kubeadm.exe') {",
    "  & 'C:\\k\\kubeadm.exe' reset -f --cri-socket 'npipe:////./pipe/containerd-containerd' | Out-Null",
    "}",
    "if (Get-Service -Name kubelet -ErrorAction SilentlyContinue) {",
    "  Stop-Service -Name kubelet -Force",
    "  sc.exe delete kubelet | Out-Null",
    "}",
    "foreach ($p in @('C:\\etc\\cni\\net.d', 'C:\\run\\flannel', 'C:\\var\\lib\\cni\\networks', 'C:\\sourcevip')) {",
    "  if (Test-Path -LiteralPath $p) { Remove-Item -LiteralPath $p -Recurse -Force }",
    "}",
    "Write-Output 'reset'",
  ].join("\n");
}

/** The VM's BIOS serial (`Win32_BIOS`; wmic is deprecated and may be absent). */
export function biosSerialScript(): string {
  return ["$ErrorActionPreference = 'Stop'", "(Get-CimInstance -ClassName Win32_BIOS).SerialNumber"].join("\n");
}

/** The proxy as machine environment variables (names as Go's net/http reads them); empty values remove them. */
export interface ProxyEnv {
  HTTP_PROXY: string;
  HTTPS_PROXY: string;
  NO_PROXY: string;
}

/**
 * Sets (or removes) the machine-wide proxy variables containerd and the kubelet read at start, then restarts them when
 * they run, so they pick the values up (WMCO does the same with a reboot; a service restart is enough for these).
 */
export function proxyScript(p: ProxyEnv): string {
  return [
    "$ErrorActionPreference = 'Stop'",
    `$want = @{ HTTP_PROXY = ${psQuote(p.HTTP_PROXY)}; HTTPS_PROXY = ${psQuote(p.HTTPS_PROXY)}; NO_PROXY = ${psQuote(p.NO_PROXY)} }`,
    "foreach ($k in $want.Keys) {",
    "  if ($want[$k] -eq '') { [Environment]::SetEnvironmentVariable($k, $null, 'Machine') }",
    "  else { [Environment]::SetEnvironmentVariable($k, $want[$k], 'Machine') }",
    "}",
    "foreach ($s in @('containerd', 'kubelet')) {",
    "  $svc = Get-Service -Name $s -ErrorAction SilentlyContinue",
    "  if ($svc -and $svc.Status -eq 'Running') { Restart-Service -Name $s -Force }",
    "}",
    "Write-Output 'proxy set'",
  ].join("\n");
}
