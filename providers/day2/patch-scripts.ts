/**
 * The PowerShell that patches a Windows host through the Windows Update Agent API (day2-facts §3.2). The WUA calls that
 * download and install refuse remote callers, and an OpenSSH session is remote (Win32-OpenSSH #2083), so the search,
 * download and install run in a scheduled task as SYSTEM that writes its result as JSON; the SSH side only registers
 * and starts the task, and polls it. The task never reboots: the rollout reboots gracefully (reboot.ts). Proven here by
 * the tree-sitter parse and the lab's stand-in; only a real Windows host proves the WUA calls.
 *
 * The search before a node is cordoned runs the same task with `searchOnly`, not in the SSH session, although
 * `IUpdateSearcher` itself is open to remote callers (MS "Using WUA From a Remote Computer"): `IUpdateSession.WebProxy`
 * and `ISystemInformation` are not, and the search must go through the same proxy, and see the same pending restart,
 * as the install that follows (searches over SSH were also reported failing on WS2025: PSWindowsUpdate #60, #65).
 */
import { z } from "zod";
import { fields, loose, objectsOf, text } from "../../lib/decode";
import { printedObject, psQuote } from "../ssh/powershell";

/** Where the task keeps its state on the host. */
export const PATCH_DIR = "C:\\ProgramData\\windows-estate\\patch";
const RESULT = `${PATCH_DIR}\\result.json`;
export const PATCH_TASK = "windows-estate-patch";

/** WUA `OperationResultCode` (wuapi.h; MS "OperationResultCode enumeration"). */
export const WUA_RESULT_CODES: Record<number, string> = {
  0: "NotStarted",
  1: "InProgress",
  2: "Succeeded",
  3: "SucceededWithErrors",
  4: "Failed",
  5: "Aborted",
};

/**
 * The search criteria (MS-UAMG 3.38.4.11, IUpdateSearcher::Search): software updates not installed, not hidden by an
 * administrator, and not `BrowseOnly` (optional updates, which Windows Update itself only offers, never installs).
 */
export const WUA_CRITERIA = "IsInstalled=0 and Type='Software' and IsHidden=0 and BrowseOnly=0";

/**
 * The proxy Windows Update goes through (`IUpdateSession.WebProxy`, an `IWebProxy`: `Address` is `host:port`,
 * `BypassList` an `IStringCollection`). Set in the SYSTEM task only: WUA refuses `WebProxy` to remote callers (MS
 * "Using WUA From a Remote Computer"), and an SSH session is remote.
 */
export interface WuaProxy {
  /** The proxy URL, `http://proxy.example.com:3128` (credentials in it go to `UserName`/`SetPassword`). */
  url: string;
  /** Hosts and domains reached directly. */
  bypass: readonly string[];
}

/** The PowerShell that sets `$session.WebProxy` from a proxy URL; empty without one. */
function webProxyLines(proxy: WuaProxy | undefined): string[] {
  if (!proxy) return [];
  const u = new URL(proxy.url);
  const port = u.port || (u.protocol === "https:" ? "443" : "80");
  return [
    "  $proxy = New-Object -ComObject Microsoft.Update.WebProxy",
    `  $proxy.Address = ${psQuote(`${u.hostname}:${port}`)}`,
    "  $bypass = New-Object -ComObject Microsoft.Update.StringColl",
    `  foreach ($b in @(${proxy.bypass.map(psQuote).join(", ")})) { [void]$bypass.Add($b) }`,
    "  $proxy.BypassList = $bypass",
    "  $proxy.BypassProxyOnLocal = $true",
    ...(u.username
      ? [
          `  $proxy.UserName = ${psQuote(decodeURIComponent(u.username))}`,
          `  $proxy.SetPassword(${psQuote(decodeURIComponent(u.password))})`,
        ]
      : []),
    "  $session.WebProxy = $proxy",
  ];
}

export interface TaskScriptOptions {
  /** Only search (and read the pending restart): what the rollout asks before a node is cordoned. */
  searchOnly?: boolean;
  proxy?: WuaProxy;
}

/**
 * The task's script: searches `WUA_CRITERIA` from the source the host is set up for (Windows Update, or WSUS by
 * policy), keeps updates that need no user input and match the categories (by name or ID; all when none are given),
 * and records them as `applicable`. Unless `searchOnly`: accepts EULAs, downloads (a download that does not succeed
 * stops there, with its result code and each update's), installs, and writes each update's result
 * (`IInstallationResult.GetUpdateResult`). A COM error reaches PowerShell wrapped in a MethodInvocationException,
 * so the HRESULT is read from the inner exception when there is one. `stage` says where it stopped.
 */
export function windowsUpdateTaskScript(categories: readonly string[], o: TaskScriptOptions = {}): string {
  return [
    "$ErrorActionPreference = 'Stop'",
    `$out = ${psQuote(RESULT)}`,
    `$categories = @(${categories.map(psQuote).join(", ")})`,
    `$searchOnly = ${o.searchOnly ? "$true" : "$false"}`,
    "$result = [ordered]@{ stage = 'search'; resultCode = -1; hResult = 0; rebootRequired = $false; applicable = @(); updates = @(); error = '' }",
    "try {",
    "  $session = New-Object -ComObject Microsoft.Update.Session",
    "  $session.ClientApplicationID = 'windows-estate'",
    ...webProxyLines(o.proxy),
    `  $found = $session.CreateUpdateSearcher().Search(${psQuote(WUA_CRITERIA)})`,
    "  $todo = New-Object -ComObject Microsoft.Update.UpdateColl",
    "  foreach ($u in $found.Updates) {",
    "    if ($u.InstallationBehavior.CanRequestUserInput) { continue }",
    "    $names = @($u.Categories | ForEach-Object { $_.Name; $_.CategoryID })",
    "    if ($categories.Count -gt 0 -and -not ($names | Where-Object { $categories -contains $_ })) { continue }",
    "    [void]$todo.Add($u)",
    "  }",
    "  $result.applicable = @(foreach ($u in $todo) { [ordered]@{ title = $u.Title; kb = (@($u.KBArticleIDs) -join ',') } })",
    "  if ($searchOnly -or $todo.Count -eq 0) {",
    "    $result.resultCode = 2",
    "  } else {",
    "    foreach ($u in $todo) { if (-not $u.EulaAccepted) { $u.AcceptEula() } }",
    "    $result.stage = 'download'",
    "    $downloader = $session.CreateUpdateDownloader()",
    "    $downloader.Updates = $todo",
    "    $r = $downloader.Download()",
    // OperationResultCode 2 = orcSucceeded; anything else (3 with errors, 4 failed, 5 aborted) installs nothing.
    "    if ([int]$r.ResultCode -eq 2) {",
    "      $result.stage = 'install'",
    "      $installer = $session.CreateUpdateInstaller()",
    "      $installer.Updates = $todo",
    "      $r = $installer.Install()",
    "      $result.rebootRequired = [bool]$r.RebootRequired",
    "    }",
    "    $result.resultCode = [int]$r.ResultCode",
    "    $result.hResult = [int]$r.HResult",
    "    $list = @()",
    "    for ($i = 0; $i -lt $todo.Count; $i++) {",
    "      $one = $r.GetUpdateResult($i)",
    "      $list += [ordered]@{ title = $todo.Item($i).Title; kb = (@($todo.Item($i).KBArticleIDs) -join ','); resultCode = [int]$one.ResultCode; hResult = [int]$one.HResult }",
    "    }",
    "    $result.updates = $list",
    "  }",
    // Read locally (it is remote-restricted too): what is already pending counts.
    "  $result.rebootRequired = $result.rebootRequired -or (New-Object -ComObject Microsoft.Update.SystemInfo).RebootRequired",
    "} catch {",
    "  $e = $_.Exception",
    "  if ($e.InnerException) { $e = $e.InnerException }",
    "  $result.error = $e.Message",
    "  $result.hResult = $e.HResult",
    "}",
    "$tmp = $out + '.tmp'",
    "$result | ConvertTo-Json -Depth 4 -Compress | Set-Content -LiteralPath $tmp -Encoding utf8",
    "Move-Item -LiteralPath $tmp -Destination $out -Force",
  ].join("\n");
}

/** PowerShell's `-EncodedCommand` form of a script (base64 of UTF-16LE). */
function encoded(script: string): string {
  return Buffer.from(script, "utf16le").toString("base64");
}

/**
 * Registers (or replaces) the task running the script as SYSTEM, clears an earlier result, and starts it. The task has
 * no trigger: it runs only when started here.
 */
export function startPatchTaskScript(taskScript: string, timeLimitMinutes: number): string {
  return [
    "$ErrorActionPreference = 'Stop'",
    `New-Item -ItemType Directory -Force -Path ${psQuote(PATCH_DIR)} | Out-Null`,
    `Remove-Item -LiteralPath ${psQuote(RESULT)} -Force -ErrorAction SilentlyContinue`,
    `$action = New-ScheduledTaskAction -Execute 'powershell.exe' -Argument ${psQuote(`-NoProfile -NonInteractive -ExecutionPolicy Bypass -EncodedCommand ${encoded(taskScript)}`)}`,
    "$principal = New-ScheduledTaskPrincipal -UserId 'SYSTEM' -LogonType ServiceAccount -RunLevel Highest",
    // The rollout's install timeout (`installTimeoutMinutes`, up to 1440) as the task's own limit. Task Scheduler
    // bypasses ExecutionTimeLimit for a task started on demand (ITaskSettings::ExecutionTimeLimit), as this one is,
    // so the rollout also stops it itself when its time is up (stopPatchTaskScript).
    `$settings = New-ScheduledTaskSettingsSet -ExecutionTimeLimit (New-TimeSpan -Minutes ${Math.max(1, Math.round(timeLimitMinutes))})`,
    `Register-ScheduledTask -TaskName ${psQuote(PATCH_TASK)} -Action $action -Principal $principal -Settings $settings -Force | Out-Null`,
    `Start-ScheduledTask -TaskName ${psQuote(PATCH_TASK)}`,
    "Write-Output 'patch task started'",
  ].join("\n");
}

/** Ends the task (Stop-ScheduledTask): the rollout's install timeout passed. Harmless when it no longer runs. */
export function stopPatchTaskScript(): string {
  return [
    "$ErrorActionPreference = 'Stop'",
    `Stop-ScheduledTask -TaskName ${psQuote(PATCH_TASK)}`,
    "Write-Output 'patch task stopped'",
  ].join("\n");
}

/**
 * `$pending`: whether servicing waits for a restart (day2-facts §3.3; read-only, works over SSH): component servicing
 * or Windows Update. Not `PendingFileRenameOperations`: antivirus, drivers and installers leave it set on many hosts
 * for good, so counting it would drain and restart such a node on every patch run. Ansible's win_updates decides a
 * restart from Windows Update alone (ansible-collections/ansible.windows plugins/modules/win_updates.ps1,
 * `Install-WindowsUpdate`: `Microsoft.Update.SystemInfo` RebootRequired before and after the install), and lists
 * pending renames only as one reason among others in win_reboot_info.ps1 (`Test-PendingFileRename`).
 */
const PENDING_REBOOT = [
  "$pending = (Test-Path 'HKLM:\\SOFTWARE\\Microsoft\\Windows\\CurrentVersion\\Component Based Servicing\\RebootPending') -or",
  "  (Test-Path 'HKLM:\\SOFTWARE\\Microsoft\\Windows\\CurrentVersion\\WindowsUpdate\\Auto Update\\RebootRequired')",
];

/** The host's last boot (UTC) and whether a restart is pending: the inventory's SSH part. One JSON object. */
export function hostStatusScript(): string {
  return [
    "$ErrorActionPreference = 'Stop'",
    "$boot = (Get-CimInstance -ClassName Win32_OperatingSystem).LastBootUpTime.ToUniversalTime().ToString('o')",
    ...PENDING_REBOOT,
    "[pscustomobject]@{ bootTime = $boot; rebootPending = [bool]$pending } | ConvertTo-Json -Compress",
  ].join("\n");
}

/**
 * What the scripts print, decoded: a field of another type (or missing) reads as its fallback, a flag as false unless
 * it is `true`.
 */
const textOr = z.string().catch("");
const numberOr = (fallback: number) => z.number().catch(fallback);
const flag = z.boolean().catch(false);

export function parseHostStatus(output: string): { bootTime: string; rebootPending: boolean } {
  const { bootTime, rebootPending } = fields({ bootTime: text, rebootPending: flag }).parse(
    printedObject(output, "the host status"),
  );
  if (!bootTime)
    throw new Error(`the host status printed no boot time: ${JSON.stringify(output.trim().slice(0, 200))}`);
  return { bootTime, rebootPending };
}

/**
 * The task's state and, once written, its result; plus the pending-reboot markers (day2-facts §3.3), read-only.
 * Prints one JSON object (`parsePatchStatus`).
 */
export function patchStatusScript(): string {
  return [
    "$ErrorActionPreference = 'Stop'",
    `$task = Get-ScheduledTask -TaskName ${psQuote(PATCH_TASK)}`,
    `$info = Get-ScheduledTaskInfo -TaskName ${psQuote(PATCH_TASK)}`,
    `$result = $null`,
    `if (Test-Path -LiteralPath ${psQuote(RESULT)}) { $result = Get-Content -LiteralPath ${psQuote(RESULT)} -Raw | ConvertFrom-Json }`,
    ...PENDING_REBOOT,
    "[pscustomobject]@{ state = [string]$task.State; lastTaskResult = [int64]$info.LastTaskResult; result = $result; rebootPending = [bool]$pending } | ConvertTo-Json -Compress -Depth 5",
  ].join("\n");
}

const update = { title: textOr, kb: textOr };
const patchResult = {
  /** Where the task stopped: `search`, `download` or `install`. */
  stage: textOr,
  /** `OperationResultCode` of the last operation (download when it did not succeed, else install). */
  resultCode: numberOr(-1),
  hResult: numberOr(0),
  rebootRequired: flag,
  /** What the search found to install (after the categories). */
  applicable: objectsOf(z.object(update)),
  /** Per update, the last operation's result (`GetUpdateResult(i)`). */
  updates: objectsOf(z.object({ ...update, resultCode: numberOr(-1), hResult: numberOr(0) })),
  error: textOr,
};
const patchStatus = fields({
  /** The task's state (`Ready`, `Running`, `Queued`, `Disabled`). */
  state: textOr,
  lastTaskResult: numberOr(0),
  /** Undefined until the task has written it. */
  result: loose(patchResult),
  rebootPending: flag,
});
export type PatchStatus = z.output<typeof patchStatus>;
export type PatchResult = NonNullable<PatchStatus["result"]>;

export function parsePatchStatus(output: string): PatchStatus {
  return patchStatus.parse(printedObject(output, "the patch status"));
}

/** An HRESULT as Windows prints it (`0x80240022`). */
export function hex(hResult: number): string {
  return "0x" + (hResult >>> 0).toString(16).padStart(8, "0");
}
