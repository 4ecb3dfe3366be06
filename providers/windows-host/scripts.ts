import { z } from "zod";
import { printedObject, psQuote } from "../ssh/powershell";
import { versionOfBuild, WINDOWS_SERVER, WindowsServer, WMCO_PORTS, WMCO_SERVICES } from "../../facts/wmco";
import { BYOH_DEVICELESS_NIC } from "../../facts/byoh";

export { WMCO_PORTS };
/** Services whose presence means WMCO has configured (joined) this host: it installs them itself. */
const JOINED_MARKERS = [WMCO_SERVICES.kubelet, WMCO_SERVICES.wicd];

/** The well-known SIDs of BUILTIN\Administrators and SYSTEM: names differ by Windows locale, SIDs do not. */
const ADMINISTRATORS_SID = "*S-1-5-32-544";
const SYSTEM_SID = "*S-1-5-18";

/**
 * The key file as Win32-OpenSSH's sshd reads it, into `$keyFileEncoding` (`utf-16le`, `utf-16be`, `utf-32`,
 * `utf-8-bom`, `ascii`; "" without a file) and `$sshdLines` (its lines, trimmed). sshd reads bytes: its fopen skips a
 * UTF-8 BOM and decodes nothing else (openssh-portable contrib/win32/win32compat/fileio.c w32_fopen_utf8), and its
 * lines are C strings, so a UTF-16 file (what Windows PowerShell 5.1's `>` and Out-File write) shows it no key at all,
 * silently (Win32-OpenSSH#2070). Get-Content decodes such a file by its BOM, so it cannot tell.
 */
const SSHD_KEY_VIEW = [
  "$keyFileEncoding = ''",
  "$sshdLines = @()",
  "if (Test-Path -LiteralPath $keyFile) {",
  "  $bytes = [System.IO.File]::ReadAllBytes($keyFile)",
  "  $skip = 0",
  "  $keyFileEncoding = 'ascii'",
  "  if ($bytes.Length -ge 4 -and $bytes[0] -eq 0xFF -and $bytes[1] -eq 0xFE -and $bytes[2] -eq 0 -and $bytes[3] -eq 0) { $keyFileEncoding = 'utf-32' }",
  "  elseif ($bytes.Length -ge 2 -and $bytes[0] -eq 0xFF -and $bytes[1] -eq 0xFE) { $keyFileEncoding = 'utf-16le' }",
  "  elseif ($bytes.Length -ge 2 -and $bytes[0] -eq 0xFE -and $bytes[1] -eq 0xFF) { $keyFileEncoding = 'utf-16be' }",
  "  elseif ($bytes.Length -ge 3 -and $bytes[0] -eq 0xEF -and $bytes[1] -eq 0xBB -and $bytes[2] -eq 0xBF) { $keyFileEncoding = 'utf-8-bom'; $skip = 3 }",
  "  $text = [System.Text.Encoding]::UTF8.GetString($bytes, $skip, $bytes.Length - $skip)",
  '  $sshdLines = @($text -split "`n" | ForEach-Object { ($_ -split "`0")[0].Trim() } | Where-Object { $_ })',
  "}",
];
/**
 * Whether the key file's ACL is what sshd requires, into `$aclOk`: protected (nothing inherited) and granting
 * Administrators and SYSTEM only (Win32-OpenSSH's check of administrators_authorized_keys; windowsserverdocs
 * OpenSSH_KeyManagement.md). False without a file.
 */
const KEY_FILE_ACL_VIEW = [
  "$aclOk = $false",
  "if (Test-Path -LiteralPath $keyFile) {",
  "  $acl = Get-Acl -LiteralPath $keyFile",
  "  $sids = @($acl.Access | ForEach-Object { $_.IdentityReference.Translate([System.Security.Principal.SecurityIdentifier]).Value } | Sort-Object -Unique)",
  "  $aclOk = $acl.AreAccessRulesProtected -and ($sids.Count -eq 2) -and ($sids -contains 'S-1-5-32-544') -and ($sids -contains 'S-1-5-18')",
  "}",
];
/**
 * Replaces the key file with `$kept` (ASCII, which sshd reads) so that it is never, even for a moment, readable by
 * anyone but Administrators and SYSTEM: the new file gets its ACL while it is still `.tmp` (a fresh file: it inherits
 * from ProgramData\ssh, which /inheritance:r drops, and carries nothing explicit; one a failed run left behind has
 * only what these lines gave it, as Set-Content keeps an existing file's ACL), then is moved over the live one. A
 * move within a volume is a rename, and renames keep the file's own ACL, the new folder's is not applied (a Windows
 * maintainer in microsoft/winfile#276; Explorer re-applies it, Move-Item does not), so the live file only ever has
 * the restricted ACL. `/reset` is never run
 * on the live file: it would put the inherited readers back (icacls docs) until the next icacls, and sshd refuses
 * the file meanwhile ("bad permissions").
 */
const REPLACE_KEY_FILE = [
  "  $tmp = $keyFile + '.windows-estate.tmp'",
  "  Set-Content -LiteralPath $tmp -Value $kept -Encoding ascii",
  `  icacls.exe $tmp /inheritance:r /grant '${ADMINISTRATORS_SID}:F' /grant '${SYSTEM_SID}:F' | Out-Null`,
  "  if ($LASTEXITCODE -ne 0) { throw ('icacls could not restrict the new administrators_authorized_keys (exit ' + $LASTEXITCODE + '); the live file is unchanged. Fix: connect as a member of Administrators') }",
  "  Move-Item -LiteralPath $tmp -Destination $keyFile -Force",
];
/**
 * Key-only sshd: `PubkeyAuthentication yes` and `PasswordAuthentication no` in `$config` (sshd_config), each line set
 * where it is (commented or not) or added at the top; written as a temporary file and moved into place, and only when
 * it changes. Sets `$configChanged`; sshd reads its config at start, so the caller restarts it. WMCO's user data makes
 * the same two settings (pkg/secrets/secrets.go generateUserDataWithPubKey). Shared with first boot
 * (components/provisioning/user-data.ts).
 */
export const SSHD_KEY_ONLY_CONFIG = [
  "$text = ''",
  "if (Test-Path -LiteralPath $config) { $text = [System.IO.File]::ReadAllText($config) }",
  "$before = $text",
  "foreach ($pair in @(@('PubkeyAuthentication', 'yes'), @('PasswordAuthentication', 'no'))) {",
  "  $pattern = '(?m)^\\s*#?\\s*' + $pair[0] + '\\s+\\S+\\s*$'",
  "  if ($text -match $pattern) { $text = [regex]::Replace($text, $pattern, $pair[0] + ' ' + $pair[1]) }",
  "  else { $text = $pair[0] + ' ' + $pair[1] + \"`r`n\" + $text }",
  "}",
  "$configChanged = $text -ne $before",
  "if ($configChanged) {",
  "  [System.IO.File]::WriteAllText($config + '.windows-estate.tmp', $text)",
  "  Move-Item -LiteralPath ($config + '.windows-estate.tmp') -Destination $config -Force",
  "}",
];
/** Key-file encodings sshd cannot read (see SSHD_KEY_VIEW). */
export const SSHD_UNREADABLE = ["utf-16le", "utf-16be", "utf-32"] as const;
const psList = (xs: readonly string[]) => `@(${xs.map(psQuote).join(", ")})`;

/**
 * Reads everything the WindowsHost provider manages or checks, as one JSON object (see `parseProbe`). Read-only:
 * it is what `pulumi refresh` runs. `address` is the one the host is reached at, which the estate also lists in
 * `windows-instances`: its IPv4 (a DNS name resolved by the host) is the address WMCO's prerequisites are about.
 */
export function probeScript(publicKey: string, address = ""): string {
  return [
    "$ErrorActionPreference = 'Stop'",
    `$key = ${psQuote(publicKey)}`,
    `$address = ${psQuote(address)}`,
    "$keyFile = Join-Path $env:ProgramData 'ssh\\administrators_authorized_keys'",
    "$config = Join-Path $env:ProgramData 'ssh\\sshd_config'",
    "$cv = Get-ItemProperty -Path 'HKLM:\\SOFTWARE\\Microsoft\\Windows NT\\CurrentVersion'",
    ...SSHD_KEY_VIEW,
    ...KEY_FILE_ACL_VIEW,
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
    // WMCO's BYOH prerequisites (docs/byoh-instance-pre-requisites.md): a PTR record for the address, asked of DNS
    // only (-DnsOnly: LLMNR and NetBIOS would answer for the host's own address where DNS has no record); and, for a
    // static address (DHCP off on the interface that carries it), the deviceless-NIC registry value.
    // Each lookup may fail (a DNS timeout, no such interface): the finding is then "not seen", never a failed probe.
    "$ipv4 = ''",
    "if ($address -match '^\\d{1,3}(\\.\\d{1,3}){3}$') { $ipv4 = $address }",
    "elseif ($address) {",
    "  try {",
    "    $a = @(Resolve-DnsName -Name $address -Type A -DnsOnly -ErrorAction SilentlyContinue | Where-Object { $_.Type -eq 'A' })",
    "    if ($a.Count -gt 0) { $ipv4 = [string]$a[0].IPAddress }",
    "  } catch { $ipv4 = '' }",
    "}",
    "$ptr = @()",
    "$dhcp = ''",
    "if ($ipv4) {",
    "  try {",
    "    $ptr = @(Resolve-DnsName -Name $ipv4 -Type PTR -DnsOnly -ErrorAction SilentlyContinue | Where-Object { $_.Type -eq 'PTR' } | ForEach-Object { [string]$_.NameHost })",
    "  } catch { $ptr = @() }",
    "  try {",
    "    $ip = Get-NetIPAddress -IPAddress $ipv4 -AddressFamily IPv4 -ErrorAction SilentlyContinue | Select-Object -First 1",
    "    if ($ip) { $dhcp = [string](Get-NetIPInterface -InterfaceIndex $ip.InterfaceIndex -AddressFamily IPv4).Dhcp }",
    "  } catch { $dhcp = '' }",
    "}",
    `$nic = Get-ItemProperty -Path ${psQuote(BYOH_DEVICELESS_NIC.key)} -Name ${psQuote(BYOH_DEVICELESS_NIC.name)} -ErrorAction SilentlyContinue`,
    "[pscustomobject]@{",
    "  hostname = [System.Net.Dns]::GetHostName()",
    "  osBuild = [string]$cv.CurrentBuildNumber",
    "  updateRevision = [int]$cv.UBR",
    "  productName = [string]$cv.ProductName",
    "  keyAuthorized = [bool]($sshdLines | Where-Object { $_ -eq $key })",
    "  keyFileEncoding = $keyFileEncoding",
    "  keyFileAclOk = [bool]$aclOk",
    "  pubkeyAuthentication = Get-SshdSetting 'PubkeyAuthentication'",
    "  passwordAuthentication = Get-SshdSetting 'PasswordAuthentication'",
    "  firewallPorts = @($open)",
    "  containerdInstalled = [bool]$containerd",
    "  wmcoServices = @($wmcoServices)",
    "  sshdStartType = $(if ($sshd) { [string]$sshd.StartType } else { '' })",
    "  wmcoIPv4 = $ipv4",
    "  ptrNames = @($ptr)",
    "  addressDhcp = $dhcp",
    `  deviceLessNicDisabled = $(if ($nic) { [int]$nic.${BYOH_DEVICELESS_NIC.name} } else { -1 })`,
    "} | ConvertTo-Json -Compress",
  ].join("\n");
}

/**
 * Prepares the host for WMCO, idempotently: authorizes the WMCO key for administrators (file written whole with its
 * ACL limited to Administrators and SYSTEM as sshd requires, then moved into place: REPLACE_KEY_FILE), key-only sshd, firewall rules
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
    ...SSHD_KEY_VIEW,
    ...KEY_FILE_ACL_VIEW,
    // Replaced (REPLACE_KEY_FILE) when sshd would not find the key, cannot read the file at all (UTF-16/32:
    // Get-Content decodes it, so its other keys, read so, are kept), or its ACL is not sshd's: an existing file's
    // explicit ACEs survive /inheritance:r (icacls docs), a new file carries none. A file already right is not touched.
    `if (-not ($sshdLines | Where-Object { $_ -eq $key }) -or (${psList(SSHD_UNREADABLE)}) -contains $keyFileEncoding -or -not $aclOk) {`,
    "  $kept = @($lines)",
    "  if (-not ($lines | Where-Object { $_.Trim() -eq $key })) { $kept += $key }",
    ...REPLACE_KEY_FILE,
    "}",
    // WMCO reboots the host while configuring it and must get back in; an sshd added with Add-WindowsCapability
    // starts Manual (WMCO's own user data sets Automatic: pkg/secrets/secrets.go).
    "Set-Service -Name sshd -StartupType Automatic",
    "$restarted = $false",
    ...SSHD_KEY_ONLY_CONFIG,
    "if ($configChanged) {",
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

/** A probe field that is text: "" when absent (or of another type). */
const probeText = z.string().catch("");
/** A probe flag: true only when the probe said so. */
const probeFlag = z.boolean().catch(false);
/** A probe list: Windows PowerShell 5.1's ConvertTo-Json prints a one-element array as its element. */
const probeList = <T extends z.ZodType>(item: T) =>
  z
    .preprocess((v) => (Array.isArray(v) ? v : v === undefined || v === null || v === "" ? [] : [v]), z.array(item))
    .catch([]);

/** What the probe reports, as `parseProbe` reads it (an older probe's output lacks fields: they read as not found). */
const hostProbe = z.object({
  hostname: probeText,
  osBuild: probeText,
  productName: probeText,
  /** Whether sshd would accept the key: it is a line of the key file as sshd reads it (see SSHD_KEY_VIEW). */
  keyAuthorized: probeFlag,
  /** The key file's encoding as sshd sees it: `ascii`, `utf-8-bom` (both readable), `utf-16le`, `utf-16be`, `utf-32`; "" for none. */
  keyFileEncoding: probeText,
  keyFileAclOk: probeFlag,
  pubkeyAuthentication: probeText.transform((s) => s.toLowerCase()),
  passwordAuthentication: probeText.transform((s) => s.toLowerCase()),
  firewallPorts: probeList(z.coerce.number()).transform((ports) => ports.sort((a, b) => a - b)),
  containerdInstalled: probeFlag,
  /** `UBR`: the update revision of the build (20348.681 → 681). */
  updateRevision: z.coerce.number().catch(0),
  /** WMCO's own services found on the host: present once WMCO has configured (joined) it. */
  wmcoServices: probeList(z.coerce.string()).transform((names) => names.sort()),
  /** `Automatic`, `Manual`, `Disabled`, or "" when sshd is missing. */
  sshdStartType: probeText,
  /** The IPv4 of the address WMCO is given (the address itself, or the host's resolution of a DNS name); "" if none. */
  wmcoIPv4: probeText,
  /** What DNS answers for that IPv4's PTR record, as the host's resolver sees it; empty when there is none. */
  ptrNames: probeList(z.coerce.string()),
  /** DHCP on the interface carrying that IPv4: `Enabled`, `Disabled` (a static address), "" when no interface has it. */
  addressDhcp: probeText,
  /** The deviceless-NIC registry value (facts/byoh.ts BYOH_DEVICELESS_NIC); -1 when it is absent. */
  deviceLessNicDisabled: z.number().catch(-1),
});
export type HostProbe = z.output<typeof hostProbe>;

/** Parses the probe's JSON, past the BOM and whatever was printed before it. */
export function parseProbe(output: string): HostProbe {
  return hostProbe.parse(printedObject(output, "the host probe"));
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
  /** The Node name WMCO gives the host where it is not the hostname (AWS: the private DNS name). */
  nodeName?: string;
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
  out.push(...byohPrerequisites(p, x.nodeName).problems);
  return out;
}

/** What WMCO's BYOH prerequisites say of this host: `problems` refuse the host, `warnings` are reported. */
export interface PrerequisiteFindings {
  problems: string[];
  warnings: string[];
}

/** The DNS name a PTR record for an IPv4 address lives at (`10.0.0.42` → `42.0.0.10.in-addr.arpa`). */
export function reverseName(ipv4: string): string {
  return `${ipv4.split(".").reverse().join(".")}.in-addr.arpa`;
}

/**
 * The BYOH prerequisites the host itself can show (docs/byoh-instance-pre-requisites.md, release-4.18 to master), from
 * the probe. Pure.
 *
 * - A PTR record for the address "which resolves to the instance hostname": the Node name, which is the hostname except
 *   where WMCO overrides it (`nodeName`: on AWS the private DNS name from instance metadata, pkg/services/services.go
 *   getHostnameCmd, which the VPC's own PTR record names). A missing or foreign record is a warning,
 *   not a refusal: the host asks its own DNS servers, WMCO asks from its pod; and WMCO's CSR approver, when the reverse
 *   lookup fails or does not match, falls back to logging in and running `hostname` (pkg/csr/csr.go
 *   `validateNodeName` → `matchesDNS`, then `validateWithHostName`).
 * - A static address (DHCP off on the interface that carries it) on any version but 2022 needs
 *   `DeviceLessNicDisabled` = 1. Missing, it refuses a host WMCO has not joined yet (before it is listed in
 *   `windows-instances`); on a joined host it is a warning, so that a running node's updates (a key rotation) go on.
 */
export function byohPrerequisites(p: HostProbe, nodeName?: string): PrerequisiteFindings {
  const problems: string[] = [];
  const warnings: string[] = [];
  const hostname = p.hostname.toLowerCase();
  const node = nodeName?.toLowerCase().replace(/\.$/, "");
  const ip = p.wmcoIPv4;
  if (ip) {
    const names = p.ptrNames.map((n) => n.toLowerCase().replace(/\.$/, ""));
    const why =
      "WMCO's BYOH prerequisites require a PTR record for the address that resolves to the hostname (docs/byoh-instance-pre-requisites.md); without a match its CSR approver falls back to logging in to read the hostname (pkg/csr/csr.go validateNodeName)";
    // With a Node name WMCO sets itself (AWS), its CSR approver accepts a record that contains it (matchesDNS).
    const target = node ? node : `${hostname}.<your domain>`;
    const matches = (n: string) => (node ? n.includes(node) : n.split(".")[0] === hostname);
    if (names.length === 0)
      warnings.push(
        `DNS gives no PTR record for ${ip} (asked by the host ${hostname}): ${why}; add a PTR record ${reverseName(ip)} → ${target} to your DNS`,
      );
    else if (!names.some(matches))
      warnings.push(
        `the PTR record for ${ip} names ${names.join(", ")}, not ${node ? `the Node name WMCO gives the host, ${node}` : `the host's name ${hostname}`}: ${why}; point ${reverseName(ip)} at ${target}`,
      );
  }
  const version = versionOfBuild(p.osBuild);
  const nic = BYOH_DEVICELESS_NIC;
  if (p.addressDhcp === "Disabled" && version && version !== nic.exempt && p.deviceLessNicDisabled !== nic.value) {
    const finding = `${ip} is a static address (DHCP is off on its interface) and ${hostname} runs Windows Server ${version}: WMCO's BYOH prerequisites require deviceless NICs disabled on every version but ${nic.exempt} (docs/byoh-instance-pre-requisites.md), and ${nic.name} is ${p.deviceLessNicDisabled < 0 ? "not set" : p.deviceLessNicDisabled}; set it in an elevated PowerShell on the host: New-ItemProperty -Path '${nic.key}' -Name ${nic.name} -PropertyType DWORD -Value ${nic.value} -Force (docs/byoh.md)`;
    (p.wmcoServices.length > 0 ? warnings : problems).push(finding);
  }
  return { problems, warnings };
}

/** What still differs from a prepared host (used by diff after a refresh). */
export function preparationDrift(p: HostProbe): string[] {
  const out: string[] = [];
  if (!p.keyAuthorized)
    out.push(
      SSHD_UNREADABLE.some((e) => e === p.keyFileEncoding)
        ? `WMCO key not authorized (administrators_authorized_keys is ${p.keyFileEncoding}, which sshd does not read)`
        : "WMCO key not authorized",
    );
  if (!p.keyFileAclOk) out.push("administrators_authorized_keys ACL");
  if (p.pubkeyAuthentication !== "yes" && p.pubkeyAuthentication !== "") out.push("PubkeyAuthentication");
  if (p.passwordAuthentication !== "no") out.push("PasswordAuthentication");
  for (const port of WMCO_PORTS) if (!p.firewallPorts.includes(port)) out.push(`firewall port ${port}`);
  if (p.sshdStartType !== "Automatic") out.push("sshd start type");
  return out;
}

/**
 * Key rotation's last step: removes the retired WMCO keys from `administrators_authorized_keys`, only once the new
 * key (`keep`) is authorized, so the host never holds zero usable keys. Replaced as prepare replaces it
 * (REPLACE_KEY_FILE: ASCII, as sshd ignores UTF-16, Win32-OpenSSH #2070; restricted before the move). Prints `retired <n>`.
 */
export function retireKeysScript(keep: string, retire: readonly string[]): string {
  return [
    "$ErrorActionPreference = 'Stop'",
    `$key = ${psQuote(keep)}`,
    `$retire = ${psList(retire)}`,
    "$keyFile = Join-Path $env:ProgramData 'ssh\\administrators_authorized_keys'",
    "$lines = @(Get-Content -LiteralPath $keyFile)",
    "$kept = @($lines | Where-Object { $retire -notcontains $_.Trim() })",
    "if (-not ($kept | Where-Object { $_.Trim() -eq $key })) { throw 'the new WMCO key is not authorized; nothing was removed' }",
    "$removed = $lines.Count - $kept.Count",
    "if ($removed -gt 0) {",
    ...REPLACE_KEY_FILE,
    "}",
    "Write-Output ('retired ' + $removed)",
  ].join("\n");
}
