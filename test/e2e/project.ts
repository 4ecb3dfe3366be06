import { execFileSync, spawnSync } from "child_process";
import { generateKeyPairSync } from "crypto";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { parse, stringify } from "yaml";
import type { LabInfo } from "../../lab/record";
import { BUILD_STAMP, PROGRAM_SOURCES, sourceHash } from "../../lib/project";
import { LabWindows, labWindows, trustingOwnKey } from "../lab/lab-windows";
import { labApi, PROJECT_DIR, runAsync, startLabAsync, stopLab } from "./lab";

/**
 * The environment variable naming a copy of the project that `global-setup.ts` built once for the whole run
 * (`builtOnce`): each suite's copy takes its bin/ instead of running tsc again (about 40 s a copy on 2 busy cores,
 * 46 copies a run). The output is the same: tsc's bin/ holds only relative paths, and its stamps are hashes of the
 * same tracked files (lib/project.ts `sourceHash`), so the program in the copy runs from it as after its own build.
 */
export const BUILT_COPY = "WINDOWS_ESTATE_E2E_BUILT_COPY";

/**
 * The project as a user has it: the tracked files in a folder of their own, node_modules beside, built with `npm run
 * build` (once per run: `BUILT_COPY`).
 */
export function projectCopy(): string {
  const dir = copyOfProject();
  if (withBuildOf(dir)) return dir;
  return built(dir, spawnSync("npm", ["run", "--silent", "build"], { cwd: dir, encoding: "utf8", timeout: 600_000 }));
}

/** The same as `projectCopy`, without blocking this process while it builds (e.g. while a lab starts). */
export async function projectCopyAsync(): Promise<string> {
  const dir = copyOfProject();
  if (withBuildOf(dir)) return dir;
  return built(dir, await runAsync("npm", ["run", "--silent", "build"], { cwd: dir }));
}

/**
 * Builds one copy for the run and names it in `BUILT_COPY` for the suites (global-setup.ts; the workers inherit it).
 * A value in the environment already is another run's (an export left in a shell): never reused, as its bin/ may be
 * of other sources.
 */
export function builtOnce(): void {
  delete process.env[BUILT_COPY];
  process.env[BUILT_COPY] = projectCopy();
}

/**
 * The environment variable naming the folder every project copy of an e2e run is made in (global-setup.ts
 * `startRun`; the workers inherit it), so that the run's end removes them all (`endRun`): 46 copies a run, each with
 * its bin/ and stacks, were left in the temporary folder before.
 */
export const RUN_DIR = "WINDOWS_ESTATE_E2E_RUN_DIR";

/** Makes the run's folder (global-setup.ts). */
export function startRun(): void {
  process.env[RUN_DIR] = fs.mkdtempSync(path.join(os.tmpdir(), "e2e-run-"));
}

/** Removes the run's folder and every copy in it (global-teardown.ts): only a folder `startRun` could have made. */
export function endRun(): void {
  const dir = process.env[RUN_DIR];
  delete process.env[RUN_DIR];
  delete process.env[BUILT_COPY];
  if (dir && path.dirname(dir) === path.resolve(os.tmpdir()) && /^e2e-run-[A-Za-z0-9]{6}$/.test(path.basename(dir)))
    fs.rmSync(dir, { recursive: true, force: true });
}

/**
 * Gives `dir` the bin/ of the copy built for this run, when there is one (else the caller builds). A bin/ whose stamp
 * is not of `dir`'s sources is an error: lib/project.ts `builtModule` would ignore it and run the program from its
 * sources, and the built path the suites are there to test would go untested without a word.
 */
export function withBuildOf(dir: string): boolean {
  const from = process.env[BUILT_COPY];
  if (!from) return false;
  const stamp = path.join(from, BUILD_STAMP);
  const built = fs.existsSync(stamp) ? fs.readFileSync(stamp, "utf8").trim() : "no stamp";
  const sources = sourceHash(dir, PROGRAM_SOURCES);
  if (built !== sources)
    throw new Error(
      `${BUILT_COPY}=${from} is not a build of this copy's sources (${BUILD_STAMP}: ${built}, the sources: ${sources}): ` +
        `it is set only by the e2e global set-up (a tracked file changed during the run?)`,
    );
  fs.cpSync(path.join(from, "bin"), path.join(dir, "bin"), { recursive: true });
  return true;
}

function built(dir: string, build: { status: number | null; stdout: string; stderr: string }): string {
  if (build.status !== 0) throw new Error(`npm run build failed in the project copy: ${build.stdout}${build.stderr}`);
  return dir;
}

/** The tracked files in a folder of their own, node_modules beside (not built yet). */
function copyOfProject(): string {
  const parent = process.env[RUN_DIR] ?? os.tmpdir();
  const dir = path.join(fs.mkdtempSync(path.join(parent, "e2e-project-")), "windows-estate");
  fs.mkdirSync(dir);
  const files = execFileSync("git", ["ls-files", "-z"], { cwd: PROJECT_DIR, encoding: "utf8" })
    .split("\0")
    .filter(Boolean);
  for (const f of files) {
    const from = path.join(PROJECT_DIR, f);
    if (!fs.existsSync(from)) continue; // deleted in the work tree
    fs.mkdirSync(path.dirname(path.join(dir, f)), { recursive: true });
    fs.copyFileSync(from, path.join(dir, f));
  }
  fs.symlinkSync(path.join(PROJECT_DIR, "node_modules"), path.join(dir, "node_modules"));
  return dir;
}

export interface CliResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** The PULUMI_HOMEs (one per lab) this process logged in to their lab's backend. */
const loggedIn = new Set<string>();

/** A lab and a project copy to run stacks of against it (`labProject`). */
export interface LabProject {
  lab: LabInfo;
  /** The built project copy (`projectCopy`), with a throwaway WMCO key at `.dev/wmco-dev-key.pem`. */
  dir: string;
  /** That key. */
  pem: string;
}

/**
 * What nearly every suite starts from: a lab started (`npm run lab -- start`) while the project is copied beside it,
 * and the WMCO key written into the copy. The caller stops the lab by its name (`stopLab`).
 */
export async function labProject(platform: string, labName: string, extra: string[] = []): Promise<LabProject> {
  // Both are waited for before anything fails, so a lab that started is there for the caller's stopLab.
  const [started, copied] = await Promise.allSettled([startLabAsync(platform, labName, extra), projectCopyAsync()]);
  if (started.status === "rejected") throw started.reason;
  if (copied.status === "rejected") throw copied.reason;
  return { lab: started.value, dir: copied.value, pem: writeWmcoKey(copied.value) };
}

/** A lab, a project copy and one stack of it (`labStack`). */
export interface LabStack extends LabProject {
  stack: Stack;
  /** The stack's config as written (edit it and `stack.writeConfig(config)` for the next step). */
  config: Record<string, unknown>;
}

/**
 * "Start a lab, copy the project, write the key, init, up": `labProject`, then stack `name` from an example file's
 * config (`exampleConfig`, changed by `edit` first), created with `pulumi stack init` and, with `up`, brought up.
 * With `byoh`, a BYOH-only stack: its hosts started first (`startByohHosts`), the config without MachineSets and
 * listing the hosts when `listed` (`byohConfig`).
 */
export async function labStack(
  platform: string,
  labName: string,
  o: {
    file: string;
    name?: string;
    edit?: (config: Record<string, unknown>) => void;
    up?: boolean;
    labArgs?: string[];
    env?: NodeJS.ProcessEnv;
    byoh?: ByohHosts & { listed?: boolean };
  },
): Promise<LabStack> {
  const p = await labProject(platform, labName, o.labArgs);
  const b = o.byoh;
  if (b) await startByohHosts(p.dir, b);
  const config = b ? byohConfig(p.dir, b.listed ? b.hosts : undefined, o.file) : exampleConfig(p.dir, o.file);
  o.edit?.(config);
  const stack = new Stack(p.dir, o.name ?? "e2e", p.lab, o.env).init(config);
  if (o.up) stack.up();
  return { ...p, stack, config };
}

/** A stack of the project in `dir`, driven through the real `pulumi` CLI with the lab's environment. */
export class Stack {
  constructor(
    readonly dir: string,
    readonly name: string,
    readonly lab: LabInfo,
    /** More environment for every command (e.g. the EC2 stand-in's endpoint and credentials). */
    readonly env: NodeJS.ProcessEnv = {},
  ) {}

  pulumi(args: string[], timeoutMs = 900_000): CliResult {
    const r = spawnSync("pulumi", [...args, "--stack", this.name, "--non-interactive"], {
      cwd: this.dir,
      encoding: "utf8",
      env: { ...process.env, ...this.lab.env, ...this.env },
      timeout: timeoutMs,
      maxBuffer: 64 * 1024 * 1024,
    });
    return { status: r.status, stdout: r.stdout ?? "", stderr: r.stderr ?? "" };
  }

  /**
   * The same as `pulumi`, without blocking this process: for a test whose stand-in answers from this process (the
   * EC2 stand-in), which a synchronous spawn would starve.
   */
  pulumiAsync(args: string[], timeoutMs = 900_000, onOutput?: (text: string) => void): Promise<CliResult> {
    return runAsync("pulumi", [...args, "--stack", this.name, "--non-interactive"], {
      cwd: this.dir,
      env: { ...process.env, ...this.lab.env, ...this.env },
      timeoutMs,
      onOutput,
    });
  }

  /**
   * `pulumi stack init` with this config (`pulumi login` of the lab's backend URL first, as a user does; once per lab:
   * the login is kept in the lab's own PULUMI_HOME). Returns the stack.
   */
  init(config: Record<string, unknown>): this {
    const env = { ...process.env, ...this.lab.env };
    const home = this.lab.env.PULUMI_HOME ?? "";
    if (!loggedIn.has(home)) {
      const login = spawnSync("pulumi", ["login", this.lab.env.PULUMI_BACKEND_URL], {
        cwd: this.dir,
        encoding: "utf8",
        env,
      });
      if (login.status !== 0) throw new Error(`pulumi login failed: ${login.stderr}`);
      if (home) loggedIn.add(home);
    }
    this.writeConfig(config);
    const r = spawnSync("pulumi", ["stack", "init", this.name, "--non-interactive"], {
      cwd: this.dir,
      encoding: "utf8",
      env,
    });
    if (r.status !== 0) throw new Error(`pulumi stack init failed: ${r.stderr}`);
    return this;
  }

  /** The stack's config file, as a user writes Pulumi.<stack>.yaml. */
  writeConfig(config: Record<string, unknown>): void {
    fs.writeFileSync(path.join(this.dir, `Pulumi.${this.name}.yaml`), stringify({ config }));
  }

  /**
   * The plan of `pulumi preview --json` as `op name` lines for every step that is not `same`, the name being the
   * last URN segment (our logical names are unique per stack).
   */
  plan(): string[] {
    const p = this.previewJson();
    if (p.status !== 0) throw new Error(`pulumi preview failed: ${p.stdout.slice(-2000)}${p.stderr.slice(-2000)}`);
    return p.steps.filter((s) => s.op !== "same").map((s) => `${s.op} ${s.urn.split("::").pop()}`);
  }

  /** `pulumi up --yes --skip-preview`, failing with the CLI's output when it fails. */
  up(): CliResult {
    const r = this.pulumi(["up", "--yes", "--skip-preview"]);
    if (r.status !== 0) throw new Error(`pulumi up failed: ${r.stdout.slice(-3000)}${r.stderr.slice(-2000)}`);
    return r;
  }

  /** `pulumi preview --json` (plus `extra` arguments): the steps the engine plans, by URN. */
  previewJson(extra: string[] = []): { steps: PlanStep[]; diagnostics?: unknown[] } & CliResult {
    const r = this.pulumi(["preview", "--json", ...extra]);
    let parsed: { steps?: PlanStep[] } = {};
    try {
      parsed = JSON.parse(r.stdout) as typeof parsed;
    } catch {
      /* not JSON: the caller sees stdout/stderr */
    }
    return { steps: [], ...parsed, ...r };
  }
}

/** A CLI run that worked: exit 0, and no `error:` in what it printed. Returns it. */
export function expectOk<R extends CliResult>(r: R): R {
  expect(r.stdout + r.stderr).not.toMatch(/error:/);
  expect(r.status).toBe(0);
  return r;
}

const WMCO_NAMESPACE = "openshift-windows-machine-config-operator";

/**
 * What the dev stack's estate (Azure, the samples' too) is on the lab's API server once `up` is done: WMCO installed
 * through OLM (the Subscription's CSV Succeeded, named by the `installedCSV` output), the key `pem` handed over as
 * WMCO's only secret key and nowhere in the stack's state in plaintext, and the MachineSet `winworker` of one Azure
 * machine.
 */
export async function expectEstateUp(stack: Stack, pem: string): Promise<void> {
  const api = labApi(stack.lab);
  const olm = `/apis/operators.coreos.com/v1alpha1/namespaces/${WMCO_NAMESPACE}`;
  const sub = await api.get(`${olm}/subscriptions/windows-machine-config-operator`);
  const csv = await api.get(`${olm}/clusterserviceversions/${sub.status.installedCSV}`);
  expect(csv.status.phase).toBe("Succeeded");
  expect(stack.pulumi(["stack", "output", "installedCSV"]).stdout.trim()).toBe(sub.status.installedCSV);
  const key = await api.get(`/api/v1/namespaces/${WMCO_NAMESPACE}/secrets/cloud-private-key`);
  expect(Object.keys(key.data)).toEqual(["private-key.pem"]);
  expect(Buffer.from(key.data["private-key.pem"], "base64").toString("utf8").trim()).toBe(pem.trim());
  const ms = await api.get(WINWORKER);
  expect(ms.spec.replicas).toBe(1);
  expect(ms.spec.template.spec.providerSpec.value.kind).toBe("AzureMachineProviderSpec");
  expect(stack.pulumi(["stack", "export"]).stdout).not.toContain(pem.split("\n")[1]);
}

/** The dev stack's MachineSet (`expectEstateUp`). */
export const WINWORKER = "/apis/machine.openshift.io/v1beta1/namespaces/openshift-machine-api/machinesets/winworker";

/** The engine's diagnostics of a `--json` run, their messages joined (what the user reads under "Diagnostics"). */
export function diagnosticMessages(p: { diagnostics?: unknown[] }): string {
  return (p.diagnostics ?? [])
    .map((d) => (typeof d === "object" && d !== null && "message" in d ? String(d.message) : ""))
    .join("\n");
}

/**
 * One step of `pulumi preview --json` (pulumi pkg/backend/display/json.go `previewStepJSON`, `stateJSON`): what the
 * engine would do to the resource, with the state it would have (secrets shown as "[secret]" unless
 * `--show-secrets`).
 */
export interface PlanStep {
  op: string;
  urn: string;
  diffReasons?: string[];
  replaceReasons?: string[];
  newState?: {
    urn: string;
    type: string;
    custom?: boolean;
    parent?: string;
    provider?: string;
    dependencies?: string[];
    retainOnDelete?: boolean;
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- inputs of every resource type, asserted by field
    inputs?: Record<string, any>;
  };
}

/** A fresh RSA key in PEM (PKCS#1), as WMCO's key is. */
export function rsaKey(bits = 3072): string {
  return generateKeyPairSync("rsa", {
    modulusLength: bits,
    publicKeyEncoding: { type: "spki", format: "pem" },
    privateKeyEncoding: { type: "pkcs1", format: "pem" },
  }).privateKey;
}

/** Writes a WMCO key (a throwaway RSA key unless given) where the tests point the stacks (`.dev/wmco-dev-key.pem`). */
export function writeWmcoKey(dir: string, pem = rsaKey()): string {
  fs.mkdirSync(path.join(dir, ".dev"), { recursive: true });
  fs.writeFileSync(path.join(dir, ".dev", "wmco-dev-key.pem"), pem, { mode: 0o600 });
  return pem;
}

/**
 * A stack file's config, with its BYOH hosts left out (the example addresses are never dialled) unless `keepByoh`
 * (for a preview, which never dials a host). The examples point at the user's key (`~/.ssh/wmco`); the tests put
 * a throwaway one in the project copy instead (`writeWmcoKey`).
 */
export function exampleConfig(dir: string, file: string, keepByoh = false): Record<string, unknown> {
  const config = (parse(fs.readFileSync(path.join(dir, file), "utf8")) as { config: Record<string, unknown> }).config;
  if (!keepByoh) delete config["windows-estate:byoh"];
  if (config["windows-estate:privateKeyPath"] !== undefined)
    config["windows-estate:privateKeyPath"] = ".dev/wmco-dev-key.pem";
  return config;
}

/**
 * The engine events of a `--json` up or destroy (pulumi pkg/backend/display/json.go: one JSON object per line): the
 * sequence at which each resource's step starts (`resourcePreEvent`) and finishes (`resOutputsEvent`), by op and name.
 */
export function engineSteps(stdout: string) {
  const events = stdout
    .split("\n")
    .filter((l) => l.startsWith("{"))
    .map(
      (l) =>
        JSON.parse(l) as {
          sequence: number;
          resourcePreEvent?: { metadata: { op: string; urn: string } };
          resOutputsEvent?: { metadata: { op: string; urn: string } };
        },
    );
  const name = (urn: string) => urn.split("::").pop() ?? "";
  return {
    started: (op: string, n: string) =>
      events.find((e) => e.resourcePreEvent?.metadata.op === op && name(e.resourcePreEvent.metadata.urn) === n)
        ?.sequence,
    done: (op: string, n: string) =>
      events.find((e) => e.resOutputsEvent?.metadata.op === op && name(e.resOutputsEvent.metadata.urn) === n)?.sequence,
    names: (op: string) =>
      events.flatMap((e) => (e.resourcePreEvent?.metadata.op === op ? [name(e.resourcePreEvent.metadata.urn)] : [])),
    /** `op name` of every step that changed something, in the order the engine finished them. */
    finished: () =>
      events.flatMap((e) => {
        const m = e.resOutputsEvent?.metadata;
        return m && m.op !== "same" ? [`${m.op} ${name(m.urn)}`] : [];
      }),
  };
}

type LabHost = { host: { host: string; user: string; hostKeyFingerprint: string } };

/**
 * The `windows-estate:byoh` entry of lab Windows host `i`: its address, user and pinned host key, and the bootstrap
 * key at `.dev/bootstrap-<i>` (the host's own key, which the caller writes there).
 */
export function byohEntry(w: LabHost, i: number) {
  return {
    address: w.host.host,
    username: w.host.user,
    hostKey: w.host.hostKeyFingerprint,
    bootstrap: { privateKeyPath: `.dev/bootstrap-${i}` },
  };
}

/** The `windows-estate:byoh` entries of lab Windows hosts, in order (`byohEntry`). */
export const byohEntries = (hosts: LabHost[]) => hosts.map(byohEntry);

/** Lab Windows hosts to start as BYOH hosts (`startByohHosts`). */
export interface ByohHosts {
  addresses: readonly string[];
  /** Host `i` is named `<prefix>-<i>`. */
  prefix: string;
  /** Where each host is pushed as it starts, for the caller's afterAll (`stopByohLab`). */
  hosts: LabWindows[];
  /** Host `i`'s simulated Windows state over a fresh one (`labWindows`). */
  states?: Record<string, unknown>[];
}

/**
 * BYOH hosts as a user starts from: lab Windows host `i` on `addresses[i]` (`labWindows`) trusting only its own key
 * (`trustingOwnKey`), that key written into the project copy `dir` as the bootstrap key `byohEntry` names. Each host
 * is pushed onto `hosts` as it starts, so the caller's afterAll stops those that started when a later one fails.
 */
export async function startByohHosts(
  dir: string,
  { addresses, prefix, hosts, states = [] }: ByohHosts,
): Promise<LabWindows[]> {
  for (const [i, address] of addresses.entries()) {
    const w = trustingOwnKey(await labWindows(address, `${prefix}-${i}`, states[i]));
    fs.writeFileSync(path.join(dir, ".dev", `bootstrap-${i}`), w.host.privateKey, { mode: 0o600 });
    hosts.push(w);
  }
  return hosts;
}

/** The afterAll of a suite with BYOH hosts: the lab stopped, and the hosts. */
export async function stopByohLab(labName: string, hosts: LabWindows[]): Promise<void> {
  stopLab(labName);
  await Promise.all(hosts.map((h) => h.stop()));
}

/**
 * The config of a BYOH-only stack: a stack file's (`exampleConfig`) without its MachineSets, listing `hosts`
 * (`byohEntries`) when given.
 */
export function byohConfig(dir: string, hosts?: LabHost[], file = "Pulumi.dev.yaml"): Record<string, unknown> {
  const config = exampleConfig(dir, file);
  config["windows-estate:machineSets"] = [];
  if (hosts) config["windows-estate:byoh"] = byohEntries(hosts);
  return config;
}
