// What the lab's Windows stand-in (fake-powershell.js, which loads this beside it) does with Ansible's PowerShell
// module transport over SSH, as ansible-core 2.14 sends it with the `cmd` shell type (the one for a host whose
// Win32-OpenSSH has no DefaultShell, so cmd.exe runs each exec request: the stand-in's transport.cmd-line-limit).
// Every exec request is `chcp.com 65001 >nul 2>&1 && PowerShell -NoProfile -NonInteractive -ExecutionPolicy
// Unrestricted -EncodedCommand <outer>` (lib/ansible/plugins/connection/ssh.py exec_command, _IS_WINDOWS branch), where
// <outer> encodes the command Ansible built, itself a `PowerShell … -EncodedCommand <inner>` line
// (lib/ansible/plugins/shell/powershell.py _encode_script, build_module_command, mkdtemp, remove). So:
//   - `runsPowerShell`: a script that is only that command line makes PowerShell 5.1 start powershell.exe as a native
//     command, its standard streams inherited (a second launch: the stand-in starts itself again);
//   - `isBootstrap`: the inner script of a module run is lib/ansible/executor/powershell/bootstrap_wrapper.ps1, which
//     reads its standard input to the end (`$input | Out-String`), splits it at the first "\0\0\0\0" into the exec
//     wrapper and the JSON manifest (module_manifest.py _create_powershell_wrapper: module_args with
//     _ansible_module_name) and runs the module in that process: `runModule` answers the two modules the benchmark
//     uses from what the module does (ansible.windows 1.14 win_powershell.ps1: the script in the module's process,
//     failed on a terminating error; win_copy.ps1: _copy_mode query and single), and nothing else;
//   - `shellScript`: the shell plugin's mkdtemp (New-Item under %TEMP%) and remove (Remove-Item -Force -Recurse).
// Plain CommonJS with no dependencies: it is copied beside the hosts' `powershell` (test/lab/lab-windows.ts).
const crypto = require("crypto");
const fs = require("fs");
const path = require("path");

/** bootstrap_wrapper.ps1's reading of the payload from standard input. */
const BOOTSTRAP = /^\$exec_wrapper_str = \$input \| Out-String$/m;

/**
 * The arguments of a script that is one `PowerShell …` native command (what ssh.py's outer -EncodedCommand holds), or
 * undefined. PowerShell splits them at spaces here: _encode_script joins plain words and one base64 string.
 */
function runsPowerShell(script) {
  const line = script.trim();
  if (line.includes("\n") || !/^PowerShell(?: -?\w+)* -EncodedCommand [A-Za-z0-9+/=]+$/i.test(line)) return undefined;
  return line.split(" ").slice(1);
}

const isBootstrap = (script) => BOOTSTRAP.test(script);

/** A stand-in host's own folder on the lab machine: its state file's. The stand-in writes nowhere else. */
const hostDir = (state) => path.dirname(state);

/** Where %TEMP% is on a stand-in host: in its folder (what mkdtemp's ExpandEnvironmentVariables gives). */
const tempDir = (state) => path.join(hostDir(state), "Temp");

/** Whether `p` (a lab machine path) is inside `dir`. */
const inside = (p, dir) => p.startsWith(dir + path.sep);

/** powershell.py mkdtemp's New-Item line; the folder it names is under `$tmp_path`, %TEMP% expanded. */
const MKDTEMP = /^\$tmp = New-Item -Type Directory -Path \$tmp_path -Name '((?:[^']|'')*)'$/m;
/** powershell.py remove's line. */
const REMOVE = /^Remove-Item '((?:[^']|'')*)' -Force( -Recurse)?;$/m;

/**
 * The shell plugin's own scripts (powershell.py mkdtemp and remove), those `answers` takes: `{ code, stdout, stderr }`.
 * Only under this host's %TEMP%: the stand-in makes and removes nothing else, and says so as PowerShell reports an
 * error (a failed exit and the message on stderr) for a mkdtemp whose `$tmp_path` is not %TEMP%.
 */
function shellScript(script, state) {
  const made = MKDTEMP.exec(script);
  if (made) {
    if (!/^\$tmp_path = \[System\.Environment\]::ExpandEnvironmentVariables\('%TEMP%'\)$/m.test(script))
      return {
        code: 1,
        stdout: "",
        stderr: "the stand-in makes Ansible's temporary directories only under %TEMP% (its $tmp_path is not that)\r\n",
      };
    const dir = path.join(tempDir(state), made[1].replace(/''/g, "'"));
    if (!inside(dir, tempDir(state)))
      return { code: 1, stdout: "", stderr: `the stand-in: ${dir} is not in %TEMP%\r\n` };
    fs.mkdirSync(dir, { recursive: true });
    return { code: 0, stdout: dir + "\r\n", stderr: "" };
  }
  const removed = REMOVE.exec(script);
  const p = local((removed ? removed[1] : "").replace(/''/g, "'"));
  if (!removed || !inside(p, tempDir(state))) return { code: 1, stdout: "", stderr: `the stand-in: ${p}\r\n` };
  fs.rmSync(p, { recursive: !!removed[2], force: true });
  return { code: 0, stdout: "", stderr: "" };
}

/**
 * A path Ansible gives as this host's (its shell plugin joins with `\\`) where it is on the lab machine: the stand-in's
 * hosts without drives keep their files at POSIX paths, a `\\`-rooted path is one on the current drive.
 */
const local = (p) => path.normalize(p.replace(/\\/g, "/"));

const sha1 = (file) => crypto.createHash("sha1").update(fs.readFileSync(file)).digest("hex");

/**
 * One module run from the bootstrap's standard input: the module's result object (what Exit-Json / ExitJson print).
 * `handle` is the stand-in's answer to one script (fake-powershell.js).
 */
async function runModule(input, handle, log, state) {
  const cut = input.indexOf("\0\0\0\0");
  if (cut < 0) return { failed: true, msg: "invalid payload" };
  const manifest = JSON.parse(input.slice(cut + 4));
  const args = manifest.module_args || {};
  const name = args._ansible_module_name;
  if (name === "ansible.windows.win_powershell") {
    const r = await handle(args.script);
    // win_powershell.ps1: a terminating error (the scripts' `throw` under $ErrorActionPreference = 'Stop') fails the
    // module, its record in `error`; the script's output is `output`; changed unless the script says otherwise.
    const lines = r.stdout.split(/\r?\n/).filter((l) => l !== "");
    return {
      changed: true,
      failed: r.code !== 0,
      output: lines,
      error: r.code === 0 ? [] : [{ output: r.stderr.trim() || `exit code ${r.code}` }],
      host_out: "",
      host_err: "",
      result: {},
      warning: [],
      verbose: [],
      debug: [],
      information: [],
    };
  }
  if (name === "ansible.windows.win_copy") {
    log(`# ansible.windows.win_copy ${args._copy_mode}`);
    if (args._copy_mode === "query") {
      // win_copy.ps1 query: the files whose destination is missing or has another SHA-1.
      const files = (args.files || []).filter((f) => {
        const p = path.join(local(args.dest), f.dest);
        return !fs.existsSync(p) || (args.force !== false && sha1(p) !== f.checksum);
      });
      return { changed: false, files, directories: [], symlinks: [] };
    }
    if (args._copy_mode === "single") {
      const [src, dest] = [local(args.src), local(args.dest)];
      if (!fs.existsSync(src)) return { failed: true, msg: `Cannot copy src file: '${args.src}' as it does not exist` };
      // The lab machine is not the host: a destination outside the host's folder is nowhere of its.
      if (!inside(dest, hostDir(state)))
        return { failed: true, msg: `the stand-in writes only in the host's folder, not '${args.dest}'` };
      fs.copyFileSync(src, dest);
      return { changed: true, checksum: sha1(dest), dest: args.dest };
    }
  }
  return { failed: true, msg: `the stand-in runs no Ansible module ${name} (${args._copy_mode || ""})` };
}

/** Whether this launch is Ansible's (then `answer` runs it). */
const answers = (launched) =>
  runsPowerShell(launched) !== undefined || isBootstrap(launched) || MKDTEMP.test(launched) || REMOVE.test(launched);

/**
 * Runs this launch of the stand-in as Windows would (see the top): `launched` is its decoded -EncodedCommand, `state`
 * the host's state file, `handle` the stand-in's answer to one script, `clixml` how 5.1 writes errors to a redirected
 * stderr. Every script run is logged in `<state>.log` as the stand-in logs its own.
 */
function answer(launched, { state, handle, clixml }) {
  const log = (text) => fs.appendFileSync(state + ".log", text + "\n#---\n");
  const nested = runsPowerShell(launched);
  if (nested) {
    log(launched);
    // powershell.exe started by PowerShell, not by cmd.exe: no SSH_CONNECTION, so no cmd.exe line limit applies.
    const env = { ...process.env };
    delete env.SSH_CONNECTION;
    const { spawn } = require("child_process");
    const child = spawn(process.execPath, [process.argv[1], ...nested], { stdio: "inherit", env });
    child.on("exit", (code) => (process.exitCode = code ?? 1));
    return;
  }
  if (isBootstrap(launched)) {
    const chunks = [];
    process.stdin.on("data", (d) => chunks.push(d));
    process.stdin.on("end", async () => {
      const result = await runModule(Buffer.concat(chunks).toString("utf8"), handle, log, state);
      process.stdout.write(JSON.stringify(result) + "\r\n");
      process.exitCode = result.failed ? 1 : 0;
    });
    return;
  }
  log(launched);
  const r = shellScript(launched, state);
  process.stdout.write(r.stdout);
  process.stderr.write(r.stderr ? clixml(r.stderr) : "");
  process.exitCode = r.code;
}

module.exports = { answers, answer };
