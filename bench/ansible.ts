/**
 * The same vanilla-node steps with ansible-playbook, set up fairly: forks = N, pipelining, ControlMaster/ControlPersist,
 * host key checking against a known_hosts file. Per host: `copy` the join file, then each step script as a `raw` task
 * running `powershell -EncodedCommand` (what Ansible's Windows modules cost over SSH: one PowerShell per task). Ansible
 * has no read step, so its no-op run is the same playbook again (idempotency lives in the scripts).
 */
import { execFileSync, spawnSync } from "child_process";
import * as fs from "fs";
import * as path from "path";
import { stringify } from "yaml";
import { powershellCommand } from "../providers/ssh/powershell";
import { LabHost } from "../test/lab/sshd";

export function ensureAnsible(log: (line: string) => void): void {
  if (spawnSync("ansible-playbook", ["--version"]).status === 0) return;
  if (process.getuid?.() !== 0)
    throw new Error("ansible-playbook is missing: run  sudo apt-get install -y ansible-core");
  log("installing ansible-core (Debian) ...");
  execFileSync("apt-get", ["install", "-y", "-qq", "ansible-core"], {
    stdio: "ignore",
    env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" },
  });
}

export interface AnsibleHostWork {
  /** The step scripts, in order. */
  scripts: string[];
  /** The join file: where it goes on the host, and its text. */
  file: { path: string; text: string };
}

/** Writes inventory, host vars, config and playbook into `dir`; returns a function that runs the playbook once. */
export function ansibleSetup(dir: string, hosts: LabHost[], work: (i: number) => AnsibleHostWork): () => number {
  fs.mkdirSync(path.join(dir, "host_vars"), { recursive: true });
  fs.writeFileSync(
    path.join(dir, "known_hosts"),
    hosts.map((h) => `[${h.host}]:${h.port} ${h.hostKeyLine}`).join("\n") + "\n",
  );
  const lines = hosts.map((h, i) => {
    const key = path.join(dir, `key-${i}`);
    fs.writeFileSync(key, h.privateKey, { mode: 0o600 });
    const w = work(i);
    const src = path.join(dir, `join-${i}.yaml`);
    fs.writeFileSync(src, w.file.text);
    fs.writeFileSync(
      path.join(dir, "host_vars", `h${i}.yml`),
      stringify({
        join_src: src,
        join_dest: w.file.path,
        steps: w.scripts.map((s) => powershellCommand(s)),
      }),
    );
    return `h${i} ansible_host=${h.host} ansible_port=${h.port} ansible_user=${h.user} ansible_ssh_private_key_file=${key}`;
  });
  fs.writeFileSync(path.join(dir, "inventory.ini"), "[lab]\n" + lines.join("\n") + "\n");
  fs.writeFileSync(
    path.join(dir, "ansible.cfg"),
    [
      "[defaults]",
      `forks = ${hosts.length}`,
      "host_key_checking = True",
      "gathering = explicit",
      "interpreter_python = /usr/bin/python3",
      "[ssh_connection]",
      "pipelining = True",
      `ssh_args = -o ControlMaster=auto -o ControlPersist=120s -o UserKnownHostsFile=${path.join(dir, "known_hosts")} -o StrictHostKeyChecking=yes`,
      `control_path_dir = ${path.join(dir, "cp")}`,
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
          { name: "join file", "ansible.builtin.copy": { src: "{{ join_src }}", dest: "{{ join_dest }}" } },
          { name: "steps", "ansible.builtin.raw": "{{ item }}", loop: "{{ steps }}" },
        ],
      },
    ]),
  );
  return () => {
    const t = process.hrtime.bigint();
    const r = spawnSync("ansible-playbook", ["-i", path.join(dir, "inventory.ini"), playbook], {
      cwd: dir,
      env: { ...process.env, ANSIBLE_CONFIG: path.join(dir, "ansible.cfg") },
      encoding: "utf8",
      maxBuffer: 64 * 2 ** 20,
    });
    if (r.status !== 0) throw new Error(`ansible-playbook failed: ${(r.stdout + r.stderr).slice(-1500)}`);
    return Number(process.hrtime.bigint() - t) / 1e6;
  };
}
