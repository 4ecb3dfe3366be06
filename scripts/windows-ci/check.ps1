# Runs, in Windows PowerShell 5.1 on a Windows runner, the parts of the generated scripts that need no cluster, and
# fails on any difference from what the lab's PowerShell stand-in predicts (issue 31; docs/windows-hosts.md). The
# predictions and the script lines come from `npm run windows-ci:render` (scripts/windows-ci/checks.ts), computed
# with the stand-in's rule functions (test/lab/windows-51): a failure here means a rule there is wrong, or a script.
#
#   powershell.exe -NoProfile -ExecutionPolicy Bypass -File scripts/windows-ci/check.ps1 -Dir <render output>
#
# Changes the machine it runs on: a test service (created, then deleted), C:\var\lib\kubelet\kubeadm-flags.env
# (written, then removed), files under the temp folder. Meant for a throwaway runner, never for a node.
# Windows PowerShell 5.1 syntax only (no ??, ?., ternary, && or ||): it must run where the program's scripts run.
param([Parameter(Mandatory = $true)][string]$Dir)

$ErrorActionPreference = 'Stop'
$ProgressPreference = 'SilentlyContinue'
$failures = New-Object System.Collections.Generic.List[string]

function Fail([string]$check, [string]$what) {
  $failures.Add($check + ': ' + $what)
  Write-Host ('FAIL ' + $check + ': ' + $what)
}
function Pass([string]$check, [string]$what) { Write-Host ('ok   ' + $check + ': ' + $what) }
function Show($value) {
  if ($null -eq $value) { return '(null)' }
  $text = [string]$value
  if ($text.Length -gt 300) { $text = $text.Substring(0, 300) + '...' }
  return "'" + $text + "'"
}
# Case-sensitive: a name or a command line that differs only in case is a difference.
function Same([string]$check, [string]$what, $expected, $actual) {
  if ([string]$expected -ceq [string]$actual) { Pass $check $what }
  else { Fail $check ($what + ': the stand-in predicts ' + (Show $expected) + ', Windows gave ' + (Show $actual)) }
}
# The value of `$name` after running `$lines` in a child scope (the script's own lines, unchanged).
function Invoke-Lines([string]$lines, [string]$name) {
  $out = @(& ([scriptblock]::Create($lines + "`n" + '$' + $name)))
  if ($out.Count -eq 0) { return $null }
  return $out[$out.Count - 1]
}
function Get-ImagePath([string]$service) {
  $s = Get-CimInstance -ClassName Win32_Service -Filter ("Name='" + $service + "'")
  if ($s) { return [string]$s.PathName }
  return $null
}

if ($PSVersionTable.PSEdition -ne 'Desktop' -or $PSVersionTable.PSVersion.Major -ne 5) {
  throw ('check.ps1 checks Windows PowerShell 5.1 (powershell.exe); this is PowerShell ' + $PSVersionTable.PSVersion)
}
Write-Host ('Windows PowerShell ' + $PSVersionTable.PSVersion + ' on ' + (Get-CimInstance -ClassName Win32_OperatingSystem).Caption)
$p = [System.IO.File]::ReadAllText((Join-Path $Dir 'predictions.json'), [System.Text.Encoding]::UTF8) | ConvertFrom-Json
Write-Host ('sample stack: ' + $p.sampleStack)
$work = Join-Path ([System.IO.Path]::GetTempPath()) ('windows-estate-ci-' + [guid]::NewGuid().ToString('N'))
New-Item -ItemType Directory -Force -Path $work | Out-Null

# ---- 1. checksum files: .Content's type for the asset's real Content-Type, and what the install lines parse (row 1)
$web = @{ UseBasicParsing = $true }
foreach ($a in $p.checksum.assets) {
  try {
    $r = Invoke-WebRequest @web -Uri $a.url
    Same 'checksum' ($a.name + ': Content-Type') $a.contentType $r.Headers['Content-Type']
    $type = $(if ($r.Content -is [byte[]]) { 'byte[]' } elseif ($r.Content -is [string]) { 'string' } else { $r.Content.GetType().FullName })
    Same 'checksum' ($a.name + ': .Content is') $a.contentIs $type
    $it = @{ name = $a.name; sum = $a.url }
    Same 'checksum' ($a.name + ': the install script reads the SHA-256') $a.published (Invoke-Lines $p.checksum.lines 'published')
  } catch {
    Fail 'checksum' ($a.name + ': ' + $_.Exception.Message)
  }
}

# ---- 2. the kubelet service's command line through sc.exe and back (rows 2, 6)
$svc = $p.service.name
$flagsFile = 'C:\var\lib\kubelet\kubeadm-flags.env'
try {
  if (Get-Service -Name $svc -ErrorAction SilentlyContinue) { sc.exe delete $svc | Out-Null }
  foreach ($c in $p.service.cases) {
    try {
      if ($c.envFile) {
        New-Item -ItemType Directory -Force -Path (Split-Path -Parent $flagsFile) | Out-Null
        Set-Content -LiteralPath $flagsFile -Value $c.envFile -Encoding ascii
      } elseif (Test-Path -LiteralPath $flagsFile) {
        Remove-Item -LiteralPath $flagsFile -Force
      }
      $bin = $c.bin
      if ($c.fromScript) {
        $bin = Invoke-Lines $p.service.lines 'bin'
        Same 'service' ($c.name + ': $bin') $c.bin $bin
      }
      $before = Get-ImagePath $svc
      # As the service script and the join pass it: $bin as one argument value (5.1's legacy argument passing).
      if ($c.command -eq 'create') { sc.exe create $svc binPath= $bin start= demand | Out-Null }
      else { sc.exe config $svc binPath= $bin | Out-Null }
      $code = $LASTEXITCODE
      $after = Get-ImagePath $svc
      if ($null -eq $c.imagePath) {
        if ($code -ne 0) { Pass 'service' ($c.name + ': sc.exe refused (' + $code + ')') }
        else { Fail 'service' ($c.name + ': the stand-in predicts sc.exe refuses, it exited 0') }
        Same 'service' ($c.name + ': ImagePath unchanged') $before $after
      } else {
        Same 'service' ($c.name + ': sc.exe exit code') 0 $code
        Same 'service' ($c.name + ': ImagePath') $c.imagePath $after
      }
    } catch {
      Fail 'service' ($c.name + ': ' + $_.Exception.Message)
    }
  }
} finally {
  if (Get-Service -Name $svc -ErrorAction SilentlyContinue) { sc.exe delete $svc | Out-Null }
  if (Test-Path -LiteralPath $flagsFile) { Remove-Item -LiteralPath $flagsFile -Force }
}

# ---- 3. administrators_authorized_keys as the prepare script writes it: bytes, Get-Content, ACL (row 5)
$programData = $env:ProgramData
$i = 0
foreach ($c in $p.keys.cases) {
  $i++
  try {
    $pd = Join-Path $work ('programdata-' + $i)
    New-Item -ItemType Directory -Force -Path (Join-Path $pd 'ssh') | Out-Null
    $file = Join-Path $pd 'ssh\administrators_authorized_keys'
    if ($c.before -eq 'out-file') {
      $p.keys.key | Out-File -LiteralPath $file
      Same 'keys' ($c.name + ': bytes Out-File writes') $c.beforeBytes ([System.Convert]::ToBase64String([System.IO.File]::ReadAllBytes($file)))
      Same 'keys' ($c.name + ': Get-Content lines before') (@($c.beforeLines) -join "`n") (@(Get-Content -LiteralPath $file) -join "`n")
    }
    $env:ProgramData = $pd
    try { & ([scriptblock]::Create($p.keys.lines)) | Out-Null } finally { $env:ProgramData = $programData }
    Same 'keys' ($c.name + ': bytes after the prepare lines') $c.afterBytes ([System.Convert]::ToBase64String([System.IO.File]::ReadAllBytes($file)))
    Same 'keys' ($c.name + ': Get-Content lines after') (@($c.afterLines) -join "`n") (@(Get-Content -LiteralPath $file) -join "`n")
    $acl = Get-Acl -LiteralPath $file
    $sids = @($acl.Access | ForEach-Object { $_.IdentityReference.Translate([System.Security.Principal.SecurityIdentifier]).Value } | Sort-Object -Unique)
    Same 'keys' ($c.name + ': ACL protected (no inheritance)') $p.keys.acl.protected $acl.AreAccessRulesProtected
    Same 'keys' ($c.name + ': ACL SIDs') (@($p.keys.acl.sids) -join ', ') ($sids -join ', ')
  } catch {
    Fail 'keys' ($c.name + ': ' + $_.Exception.Message)
  }
}

# ---- 4. host names: the NetBIOS name from the DNS host name (row 8)
# The prediction's DNS host name is what Node read (libuv uv_os_gethostname); here it is read as the probe reads it
# ([System.Net.Dns]::GetHostName) and as the kubelet's os.Hostname reads it (golang/go src/os/sys_windows.go hostname:
# GetComputerNameEx with ComputerNamePhysicalDnsHostname = 5), three separate readings of the one name.
try {
  Add-Type -Namespace WindowsEstateCi -Name Names -MemberDefinition @'
[DllImport("kernel32.dll", CharSet = CharSet.Unicode, SetLastError = true)]
public static extern bool GetComputerNameEx(int nameType, System.Text.StringBuilder buffer, ref uint size);
'@
  $size = [uint32]256
  $buffer = New-Object System.Text.StringBuilder 256
  if (-not [WindowsEstateCi.Names]::GetComputerNameEx(5, $buffer, [ref]$size)) { throw 'GetComputerNameEx(ComputerNamePhysicalDnsHostname) failed' }
  $goName = $buffer.ToString().Trim()
  Same 'hostName' '[System.Net.Dns]::GetHostName()' $p.hostName.dnsHostName ([System.Net.Dns]::GetHostName())
  Same 'hostName' 'GetComputerNameEx(PhysicalDnsHostname), as Go os.Hostname' $p.hostName.dnsHostName $goName
  Same 'hostName' '$env:COMPUTERNAME' $p.hostName.computerName $env:COMPUTERNAME
  Same 'hostName' 'the kubelet default node name (os.Hostname, trimmed, lower case)' $p.hostName.kubeletNodeName $goName.ToLowerInvariant()
} catch {
  Fail 'hostName' $_.Exception.Message
}

# ---- 5. the retire command over exec: cmd.exe /c refuses a line over its limit (row 10)
try {
  $pd = Join-Path $work 'programdata-retire'
  New-Item -ItemType Directory -Force -Path (Join-Path $pd 'ssh') | Out-Null
  $file = Join-Path $pd 'ssh\administrators_authorized_keys'
  foreach ($c in $p.retire.cases) {
    Same 'retire' ($c.retired.ToString() + ' keys: command line length') $c.length $c.commandLine.Length
    Set-Content -LiteralPath $file -Value (@($p.retire.keep) + @($p.retire.retireKeys)) -Encoding ascii
    $before = [System.IO.File]::ReadAllText($file)
    # As Win32-OpenSSH runs an exec request under the default shell: cmd.exe /c <command>.
    $psi = New-Object System.Diagnostics.ProcessStartInfo
    $psi.FileName = Join-Path $env:SystemRoot 'System32\cmd.exe'
    $psi.Arguments = '/c ' + $c.commandLine
    $psi.UseShellExecute = $false
    $psi.RedirectStandardOutput = $true
    $psi.RedirectStandardError = $true
    $psi.EnvironmentVariables['ProgramData'] = $pd
    $proc = [System.Diagnostics.Process]::Start($psi)
    $stderrTask = $proc.StandardError.ReadToEndAsync()
    $out = $proc.StandardOutput.ReadToEnd()
    $proc.WaitForExit()
    $err = $stderrTask.Result
    $what = $c.retired.ToString() + ' keys (' + $c.length + ' characters, limit ' + $p.retire.limit + ')'
    if ($null -ne $c.refused) {
      if (($out + $err).Contains($c.refused)) { Pass 'retire' ($what + ': cmd.exe refused: ' + $c.refused) }
      else { Fail 'retire' ($what + ': the stand-in predicts ' + (Show $c.refused) + ', cmd.exe exited ' + $proc.ExitCode + ' with ' + (Show ($out + $err))) }
      Same 'retire' ($what + ': key file unchanged') $before ([System.IO.File]::ReadAllText($file))
    } else {
      Same 'retire' ($what + ': exit code') 0 $proc.ExitCode
      Same 'retire' ($what + ': output') ('retired ' + $c.retired) $out.Trim()
    }
  }
} catch {
  Fail 'retire' $_.Exception.Message
}

# ---- 6. an error on stderr from an -EncodedCommand PowerShell: CLIXML, not text (row 11)
try {
  $psi = New-Object System.Diagnostics.ProcessStartInfo
  $psi.FileName = Join-Path $env:SystemRoot 'System32\cmd.exe'
  $psi.Arguments = '/c ' + $p.stderr.commandLine
  $psi.UseShellExecute = $false
  $psi.RedirectStandardOutput = $true
  $psi.RedirectStandardError = $true
  $proc = [System.Diagnostics.Process]::Start($psi)
  $stderrTask = $proc.StandardError.ReadToEndAsync()
  $out = $proc.StandardOutput.ReadToEnd()
  $proc.WaitForExit()
  $err = $stderrTask.Result
  Same 'stderr' 'exit code of a script that throws' 1 $proc.ExitCode
  Same 'stderr' 'first line of stderr' $p.stderr.header ($err -split "`r`n")[0]
  if ($err.Contains($p.stderr.firstRecord)) { Pass 'stderr' ('the error''s first line as ' + $p.stderr.firstRecord) }
  else { Fail 'stderr' ('the stand-in predicts ' + (Show $p.stderr.firstRecord) + ' in stderr, Windows wrote ' + (Show $err)) }
} catch {
  Fail 'stderr' $_.Exception.Message
}

Remove-Item -LiteralPath $work -Recurse -Force -ErrorAction SilentlyContinue
if ($failures.Count -gt 0) {
  Write-Host ''
  Write-Host ($failures.Count.ToString() + ' difference(s) from the stand-in:')
  foreach ($f in $failures) { Write-Host ('  ' + $f) }
  exit 1
}
Write-Host 'every check agrees with the stand-in'
exit 0
