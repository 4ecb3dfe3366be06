/**
 * The same vanilla-node steps with ansible-playbook, run the way Ansible runs Windows tasks over SSH (ansible-core
 * 2.14, Debian's, with the ansible.windows 1.14 collection Debian's `ansible` package ships), with its fair settings:
 * forks = N, ControlMaster/ControlPersist (one login per host for the whole play), host keys checked against a
 * known_hosts file, pipelining (which Ansible forces for Windows over SSH anyway: lib/ansible/plugins/connection/ssh.py
 * sets always_pipeline_modules when the shell is a Windows one, and plugins/action/__init__.py
 * _is_pipelining_enabled accepts it). The hosts are Win32-OpenSSH without a DefaultShell, so cmd.exe runs each exec
 * request (the stand-in's transport.cmd-line-limit): Ansible's shell type for that is `cmd` (plugins/shell/cmd.py, the
 * PowerShell shell plugin with cmd.exe's `>nul 2>&1` and `&&`, "used with the ssh connection plugin and no DefaultShell
 * has been set on the Windows host"), with the PowerShell module transport unchanged.
 *
 * What one task costs, from Ansible's source (counted below per host, beside ours):
 * - a module task (ansible.windows.win_powershell, one per step script; the script travels in the module's arguments)
 *   is one `ssh` exec request and no file transfer: plugins/shell/powershell.py build_module_command (pipelining:
 *   cmd == '') returns `PowerShell -NoProfile -NonInteractive -ExecutionPolicy Unrestricted -EncodedCommand
 *   <bootstrap_wrapper.ps1>`, and ssh.py exec_command sends `chcp.com 65001 >nul 2>&1 && ` followed by that line
 *   encoded once more (_encode_script): two PowerShell launches, the outer one only starting the inner one, which
 *   reads the exec wrapper and the module from standard input (executor/powershell/bootstrap_wrapper.ps1,
 *   module_manifest.py _create_powershell_wrapper) and runs the module in its own process;
 * - the join file (ansible.windows.win_copy, plugins/action/win_copy.py): a `query` module run; when the file differs,
 *   a temporary directory (action/__init__.py _make_tmp_path: powershell.py mkdtemp, an exec request), the file put
 *   into it (ssh.py put_file: one `sftp` session, plugins/connection/ssh.py _file_transport_command), a `single`
 *   module run, and the directory removed (_remove_tmp_path: powershell.py remove, an exec request). Each exec request
 *   is two launches, as above.
 * - a login: the first ssh to a host becomes its ControlMaster (ControlPersist keeps it for the play and the next
 *   run); every later exec request and sftp session is a session over it.
 * Ansible has no read step, so its no-op run is the same playbook again (idempotency lives in the scripts; win_copy
 * finds the file unchanged and copies nothing).
 */
import { execFileSync, spawnSync } from "child_process";
import * as fs from "fs";
import * as path from "path";
import { stringify } from "yaml";
import { launchLog } from "../test/lab/lab-windows";
import { BenchHost } from "./hosts";

/** ansible-playbook and the ansible.windows collection (Debian's `ansible` package ships it), installed as root. */
export function ensureAnsible(log: (line: string) => void): void {
  const ready = () =>
    spawnSync("ansible-playbook", ["--version"]).status === 0 &&
    spawnSync("ansible-doc", ["-t", "module", "-j", "ansible.windows.win_powershell"]).status === 0;
  if (ready()) return;
  if (process.getuid?.() !== 0)
    throw new Error(
      "ansible-playbook or its ansible.windows collection is missing: run  sudo apt-get install -y ansible-core ansible",
    );
  log("installing ansible-core and ansible (Debian) ...");
  const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
  execFileSync("apt-get", ["update", "-qq"], { stdio: "ignore", env });
  execFileSync("apt-get", ["install", "-y", "-qq", "ansible-core", "ansible"], { stdio: "ignore", env });
  if (!ready()) throw new Error("ansible-playbook or ansible.windows.win_powershell is still missing after apt-get");
}

export interface AnsibleHostWork {
  /** The step scripts, in order. */
  scripts: string[];
  /** The join file: where it goes on the host, and its text. */
  file: { path: string; text: string };
}

/** What one playbook run cost one host. */
export interface AnsibleCost {
  /** SSH logins (ssh's "Authenticated to" lines: the ControlMaster's, none for sessions over it). */
  logins: number;
  /** PowerShell launches the host saw (the stand-in's log). */
  launches: number;
  /** Files put over SFTP (sftp sessions). */
  transfers: number;
}

/** Jinja would template a script holding these (Ansible templates variables); none of the steps may. */
const JINJA = /\{\{|\{%|\{#/;

/**
 * Writes inventory, host vars, config, the ssh/sftp wrappers that count logins and transfers, and the playbook into
 * `dir`; returns `play`, which runs the playbook once and reads what it cost each host, and `stop`, which ends the
 * ControlMasters the runs left (ControlPersist keeps them 120 s; the hosts' sshd would live on with them).
 */
export function ansibleSetup(
  dir: string,
  hosts: BenchHost[],
  work: (i: number) => AnsibleHostWork,
): { play: () => { ms: number; costs: AnsibleCost[] }; stop: () => void } {
  fs.mkdirSync(path.join(dir, "host_vars"), { recursive: true });
  fs.writeFileSync(
    path.join(dir, "known_hosts"),
    hosts.map((h) => `[${h.host.host}]:${h.host.port} ${h.host.hostKeyLine}`).join("\n") + "\n",
  );
  const sshLog = path.join(dir, "ssh.log");
  const cp = path.join(dir, "cp");
  const sftpLog = path.join(dir, "sftp.log");
  const ssh = path.join(dir, "ssh");
  // Every ssh Ansible starts (and the one each sftp starts) logs at VERBOSE into one file: a login is its
  // "Authenticated to <host> ([<address>]:<port>)" line; a session over a ControlMaster authenticates nothing.
  fs.writeFileSync(ssh, `#!/bin/sh\nexec /usr/bin/ssh -E '${sshLog}' -o LogLevel=VERBOSE "$@"\n`, { mode: 0o755 });
  fs.writeFileSync(
    path.join(dir, "sftp"),
    `#!/bin/sh\necho "$*" >> '${sftpLog}'\nexec /usr/bin/sftp -S '${ssh}' "$@"\n`,
    { mode: 0o755 },
  );
  const lines = hosts.map((h, i) => {
    const key = path.join(dir, `key-${i}`);
    fs.writeFileSync(key, h.host.privateKey, { mode: 0o600 });
    const w = work(i);
    if (w.scripts.some((s) => JINJA.test(s)))
      throw new Error("a step script holds Jinja syntax Ansible would template");
    const src = path.join(dir, `join-${i}.yaml`);
    fs.writeFileSync(src, w.file.text);
    fs.writeFileSync(
      path.join(dir, "host_vars", `h${i}.yml`),
      stringify({ join_src: src, join_dest: w.file.path, steps: w.scripts }),
    );
    return `h${i} ansible_host=${h.host.host} ansible_port=${h.host.port} ansible_user=${h.host.user} ansible_ssh_private_key_file=${key}`;
  });
  fs.writeFileSync(
    path.join(dir, "inventory.ini"),
    "[lab]\n" + lines.join("\n") + "\n[lab:vars]\nansible_connection=ssh\nansible_shell_type=cmd\n",
  );
  fs.writeFileSync(
    path.join(dir, "ansible.cfg"),
    [
      "[defaults]",
      `forks = ${hosts.length}`,
      "host_key_checking = True",
      "gathering = explicit",
      "[ssh_connection]",
      "pipelining = True",
      `ssh_executable = ${ssh}`,
      `sftp_executable = ${path.join(dir, "sftp")}`,
      "transfer_method = sftp",
      `ssh_args = -o ControlMaster=auto -o ControlPersist=120s -o UserKnownHostsFile=${path.join(dir, "known_hosts")} -o StrictHostKeyChecking=yes`,
      `control_path_dir = ${cp}`,
    ].join("\n") + "\n",
  );
  const playbook = path.join(dir, "vanilla.yml");
  fs.writeFileSync(
    playbook,
    stringify([
      {
        hosts: "lab",
        gather_facts: false,
        tasks: [
          { name: "join file", "ansible.windows.win_copy": { src: "{{ join_src }}", dest: "{{ join_dest }}" } },
          { name: "steps", "ansible.windows.win_powershell": { script: "{{ item }}" }, loop: "{{ steps }}" },
        ],
      },
    ]),
  );
  const count = (file: string, re: RegExp, port: number) =>
    fs.existsSync(file)
      ? [...fs.readFileSync(file, "utf8").matchAll(re)].filter((m) => Number(m[1]) === port).length
      : 0;
  const stop = () => {
    for (const socket of fs.existsSync(cp) ? fs.readdirSync(cp) : [])
      spawnSync("/usr/bin/ssh", ["-S", path.join(cp, socket), "-O", "exit", "master"], { stdio: "ignore" });
  };
  const play = () => {
    for (const f of [sshLog, sftpLog, ...hosts.map((h) => h.state + ".log")]) fs.rmSync(f, { force: true });
    const t = process.hrtime.bigint();
    const r = spawnSync("ansible-playbook", ["-i", path.join(dir, "inventory.ini"), playbook], {
      cwd: dir,
      env: { ...process.env, ANSIBLE_CONFIG: path.join(dir, "ansible.cfg") },
      encoding: "utf8",
      maxBuffer: 64 * 2 ** 20,
    });
    const ms = Number(process.hrtime.bigint() - t) / 1e6;
    if (r.status !== 0) throw new Error(`ansible-playbook failed: ${(r.stdout + r.stderr).slice(-1500)}`);
    return {
      ms,
      costs: hosts.map((h) => ({
        logins: count(sshLog, /Authenticated to \S+ \(\[[^\]]+\]:(\d+)\)/g, h.host.port),
        launches: launchLog(h.state).length,
        transfers: count(sftpLog, /-o Port=(\d+)/g, h.host.port),
      })),
    };
  };
  return { play, stop };
}
