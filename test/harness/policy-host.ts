/**
 * The policy pack under the real policy-pack host (`@pulumi/pulumi/cmd/run-policy-pack`, what
 * `pulumi preview --policy-pack policy` starts), called over gRPC with recorded resources as the engine calls it.
 */
import { ChildProcess, spawn } from "child_process";
import * as path from "path";
import * as grpc from "@grpc/grpc-js";
import { Struct } from "google-protobuf/google/protobuf/struct_pb";
import { PROJECT_DIR, stopServer } from "./dynamic-plugin";
import { ResourceState } from "./engine";
import { reveal, WireMap } from "./wire";

const anrpc = require("@pulumi/pulumi/proto/analyzer_grpc_pb");
const anproto = require("@pulumi/pulumi/proto/analyzer_pb");
const HOST = require.resolve("@pulumi/pulumi/cmd/run-policy-pack");

export interface Violation {
  policy: string;
  message: string;
  urn: string;
  enforcement: number;
}

type Client = Record<
  string,
  (req: unknown, cb: (err: grpc.ServiceError | null, resp: { getDiagnosticsList(): DiagnosticProto[] }) => void) => void
>;
interface DiagnosticProto {
  getPolicyname(): string;
  getMessage(): string;
  getUrn(): string;
  getEnforcementlevel(): number;
}

/** The resource options the engine sends with every resource (the policy SDK requires them). */
function options(r: ResourceState): unknown {
  const o = new anproto.AnalyzerResourceOptions();
  o.setProtect(false);
  o.setAdditionalsecretoutputsList(r.additionalSecretOutputs);
  return o;
}

export class PolicyHost {
  private proc?: ChildProcess;
  private client?: Client;
  stderr = "";

  async start(engineAddress = "127.0.0.1:1"): Promise<void> {
    this.proc = spawn(process.execPath, [HOST, engineAddress, "."], {
      cwd: path.join(PROJECT_DIR, "policy"),
      env: { ...process.env, PULUMI_NODEJS_TRANSPILE_ONLY: "true" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    this.proc.stderr?.on("data", (d: Buffer) => (this.stderr += d.toString()));
    const port = await new Promise<string>((resolve, reject) => {
      let out = "";
      this.proc?.stdout?.on("data", (d: Buffer) => {
        out += d.toString();
        const m = /^(\d+)\s*$/m.exec(out);
        if (m) resolve(m[1]);
      });
      this.proc?.once("exit", (code) =>
        reject(new Error(`the policy pack did not start (exit ${code}): ${this.stderr.slice(-2000)}`)),
      );
    });
    this.client = new anrpc.AnalyzerClient(`127.0.0.1:${port}`, grpc.credentials.createInsecure()) as Client;
  }

  async stop(): Promise<void> {
    await stopServer(this.client as unknown as grpc.Client | undefined, this.proc);
  }

  private call(method: string, req: unknown): Promise<Violation[]> {
    return new Promise((resolve, reject) =>
      this.client?.[method](req, (err, resp) =>
        err
          ? reject(new Error(`${method}: ${err.details}`))
          : resolve(
              resp.getDiagnosticsList().map((d) => ({
                policy: d.getPolicyname(),
                message: d.getMessage(),
                urn: d.getUrn(),
                enforcement: d.getEnforcementlevel(),
              })),
            ),
      ),
    );
  }

  /** `Analyze` per resource, with its inputs as the engine sends them (secrets revealed to the analyzer). */
  async analyze(r: ResourceState): Promise<Violation[]> {
    const req = new anproto.AnalyzeRequest();
    req.setType(r.type);
    req.setUrn(r.urn);
    req.setName(r.name);
    req.setProperties(Struct.fromJavaScript(reveal(r.inputs) as never));
    req.setOptions(options(r));
    return (await this.call("analyze", req)).map((v) => ({ ...v, urn: v.urn || r.urn }));
  }

  async analyzeStack(resources: ResourceState[]): Promise<Violation[]> {
    const req = new anproto.AnalyzeStackRequest();
    req.setResourcesList(
      resources.map((r) => {
        const a = new anproto.AnalyzerResource();
        a.setType(r.type);
        a.setUrn(r.urn);
        a.setName(r.name);
        a.setProperties(Struct.fromJavaScript(reveal(r.outputs as WireMap) as never));
        a.setParent(r.parent);
        a.setOptions(options(r));
        a.setDependenciesList(r.dependencies);
        return a;
      }),
    );
    return this.call("analyzeStack", req);
  }
}
