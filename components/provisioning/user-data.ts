/**
 * The first-boot PowerShell of a Windows VM this stack creates (AWS `<powershell>` user data; on Azure the same script
 * as custom data, run by the Custom Script Extension): what terraform-windows-provisioner's scripts and WMCO's BYOH
 * docs ask of a host before WMCO (or a vanilla join) can use it. Only the public key is in it: user data is readable
 * by anyone with instance-describe rights, so no secret ever goes here. Pure; parsed by tree-sitter in the tests.
 */
import { psQuote } from "../../providers/ssh/powershell";
import { SSH_PORT } from "../../facts/wmco";

export interface FirstBoot {
  /** The OpenSSH public key to authorize (the WMCO key, or the vanilla nodes' key). */
  publicKey: string;
  /** The lower-case hostname WMCO requires (its BYOH docs; kubelet lower-cases the node name). */
  hostname: string;
  /** Inbound TCP ports besides SSH: the kubelet (10250) and windows_exporter (9182), WMCO's prerequisites. */
  tcpPorts: readonly number[];
  /** UDP ports (flannel VXLAN on vanilla nodes). */
  udpPorts: readonly number[];
  /** On Azure: the admin whose password must not expire (the provisioner's known 42-day lockout). */
  neverExpiringAdmin?: string;
}

/** Marker of the console line carrying the host's SSH key (for checking it against what was pinned). */
export const HOST_KEY_CONSOLE_MARKER = "windows-estate-ssh-host-key:";
/** Marker of the console line a failed first boot leaves: the step that failed, why, and the fix. */
export const FIRST_BOOT_FAILED_CONSOLE_MARKER = "windows-estate-first-boot-failed:";

/**
 * How often first boot tries to install OpenSSH, and the wait between tries: WMCO's own user data (pkg/secrets/secrets.go
 * generateUserDataWithPubKey) tries Add-WindowsCapability 10 times, 5 s apart, because the capability comes from
 * Windows Update (Features on Demand) and "a network connection is not guaranteed at VM initialization".
 */
export const CAPABILITY_ATTEMPTS = 10;
export const CAPABILITY_WAIT_SECONDS = 5;

export function firstBootScript(o: FirstBoot): string {
  const rules = [
    ...[SSH_PORT, ...o.tcpPorts].map((p) => ({ proto: "TCP", port: p })),
    ...o.udpPorts.map((p) => ({ proto: "UDP", port: p })),
  ];
  return [
    "$ErrorActionPreference = 'Stop'",
    // The serial console (EC2 GetConsoleOutput, Azure boot diagnostics) is where an operator sees this host before
    // SSH works: the host key and a failure are written there.
    "function Send-ConsoleLine([string]$line) {",
    "  try {",
    "    $port = New-Object System.IO.Ports.SerialPort 'COM1', 115200",
    "    $port.Open()",
    "    $port.WriteLine($line)",
    "    $port.Close()",
    "  } catch { Write-Output ('no serial console: ' + $_.Exception.Message) }",
    "}",
    // OpenSSH server from the Windows capability, started now and at every boot: WMCO reboots hosts and reconnects.
    // The only step that needs the network; retried as WMCO does (CAPABILITY_ATTEMPTS). If it never succeeds the
    // script stops before changing anything else, and says so on the console: user data runs once (EC2Launch v2
    // without <persist>; Azure's Custom Script Extension once per settings), every step below is idempotent, so a
    // recreated VM (or this script run again) finishes the job.
    `$attempts = ${CAPABILITY_ATTEMPTS}`,
    `$waitSeconds = ${CAPABILITY_WAIT_SECONDS}`,
    "$attempt = 0",
    "$installError = ''",
    // The wait follows the try/catch, not the catch alone: an install that returns without error but leaves no sshd
    // service yet is retried after the same wait, never at once.
    "while (-not (Get-Service -Name sshd -ErrorAction SilentlyContinue) -and $attempt -lt $attempts) {",
    "  $attempt++",
    "  $installError = 'Add-WindowsCapability returned, but there is no sshd service'",
    "  try { Add-WindowsCapability -Online -Name OpenSSH.Server~~~~0.0.1.0 | Out-Null }",
    "  catch { $installError = $_.Exception.Message }",
    "  if (-not (Get-Service -Name sshd -ErrorAction SilentlyContinue) -and $attempt -lt $attempts) { Start-Sleep -Seconds $waitSeconds }",
    "}",
    "if (-not (Get-Service -Name sshd -ErrorAction SilentlyContinue)) {",
    `  $failed = ${psQuote(FIRST_BOOT_FAILED_CONSOLE_MARKER + ' step "install OpenSSH.Server (Add-WindowsCapability)" failed ')} + $attempt + ' times, ' + $waitSeconds + ${psQuote(" s apart (")} + $installError + ${psQuote("). Nothing else was configured (no sshd, key or firewall rule). Fix: let the VM reach Windows Update (outbound HTTPS, or a WSUS or proxy that serves Features on Demand), then recreate the VM (pulumi up --replace on it): its user data runs only at first boot.")}`,
    "  Send-ConsoleLine $failed",
    "  throw $failed",
    "}",
    "Set-Service -Name sshd -StartupType Automatic",
    "Start-Service -Name sshd",
    // Administrators' keys live in one file that only Administrators and SYSTEM may read (Win32-OpenSSH's rule;
    // sshd ignores it otherwise).
    "$keys = Join-Path $env:ProgramData 'ssh\\administrators_authorized_keys'",
    `Set-Content -LiteralPath $keys -Value ${psQuote(o.publicKey)} -Encoding ascii`,
    "icacls.exe $keys /inheritance:r /grant '*S-1-5-32-544:F' /grant '*S-1-5-18:F' | Out-Null",
    "if ($LASTEXITCODE -ne 0) { throw ('icacls failed with ' + $LASTEXITCODE) }",
    ...rules.map(
      (r) =>
        `if (-not (Get-NetFirewallRule -Name 'windows-estate-${r.proto.toLowerCase()}-${r.port}' -ErrorAction SilentlyContinue)) { New-NetFirewallRule -Name 'windows-estate-${r.proto.toLowerCase()}-${r.port}' -DisplayName 'windows-estate ${r.proto} ${r.port}' -Direction Inbound -Protocol ${r.proto} -LocalPort ${r.port} -Action Allow | Out-Null }`,
    ),
    ...(o.neverExpiringAdmin
      ? [`Set-LocalUser -Name ${psQuote(o.neverExpiringAdmin)} -PasswordNeverExpires $true`]
      : []),
    // The host key, written to the serial console (EC2 GetConsoleOutput, Azure boot diagnostics) so the key pinned at
    // first contact can be checked against what the host itself says.
    "$hostKey = Get-Content -LiteralPath (Join-Path $env:ProgramData 'ssh\\ssh_host_ed25519_key.pub') -Raw",
    `Send-ConsoleLine (${psQuote(HOST_KEY_CONSOLE_MARKER + " ")} + $hostKey.Trim())`,
    // Last: the lower-case hostname, with the restart that applies it (sshd is Automatic, so it comes back).
    `if ([System.Net.Dns]::GetHostName() -cne ${psQuote(o.hostname)}) { Rename-Computer -NewName ${psQuote(o.hostname)} -Force -Restart }`,
  ].join("\n");
}

/** EC2 runs `<powershell>` user data once, at first boot (EC2Launch v2). */
export function awsUserData(o: FirstBoot): string {
  return `<powershell>\n${firstBootScript(o)}\n</powershell>\n`;
}

/**
 * Azure writes custom data to `C:\AzureData\CustomData.bin` and never runs it on Windows; the Custom Script Extension
 * runs this command, which runs that file as PowerShell.
 */
export const AZURE_RUN_CUSTOM_DATA =
  'powershell.exe -NoProfile -ExecutionPolicy Bypass -Command "Copy-Item -LiteralPath C:\\AzureData\\CustomData.bin -Destination C:\\AzureData\\windows-estate.ps1 -Force; & C:\\AzureData\\windows-estate.ps1"';
