import * as fs from "fs";
import {
  parseFrame,
  RUNNER_FRAME,
  runnerLine,
  runnerScript,
  withPowerShell,
} from "../../../providers/ssh/powershell-runner";
import { withSession } from "../../../providers/ssh/session";
import { SshConnection } from "../../../providers/ssh/types";
import { CMD_EXE_MAX_COMMAND_LINE, powershellCommand } from "../../../providers/ssh/powershell";
import { rebootScript } from "../../../providers/day2/scripts";
import { biosSerialScript } from "../../../providers/vanilla-node/scripts";
import { probeScript } from "../../../providers/windows-host/scripts";
import { LabHost } from "../../lab/sshd";
import { labConnection, labHostPerFile } from "../../helpers/lab-host";
import { launchLog, transportLog, standInBin } from "../../lab/lab-windows";
import { freshWindowsState } from "../../lab/windows-state";

const win = require("../../lab/windows-51");
import { flowControlKeywords, powershellErrors } from "../../helpers/powershell-parser";
import * as vanilla from "../../../providers/vanilla-node/scripts";
import * as day2 from "../../../providers/day2/scripts";
import * as patch from "../../../providers/day2/patch-scripts";
import { prepareScript, retireKeysScript } from "../../../providers/windows-host/scripts";

// The runner over real SSH against the lab's PowerShell stand-in, which speaks the runner's protocol as
// runnerScript() does. Proven here: framing, order, errors, one process per operation. Only Windows proves
// PowerShell's side (its stdin and console behaviour), said in docs/testing.md.
const { dir: bin, state } = standInBin("runner-");
const KEY = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOV5dlQWQSK28jlJ4HUAdZdwjLQOseVptgTZMMrslCYc";

let h: LabHost;
let conn: SshConnection;
labHostPerFile(bin, (started) => {
  h = started;
  conn = labConnection(h);
});
beforeEach(() => {
  fs.writeFileSync(state, JSON.stringify({ ...freshWindowsState("win-runner"), biosSerial: "VMware-42 1a 2b" }));
  fs.rmSync(state + ".log", { force: true });
  fs.rmSync(state + ".transport.log", { force: true });
});

const target = () => `${h.host}:${h.port}`;

test("the runner script parses as PowerShell without errors and prints the frame marker", async () => {
  expect(await powershellErrors(runnerScript())).toEqual([]);
  expect(runnerScript()).toContain(`'${RUNNER_FRAME}' + [System.Convert]::ToBase64String(`);
  // The console host would read stdin itself for a command naming $input (ConsoleHost.cs IsUsingDollarInput).
  expect(runnerScript()).not.toMatch(/\$input\b/i);
});

test("frames: UTF-8 JSON in base64; other lines are not frames; an unreadable frame is a failure", () => {
  const payload = { ok: true, output: "héllo ✓\r\n", error: "" };
  const line = RUNNER_FRAME + Buffer.from(JSON.stringify(payload), "utf8").toString("base64");
  expect(parseFrame(line)).toEqual(payload);
  expect(parseFrame("prepared")).toBeUndefined();
  expect(parseFrame(RUNNER_FRAME + "%%%")).toMatchObject({ ok: false });
  // A script travels as base64 of UTF-16LE, one line, as -EncodedCommand takes it.
  expect(Buffer.from(runnerLine("Write-Output 'é'").trim(), "base64").toString("utf16le")).toBe("Write-Output 'é'");
});

test("three scripts in one PowerShell launch, answered in order", async () => {
  const outs = await withSession(conn, undefined, (s) =>
    withPowerShell(s, target(), async (ps) => [
      await ps.run("reading the BIOS serial", biosSerialScript()),
      await ps.run("the probe", probeScript(KEY)),
      await ps.run("reading the BIOS serial again", biosSerialScript()),
    ]),
  );
  expect(outs[0].trim()).toBe("VMware-42 1a 2b");
  expect(JSON.parse(outs[1].replace(/^\uFEFF/, ""))).toMatchObject({ hostname: "win-runner", keyAuthorized: false });
  expect(outs[2].trim()).toBe("VMware-42 1a 2b");
  const launches = launchLog(state);
  expect(launches).toHaveLength(1);
  expect(launches[0]).toEqual([biosSerialScript(), probeScript(KEY), biosSerialScript()]);
});

test("a failing script throws naming the host and the step; the same process runs the next one", async () => {
  const next = await withSession(conn, undefined, (s) =>
    withPowerShell(s, target(), async (ps) => {
      await expect(ps.run("an odd step", "Write-Output 'nothing the host knows'")).rejects.toThrow(
        `${target()}: an odd step failed: unexpected script`,
      );
      return ps.run("reading the BIOS serial", biosSerialScript());
    }),
  );
  expect(next.trim()).toBe("VMware-42 1a 2b");
  expect(launchLog(state)).toHaveLength(1);
});

test("a process that ends without answering (Windows going down) fails that step, and nothing more runs in it", async () => {
  await withSession(conn, undefined, (s) =>
    withPowerShell(s, target(), async (ps) => {
      await expect(ps.run("the restart", rebootScript())).rejects.toThrow(
        `${target()}: the restart failed: PowerShell ended before answering`,
      );
      await expect(ps.run("the probe", probeScript(KEY))).rejects.toThrow(
        "the probe not run: the PowerShell process had already failed",
      );
    }),
  );
  expect(launchLog(state)).toEqual([[rebootScript()]]);
});

// `exit` in a script block ends the whole PowerShell process (about_Language_Keywords), so a script run by the runner
// would take the runner down with it; `return` ends only the script. Every script the providers run through it:
const runnerScripts: [string, string][] = [
  ["BYOH probe", probeScript(KEY)],
  ["BYOH prepare", prepareScript(KEY)],
  ["retire keys", retireKeysScript(KEY, ["ssh-rsa AAAAB3Nza"])],
  ["vanilla probe", vanilla.probeScript(["kubelet"], 4789)],
  ["features", vanilla.featuresScript()],
  ["host settings", vanilla.hostSettingsScript(4789)],
  ["binaries", vanilla.installScript([])],
  ["containerd service", vanilla.containerdServiceScript("C:\\k\\containerd\\config.toml")],
  ["kubelet service", vanilla.kubeletServiceScript({ nodeName: "win-a", labels: {}, taints: [] })],
  ["join", vanilla.joinScript("C:\\k\\join.yaml", { nodeName: "win-a", labels: {}, taints: [] })],
  ["stop services", vanilla.stopServicesScript(["kubelet"])],
  ["start services", vanilla.startServicesScript(["kubelet"])],
  ["reset", vanilla.resetScript()],
  ["BIOS serial", vanilla.biosSerialScript()],
  ["proxy", vanilla.proxyScript({ HTTP_PROXY: "", HTTPS_PROXY: "", NO_PROXY: "" })],
  ["boot time", day2.bootTimeScript()],
  ["reboot", day2.rebootScript()],
  ["AWS metadata route", day2.awsMetadataRouteScript()],
  ["start the patch task", patch.startPatchTaskScript(patch.windowsUpdateTaskScript(["Security Updates"]), 120)],
  ["patch status", patch.patchStatusScript()],
  ["host status", patch.hostStatusScript()],
];
test.each(runnerScripts)("the %s script never uses exit, which would end the runner", async (_n, script) => {
  expect(await flowControlKeywords(script)).not.toContain("exit");
});

test("the check can fail: a script with exit is found", async () => {
  expect(await flowControlKeywords("if ($done) { Write-Output 'x'; exit 0 }")).toEqual(["exit"]);
});

test("the runner ends on its empty line, also where the server never passes EOF on (Win32-OpenSSH 7.7)", async () => {
  expect(win.rule("transport.runner-eof").rows).toEqual([12]);
  fs.writeFileSync(state, JSON.stringify({ ...JSON.parse(fs.readFileSync(state, "utf8")), ignoresEof: true }));
  // A short command timeout: waiting for an EOF that never arrives would fail here, not hang the suite.
  const out = await withSession({ ...conn, commandTimeoutSeconds: 5 }, undefined, (s) =>
    withPowerShell(s, target(), (ps) => ps.run("reading the BIOS serial", biosSerialScript())),
  );
  expect(out.trim()).toBe("VMware-42 1a 2b");
  // withPowerShell returns once the process has exited: the stand-in wrote how before exiting.
  expect(transportLog(state)).toEqual(["runner ended: empty line"]);
});

test("a command line longer than cmd.exe takes is refused before it is sent, naming the host and its length", async () => {
  expect(win.rule("transport.cmd-line-limit").rows).toEqual([10]);
  expect(CMD_EXE_MAX_COMMAND_LINE).toBe(win.CMD_EXE_MAX_COMMAND_LINE);
  const long = powershellCommand(`Write-Output '${"x".repeat(4000)}'`);
  expect(long.length).toBeGreaterThan(CMD_EXE_MAX_COMMAND_LINE);
  await expect(withSession(conn, undefined, (s) => s.exec(long))).rejects.toThrow(
    `${target()}: not run: the command line is ${long.length} characters, more than the 8191 cmd.exe`,
  );
  await expect(withSession(conn, undefined, (s) => s.start(long))).rejects.toThrow(/not run: the command line is/);
  expect(launchLog(state)).toEqual([]);
  expect(transportLog(state)).toEqual([]);
  // One that fits is sent.
  const fits = powershellCommand(biosSerialScript());
  expect(fits.length).toBeLessThanOrEqual(CMD_EXE_MAX_COMMAND_LINE);
  expect((await withSession(conn, undefined, (s) => s.exec(fits))).stdout.trim()).toBe("VMware-42 1a 2b");
});

test("the stand-in refuses, as cmd.exe does, an exec command line past the limit, and runs nothing", async () => {
  // A POSIX-style connection skips the program's own check, so the line reaches the host.
  const long = powershellCommand(`Write-Output '${"x".repeat(4000)}'`);
  const r = await withSession({ ...conn, pathStyle: "posix" }, undefined, (s) => s.exec(long));
  expect({ code: r.code, stderr: r.stderr.trim() }).toEqual({ code: 1, stderr: win.execCommandLineProblem(long) });
  expect(r.stderr.trim()).toBe("The command line is too long.");
  expect(launchLog(state)).toEqual([]);
  expect(transportLog(state)).toEqual(["refused by cmd.exe: the command line is too long"]);
});
