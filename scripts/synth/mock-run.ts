import * as pulumi from "@pulumi/pulumi";
import { RawConfig } from "../../stacks/load";
import { OFFLINE_ENV } from "../../stacks/offline";

/** One resource the program declared, as the engine would have received it. */
export interface DeclaredResource {
  type: string;
  name: string;
  urn: string;
  parent?: string;
  custom: boolean;
  inputs: Record<string, unknown>;
  /** URNs this resource waits for (`dependsOn`, explicit or through its inputs). */
  dependencies: string[];
}

export interface ProgramRun {
  resources: DeclaredResource[];
  /** The program's exports (stack outputs), resolved; secret ones flagged. */
  outputs: Record<string, { value: unknown; secret: boolean }>;
}

interface RegisterRequest {
  getType(): string;
  getName(): string;
  getParent(): string;
  getDependenciesList(): string[];
}
interface RegisterResponse {
  getUrn(): string;
}
type Callback = (err: unknown, resp?: RegisterResponse) => void;
interface MonitorLike {
  registerResource(req: RegisterRequest, cb: Callback): void;
}

/**
 * Runs the real program under Pulumi's mock runtime in preview mode: every resource is recorded with its inputs
 * and its parent, nothing is sent anywhere. Outputs of resources echo their inputs, as a fresh `up` would.
 */
export async function runProgram(programPath: string, project: string, stack: string, raw: RawConfig): Promise<ProgramRun> {
  process.env[OFFLINE_ENV] = "1";
  pulumi.runtime.setAllConfig({ ...raw.values }, [...raw.secretKeys]);
  const byKey = new Map<string, DeclaredResource>();
  await pulumi.runtime.setMocks(
    {
      newResource(args) {
        byKey.set(`${args.type}::${args.name}`, {
          type: args.type,
          name: args.name,
          urn: "",
          custom: args.custom ?? true,
          inputs: args.inputs as Record<string, unknown>,
          dependencies: [],
        });
        const meta = (args.inputs as { metadata?: { name?: string } }).metadata;
        return { id: meta?.name ?? `${args.name}-id`, state: args.inputs };
      },
      call(args) {
        throw new Error(`offline synth cannot call ${args.token}; the program must not look anything up when ${OFFLINE_ENV}=1`);
      },
    },
    project,
    stack,
    true,
  );
  // The mock monitor does not pass the parent to `newResource`; wrap it to learn the tree.
  const monitor = pulumi.runtime.getMonitor() as unknown as MonitorLike;
  const register = monitor.registerResource.bind(monitor);
  monitor.registerResource = (req, cb) =>
    register(req, (err, resp) => {
      const r = byKey.get(`${req.getType()}::${req.getName()}`);
      if (r && resp) {
        r.urn = resp.getUrn();
        r.parent = req.getParent() || undefined;
        r.dependencies = req.getDependenciesList();
      }
      cb(err, resp);
    });

  // A program exports its outputs, or (like index.ts, which discovers before declaring) an async function
  // returning them; Pulumi accepts both.
  const mod = require(programPath) as Record<string, unknown> | (() => Promise<Record<string, unknown>>);
  const exported = typeof mod === "function" ? await mod() : mod;
  const outputs: ProgramRun["outputs"] = {};
  for (const [k, v] of Object.entries(exported)) {
    if (pulumi.Output.isInstance(v)) {
      const o = v as pulumi.Output<unknown> & { promise(): Promise<unknown>; isSecret: Promise<boolean> };
      outputs[k] = { value: await o.promise(), secret: await o.isSecret };
    } else {
      outputs[k] = { value: v, secret: false };
    }
  }
  await pulumi.runtime.disconnect();
  return { resources: [...byKey.values()], outputs };
}
