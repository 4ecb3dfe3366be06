/**
 * Runs `index.ts` the way `pulumi preview` / `pulumi up` does: the real Node language host
 * (`@pulumi/pulumi/cmd/run`) in a child process, connected to the engine stand-in, with the stack's config in
 * `PULUMI_CONFIG` / `PULUMI_CONFIG_SECRET_KEYS` as the CLI hands it over (decrypted, secret keys listed).
 */
import { spawn } from "child_process";
import * as fs from "fs";
import * as path from "path";
import { parse } from "yaml";
import { ensureDevKey } from "../../scripts/synth/dev-key";
import { DynamicPlugin, PROJECT_DIR } from "./dynamic-plugin";
import { EngineStandIn, InvokeHandler, StackState, ROOT_STACK_TYPE } from "./engine";

const RUN = require.resolve("@pulumi/pulumi/cmd/run");
export const PROJECT = "windows-estate";

export interface StackConfig {
  config: Record<string, string>;
  secretKeys: string[];
}

/**
 * A stack file's `config:` as the CLI passes it: objects as JSON, `secure:` values replaced by the plaintext the
 * caller gives (the CLI decrypts them), and `overrides` on top (same namespacing rule: bare keys get the project's).
 */
export function stackConfig(
  file: string,
  overrides: Record<string, unknown> = {},
  secrets: Record<string, string> = {},
): StackConfig {
  const doc = parse(fs.readFileSync(file, "utf8")) as { config?: Record<string, unknown> };
  const config: Record<string, string> = {};
  const secretKeys: string[] = [];
  const put = (key: string, value: unknown) => {
    const k = key.includes(":") ? key : `${PROJECT}:${key}`;
    if (value === undefined) {
      delete config[k];
      return;
    }
    if (typeof value === "object" && value !== null && "secure" in value) {
      const plain = secrets[k];
      if (plain === undefined) throw new Error(`${file}: ${k} is secure; the test must give its plaintext`);
      config[k] = plain;
      secretKeys.push(k);
      return;
    }
    config[k] = typeof value === "string" ? value : JSON.stringify(value);
  };
  for (const [k, v] of Object.entries(doc.config ?? {})) put(k, v);
  for (const [k, v] of Object.entries(overrides)) put(k, v);
  for (const [k, v] of Object.entries(secrets))
    if (!secretKeys.includes(k) && config[k] === undefined) {
      config[k] = v;
      secretKeys.push(k);
    }
  // A clean clone has no .dev/ yet: the dev key is generated the way `npm start` does (atomically, so parallel
  // test files agree on one key), whichever test file runs first.
  ensureDevKey({ values: config, secretKeys: new Set(secretKeys) }, PROJECT_DIR);
  return { config, secretKeys: [...new Set(secretKeys)] };
}

export interface RunOptions extends StackConfig {
  stack: string;
  preview: boolean;
  previous?: StackState;
  invoke?: InvokeHandler;
  /** Environment for the program and the plugin (e.g. an EC2 endpoint stand-in). */
  env?: NodeJS.ProcessEnv;
  /** The program to run, relative to the project: default `.` (package.json's main, index.ts). */
  program?: string;
  /** Extra arguments for the language host's node (the benchmark's `--cpu-prof`). */
  nodeArgs?: string[];
  timeoutMs?: number;
}

export interface RunResult {
  exitCode: number | null;
  stdout: string;
  stderr: string;
  engine: EngineStandIn;
  state: StackState;
  pluginStderr: string;
  /** The stack's outputs, as the program exported them. */
  outputs: Record<string, unknown>;
}

/** The environment the Go language host derives from Pulumi.yaml's `runtime.options`. */
export function languageHostEnv(): Record<string, string> {
  const project = parse(fs.readFileSync(path.join(PROJECT_DIR, "Pulumi.yaml"), "utf8"));
  const options = project?.runtime?.options ?? {};
  return {
    ...(options.typescript === true ? { PULUMI_NODEJS_TYPESCRIPT: "true" } : {}),
    ...(typeof options.tsconfig === "string" ? { PULUMI_NODEJS_TSCONFIG_PATH: options.tsconfig } : {}),
  };
}

export async function runProgram(o: RunOptions): Promise<RunResult> {
  const plugin = new DynamicPlugin(o.env);
  const engine = new EngineStandIn({
    project: PROJECT,
    stack: o.stack,
    config: o.config,
    secretKeys: o.secretKeys,
    preview: o.preview,
    previous: o.previous,
    plugin,
    invoke: o.invoke,
  });
  const address = await engine.start();
  await plugin.start(address);
  try {
    const args = [
      RUN,
      `--monitor=${address}`,
      `--engine=${address}`,
      `--project=${PROJECT}`,
      `--stack=${o.stack}`,
      `--pwd=${PROJECT_DIR}`,
      `--root-directory=${PROJECT_DIR}`,
      "--organization=organization",
      "--parallel=16",
    ];
    if (o.preview) args.push("--dry-run");
    args.push(o.program ?? ".");
    const child = spawn(process.execPath, [...(o.nodeArgs ?? []), ...args], {
      cwd: PROJECT_DIR,
      env: {
        ...process.env,
        ...o.env,
        PULUMI_CONFIG: JSON.stringify(o.config),
        PULUMI_CONFIG_SECRET_KEYS: JSON.stringify(o.secretKeys),
        // What the Go language host sets from Pulumi.yaml's runtime options (pulumi-language-nodejs main.go:
        // `typescript` → PULUMI_NODEJS_TYPESCRIPT, `tsconfig` → PULUMI_NODEJS_TSCONFIG_PATH), so that the harness runs
        // the program exactly as configured (transpile-only because tsconfig.pulumi.json says noCheck).
        ...languageHostEnv(),
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    // The engine cancels the program when a step fails; without this the host waits out gRPC retries.
    engine.onError = () => setTimeout(() => child.kill(), 200);
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    const timeout = setTimeout(() => child.kill("SIGKILL"), o.timeoutMs ?? 120_000);
    const exitCode = await new Promise<number | null>((resolve) => child.on("exit", (c) => resolve(c)));
    clearTimeout(timeout);
    const state = exitCode === 0 ? await engine.finish() : { stack: o.stack, resources: o.previous?.resources ?? [] };
    const root = state.resources.find((r) => r.type === ROOT_STACK_TYPE);
    const outputs = root ? (engine.componentOutputs.get(root.urn) ?? {}) : {};
    return { exitCode, stdout, stderr, engine, state, pluginStderr: plugin.stderr.join(""), outputs };
  } finally {
    await plugin.stop();
    await engine.stop();
  }
}

/** The error messages the engine logged, one per line. */
export const errorsOf = (r: RunResult): string =>
  r.engine.logs
    .filter((l) => l.severity === "error")
    .map((l) => l.message)
    .join("\n");

/** The registrations of one resource type. */
export const declared = (r: RunResult, type: string) => r.engine.registrations.filter((x) => x.type === type);
