/**
 * Fleet benchmark: converging the same registry files onto N real sshd hosts on 127.0.0.1 with our NodeFiles
 * provider and with ansible-playbook (copy module, tuned fairly), the no-op run of both, and synth of a large
 * estate against a bare program declaring the same objects. Prints figures; the last line is one JSON object.
 *
 *   npm run bench -- --hosts 20 [--runs 3] [--json]
 */
import { execFileSync, spawnSync } from "child_process";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { parseArgs } from "util";
import { stringify } from "yaml";
import { renderHostsToml } from "../components/mirrors/hosts-toml";
import { nodeFilesProvider } from "../providers/node-files";
import { NodeFilesOutputs } from "../providers/node-files/provider";
import { LabHost, startLabHost } from "../test/lab/sshd";

const { values } = parseArgs({
  options: {
    hosts: { type: "string", default: "20" },
    runs: { type: "string", default: "3" },
    json: { type: "boolean", default: false },
  },
});
const N = Number(values.hosts);
const RUNS = Number(values.runs);
const PROJECT = path.resolve(__dirname, "..");
const log = (...a: unknown[]) => (values.json ? process.stderr.write(a.join(" ") + "\n") : console.log(...a));
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const secs = (ms: number) => Math.round(ms) / 1000;

/** Six hosts.toml files of a realistic disconnected-cluster mirror config. */
function registryFiles(): Record<string, string> {
  const m = (source: string, mirror: string) => ({ source, mirrors: [mirror] });
  const files = renderHostsToml({
    imageDigestMirrorSets: [
      {
        spec: {
          imageDigestMirrors: [
            m("mcr.microsoft.com/oss/kubernetes/pause", "mirror.corp.example:5000/win/oss/kubernetes/pause"),
            m("mcr.microsoft.com/windows/servercore", "mirror.corp.example:5000/win/windows/servercore"),
          ],
        },
      },
      {
        spec: {
          imageDigestMirrors: [
            m("registry.redhat.io/ubi9", "mirror.corp.example:5000/rh/ubi9"),
            m(
              "quay.io/openshift-release-dev/ocp-release",
              "mirror.corp.example:5000/ocp/openshift-release-dev/ocp-release",
            ),
          ],
        },
      },
      {
        spec: {
          imageDigestMirrors: [
            m(
              "registry.k8s.io/sig-storage/csi-provisioner",
              "mirror.corp.example:5000/k8s/sig-storage/csi-provisioner",
            ),
            m("docker.io/library/nginx", "mirror.corp.example:5000/hub/library/nginx"),
          ],
        },
      },
    ],
    imageTagMirrorSets: [],
    pullSecret: JSON.stringify({
      auths: { "mirror.corp.example:5000": { auth: Buffer.from("robot:secret").toString("base64") } },
    }),
  });
  return Object.fromEntries(Object.entries(files).map(([dir, text]) => [`${dir}/hosts.toml`, text]));
}

async function timed<T>(fn: () => Promise<T>): Promise<[number, T]> {
  const t = process.hrtime.bigint();
  const r = await fn();
  return [Number(process.hrtime.bigint() - t) / 1e6, r];
}

async function ours(hosts: LabHost[], files: Record<string, string>, run: number) {
  const conn = (h: LabHost) => ({
    host: h.host,
    port: h.port,
    user: h.user,
    privateKey: h.privateKey,
    hostKey: h.hostKeyFingerprint,
    pathStyle: "posix" as const,
  });
  const [convergeMs, outs] = await timed(() =>
    Promise.all(
      hosts.map((h) =>
        nodeFilesProvider.create({ connection: conn(h), directory: path.join(h.root, `ours-${run}`), files }),
      ),
    ),
  );
  // The no-op run as `pulumi up --refresh` does it: read every host, then diff against the declaration.
  const [noopMs, changed] = await timed(() =>
    Promise.all(
      outs.map(async (o) => {
        const declared: NodeFilesOutputs = o.outs;
        const read = await nodeFilesProvider.read!("id", declared);
        const observed: NodeFilesOutputs = read.props;
        return (await nodeFilesProvider.diff!("id", observed, declared)).changes;
      }),
    ),
  );
  if (changed.some((c) => c)) throw new Error("the no-op run found changes: the benchmark is wrong");
  return { convergeMs, noopMs };
}

function ansibleSetup(hosts: LabHost[], files: Record<string, string>, dir: string) {
  const keys = hosts.map((h, i) => {
    const p = path.join(dir, `key-${i}`);
    fs.writeFileSync(p, h.privateKey, { mode: 0o600 });
    return p;
  });
  fs.writeFileSync(
    path.join(dir, "known_hosts"),
    hosts.map((h) => `[127.0.0.1]:${h.port} ${h.hostKeyLine}`).join("\n") + "\n",
  );
  fs.writeFileSync(
    path.join(dir, "inventory.ini"),
    "[lab]\n" +
      hosts
        .map(
          (h, i) =>
            `h${i} ansible_host=127.0.0.1 ansible_port=${h.port} ansible_user=${h.user} ansible_ssh_private_key_file=${keys[i]} root=${h.root}`,
        )
        .join("\n") +
      "\n",
  );
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
  const src = path.join(dir, "files");
  for (const [rel, text] of Object.entries(files)) {
    fs.mkdirSync(path.join(src, path.dirname(rel)), { recursive: true });
    fs.writeFileSync(path.join(src, rel), text);
  }
  return (run: number) => {
    const playbook = path.join(dir, `play-${run}.yml`);
    fs.writeFileSync(
      playbook,
      stringify([
        {
          hosts: "lab",
          gather_facts: false,
          tasks: [
            {
              name: "directories",
              "ansible.builtin.file": { path: `{{ root }}/ansible-${run}/{{ item }}`, state: "directory" },
              loop: [...new Set(Object.keys(files).map((f) => path.dirname(f)))],
            },
            {
              name: "hosts.toml",
              "ansible.builtin.copy": { src: `${src}/{{ item }}`, dest: `{{ root }}/ansible-${run}/{{ item }}` },
              loop: Object.keys(files),
            },
          ],
        },
      ]),
    );
    return playbook;
  };
}

function runAnsible(dir: string, playbook: string): number {
  const t = process.hrtime.bigint();
  const r = spawnSync("ansible-playbook", ["-i", path.join(dir, "inventory.ini"), playbook], {
    cwd: dir,
    env: { ...process.env, ANSIBLE_CONFIG: path.join(dir, "ansible.cfg") },
    encoding: "utf8",
  });
  if (r.status !== 0) throw new Error(`ansible-playbook failed: ${(r.stdout + r.stderr).slice(-1500)}`);
  return Number(process.hrtime.bigint() - t) / 1e6;
}

function ensureAnsible(): void {
  if (spawnSync("ansible-playbook", ["--version"]).status === 0) return;
  if (process.getuid?.() !== 0)
    throw new Error("ansible-playbook is missing: run  sudo apt-get install -y ansible-core");
  log("installing ansible-core (Debian) ...");
  execFileSync("apt-get", ["install", "-y", "-qq", "ansible-core"], {
    stdio: "ignore",
    env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" },
  });
}

/** A large estate: 20 MachineSets, 200 BYOH hosts, 100 mirror entries. */
function largeEstate(dir: string): string {
  const file = path.join(dir, "Pulumi.large.yaml");
  const config = {
    "windows-estate:cluster": {
      platform: "AWS",
      infrastructureId: "ocp-big-x7k2p",
      region: "us-east-1",
      discovery: false,
    },
    "windows-estate:privateKeyPath": path.join(PROJECT, ".dev", "wmco-dev-key.pem"),
    "windows-estate:machineSets": Array.from({ length: 20 }, (_, i) => ({
      name: `ocp-big-win-${i}`,
      aws: { availabilityZone: `us-east-1${"abcdef"[i % 6]}`, ami: "ami-0123456789abcdef0" },
    })),
    "windows-estate:byoh": Array.from({ length: 200 }, (_, i) => ({
      address: `10.20.${Math.floor(i / 250)}.${(i % 250) + 1}`,
      username: "Administrator",
      trustOnFirstUse: true,
    })),
    "windows-estate:mirrors": {
      digest: Array.from({ length: 100 }, (_, i) => ({
        source: `registry${i % 10}.example.com/team${i}/app`,
        mirrors: [`mirror.corp.example:5000/r${i % 10}/team${i}/app`],
      })),
    },
  };
  fs.writeFileSync(file, stringify({ config }));
  return file;
}

function timeChild(args: string[]): number {
  const t = process.hrtime.bigint();
  const r = spawnSync(process.execPath, ["-r", "ts-node/register/transpile-only", ...args], {
    cwd: PROJECT,
    encoding: "utf8",
    env: { ...process.env, TS_NODE_PROJECT: path.join(PROJECT, "tsconfig.json") },
  });
  if (r.status !== 0) throw new Error(`${args.join(" ")} failed: ${(r.stdout + r.stderr).slice(-1500)}`);
  return Number(process.hrtime.bigint() - t) / 1e6;
}

async function main(): Promise<void> {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), "bench-"));
  ensureAnsible();
  execFileSync("bash", [path.join(PROJECT, "test", "lab", "ensure-sshd.sh")], { stdio: "inherit" });
  log(
    `machine: ${os.cpus().length} cores, ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}; ${N} hosts, ${RUNS} runs each`,
  );
  const hosts = await Promise.all(Array.from({ length: N }, () => startLabHost()));
  try {
    const files = registryFiles();
    const mkPlay = ansibleSetup(hosts, files, work);
    const oursRuns: { convergeMs: number; noopMs: number }[] = [];
    const ans: { convergeMs: number; noopMs: number }[] = [];
    for (let r = 0; r < RUNS; r++) {
      const rssStart = process.memoryUsage().rss;
      oursRuns.push(await ours(hosts, files, r));
      log(
        `run ${r + 1}: ours converge ${secs(oursRuns[r].convergeMs)}s, no-op ${secs(oursRuns[r].noopMs)}s (rss +${Math.round((process.memoryUsage().rss - rssStart) / 2 ** 20)} MB)`,
      );
      const play = mkPlay(r);
      const a1 = runAnsible(work, play);
      const a2 = runAnsible(work, play);
      ans.push({ convergeMs: a1, noopMs: a2 });
      log(`run ${r + 1}: ansible converge ${secs(a1)}s, no-op ${secs(a2)}s`);
    }
    const peak = process.resourceUsage().maxRSS / 1024;
    const estate = largeEstate(work);
    const synthMs: number[] = [];
    const bareMs: number[] = [];
    const out = path.join(work, "rendered-large");
    for (let r = 0; r < RUNS; r++) {
      synthMs.push(
        timeChild(["scripts/synth.ts", "--stack", "large", "--config-file", estate, "--out", out, "--quiet"]),
      );
      bareMs.push(timeChild(["bench/bare-program.ts", out]));
      log(`run ${r + 1}: synth of the large estate ${secs(synthMs[r])}s, bare program ${secs(bareMs[r])}s`);
    }
    const result = {
      hosts: N,
      ours_s: secs(median(oursRuns.map((x) => x.convergeMs))),
      ansible_s: secs(median(ans.map((x) => x.convergeMs))),
      speedup: 0,
      noop_ours_s: secs(median(oursRuns.map((x) => x.noopMs))),
      noop_ansible_s: secs(median(ans.map((x) => x.noopMs))),
      noop_speedup: 0,
      synth_s: secs(median(synthMs)),
      bare_s: secs(median(bareMs)),
      synth_ratio: 0,
      peak_rss_mb: Math.round(peak),
    };
    result.speedup = Math.round((result.ansible_s / result.ours_s) * 10) / 10;
    result.noop_speedup = Math.round((result.noop_ansible_s / result.noop_ours_s) * 10) / 10;
    result.synth_ratio = Math.round((result.synth_s / result.bare_s) * 100) / 100;
    console.log(JSON.stringify(result));
  } finally {
    await Promise.all(hosts.map((h) => h.stop()));
    fs.rmSync(work, { recursive: true, force: true });
  }
}

main().catch((e: Error) => {
  console.error(`bench failed: ${e.message}`);
  process.exit(1);
});
