/**
 * The first-boot PowerShell of a Windows VM this stack creates (AWS `<powershell>` user data; on Azure the same script
 * as custom data, run by the Custom Script Extension): what terraform-windows-provisioner's scripts and WMCO's BYOH
 * docs ask of a host before WMCO (or a vanilla join) can use it. Only the public key is in it: user data is readable
 * by anyone with instance-describe rights, so no secret ever goes here. Pure; parsed by tree-sitter in the tests.
 *
 * First boot only: the VMs ignore later changes of this text (cloud-hosts.ts `ignoreChanges`), and once it has
 * completed it leaves a marker and never runs its steps again, so a key rotated over SSH since is never undone.
 */
import { psQuote } from "../../providers/ssh/powershell";
import { SSHD_KEY_ONLY_CONFIG } from "../../providers/windows-host/scripts";
import { SSH_PORT } from "../../facts/wmco";
import { EC2LAUNCH_MINIMUM_VERSION } from "../../facts/clouds";

export interface FirstBoot {
  /** The cloud that runs the script: AWS (EC2Launch v2, at every boot until done) or Azure (its extension, once). */
  cloud: "aws" | "azure";
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
/** Marker of a console line about a step that did not work but does not stop first boot (the metadata routes). */
export const FIRST_BOOT_WARNING_CONSOLE_MARKER = "windows-estate-first-boot-warning:";
/**
 * The file a completed first boot leaves. On AWS the user data runs at every boot (`<persist>`): with this file there
 * it stops at once, so the key, sshd's settings and the firewall are from then on the SSH side's (WindowsHost's).
 */
const FIRST_BOOT_DONE_FILE = "windows-estate\\first-boot.done";

/**
 * How often first boot tries to install OpenSSH, and the wait between tries: WMCO's own user data (pkg/secrets/secrets.go
 * generateUserDataWithPubKey) tries Add-WindowsCapability 10 times, 5 s apart, because the capability comes from
 * Windows Update (Features on Demand) and "a network connection is not guaranteed at VM initialization".
 */
export const CAPABILITY_ATTEMPTS = 10;
export const CAPABILITY_WAIT_SECONDS = 5;

/** What to do when first boot failed: run it again, which each cloud does its own way. */
const RERUN: Record<FirstBoot["cloud"], string> = {
  aws: "then reboot the instance: its user data runs again at every boot until first boot completes",
  azure:
    "then run first boot again: pulumi up --replace on its first-boot VirtualMachineExtension (the extension runs the custom data once per deployment)",
};

/**
 * EC2Launch v2's task that puts the instance-metadata routes back at every boot (`--persistent`). Without it a
 * rebooted node loses 169.254.169.254 behind the HNS networks and stays NotReady (WMCO docs/TROUBLESHOOTING.md "Node
 * reboot limitation in AWS"); WMCO's own user data runs it (pkg/secrets/secrets.go appendAwsUserDataConfig), with
 * EC2Launch at least EC2LAUNCH_MINIMUM_VERSION. An older or missing EC2Launch is said on the console, not fatal: the
 * day-2 reboots put the route back themselves (providers/day2), an unplanned reboot does not.
 */
function metadataRoutes(): string[] {
  const warn = (why: string) =>
    `Send-ConsoleLine (${psQuote(`${FIRST_BOOT_WARNING_CONSOLE_MARKER} the instance-metadata routes are not made persistent (`)} + ${why} + ${psQuote(`): after an unplanned reboot the node may stay NotReady. Fix: use an AMI with EC2Launch v2 ${EC2LAUNCH_MINIMUM_VERSION} or later`)})`;
  return [
    "$ec2launch = Join-Path $env:ProgramFiles 'Amazon\\EC2Launch\\EC2Launch.exe'",
    "if (-not (Test-Path -LiteralPath $ec2launch)) {",
    `  ${warn("'no EC2Launch v2 at ' + $ec2launch")}`,
    "} else {",
    "  $ec2launchVersion = [string](& $ec2launch version)",
    "  $routesOk = $false",
    `  try { $routesOk = ([version]$ec2launchVersion.Trim()) -ge ([version]${psQuote(EC2LAUNCH_MINIMUM_VERSION)}) } catch { $routesOk = $false }`,
    "  if ($routesOk) {",
    "    & $ec2launch run-task add-routes --persistent | Out-Null",
    `    if ($LASTEXITCODE -ne 0) { ${warn("'add-routes exited ' + $LASTEXITCODE")} }`,
    `  } else { ${warn("'EC2Launch ' + $ec2launchVersion.Trim()")} }`,
    "}",
  ];
}

/**
 * The first-boot script. In this order, so that no login can reach the host before its name is final and nothing
 * of SSH can be caught half-way:
 *
 * 1. Done before (the marker): stop. On AWS the script runs at every boot.
 * 2. AWS: the persistent metadata routes (at every boot until done, as WMCO runs its own).
 * 3. The lower-case hostname. If the name differs (an AMI's `EC2AMAZ-…`), rename and restart now: nothing of SSH
 *    exists yet, and the next boot runs the script again (AWS `<persist>`). Azure names the VM at creation
 *    (`osProfile.computerName`), so there it is already final.
 * 4. OpenSSH from Windows Update, retried as WMCO does; a final failure says so on the console and stops.
 * 5. The firewall; sshd Automatic and started (it writes its default sshd_config and host keys), then key-only
 *    (PasswordAuthentication no, as WMCO's user data sets it) and restarted: no key is authorized yet, so no login
 *    can be cut by that restart.
 * 6. The key, restricted before it takes its name (the same steps WindowsHost uses): from here the host is reachable.
 * 7. The host key on the console, the marker.
 */
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
    `$done = Join-Path $env:ProgramData ${psQuote(FIRST_BOOT_DONE_FILE)}`,
    "if (Test-Path -LiteralPath $done) { exit 0 }",
    ...(o.cloud === "aws" ? metadataRoutes() : []),
    // Rename-Computer -Restart only starts the restart: the script must end here, before anything of SSH.
    `if ([System.Net.Dns]::GetHostName() -cne ${psQuote(o.hostname)}) {`,
    `  Rename-Computer -NewName ${psQuote(o.hostname)} -Force -Restart`,
    "  exit 0",
    "}",
    // OpenSSH server from the Windows capability: the only step that needs the network; retried as WMCO does
    // (CAPABILITY_ATTEMPTS). If it never succeeds the script stops before changing anything else, and says so on
    // the console; every step is idempotent, so running it again finishes the job.
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
    `  $failed = ${psQuote(FIRST_BOOT_FAILED_CONSOLE_MARKER + ' step "install OpenSSH.Server (Add-WindowsCapability)" failed ')} + $attempt + ' times, ' + $waitSeconds + ${psQuote(" s apart (")} + $installError + ${psQuote(`). Nothing else was configured (no sshd, key or firewall rule). Fix: let the VM reach Windows Update (outbound HTTPS, or a WSUS or proxy that serves Features on Demand), ${RERUN[o.cloud]}.`)}`,
    "  Send-ConsoleLine $failed",
    "  throw $failed",
    "}",
    // TCP rules under the names the WindowsHost probe reads (`windows-estate-<port>`), so a new host shows no drift.
    ...rules.map((r) => {
      const rule = r.proto === "TCP" ? `windows-estate-${r.port}` : `windows-estate-udp-${r.port}`;
      return `if (-not (Get-NetFirewallRule -Name '${rule}' -ErrorAction SilentlyContinue)) { New-NetFirewallRule -Name '${rule}' -DisplayName 'windows-estate ${r.proto} ${r.port}' -Direction Inbound -Protocol ${r.proto} -LocalPort ${r.port} -Action Allow | Out-Null }`;
    }),
    // Started once so that sshd writes its default sshd_config (and host keys), as WMCO's user data does; then
    // key-only, restarted while no key is authorized yet.
    "Set-Service -Name sshd -StartupType Automatic",
    "Start-Service -Name sshd",
    "$config = Join-Path $env:ProgramData 'ssh\\sshd_config'",
    ...SSHD_KEY_ONLY_CONFIG,
    "Restart-Service -Name sshd",
    ...(o.neverExpiringAdmin
      ? [`Set-LocalUser -Name ${psQuote(o.neverExpiringAdmin)} -PasswordNeverExpires $true`]
      : []),
    // Administrators' keys live in one file that only Administrators and SYSTEM may read (Win32-OpenSSH's rule;
    // sshd ignores it otherwise): written as a temporary file, restricted, then renamed into place.
    "$keyFile = Join-Path $env:ProgramData 'ssh\\administrators_authorized_keys'",
    "$tmp = $keyFile + '.windows-estate.tmp'",
    `Set-Content -LiteralPath $tmp -Value ${psQuote(o.publicKey)} -Encoding ascii`,
    "icacls.exe $tmp /inheritance:r /grant '*S-1-5-32-544:F' /grant '*S-1-5-18:F' | Out-Null",
    "if ($LASTEXITCODE -ne 0) { throw ('icacls failed with ' + $LASTEXITCODE) }",
    "Move-Item -LiteralPath $tmp -Destination $keyFile -Force",
    // The host key, written to the serial console so the key pinned at first contact can be checked against what
    // the host itself says; read now, after the rename and sshd's first start wrote it.
    "$hostKey = Get-Content -LiteralPath (Join-Path $env:ProgramData 'ssh\\ssh_host_ed25519_key.pub') -Raw",
    `Send-ConsoleLine (${psQuote(HOST_KEY_CONSOLE_MARKER + " ")} + $hostKey.Trim())`,
    "New-Item -ItemType Directory -Force -Path (Split-Path -Parent $done) | Out-Null",
    "Set-Content -LiteralPath $done -Value (Get-Date -Format o) -Encoding ascii",
  ].join("\n");
}

/**
 * EC2 runs `<powershell>` user data at first boot; `<persist>true</persist>` runs it at every boot (AWS "Run commands
 * on your Windows instance at launch"), which the rename's restart needs, as WMCO's user data has it
 * (pkg/secrets/secrets.go processTags). The script's marker keeps later boots from doing anything.
 */
export function awsUserData(o: FirstBoot): string {
  return `<powershell>\n${firstBootScript(o)}\n</powershell>\n<persist>true</persist>\n`;
}

/**
 * Azure writes custom data to `C:\AzureData\CustomData.bin` and never runs it on Windows; the Custom Script Extension
 * runs this command, which runs that file as PowerShell.
 */
export const AZURE_RUN_CUSTOM_DATA =
  'powershell.exe -NoProfile -ExecutionPolicy Bypass -Command "Copy-Item -LiteralPath C:\\AzureData\\CustomData.bin -Destination C:\\AzureData\\windows-estate.ps1 -Force; & C:\\AzureData\\windows-estate.ps1"';
