import { createHash } from "crypto";
import * as fs from "fs";
import * as path from "path";
import { Client } from "ssh2";
import { parseProbe, probeScript } from "../../providers/windows-host/scripts";
import { LabWindows, labWindows, launchLog } from "./lab-windows";

const win = require("./windows-51");

// The stand-in's answer to Ansible's PowerShell module transport over SSH (test/lab/ansible-windows.js), which the
// benchmark's Ansible baseline runs on (bench/ansible.ts), driven over a real sshd with the exec requests Ansible builds.
// The requests are built here as ansible-core 2.14 builds them, so a stand-in that strays from them fails here first.

/**
 * lib/ansible/executor/powershell/bootstrap_wrapper.ps1 (ansible-core 2.14), as Ansible sends it: its lines stripped
 * and the empty ones dropped (plugins/shell/powershell.py _encode_script).
 */
const BOOTSTRAP = [
  "&chcp.com 65001 > $null",
  'if ($PSVersionTable.PSVersion -lt [Version]"3.0") {',
  `'{"failed":true,"msg":"Ansible requires PowerShell v3.0 or newer"}'`,
  "exit 1",
  "}",
  "$exec_wrapper_str = $input | Out-String",
  '$split_parts = $exec_wrapper_str.Split(@("`0`0`0`0"), 2, [StringSplitOptions]::RemoveEmptyEntries)',
  'If (-not $split_parts.Length -eq 2) { throw "invalid payload" }',
  "Set-Variable -Name json_raw -Value $split_parts[1]",
  "$exec_wrapper = [ScriptBlock]::Create($split_parts[0])",
  "&$exec_wrapper",
].join("\n");

/** powershell.py _common_args and _encode_script (strict_mode and preserve_rc off, as exec_command uses it). */
const encoded = (script: string) =>
  "PowerShell -NoProfile -NonInteractive -ExecutionPolicy Unrestricted -EncodedCommand " +
  Buffer.from(script, "utf16le").toString("base64");

/** plugins/connection/ssh.py exec_command for a Windows shell, with plugins/shell/cmd.py's `>nul 2>&1` and `&&`. */
const execRequest = (command: string) => `chcp.com 65001 >nul 2>&1 && ${encoded(command)}`;

/** A module run: the request build_module_command makes when pipelining, and the payload on standard input. */
function moduleRun(args: Record<string, unknown>): { command: string; stdin: string } {
  const manifest = { module_entry: "", module_args: args, actions: ["module_powershell_wrapper"], environment: {} };
  return { command: execRequest(encoded(BOOTSTRAP)), stdin: "# exec_wrapper.ps1\0\0\0\0" + JSON.stringify(manifest) };
}

function exec(w: LabWindows, command: string, stdin = ""): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const c = new Client();
    c.once("error", reject);
    c.once("ready", () =>
      c.exec(command, (err, stream) => {
        if (err) return reject(err);
        let stdout = "";
        let stderr = "";
        stream.on("data", (d: Buffer) => (stdout += d.toString("utf8")));
        stream.stderr.on("data", (d: Buffer) => (stderr += d.toString("utf8")));
        stream.on("exit", (code: number) => stream.once("close", () => (c.end(), resolve({ code, stdout, stderr }))));
        stream.end(stdin);
      }),
    );
    c.connect({ host: w.host.host, port: w.host.port, username: w.host.user, privateKey: w.host.privateKey });
  });
}

let w: LabWindows;
beforeAll(async () => {
  w = await labWindows(undefined, "ansible-target");
});
afterAll(() => w.stop());
beforeEach(() => fs.rmSync(w.state + ".log", { force: true }));

test("a win_powershell task: one exec request, two PowerShell launches, the script run by the inner one from stdin", async () => {
  const script = probeScript(w.host.publicKey);
  const run = moduleRun({ _ansible_module_name: "ansible.windows.win_powershell", script });
  expect(run.command.length).toBeLessThanOrEqual(win.CMD_EXE_MAX_COMMAND_LINE);
  const r = await exec(w, run.command, run.stdin);
  expect(r.code).toBe(0);
  const result = JSON.parse(r.stdout);
  expect(result.failed).toBe(false);
  expect(parseProbe(result.output.join("\n")).keyAuthorized).toBe(false);
  const launches = launchLog(w.state);
  expect(launches).toHaveLength(2);
  expect(launches[0]).toEqual([encoded(BOOTSTRAP)]);
  expect(launches[1]).toEqual([script]);
});

test("a script the host fails fails the module (win_powershell.ps1: a terminating error sets failed)", async () => {
  const run = moduleRun({ _ansible_module_name: "ansible.windows.win_powershell", script: "Get-Nothing -Here" });
  const result = JSON.parse((await exec(w, run.command, run.stdin)).stdout);
  expect(result.failed).toBe(true);
  expect(result.error).toHaveLength(1);
});

test("a module the stand-in has no model of fails, naming it", async () => {
  const run = moduleRun({ _ansible_module_name: "ansible.windows.win_service", name: "kubelet" });
  expect(JSON.parse((await exec(w, run.command, run.stdin)).stdout)).toMatchObject({
    failed: true,
    msg: expect.stringContaining("ansible.windows.win_service"),
  });
});

test("win_copy as its action plugin runs it: query, a temporary directory, single, the directory removed", async () => {
  const dest = path.join(w.dir, "copied");
  fs.mkdirSync(dest);
  const text = "kind: JoinConfiguration\n";
  const checksum = createHash("sha1").update(text).digest("hex");
  const q = moduleRun({
    _ansible_module_name: "ansible.windows.win_copy",
    _copy_mode: "query",
    dest,
    force: true,
    files: [{ src: "/controller/join.yaml", dest: "join.yaml", checksum }],
  });
  const query = async () => JSON.parse((await exec(w, q.command, q.stdin)).stdout).files;
  expect(await query()).toHaveLength(1);
  // powershell.py mkdtemp (with _encode_script's strict mode and exit-code lines), then put_file over SFTP.
  const mkdtemp = [
    "Set-StrictMode -Version Latest",
    "$tmp_path = [System.Environment]::ExpandEnvironmentVariables('%TEMP%')",
    "$tmp = New-Item -Type Directory -Path $tmp_path -Name 'ansible-tmp-1-2-3'",
    "Write-Output -InputObject $tmp.FullName",
    "If (-not $?) { If (Get-Variable LASTEXITCODE -ErrorAction SilentlyContinue) { exit $LASTEXITCODE } Else { exit 1 } }",
  ].join("\n");
  const tmp = (await exec(w, execRequest(encoded(mkdtemp)))).stdout.trim();
  expect(fs.statSync(tmp).isDirectory()).toBe(true);
  fs.writeFileSync(path.join(tmp, "source"), text);
  // The shell plugin joins with `\` (powershell.py join_path): the stand-in finds its POSIX path.
  const single = moduleRun({
    _ansible_module_name: "ansible.windows.win_copy",
    _copy_mode: "single",
    src: tmp.replace(/\//g, "\\") + "\\source",
    dest: path.join(dest, "join.yaml"),
  });
  expect(JSON.parse((await exec(w, single.command, single.stdin)).stdout)).toMatchObject({ changed: true, checksum });
  expect(fs.readFileSync(path.join(dest, "join.yaml"), "utf8")).toBe(text);
  expect(await query()).toHaveLength(0);
  await exec(w, execRequest(encoded(`Remove-Item '${tmp.replace(/\//g, "\\")}\\.' -Force -Recurse;`)));
  expect(fs.existsSync(tmp)).toBe(false);
  // Nothing outside the host's %TEMP% is removed.
  const outside = await exec(w, execRequest(encoded(`Remove-Item '${dest}' -Force -Recurse;`)));
  expect(outside.code).not.toBe(0);
  expect(fs.existsSync(dest)).toBe(true);
});

test("a mkdtemp whose $tmp_path is not %TEMP% fails as PowerShell fails (CLIXML on stderr), making nothing", async () => {
  const mkdtemp = [
    "$tmp_path = 'C:\\Windows'",
    "$tmp = New-Item -Type Directory -Path $tmp_path -Name 'ansible-tmp-4-5-6'",
    "Write-Output -InputObject $tmp.FullName",
  ].join("\n");
  const r = await exec(w, execRequest(encoded(mkdtemp)));
  expect(r.code).not.toBe(0);
  expect(r.stderr).toMatch(/^#< CLIXML\r\n.*only under %TEMP%/s);
  expect(fs.existsSync(path.join(w.dir, "Temp", "ansible-tmp-4-5-6"))).toBe(false);
});

test("win_copy single writes only in the host's folder, not anywhere on the lab machine", async () => {
  const src = path.join(w.dir, "Temp", "source");
  fs.mkdirSync(path.dirname(src), { recursive: true });
  fs.writeFileSync(src, "x");
  const outside = path.join(path.dirname(w.dir), `not-the-host-${process.pid}`);
  const single = moduleRun({
    _ansible_module_name: "ansible.windows.win_copy",
    _copy_mode: "single",
    src,
    dest: outside,
  });
  try {
    expect(JSON.parse((await exec(w, single.command, single.stdin)).stdout)).toMatchObject({
      failed: true,
      msg: expect.stringContaining("only in the host's folder"),
    });
    expect(fs.existsSync(outside)).toBe(false);
  } finally {
    fs.rmSync(outside, { force: true });
  }
});
