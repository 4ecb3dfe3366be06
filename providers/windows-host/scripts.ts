import { psQuote } from "../ssh/powershell";
import { obj, parseJson } from "../../lib/json";
import { versionOfBuild, WINDOWS_SERVER, WindowsServer, WMCO_PORTS, WMCO_SERVICES } from "../../facts/wmco";

export { WMCO_PORTS };
/** Services whose presence means WMCO has configured (joined) this host: it installs them itself. */
const JOINED_MARKERS = [WMCO_SERVICES.kubelet, WMCO_SERVICES.wicd];

/** The well-known SIDs of BUILTIN\Administrators and SYSTEM: names differ by Windows locale, SIDs do not. */
const ADMINISTRATORS_SID = "*S-1-5-32-544";
const SYSTEM_SID = "*S-1-5-18";

/**
 * Reads everything the WindowsHost provider manages or checks, as one JSON object (see `parseProbe`). Read-only:
 * it is what `pulumi refresh` runs.
 */
export function probeScript(publicKey: string): string {
  return [
    "$ErrorActionPreference = 'Stop'",
    `$key = ${psQuote(publicKey)}`,
    "$keyFile = Join-Path $env:ProgramData 'ssh\\administrators_authorized_keys'",
    "$config = Join-Path $env:ProgramData 'ssh\\sshd_config'",
    "$cv = Get-ItemProperty -Path 'HKLM:\\SOFTWARE\\Microsoft\\Windows NT\\CurrentVersion'",
    "$lines = @()",
    "if (Test-Path -LiteralPath $keyFile) { $lines = @(Get-Content -LiteralPath $keyFile) }",
    "$aclOk = $false",
    "if (Test-Path -LiteralPath $keyFile) {",
    "  $acl = Get-Acl -LiteralPath $keyFile",
    "  $sids = @($acl.Access | ForEach-Object { $_.IdentityReference.Translate([System.Security.Principal.SecurityIdentifier]).Value } | Sort-Object -Unique)",
    "  $aclOk = $acl.AreAccessRulesProtected -and ($sids.Count -eq 2) -and ($sids -contains 'S-1-5-32-544') -and ($sids -contains 'S-1-5-18')",
    "}",
    "function Get-SshdSetting([string]$name) {",
    "  if (-not (Test-Path -LiteralPath $config)) { return '' }",
    "  $m = Select-String -LiteralPath $config -Pattern ('^\\s*' + $name + '\\s+(\\S+)') | Select-Object -First 1",
    "  if ($m) { return $m.Matches[0].Groups[1].Value } else { return '' }",
    "}",
    "$open = @()",
    `foreach ($port in @(${WMCO_PORTS.join(", ")})) {`,
    "  $rule = Get-NetFirewallRule -Name ('windows-estate-' + $port) -ErrorAction SilentlyContinue",
    "  if ($rule -and $rule.Enabled -eq 'True') { $open += $port }",
    "}",
    "$containerd = [bool](Get-Service -Name containerd -ErrorAction SilentlyContinue) -or (Test-Path -LiteralPath (Join-Path $env:ProgramFiles 'containerd\\containerd.exe'))",
    `$wmcoServices = @(@(${JOINED_MARKERS.map(psQuote).join(", ")}) | Where-Object { Get-Service -Name $_ -ErrorAction SilentlyContinue })`,
    "$sshd = Get-Service -Name sshd -ErrorAction SilentlyContinue",
    "[pscustomobject]@{",
    "  hostname = [System.Net.Dns]::GetHostName()",
    "  osBuild = [string]$cv.CurrentBuildNumber",
    "  updateRevision = [int]$cv.UBR",
    "  productName = [string]$cv.ProductName",
    "  keyAuthorized = [bool]($lines | Where-Object { $_.Trim() -eq $key })",
    "  keyFileAclOk = [bool]$aclOk",
    "  pubkeyAuthentication = Get-SshdSetting 'PubkeyAuthentication'",
    "  passwordAuthentication = Get-SshdSetting 'PasswordAuthentication'",
    "  firewallPorts = @($open)",
    "  containerdInstalled = [bool]$containerd",
    "  wmcoServices = @($wmcoServices)",
    "  sshdStartType = $(if ($sshd) { [string]$sshd.StartType } else { '' })",
    "} | ConvertTo-Json -Compress",
  ].join("\n");
}

/**
 * Prepares the host for WMCO, idempotently: authorizes the WMCO key for administrators (file written whole, then
 * moved into place, ACL limited to Administrators and SYSTEM as sshd requires), key-only sshd, firewall rules
 * for WMCO's ports. Restarts sshd only when its configuration changed (then prints `prepared, sshd restarted`, else
 * `prepared`); the running session survives the restart.
 */
export function prepareScript(publicKey: string): string {
  return [
    "$ErrorActionPreference = 'Stop'",
    `$key = ${psQuote(publicKey)}`,
    "$sshDir = Join-Path $env:ProgramData 'ssh'",
    "$keyFile = Join-Path $sshDir 'administrators_authorized_keys'",
    "$config = Join-Path $sshDir 'sshd_config'",
    "$lines = @()",
    "if (Test-Path -LiteralPath $keyFile) { $lines = @(Get-Content -LiteralPath $keyFile) }",
    "if (-not ($lines | Where-Object { $_.Trim() -eq $key })) {",
    "  $tmp = $keyFile + '.windows-estate.tmp'",
    "  Set-Content -LiteralPath $tmp -Value (@($lines) + $key) -Encoding ascii",
    "  Move-Item -LiteralPath $tmp -Destination $keyFile -Force",
    "}",
    `icacls.exe $keyFile /inheritance:r /grant '${ADMINISTRATORS_SID}:F' /grant '${SYSTEM_SID}:F' | Out-Null`,
    "if ($LASTEXITCODE -ne 0) { throw 'icacls could not restrict administrators_authorized_keys' }",
    // WMCO reboots the host while configuring it and must get back in; an sshd added with Add-WindowsCapability
    // starts Manual (WMCO's own user data sets Automatic: pkg/secrets/secrets.go).
    "Set-Service -Name sshd -StartupType Automatic",
    "$text = ''",
    "if (Test-Path -LiteralPath $config) { $text = [System.IO.File]::ReadAllText($config) }",
    "$before = $text",
    "$restarted = $false",
    "foreach ($pair in @(@('PubkeyAuthentication', 'yes'), @('PasswordAuthentication', 'no'))) {",
    "  $pattern = '(?m)^\\s*#?\\s*' + $pair[0] + '\\s+\\S+\\s*$'",
    "  if ($text -match $pattern) { $text = [regex]::Replace($text, $pattern, $pair[0] + ' ' + $pair[1]) }",
    "  else { $text = $pair[0] + ' ' + $pair[1] + \"`r`n\" + $text }",
    "}",
    "if ($text -ne $before) {",
    "  [System.IO.File]::WriteAllText($config + '.windows-estate.tmp', $text)",
    "  Move-Item -LiteralPath ($config + '.windows-estate.tmp') -Destination $config -Force",
    "  Restart-Service -Name sshd",
    "  $restarted = $true",
    "}",
    `foreach ($port in @(${WMCO_PORTS.join(", ")})) {`,
    "  $name = 'windows-estate-' + $port",
    "  if (-not (Get-NetFirewallRule -Name $name -ErrorAction SilentlyContinue)) {",
    "    New-NetFirewallRule -Name $name -DisplayName ('WMCO port ' + $port + ' (windows-estate)') -Direction Inbound -Protocol TCP -LocalPort $port -Action Allow | Out-Null",
    "  } else {",
    "    Enable-NetFirewallRule -Name $name",
    "  }",
    "}",
    // Whether sshd restarted decides if a fresh login must prove the WMCO key still works (provider.ts).
    "if ($restarted) { Write-Output 'prepared, sshd restarted' } else { Write-Output 'prepared' }",
  ].join("\n");
}

/** What the probe reports. */
export interface HostProbe {
  hostname: string;
  osBuild: string;
  productName: string;
  keyAuthorized: boolean;
  keyFileAclOk: boolean;
  pubkeyAuthentication: string;
  passwordAuthentication: string;
  firewallPorts: number[];
  containerdInstalled: boolean;
  /** `UBR`: the update revision of the build (20348.681 → 681). */
  updateRevision: number;
  /** WMCO's own services found on the host: present once WMCO has configured (joined) it. */
  wmcoServices: string[];
  /** `Automatic`, `Manual`, `Disabled`, or "" when sshd is missing. */
  sshdStartType: string;
}

/** Parses the probe's JSON, tolerating PowerShell's quirks (a one-element array printed as a scalar, BOMs). */
export function parseProbe(output: string): HostProbe {
  const text = output.replace(/^\uFEFF/, "").trim();
  const start = text.indexOf("{");
  if (start < 0) throw new Error(`the host probe printed no JSON: ${JSON.stringify(text.slice(0, 200))}`);
  const raw = obj(parseJson(text.slice(start))) ?? {};
  const ports = raw.firewallPorts;
  return {
    hostname: String(raw.hostname ?? ""),
    osBuild: String(raw.osBuild ?? ""),
    productName: String(raw.productName ?? ""),
    keyAuthorized: raw.keyAuthorized === true,
    keyFileAclOk: raw.keyFileAclOk === true,
    pubkeyAuthentication: String(raw.pubkeyAuthentication ?? "").toLowerCase(),
    passwordAuthentication: String(raw.passwordAuthentication ?? "").toLowerCase(),
    firewallPorts: (Array.isArray(ports) ? ports : ports === undefined || ports === null ? [] : [ports])
      .map(Number)
      .sort((a, b) => a - b),
    containerdInstalled: raw.containerdInstalled === true,
    updateRevision: Number(raw.updateRevision ?? 0) || 0,
    wmcoServices: (Array.isArray(raw.wmcoServices) ? raw.wmcoServices : raw.wmcoServices ? [raw.wmcoServices] : [])
      .map(String)
      .sort(),
    sshdStartType: String(raw.sshdStartType ?? ""),
  };
}

/** What the host is checked against: the declared Windows Server version, and whether WMCO may have joined it. */
export interface HostExpectations {
  /** `byoh[i].windowsServer` (validated against the WMCO in use). */
  windowsServer?: WindowsServer;
  /**
   * True when the host is prepared for the first time. A host WMCO has configured runs WMCO's own containerd
   * (pkg/windows/windows.go `ContainerdServiceName`); that is only a problem before WMCO arrives.
   */
  firstPreparation: boolean;
}

/** Why WMCO would refuse or break on this host; empty when it can be configured. */
export function hostProblems(p: HostProbe, x: HostExpectations): string[] {
  const out: string[] = [];
  if (!/^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/.test(p.hostname)) {
    out.push(
      /[A-Z]/.test(p.hostname) && /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/i.test(p.hostname)
        ? `hostname ${JSON.stringify(p.hostname)} has upper-case letters: kubelet lower-cases the node name and WMCO's CSR approver compares it with the hostname case-sensitively (pkg/csr matchesHostname), so the node would never be approved; rename it to ${JSON.stringify(p.hostname.toLowerCase())}`
        : `hostname ${JSON.stringify(p.hostname)} is not a valid RFC 1123 label (lower-case letters, digits, '-', at most 63); rename the host`,
    );
  }
  const joined = p.wmcoServices.length > 0;
  if (x.firstPreparation && !joined && p.containerdInstalled)
    out.push("containerd is already installed; WMCO installs and manages its own, so uninstall it first");
  const version = versionOfBuild(p.osBuild);
  if (!version) {
    out.push(
      `OS build ${p.osBuild || "unknown"} (${p.productName || "unknown product"}) is not a Windows Server version WMCO supports (2019, 2022, 2025)`,
    );
  } else if (x.windowsServer && version !== x.windowsServer) {
    out.push(
      `the host runs Windows Server ${version} (build ${p.osBuild}), but its entry declares windowsServer ${x.windowsServer}; correct the entry`,
    );
  } else {
    const min = WINDOWS_SERVER[version].minUpdateRevision;
    if (min && p.updateRevision < min.revision) {
      out.push(
        `the host runs build ${p.osBuild}.${p.updateRevision}, below ${p.osBuild}.${min.revision}: it lacks ${min.why}; install the latest cumulative update`,
      );
    }
  }
  return out;
}

/** What still differs from a prepared host (used by diff after a refresh). */
export function preparationDrift(p: HostProbe): string[] {
  const out: string[] = [];
  if (!p.keyAuthorized) out.push("WMCO key not authorized");
  if (!p.keyFileAclOk) out.push("administrators_authorized_keys ACL");
  if (p.pubkeyAuthentication !== "yes" && p.pubkeyAuthentication !== "") out.push("PubkeyAuthentication");
  if (p.passwordAuthentication !== "no") out.push("PasswordAuthentication");
  for (const port of WMCO_PORTS) if (!p.firewallPorts.includes(port)) out.push(`firewall port ${port}`);
  if (p.sshdStartType !== "Automatic") out.push("sshd start type");
  return out;
}

/**
 * Key rotation's last step: removes the retired WMCO keys from `administrators_authorized_keys`, only once the new
 * key (`keep`) is authorized, so the host never holds zero usable keys. Written whole and moved into place, ASCII
 * (sshd ignores UTF-16, Win32-OpenSSH #2070), ACL limited to Administrators and SYSTEM. Prints `retired <n>`.
 */
export function retireKeysScript(keep: string, retire: readonly string[]): string {
  return [
    "$ErrorActionPreference = 'Stop'",
    `$key = ${psQuote(keep)}`,
    "$retire = @(",
    ...retire.map((k, i) => `  ${psQuote(k)}${i < retire.length - 1 ? "," : ""}`),
    ")",
    "$keyFile = Join-Path $env:ProgramData 'ssh\\administrators_authorized_keys'",
    "$lines = @(Get-Content -LiteralPath $keyFile)",
    "$kept = @($lines | Where-Object { $retire -notcontains $_.Trim() })",
    "if (-not ($kept | Where-Object { $_.Trim() -eq $key })) { throw 'the new WMCO key is not authorized; nothing was removed' }",
    "$removed = $lines.Count - $kept.Count",
    "if ($removed -gt 0) {",
    "  $tmp = $keyFile + '.windows-estate.tmp'",
    "  Set-Content -LiteralPath $tmp -Value $kept -Encoding ascii",
    "  Move-Item -LiteralPath $tmp -Destination $keyFile -Force",
    `  icacls.exe $keyFile /inheritance:r /grant '${ADMINISTRATORS_SID}:F' /grant '${SYSTEM_SID}:F' | Out-Null`,
    "  if ($LASTEXITCODE -ne 0) { throw 'icacls could not restrict administrators_authorized_keys' }",
    "}",
    "Write-Output ('retired ' + $removed)",
  ].join("\n");
}
