/**
 * The `windows-user-data` Secret WMCO derives from the private key (pkg/secrets/secrets.go `GenerateUserData`,
 * `generateUserDataWithPubKey`, `appendAwsUserDataConfig`, `processTags`). The steps are WMCO's: use `capi` if it
 * exists, else make sure Administrator is enabled; add the OpenSSH server capability (retrying, as the network may not
 * be up yet); open TCP 10250 (container logs), 9182 (windows_exporter) and 22; start sshd automatically; allow only
 * public-key logins; write the public key to administrators_authorized_keys readable by Administrators and SYSTEM
 * only; restart sshd; on AWS also install or upgrade EC2Launch v2 to at least 2.0.2107 and persist its routes. The
 * script text is the lab's own; its shape is WMCO's: `<powershell>...</powershell>\n<persist>true</persist>\n` on
 * every platform but GCP, which gets the bare script, and the authorized_keys line with its newline (x/crypto/ssh
 * `MarshalAuthorizedKey`) inside the quotes. WMCO compares the Secret byte for byte, so this text is the only valid one
 * for a key in the lab.
 */
const EC2LAUNCH_MINIMUM = "2.0.2107";
const EC2LAUNCH_MSI = "https://s3.amazonaws.com/amazon-ec2launch-v2/windows/amd64/latest/AmazonEC2Launch.msi";

function script(authorizedKeyLine: string): string {
  return `# Written by the Windows Machine Config Operator (lab player): prepares this host for SSH from WMCO.
if ($null -eq (Get-LocalUser | Where-Object { $_.Name -eq "capi" })) {
    $admin = Get-LocalUser -Name "Administrator" -ErrorAction SilentlyContinue
    if ($null -ne $admin -and -not $admin.Enabled) {
        Add-Type -AssemblyName 'System.Web'
        $secret = ConvertTo-SecureString ([System.Web.Security.Membership]::GeneratePassword(16, 2)) -AsPlainText -Force
        $admin | Set-LocalUser -Password $secret
        $admin | Enable-LocalUser
    }
}
for ($try = 0; $try -lt 10; $try++) {
    try {
        Add-WindowsCapability -Online -Name OpenSSH.Server~~~~0.0.1.0 -ErrorAction Stop
        break
    } catch {
        Start-Sleep -Seconds 5
    }
}
New-NetFirewallRule -DisplayName "ContainerLogsPort" -Direction Inbound -Action Allow -Protocol TCP -LocalPort "10250" -EdgeTraversalPolicy Allow
New-NetFirewallRule -DisplayName "WindowsExporter" -Direction Inbound -Action Allow -Protocol TCP -LocalPort "9182" -EdgeTraversalPolicy Allow
$sshRule = "OpenSSH-Server-In-TCP"
if (-not (Get-NetFirewallRule -Name $sshRule -ErrorAction SilentlyContinue)) {
    New-NetFirewallRule -Name $sshRule -DisplayName 'OpenSSH Server (sshd)' -Enabled True -Direction Inbound -Protocol TCP -Action Allow -LocalPort 22
}
Enable-NetFirewallRule -Name $sshRule
Set-NetFirewallRule -Name $sshRule -Profile Any
Set-Service -Name sshd -StartupType 'Automatic'
Start-Service sshd
$config = "C:\\ProgramData\\ssh\\sshd_config"
(Get-Content -Path $config) | ForEach-Object {
    $_.Replace('#PubkeyAuthentication yes', 'PubkeyAuthentication yes').Replace('#PasswordAuthentication yes', 'PasswordAuthentication no')
} | Set-Content -Path $config
$keys = "$env:ProgramData\\ssh\\administrators_authorized_keys"
New-Item -Force $keys
echo "${authorizedKeyLine}
"| Out-File $keys -Encoding ascii
$acl = Get-Acl $keys
$acl.SetAccessRuleProtection($true, $false)
$acl.SetAccessRule((New-Object System.Security.AccessControl.FileSystemAccessRule("Administrators", "FullControl", "Allow")))
$acl.SetAccessRule((New-Object System.Security.AccessControl.FileSystemAccessRule("SYSTEM", "FullControl", "Allow")))
$acl | Set-Acl
Restart-Service sshd
`;
}

function ec2Launch(): string {
  return `function Install-EC2LaunchV2 {
    $dir = "$env:USERPROFILE\\Desktop\\EC2Launchv2"
    New-Item -Path $dir -ItemType Directory -Force
    $msi = Join-Path $dir "AmazonEC2Launch.msi"
    Invoke-WebRequest -Uri "${EC2LAUNCH_MSI}" -OutFile $msi
    msiexec /i "$msi"
}
$ec2launch = "$env:ProgramFiles\\Amazon\\EC2Launch\\EC2Launch.exe"
if (-not (Test-Path -Path $ec2launch -PathType Leaf)) { Install-EC2LaunchV2 }
$installed = $(& $ec2launch version)
if ($installed -lt "${EC2LAUNCH_MINIMUM}") {
    Install-EC2LaunchV2
    $installed = $(& $ec2launch version)
}
Write-Output "EC2Launch version $installed"
& $ec2launch run-task add-routes --persistent
`;
}

/** The `userData` value for a platform (`config.openshift.io` platform type) and an authorized_keys line. */
export function userData(platform: string, authorizedKeyLine: string): string {
  const body = script(authorizedKeyLine) + (platform === "AWS" ? ec2Launch() : "");
  if (platform === "GCP") return body;
  return `<powershell>${body}</powershell>\n<persist>true</persist>\n`;
}
