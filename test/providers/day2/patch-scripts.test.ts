import {
  hex,
  parsePatchStatus,
  patchStatusScript,
  startPatchTaskScript,
  windowsUpdateTaskScript,
} from "../../../providers/day2/patch-scripts";
import { patchFailure } from "../../../providers/day2/patch";
import { belowMinimum, patchLevel, patchToken, planPatching } from "../../../providers/day2/patch-plan";
import { powershellErrors } from "../../helpers/powershell-parser";
import { stopPatchTaskScript, WUA_CRITERIA } from "../../../providers/day2/patch-scripts";
import { decidePatch } from "../../../providers/day2/patch";

const PROXY = { url: "http://proxy.example.com:3128", bypass: ["10.0.0.0/8", ".cluster.local"] };

test.each([
  ["WUA task", windowsUpdateTaskScript([])],
  ["WUA task with categories", windowsUpdateTaskScript(["Security Updates", "0fa1201d-4330-4fa8-8ae9-b877473b6441"])],
  ["start task", startPatchTaskScript(windowsUpdateTaskScript([]), 120)],
  ["search-only task", windowsUpdateTaskScript([], { searchOnly: true })],
  ["task with a proxy", windowsUpdateTaskScript([], { proxy: { ...PROXY, url: "http://u%40x:p'w@proxy:8080" } })],
  ["stop task", stopPatchTaskScript()],
  ["task status", patchStatusScript()],
])("the %s script parses as PowerShell without errors", async (_n, script) => {
  expect(await powershellErrors(script)).toEqual([]);
});

test("the task script is the documented WUA chain and never reboots (the rollout does, gracefully)", () => {
  const s = windowsUpdateTaskScript([]);
  // MS "Searching, Downloading, and Installing Updates"; criteria from [MS-UAMG] 3.38.4.11.
  const chain = [
    "New-Object -ComObject Microsoft.Update.Session",
    "CreateUpdateSearcher().Search('IsInstalled=0 and Type=''Software'' and IsHidden=0 and BrowseOnly=0')",
    "CreateUpdateDownloader()",
    "$r = $downloader.Download()",
    "if ([int]$r.ResultCode -eq 2) {",
    "CreateUpdateInstaller()",
    "$r = $installer.Install()",
    "$r.GetUpdateResult($i)",
  ];
  const at = chain.map((c) => s.indexOf(c));
  expect(at.every((i) => i >= 0)).toBe(true);
  expect([...at].sort((a, b) => a - b)).toEqual(at);
  expect(s).toContain("if ($u.InstallationBehavior.CanRequestUserInput) { continue }");
  expect(s).not.toMatch(/Restart-Computer|shutdown/i);
  // The result is written whole and renamed into place: a poll never reads half a file.
  expect(s).toMatch(/Set-Content -LiteralPath \$tmp[^\n]*\nMove-Item -LiteralPath \$tmp -Destination \$out -Force$/);
});

test("the task runs as SYSTEM with the script encoded as PowerShell decodes it (UTF-16LE base64)", () => {
  const task = windowsUpdateTaskScript(["Security Updates"]);
  const s = startPatchTaskScript(task, 120);
  expect(s).toContain("New-ScheduledTaskPrincipal -UserId 'SYSTEM' -LogonType ServiceAccount -RunLevel Highest");
  const b64 = /-EncodedCommand ([A-Za-z0-9+/=]+)'/.exec(s)?.[1] ?? "";
  expect(Buffer.from(b64, "base64").toString("utf16le")).toBe(task);
  // Started only by us: no trigger.
  expect(s).not.toContain("New-ScheduledTaskTrigger");
});

test("the criteria leave out optional updates: BrowseOnly=0 (MS-UAMG 3.38.4.11 IUpdateSearcher::Search)", () => {
  expect(WUA_CRITERIA).toBe("IsInstalled=0 and Type='Software' and IsHidden=0 and BrowseOnly=0");
  expect(windowsUpdateTaskScript([])).toContain("BrowseOnly=0");
});

test("the task's ExecutionTimeLimit is the rollout's install timeout, up to the 1440 minutes the config allows", () => {
  // New-ScheduledTaskSettingsSet -ExecutionTimeLimit takes a TimeSpan (ITaskSettings::ExecutionTimeLimit).
  expect(startPatchTaskScript(windowsUpdateTaskScript([]), 1440)).toContain(
    "New-ScheduledTaskSettingsSet -ExecutionTimeLimit (New-TimeSpan -Minutes 1440)",
  );
  expect(startPatchTaskScript(windowsUpdateTaskScript([]), 30)).toContain("(New-TimeSpan -Minutes 30)");
  expect(stopPatchTaskScript()).toContain("Stop-ScheduledTask -TaskName 'windows-estate-patch'");
});

test("the download's result is checked before anything is installed, and COM errors give the inner HRESULT", () => {
  const s = windowsUpdateTaskScript([]);
  expect(s).not.toContain("[void]$downloader.Download()");
  // IDownloadResult.ResultCode must be orcSucceeded (2) for the install to run; otherwise its per-update results stay.
  expect(s.indexOf("if ([int]$r.ResultCode -eq 2) {")).toBeLessThan(s.indexOf("CreateUpdateInstaller()"));
  expect(s.indexOf("$result.stage = 'download'")).toBeLessThan(s.indexOf("$downloader.Download()"));
  // PowerShell wraps a COM error in a MethodInvocationException; the COMException (and its HRESULT) is inside.
  expect(s).toContain("if ($e.InnerException) { $e = $e.InnerException }");
  expect(s).toContain("$result.hResult = $e.HResult");
});

test("the search-only task searches and reads the pending restart; it accepts, downloads and installs nothing", () => {
  const s = windowsUpdateTaskScript(["Security Updates"], { searchOnly: true });
  expect(s).toContain("$searchOnly = $true");
  expect(windowsUpdateTaskScript([])).toContain("$searchOnly = $false");
  // Everything past the search sits in the branch a search-only run never takes.
  const gate = s.indexOf("if ($searchOnly -or $todo.Count -eq 0) {");
  expect(gate).toBeGreaterThan(s.indexOf(".Search("));
  for (const call of ["AcceptEula()", "Download()", "Install()"]) expect(s.indexOf(call)).toBeGreaterThan(gate);
  expect(s).toContain("(New-Object -ComObject Microsoft.Update.SystemInfo).RebootRequired");
});

test("a proxy is set as IUpdateSession.WebProxy (IWebProxy: Address host:port, BypassList) before the search", () => {
  const s = windowsUpdateTaskScript([], { proxy: PROXY });
  expect(s).toContain("$proxy.Address = 'proxy.example.com:3128'");
  expect(s).toContain("foreach ($b in @('10.0.0.0/8', '.cluster.local')) { [void]$bypass.Add($b) }");
  expect(s.indexOf("$session.WebProxy = $proxy")).toBeLessThan(s.indexOf(".Search("));
  expect(s).not.toContain("UserName");
  expect(windowsUpdateTaskScript([])).not.toContain("WebProxy");
  const withUser = windowsUpdateTaskScript([], { proxy: { url: "http://svc:s3cret@proxy:8080", bypass: [] } });
  expect(withUser).toContain("$proxy.Address = 'proxy:8080'");
  expect(withUser).toContain("$proxy.UserName = 'svc'");
  expect(withUser).toContain("$proxy.SetPassword('s3cret')");
});

test("SucceededWithErrors (OperationResultCode 3) is a failure naming each failed update, its title and HRESULT", () => {
  const r = {
    stage: "install",
    resultCode: 3,
    hResult: 0,
    rebootRequired: true,
    applicable: [],
    updates: [
      { title: "2026-10 Cumulative Update", kb: "5066782", resultCode: 2, hResult: 0 },
      { title: "Servicing Stack Update", kb: "5066999", resultCode: 4, hResult: 0x80073712 | 0 },
    ],
    error: "",
  };
  expect(patchFailure(r)).toBe(
    "Windows Update result code 3 (SucceededWithErrors), HRESULT 0x00000000; KB5066999 (Servicing Stack Update): 4 (Failed), HRESULT 0x80073712",
  );
  // A download that did not succeed is named as the download's.
  expect(
    patchFailure({ ...r, stage: "download", resultCode: 4, hResult: 0x80240438 | 0, updates: [r.updates[1]] }),
  ).toMatch(/^Windows Update download result code 4 \(Failed\), HRESULT 0x80240438; KB5066999/);
});

test("the decision before a drain: updates or a pending restart go; at the level skips; below with nothing fails", () => {
  const min = { "20348": 2900 };
  const nothing = { applicable: [], rebootPending: false };
  const cu = { title: "2026-10 Cumulative Update", kb: "5066782" };
  expect(decidePatch("n", "10.0.20348.2700", min, { applicable: [cu], rebootPending: false }, [])).toEqual({
    go: "1 update(s) to install: KB5066782 (2026-10 Cumulative Update)",
  });
  expect(decidePatch("n", "10.0.20348.2700", min, { applicable: [], rebootPending: true }, [])).toEqual({
    go: "no update to install, but a restart is pending",
  });
  expect(decidePatch("n", "10.0.20348.2966", min, nothing, [])).toEqual({
    skip: "already at the level (kernelVersion 10.0.20348.2966), nothing to install",
  });
  const d = decidePatch("byoh-0", "10.0.20348.2700", min, nothing, ["Security Updates"]);
  expect("fail" in d && d.fail).toMatch(
    /^node byoh-0 is at build 20348 revision 2700 \(kernelVersion 10\.0\.20348\.2700\), below the minimum 2900, .*categories Security Updates.*approve it in WSUS/,
  );
});

test("the kubelet's kernelVersion gives build and revision (winstats: <maj>.<min>.<build>.<UBR>)", () => {
  expect(patchLevel("10.0.20348.2700")).toEqual({ build: "20348", revision: 2700 });
  expect(patchLevel("10.0.26100.4652")).toEqual({ build: "26100", revision: 4652 });
  expect(patchLevel("5.14.0-427.el9.x86_64")).toBeUndefined();
  expect(patchLevel(undefined)).toBeUndefined();
  expect(belowMinimum("10.0.20348.2700", { "20348": 2900 })).toBe("build 20348 at revision 2700, below 2900");
  expect(belowMinimum("10.0.20348.2900", { "20348": 2900 })).toBeUndefined();
  // A build the policy does not name is not held to another build's number.
  expect(belowMinimum("10.0.26100.100", { "20348": 2900 })).toBeUndefined();
});

test("only managed nodes below the level are planned; MachineSet nodes below it are named, not patched in place", () => {
  const plan = planPatching(
    [
      { name: "b", kernelVersion: "10.0.20348.2700", managed: true },
      { name: "a", kernelVersion: "10.0.20348.2700", managed: true },
      { name: "ms", kernelVersion: "10.0.20348.2700", managed: false },
      { name: "ok", kernelVersion: "10.0.20348.3000", managed: true },
      { name: "c", kernelVersion: "10.0.20348.10", managed: true },
    ],
    { "20348": 2900 },
    2,
  );
  expect(plan.batches).toEqual([["a", "b"], ["c"]]);
  expect(plan.notManaged).toEqual(["ms"]);
  // The same policy written in another order is the same rollout.
  expect(patchToken({ "26100": 1, "20348": 2 }, ["b", "a"])).toBe(patchToken({ "20348": 2, "26100": 1 }, ["a", "b"]));
});

test("the status is parsed from the task's JSON; failures name the WUA result code and HRESULT", () => {
  const s = parsePatchStatus(
    '\uFEFF{"state":"Ready","lastTaskResult":0,"rebootPending":true,"result":{"resultCode":4,"hResult":-2145124318,"rebootRequired":false,"updates":[{"title":"CU","kb":"5066782","resultCode":4,"hResult":-2145124318}],"error":""}}\r\n',
  );
  expect(s).toMatchObject({ state: "Ready", rebootPending: true });
  expect(s.result && patchFailure(s.result)).toBe(
    "Windows Update result code 4 (Failed), HRESULT 0x80240022; KB5066782 (CU): 4 (Failed), HRESULT 0x80240022",
  );
  const ok = { stage: "install", applicable: [], rebootRequired: true, updates: [], error: "" };
  expect(patchFailure({ ...ok, resultCode: 2, hResult: 0 })).toBeUndefined();
  expect(
    patchFailure({
      stage: "search",
      applicable: [],
      resultCode: -1,
      hResult: -2147024891,
      rebootRequired: false,
      updates: [],
      error: "Access is denied.",
    }),
  ).toBe("the Windows Update task failed at the search: Access is denied. (HRESULT 0x80070005)");
  expect(
    parsePatchStatus('{"state":"Running","lastTaskResult":267009,"result":null,"rebootPending":false}').result,
  ).toBeUndefined();
  expect(hex(0x80240022 | 0)).toBe("0x80240022");
  expect(() => parsePatchStatus("Get-ScheduledTask : not found")).toThrow(/printed no JSON/);
});
