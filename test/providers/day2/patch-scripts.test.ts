import {
  hex,
  parsePatchStatus,
  patchStatusScript,
  startPatchTaskScript,
  windowsUpdateTaskScript,
} from "../../../providers/day2/patch-scripts";
import { patchFailure } from "../../../providers/day2/patch";
import {
  belowMinimum,
  inWindow,
  outsideWindow,
  patchLevel,
  patchToken,
  planPatching,
} from "../../../providers/day2/patch-plan";
import { powershellErrors } from "../../helpers/powershell-parser";

test.each([
  ["WUA task", windowsUpdateTaskScript([])],
  ["WUA task with categories", windowsUpdateTaskScript(["Security Updates", "0fa1201d-4330-4fa8-8ae9-b877473b6441"])],
  ["start task", startPatchTaskScript(windowsUpdateTaskScript([]))],
  ["task status", patchStatusScript()],
])("the %s script parses as PowerShell without errors", async (_n, script) => {
  expect(await powershellErrors(script)).toEqual([]);
});

test("the task script is the documented WUA chain and never reboots (the rollout does, gracefully)", () => {
  const s = windowsUpdateTaskScript([]);
  // MS "Searching, Downloading, and Installing Updates"; criteria from [MS-UAMG] 3.38.4.11.
  const chain = [
    "New-Object -ComObject Microsoft.Update.Session",
    "CreateUpdateSearcher().Search(\"IsInstalled=0 and Type='Software' and IsHidden=0\")",
    "CreateUpdateDownloader()",
    "CreateUpdateInstaller()",
    "$installer.Install()",
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
  const s = startPatchTaskScript(task);
  expect(s).toContain("New-ScheduledTaskPrincipal -UserId 'SYSTEM' -LogonType ServiceAccount -RunLevel Highest");
  const b64 = /-EncodedCommand ([A-Za-z0-9+/=]+)'/.exec(s)?.[1] ?? "";
  expect(Buffer.from(b64, "base64").toString("utf16le")).toBe(task);
  // Started only by us: no trigger.
  expect(s).not.toContain("New-ScheduledTaskTrigger");
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
    "Windows Update result code 4 (Failed), HRESULT 0x80240022; KB5066782: 4 (Failed), HRESULT 0x80240022",
  );
  expect(patchFailure({ resultCode: 2, hResult: 0, rebootRequired: true, updates: [], error: "" })).toBeUndefined();
  expect(
    patchFailure({
      resultCode: -1,
      hResult: -2147024891,
      rebootRequired: false,
      updates: [],
      error: "Access is denied.",
    }),
  ).toBe("the Windows Update task failed: Access is denied. (HRESULT 0x80070005)");
  expect(
    parsePatchStatus('{"state":"Running","lastTaskResult":267009,"result":null,"rebootPending":false}').result,
  ).toBeUndefined();
  expect(hex(0x80240022 | 0)).toBe("0x80240022");
  expect(() => parsePatchStatus("Get-ScheduledTask : not found")).toThrow(/printed no JSON/);
});

test("the patch window: daily in UTC, start inclusive, end exclusive, across midnight when end < start", () => {
  const at = (hhmm: string) => new Date(`2026-11-23T${hhmm}:00Z`);
  const night = { start: "22:00", end: "04:00" };
  expect(["22:00", "23:59", "00:00", "03:59"].map((t) => inWindow(at(t), night))).toEqual([true, true, true, true]);
  expect(["04:00", "12:00", "21:59"].map((t) => inWindow(at(t), night))).toEqual([false, false, false]);
  const day = { start: "09:30", end: "17:00" };
  expect(["09:29", "09:30", "16:59", "17:00"].map((t) => inWindow(at(t), day))).toEqual([false, true, true, false]);
  expect(outsideWindow(at("12:00"), night)).toBe(
    "outside the patch window 22:00–04:00 UTC (now 12:00 UTC); it opens at 22:00 UTC",
  );
  expect(outsideWindow(at("12:00"), undefined)).toBeUndefined();
});
