/**
 * The real dynamic-provider plugin (`@pulumi/pulumi/cmd/dynamic-provider`, what the engine starts as
 * `pulumi-resource-pulumi-nodejs`), started in the project directory and called over gRPC as the engine calls it.
 */
import { ChildProcess, spawn } from "child_process";
import * as path from "path";
import * as grpc from "@grpc/grpc-js";
import { Struct } from "google-protobuf/google/protobuf/struct_pb";
import { annotateSecrets, reveal, UNKNOWN, WireMap } from "./wire";

const provrpc = require("@pulumi/pulumi/proto/provider_grpc_pb");
const provproto = require("@pulumi/pulumi/proto/provider_pb");

export const PROJECT_DIR = path.resolve(__dirname, "..", "..");
const PLUGIN = require.resolve("@pulumi/pulumi/cmd/dynamic-provider");

export interface DiffResult {
  changes: boolean;
  replaces: string[];
  deleteBeforeReplace: boolean;
}

type Client = Record<
  string,
  (req: unknown, cb: (err: grpc.ServiceError | null, resp: Record<string, () => unknown>) => void) => void
>;

/** Closes a gRPC client and ends the plugin process that served it. */
export async function stopServer(client: grpc.Client | undefined, proc: ChildProcess | undefined): Promise<void> {
  client?.close();
  if (proc && proc.exitCode === null) {
    const exited = new Promise((r) => proc.once("exit", r));
    proc.kill();
    await exited;
  }
}

function toStruct(v: WireMap): unknown {
  return Struct.fromJavaScript(v as never);
}

/**
 * One plugin process. Values are sent as the engine marshals them for a provider that answered
 * `acceptSecrets: false` (pkg/resource/plugin/provider_plugin.go: secrets stripped; unknowns kept only at preview),
 * and secretness is restored on what comes back with `annotateSecrets`.
 */
export class DynamicPlugin {
  private proc?: ChildProcess;
  private client?: Client;
  readonly stderr: string[] = [];

  constructor(private readonly env: NodeJS.ProcessEnv = {}) {}

  async start(engineAddress: string): Promise<void> {
    this.proc = spawn(process.execPath, [PLUGIN, engineAddress], {
      cwd: PROJECT_DIR,
      env: { ...process.env, ...this.env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    this.proc.stderr?.on("data", (d: Buffer) => this.stderr.push(d.toString()));
    const port = await new Promise<string>((resolve, reject) => {
      let out = "";
      this.proc?.stdout?.on("data", (d: Buffer) => {
        out += d.toString();
        const line = out.split("\n")[0].trim();
        if (out.includes("\n") && /^\d+$/.test(line)) resolve(line);
      });
      this.proc?.once("exit", (code) =>
        reject(new Error(`dynamic-provider plugin exited with ${code}: ${this.stderr.join("")}`)),
      );
    });
    this.client = new provrpc.ResourceProviderClient(`127.0.0.1:${port}`, grpc.credentials.createInsecure()) as Client;
  }

  async stop(): Promise<void> {
    await stopServer(this.client as unknown as grpc.Client | undefined, this.proc);
  }

  private call(method: string, req: unknown): Promise<Record<string, () => unknown>> {
    return new Promise((resolve, reject) => {
      if (!this.client) return reject(new Error("plugin not started"));
      this.client[method](req, (err, resp) =>
        err ? reject(new Error(`${method}: ${err.details || err.message}`)) : resolve(resp),
      );
    });
  }

  /** Configure with the package config; for dynamic providers that is the whole stack config (GetPackageConfig). */
  async configure(config: WireMap): Promise<{ acceptSecrets: boolean; supportsPreview: boolean }> {
    const req = new provproto.ConfigureRequest();
    req.setArgs(toStruct(config));
    const resp = await this.call("configure", req);
    return { acceptSecrets: resp.getAcceptsecrets() as boolean, supportsPreview: resp.getSupportspreview() as boolean };
  }

  async check(
    urn: string,
    olds: WireMap,
    news: WireMap,
  ): Promise<{ inputs: WireMap; failures: { property: string; reason: string }[] }> {
    const req = new provproto.CheckRequest();
    req.setUrn(urn);
    req.setOlds(toStruct(reveal(olds) as WireMap));
    req.setNews(toStruct(reveal(news) as WireMap));
    const resp = await this.call("check", req);
    const inputs = (resp.getInputs() as Struct).toJavaScript() as WireMap;
    const failures = (resp.getFailuresList() as { getProperty(): string; getReason(): string }[]).map((f) => ({
      property: f.getProperty(),
      reason: f.getReason(),
    }));
    return { inputs: annotateSecrets(inputs, news), failures };
  }

  /** Diff and Update carry the same four fields (provider.proto DiffRequest, UpdateRequest). */
  private change(method: "diff" | "update", urn: string, id: string, olds: WireMap, news: WireMap) {
    const req = method === "diff" ? new provproto.DiffRequest() : new provproto.UpdateRequest();
    req.setUrn(urn);
    req.setId(id);
    req.setOlds(toStruct(reveal(olds) as WireMap));
    req.setNews(toStruct(reveal(news) as WireMap));
    return this.call(method, req);
  }

  async diff(urn: string, id: string, olds: WireMap, news: WireMap): Promise<DiffResult> {
    const resp = await this.change("diff", urn, id, olds, news);
    const changes = resp.getChanges() as number;
    const replaces = resp.getReplacesList() as string[];
    // DIFF_UNKNOWN (0): the engine falls back to comparing inputs; the SDK's host never answers it when diff exists.
    return {
      changes: changes === provproto.DiffResponse.DiffChanges.DIFF_SOME || replaces.length > 0,
      replaces,
      deleteBeforeReplace: resp.getDeletebeforereplace() as boolean,
    };
  }

  async create(urn: string, inputs: WireMap): Promise<{ id: string; outputs: WireMap }> {
    const req = new provproto.CreateRequest();
    req.setUrn(urn);
    req.setProperties(toStruct(reveal(inputs) as WireMap));
    const resp = await this.call("create", req);
    return {
      id: resp.getId() as string,
      outputs: annotateSecrets((resp.getProperties() as Struct).toJavaScript() as WireMap, inputs),
    };
  }

  async read(
    urn: string,
    id: string,
    state: WireMap,
    inputs: WireMap,
  ): Promise<{ id: string; outputs: WireMap; inputs?: WireMap }> {
    const req = new provproto.ReadRequest();
    req.setUrn(urn);
    req.setId(id);
    req.setProperties(toStruct(reveal(state) as WireMap));
    req.setInputs(toStruct(reveal(inputs) as WireMap));
    const resp = await this.call("read", req);
    const newInputs = resp.getInputs() as Struct | undefined;
    return {
      id: resp.getId() as string,
      outputs: annotateSecrets((resp.getProperties() as Struct).toJavaScript() as WireMap, state),
      inputs: newInputs ? annotateSecrets(newInputs.toJavaScript() as WireMap, inputs) : undefined,
    };
  }

  async update(urn: string, id: string, olds: WireMap, news: WireMap): Promise<WireMap> {
    const resp = await this.change("update", urn, id, olds, news);
    return annotateSecrets((resp.getProperties() as Struct).toJavaScript() as WireMap, news);
  }

  async delete(urn: string, id: string, state: WireMap): Promise<void> {
    const req = new provproto.DeleteRequest();
    req.setUrn(urn);
    req.setId(id);
    req.setProperties(toStruct(reveal(state) as WireMap));
    await this.call("delete", req);
  }
}

export { UNKNOWN };
