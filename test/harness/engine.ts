/**
 * A stand-in for the Pulumi engine's side of a deployment, small enough to read: the `ResourceMonitor` and `Engine`
 * gRPC services the real Node language host (`@pulumi/pulumi/cmd/run`) talks to, a step generator that decides
 * create / update / replace / same / delete against the previous state, default-provider rules, aliases, and the
 * real dynamic-provider plugin for every `pulumi.dynamic.Resource`. Kubernetes objects are decided by the
 * pulumi-kubernetes rules in kube-rules.ts. Each rule cites the engine source it mirrors (pulumi/pulumi at the
 * snapshot noted in the README's harness section).
 */
import * as grpc from "@grpc/grpc-js";
import { Empty } from "google-protobuf/google/protobuf/empty_pb";
import { Struct } from "google-protobuf/google/protobuf/struct_pb";
import { DynamicPlugin } from "./dynamic-plugin";
import { kubeDiff, kubeProviderDiff, KubeDiff, providerOptions } from "./kube-rules";
import { containsUnknowns, markSecretOutputs, reveal, secret, UNKNOWN, WireMap } from "./wire";

const resrpc = require("@pulumi/pulumi/proto/resource_grpc_pb");
const resproto = require("@pulumi/pulumi/proto/resource_pb");
const engrpc = require("@pulumi/pulumi/proto/engine_grpc_pb");
const engproto = require("@pulumi/pulumi/proto/engine_pb");
const provproto = require("@pulumi/pulumi/proto/provider_pb");

export const ROOT_STACK_TYPE = "pulumi:pulumi:Stack";
export const DYNAMIC_PACKAGE = "pulumi-nodejs";

/** One resource as the engine keeps it in the checkpoint. */
export interface ResourceState {
  urn: string;
  type: string;
  name: string;
  custom: boolean;
  id: string;
  parent: string;
  /** `<provider urn>::<provider id>`, empty for components. */
  provider: string;
  inputs: WireMap;
  outputs: WireMap;
  dependencies: string[];
  additionalSecretOutputs: string[];
  /** The engine remembers a provider's `deleteBeforeReplace` answer for later replacements. */
  deleteBeforeReplace?: boolean;
}

export interface StackState {
  stack: string;
  resources: ResourceState[];
}

export type StepOp = "create" | "update" | "replace" | "same" | "delete" | "read" | "refresh";

export interface Step {
  op: StepOp;
  urn: string;
  type: string;
  /** For replacements: whether the old object was deleted before the new one was created. */
  deleteBeforeReplace?: boolean;
  /** The URN the resource had in the old state when an alias matched it. */
  aliasedFrom?: string;
  /** Paths the provider named for replacement, or changed keys for updates. */
  detail?: string[];
}

export interface Registration {
  urn: string;
  type: string;
  name: string;
  custom: boolean;
  parent: string;
  provider: string;
  dependencies: string[];
  aliases: unknown[];
  inputs: WireMap;
  additionalSecretOutputs: string[];
  deleteBeforeReplace: boolean;
  ignoreChanges: string[];
}

export interface LogEntry {
  severity: "debug" | "info" | "warning" | "error";
  message: string;
  urn: string;
}

export interface InvokeRecord {
  token: string;
  args: WireMap;
  provider: string;
}

/** Answers an invoke the way its provider would; throw to fail it (e.g. no credentials). */
export type InvokeHandler = (token: string, args: WireMap) => WireMap;

export interface EngineOptions {
  project: string;
  stack: string;
  /** Stack config as the CLI hands it to the language host: `ns:key` → string, decrypted, with secret keys. */
  config: Record<string, string>;
  secretKeys: string[];
  preview: boolean;
  previous?: StackState;
  plugin: DynamicPlugin;
  invoke?: InvokeHandler;
}

const SEVERITY = ["debug", "info", "warning", "error"] as const;

function grpcError(message: string): grpc.ServiceError {
  return Object.assign(new Error(message), {
    code: grpc.status.UNKNOWN,
    details: message,
    metadata: new grpc.Metadata(),
  });
}

function packageOf(type: string): string {
  return type.split(":")[0];
}

/** `urn.New` (sdk/go/common/resource/urn/urn.go): the parent's qualified type prefixes the type, except the root stack. */
export function makeUrn(
  stack: string,
  project: string,
  parentQualifiedType: string,
  type: string,
  name: string,
): string {
  const qualified =
    parentQualifiedType && parentQualifiedType !== ROOT_STACK_TYPE ? `${parentQualifiedType}$${type}` : type;
  return `urn:pulumi:${stack}::${project}::${qualified}::${name}`;
}

export function urnQualifiedType(urn: string): string {
  return urn.split("::")[2] ?? "";
}

export function urnName(urn: string): string {
  return urn.split("::").slice(3).join("::");
}

/**
 * The engine for one `pulumi preview` / `pulumi up` of one program run. Create with `start()`, run the language
 * host against `address`, then `finish()` to get the steps (deletes included) and the new state.
 */
export class EngineStandIn {
  readonly registrations: Registration[] = [];
  readonly steps: Step[] = [];
  readonly logs: LogEntry[] = [];
  readonly invokes: InvokeRecord[] = [];
  readonly componentOutputs = new Map<string, WireMap>();
  /** Errors the engine reported for a resource (the run fails with them). */
  readonly errors: string[] = [];
  private readonly news = new Map<string, ResourceState>();
  private readonly olds = new Map<string, ResourceState>();
  /** Old URNs claimed by an alias (step_generator.go `aliased`), and new URN → old URN (`aliases`). */
  private readonly aliased = new Map<string, string>();
  private readonly aliasOf = new Map<string, string>();
  private server?: grpc.Server;
  private rootUrn = "";
  private configured = false;
  address = "";
  /** Called on the first error; the real engine then cancels the program run. */
  onError?: () => void;

  constructor(private readonly opts: EngineOptions) {
    for (const r of opts.previous?.resources ?? []) this.olds.set(r.urn, r);
  }

  async start(): Promise<string> {
    this.server = new grpc.Server({ "grpc.max_receive_message_length": 400 << 20 });
    const wrap =
      <T>(fn: (req: T) => Promise<unknown> | unknown) =>
      (call: { request: T }, cb: (err: grpc.ServiceError | null, resp?: unknown) => void) => {
        Promise.resolve()
          .then(() => fn(call.request))
          .then(
            (resp) => cb(null, resp),
            (e: Error) => {
              this.errors.push(e.message);
              this.onError?.();
              cb(grpcError(e.message));
            },
          );
      };
    this.server.addService(resrpc.ResourceMonitorService, {
      supportsFeature: wrap((req: { getId(): string }) => this.supportsFeature(req.getId())),
      registerResource: wrap((req) => this.registerResource(req as never)),
      registerResourceOutputs: wrap((req: { getUrn(): string; getOutputs(): Struct | undefined }) => {
        this.componentOutputs.set(req.getUrn(), (req.getOutputs()?.toJavaScript() ?? {}) as WireMap);
        const s = this.news.get(req.getUrn());
        if (s) s.outputs = this.componentOutputs.get(req.getUrn()) ?? {};
        return new Empty();
      }),
      invoke: wrap((req) => this.invoke(req as never)),
      readResource: wrap((req: { getType(): string; getName(): string }) => {
        throw new Error(
          `the stand-in reads no existing resources (${req.getType()} ${req.getName()}); the program must not call .get()`,
        );
      }),
      call: wrap(() => {
        throw new Error("Call is not used by this program");
      }),
      signalAndWaitForShutdown: wrap(() => new Empty()),
      registerStackTransform: wrap(() => {
        throw new Error("transforms are not used by this program");
      }),
    });
    this.server.addService(engrpc.EngineService, {
      log: wrap((req: { getSeverity(): number; getMessage(): string; getUrn(): string }) => {
        this.logs.push({
          severity: SEVERITY[req.getSeverity()] ?? "info",
          message: req.getMessage(),
          urn: req.getUrn(),
        });
        return new Empty();
      }),
      getRootResource: wrap(() => {
        const resp = new engproto.GetRootResourceResponse();
        resp.setUrn(this.rootUrn);
        return resp;
      }),
      setRootResource: wrap((req: { getUrn(): string }) => {
        this.rootUrn = req.getUrn();
        return new engproto.SetRootResourceResponse();
      }),
    });
    const port = await new Promise<number>((resolve, reject) =>
      this.server?.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (err, p) =>
        err ? reject(err) : resolve(p),
      ),
    );
    this.address = `127.0.0.1:${port}`;
    return this.address;
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => (this.server ? this.server.tryShutdown(() => resolve()) : resolve()));
  }

  /**
   * The monitor's features (pkg/resource/deploy/source_eval.go `SupportsFeature`). Secrets, alias specs and
   * deletedWith are what the engine supports and this program may use; output values and resource references are
   * answered false so inputs arrive as plain values (the engine resolves them to the same values).
   */
  private supportsFeature(id: string) {
    const resp = new resproto.SupportsFeatureResponse();
    resp.setHassupport(["secrets", "aliasSpecs", "deletedWith", "additionalSecretOutputs"].includes(id));
    return resp;
  }

  private invoke(req: { getTok(): string; getArgs(): Struct | undefined; getProvider(): string }) {
    const token = req.getTok();
    const args = (req.getArgs()?.toJavaScript() ?? {}) as WireMap;
    this.invokes.push({ token, args, provider: req.getProvider() });
    const resp = new resproto.ResourceInvokeResponse();
    if (!this.opts.invoke) throw new Error(`Invoke ${token}: the provider needs credentials this run does not have`);
    resp.setReturn(Struct.fromJavaScript(this.opts.invoke(token, args) as never));
    return resp;
  }

  // ---- Default providers (pkg/resource/deploy/default_providers.go) ----

  /**
   * `shouldDenyRequest`: the package `pulumi` is always allowed; otherwise `pulumi:disable-default-providers`
   * (a JSON list) denies the named packages, or all with `*`.
   */
  private defaultProviderDenied(pkg: string): boolean {
    if (pkg === "pulumi") return false;
    const raw = this.opts.config["pulumi:disable-default-providers"];
    if (raw === undefined || raw === "") return false;
    const list = JSON.parse(raw) as string[];
    return list.some((s) => s.trim() === "*" || s.trim() === pkg);
  }

  private async defaultProvider(pkg: string, forUrn: string): Promise<string> {
    if (this.defaultProviderDenied(pkg)) {
      // The engine's diagnostic, word for word (diag.GetDefaultProviderDenied).
      throw new Error(`Default provider for '${pkg}' disabled. '${forUrn}' must use an explicit provider.`);
    }
    const urn = makeUrn(this.opts.stack, this.opts.project, "", `pulumi:providers:${pkg}`, "default");
    if (!this.news.has(urn)) {
      // For dynamic providers the package config is the whole stack config, namespaces kept (deploy/target.go
      // GetPackageConfig); that is what the default provider's inputs hold.
      const inputs = pkg === DYNAMIC_PACKAGE ? this.stackConfigWire() : {};
      const old = this.olds.get(urn);
      this.news.set(urn, {
        urn,
        type: `pulumi:providers:${pkg}`,
        name: "default",
        custom: true,
        id: old?.id ?? "default-provider-id",
        parent: "",
        provider: "",
        inputs,
        outputs: inputs,
        dependencies: [],
        additionalSecretOutputs: [],
      });
      this.steps.push({ op: old ? "same" : "create", urn, type: `pulumi:providers:${pkg}` });
    }
    return `${urn}::${this.news.get(urn)?.id}`;
  }

  /** The stack config as property values, secrets marked. */
  stackConfigWire(): WireMap {
    const out: WireMap = {};
    for (const [k, v] of Object.entries(this.opts.config)) out[k] = this.opts.secretKeys.includes(k) ? secret(v) : v;
    return out;
  }

  // ---- Aliases (pkg/resource/deploy/step_generator.go) ----

  private collapseAlias(
    name: string,
    type: string,
    parent: string,
    alias: {
      urn?: string;
      name?: string;
      type?: string;
      parent?: string;
      noParent?: boolean;
      stack?: string;
      project?: string;
    },
  ): string {
    if (alias.urn) return alias.urn;
    let parentUrn = alias.parent || parent;
    if (alias.parent && this.aliasOf.has(alias.parent)) parentUrn = this.aliasOf.get(alias.parent) ?? parentUrn;
    const parentType =
      alias.noParent || !parentUrn || urnQualifiedType(parentUrn) === ROOT_STACK_TYPE
        ? ""
        : urnQualifiedType(parentUrn);
    return makeUrn(
      alias.stack || this.opts.stack,
      alias.project || this.opts.project,
      parentType,
      alias.type || type,
      alias.name || name,
    );
  }

  /** `inheritedChildAlias`: a child named `<parent name><rest>` is also looked for as `<parent's old name><rest>`. */
  private inheritedChildAlias(childType: string, childName: string, parentName: string, parentAlias: string): string {
    const aliasName = childName.startsWith(parentName)
      ? urnName(parentAlias) + childName.slice(parentName.length)
      : childName;
    return makeUrn(this.opts.stack, this.opts.project, urnQualifiedType(parentAlias), childType, aliasName);
  }

  private generateAliases(name: string, type: string, parent: string, specs: ReturnType<typeof aliasSpecs>): string[] {
    const result: string[] = [];
    const add = (u: string) => !result.includes(u) && result.push(u);
    for (const a of specs) add(this.collapseAlias(name, type, parent, a));
    const parentAlias = parent ? this.aliasOf.get(parent) : undefined;
    if (parent && parentAlias) {
      add(this.inheritedChildAlias(type, name, urnName(parent), parentAlias));
      for (const a of specs) {
        const child = this.collapseAlias(name, type, parent, a);
        add(
          this.inheritedChildAlias(
            urnQualifiedType(child).split("$").pop() ?? type,
            urnName(child),
            urnName(parent),
            parentAlias,
          ),
        );
      }
    }
    return result;
  }

  /** `getOldResource`: by URN first, then by aliases; an alias may be claimed once. */
  private findOld(
    urn: string,
    name: string,
    type: string,
    parent: string,
    specs: ReturnType<typeof aliasSpecs>,
  ): { old?: ResourceState; alias?: string } {
    if (this.olds.has(urn)) return { old: this.olds.get(urn) };
    for (const a of this.generateAliases(name, type, parent, specs)) {
      const old = this.olds.get(a);
      if (!old) continue;
      if (this.news.has(a))
        throw new Error(
          `Duplicate resource alias '${a}' applied to resource with URN '${urn}' conflicting with resource with URN '${a}'`,
        );
      if (this.aliased.has(a))
        throw new Error(
          `Duplicate resource alias '${a}' applied to resource with URN '${urn}' conflicting with resource with URN '${this.aliased.get(a)}'`,
        );
      this.aliased.set(a, urn);
      this.aliasOf.set(urn, a);
      return { old, alias: a };
    }
    return {};
  }

  // ---- RegisterResource ----

  private async registerResource(req: RegisterRequest) {
    const type = req.getType();
    const name = req.getName();
    const custom = req.getCustom();
    const parent = req.getParent();
    const parentState = parent ? this.news.get(parent) : undefined;
    if (parent && !parentState) throw new Error(`unknown parent ${parent} for ${type} ${name}`);
    const urn = makeUrn(this.opts.stack, this.opts.project, parent ? urnQualifiedType(parent) : "", type, name);
    if (this.news.has(urn)) {
      throw new Error(`Duplicate resource URN '${urn}'; try giving it a unique name`); // diag.GetDuplicateResourceURNError
    }
    const inputs = (req.getObject()?.toJavaScript() ?? {}) as WireMap;
    const reg: Registration = {
      urn,
      type,
      name,
      custom,
      parent,
      provider: req.getProvider(),
      dependencies: req.getDependenciesList(),
      aliases: aliasSpecs(req),
      inputs,
      additionalSecretOutputs: req.getAdditionalsecretoutputsList(),
      deleteBeforeReplace: req.getDeletebeforereplace(),
      ignoreChanges: req.getIgnorechangesList(),
    };
    this.registrations.push(reg);
    const { old, alias } = this.findOld(urn, name, type, parent, aliasSpecs(req));
    if (type === ROOT_STACK_TYPE) this.rootUrn = urn;

    let provider = reg.provider;
    if (custom && !type.startsWith("pulumi:providers:") && !provider)
      provider = await this.defaultProvider(packageOf(type), urn);
    const base = {
      urn,
      type,
      name,
      custom,
      parent,
      provider,
      dependencies: reg.dependencies,
      additionalSecretOutputs: reg.additionalSecretOutputs,
    };

    let state: ResourceState;
    if (!custom) {
      state = { ...base, id: "", inputs, outputs: old?.outputs ?? {} };
      this.steps.push({ op: old ? "same" : "create", urn, type, aliasedFrom: alias });
    } else {
      state = await this.customStep(base, inputs, old, alias, reg);
    }
    this.news.set(urn, state);
    const resp = new resproto.RegisterResourceResponse();
    resp.setUrn(urn);
    resp.setId(state.id === UNKNOWN ? "" : state.id);
    resp.setObject(Struct.fromJavaScript(state.outputs as never));
    resp.setStable(false);
    // At preview an unknown result keeps unknowns (runtime/resource.ts resolveOutputs `keepUnknowns`).
    resp.setResult(
      this.opts.preview && containsUnknowns(state.outputs) ? resproto.Result.SKIP : resproto.Result.SUCCESS,
    );
    return resp;
  }

  private async customStep(
    base: Omit<ResourceState, "id" | "inputs" | "outputs">,
    news: WireMap,
    old: ResourceState | undefined,
    alias: string | undefined,
    reg: Registration,
  ): Promise<ResourceState> {
    const { urn, type } = base;
    const kind = type.startsWith("pulumi:providers:")
      ? "provider"
      : packageOf(type) === DYNAMIC_PACKAGE
        ? "dynamic"
        : packageOf(type) === "kubernetes"
          ? "kubernetes"
          : CLOUD_PACKAGES.includes(packageOf(type))
            ? "cloud"
            : "other";
    let inputs = news;
    if (kind === "dynamic") {
      await this.ensureConfigured();
      const checked = await this.opts.plugin.check(urn, old?.inputs ?? {}, news);
      if (checked.failures.length > 0)
        throw new Error(`${urn}: ${checked.failures.map((f) => `${f.property}: ${f.reason}`).join("; ")}`);
      inputs = checked.inputs;
    }
    if (kind === "other") throw new Error(`${urn}: no provider for package '${packageOf(type)}' in this stand-in`);

    if (!old) {
      const created = await this.create(kind, urn, inputs, base.additionalSecretOutputs);
      this.steps.push({ op: "create", urn, type });
      return { ...base, ...created, inputs };
    }

    const d = await this.diff(kind, urn, old, inputs, reg);
    if (d.replaces.length > 0) {
      const dbr = reg.deleteBeforeReplace || d.deleteBeforeReplace;
      // Replacement: create-then-delete, unless the provider or the program asks delete-before-replace
      // (step_generator.go generateSteps). The old object is deleted now, since nothing else holds it.
      if (dbr) await this.deleteOne(old);
      const created = await this.create(kind, urn, inputs, base.additionalSecretOutputs);
      if (!dbr) await this.deleteOne(old);
      this.steps.push({ op: "replace", urn, type, deleteBeforeReplace: dbr, aliasedFrom: alias, detail: d.replaces });
      return { ...base, ...created, inputs };
    }
    if (d.changes) {
      const outputs = await this.update(kind, urn, old, inputs, base.additionalSecretOutputs);
      this.steps.push({ op: "update", urn, type, aliasedFrom: alias });
      return { ...base, id: old.id, inputs, outputs };
    }
    this.steps.push({ op: "same", urn, type, aliasedFrom: alias });
    return { ...base, id: old.id, inputs, outputs: old.outputs };
  }

  private async ensureConfigured(): Promise<void> {
    if (this.configured) return;
    const r = await this.opts.plugin.configure(this.stackConfigWire());
    if (r.acceptSecrets) throw new Error("the dynamic-provider host now accepts secrets: revisit wire.ts marshalling");
    this.configured = true;
  }

  private async diff(
    kind: string,
    urn: string,
    old: ResourceState,
    inputs: WireMap,
    reg: Registration,
  ): Promise<KubeDiff> {
    if (kind === "dynamic") return this.opts.plugin.diff(urn, old.id, old.outputs, inputs);
    if (kind === "provider") return kubeProviderDiff(old.inputs, inputs);
    if (kind === "cloud") throw new Error(`${urn}: this stand-in previews new cloud resources only`);
    const opts = providerOptions(this.providerInputs(reg.provider));
    const d = kubeDiff(old.inputs, inputs, opts, reg.type.endsWith("Patch"));
    const ignored = reg.ignoreChanges.map((p) => "." + p);
    return { ...d, replaces: d.replaces.filter((p) => !ignored.some((i) => p.startsWith(i))) };
  }

  private providerInputs(ref: string): WireMap | undefined {
    const urn = ref.split("::").slice(0, -1).join("::");
    return this.news.get(urn)?.inputs;
  }

  private async create(
    kind: string,
    urn: string,
    inputs: WireMap,
    secretOuts: string[],
  ): Promise<{ id: string; outputs: WireMap }> {
    const preview = this.opts.preview;
    if (kind === "dynamic") {
      await this.ensureConfigured();
      // Preview: the host does not support provider previews, so the engine hands back the inputs
      // (provider_plugin.go Create, `!protocol.supportsPreview`).
      if (preview) return { id: UNKNOWN, outputs: markSecretOutputs(inputs, secretOuts) };
      const r = await this.opts.plugin.create(urn, inputs);
      return { id: r.id, outputs: markSecretOutputs(r.outputs, secretOuts) };
    }
    if (kind === "provider") return { id: preview ? UNKNOWN : `provider-${Math.abs(hash(urn))}`, outputs: inputs };
    if (kind === "cloud") {
      // A cloud VM is only ever previewed here: its inputs come back with what the provider computes left unknown.
      if (!preview) throw new Error(`${urn}: this stand-in previews cloud resources only`);
      return { id: UNKNOWN, outputs: markSecretOutputs({ ...inputs, ...computedUnknowns(urn) }, secretOuts) };
    }
    const meta = (reveal(inputs) as { metadata?: { name?: string; namespace?: string } }).metadata;
    const id = meta?.name ? (meta.namespace ? `${meta.namespace}/${meta.name}` : meta.name) : UNKNOWN;
    return { id: preview ? UNKNOWN : id, outputs: markSecretOutputs(inputs, secretOuts) };
  }

  private async update(
    kind: string,
    urn: string,
    old: ResourceState,
    inputs: WireMap,
    secretOuts: string[],
  ): Promise<WireMap> {
    if (kind === "dynamic" && !this.opts.preview)
      return markSecretOutputs(await this.opts.plugin.update(urn, old.id, old.outputs, inputs), secretOuts);
    return markSecretOutputs(inputs, secretOuts);
  }

  private async deleteOne(r: ResourceState): Promise<void> {
    if (!this.opts.preview && r.custom && packageOf(r.type) === DYNAMIC_PACKAGE) {
      await this.ensureConfigured();
      await this.opts.plugin.delete(r.urn, r.id, r.outputs);
    }
  }

  /**
   * After the program exits: every old resource nobody registered (directly or through an alias) is deleted,
   * dependents before what they depend on (pkg/resource/deploy/deployment_executor.go, the delete pass in reverse
   * dependency order).
   */
  async finish(): Promise<StackState> {
    const gone = [...this.olds.values()].filter((r) => !this.news.has(r.urn) && !this.aliased.has(r.urn));
    for (const r of deleteOrder(gone)) {
      await this.deleteOne(r);
      this.steps.push({ op: "delete", urn: r.urn, type: r.type });
    }
    return { stack: this.opts.stack, resources: [...this.news.values()] };
  }
}

/** Reverse topological order over dependencies, parents and providers: dependents first. */
export function deleteOrder(resources: ResourceState[]): ResourceState[] {
  const byUrn = new Map(resources.map((r) => [r.urn, r]));
  const dependsOn = (r: ResourceState) =>
    [...r.dependencies, r.parent, r.provider.split("::").slice(0, -1).join("::")].filter((u) => byUrn.has(u));
  const done = new Set<string>();
  const order: ResourceState[] = [];
  const visit = (r: ResourceState, stack: Set<string>) => {
    if (done.has(r.urn) || stack.has(r.urn)) return;
    stack.add(r.urn);
    for (const d of dependsOn(r)) visit(byUrn.get(d) as ResourceState, stack);
    done.add(r.urn);
    order.push(r);
  };
  for (const r of resources) visit(r, new Set());
  return order.reverse();
}

function hash(s: string): number {
  let h = 0;
  for (const c of s) h = (h * 31 + c.charCodeAt(0)) | 0;
  return h;
}

interface RegisterRequest {
  getType(): string;
  getName(): string;
  getCustom(): boolean;
  getParent(): string;
  getProvider(): string;
  getObject(): Struct | undefined;
  getDependenciesList(): string[];
  getAliasesList(): { getUrn(): string; getSpec(): AliasSpecProto | undefined }[];
  getAdditionalsecretoutputsList(): string[];
  getDeletebeforereplace(): boolean;
  getIgnorechangesList(): string[];
}
interface AliasSpecProto {
  getName(): string;
  getType(): string;
  getStack(): string;
  getProject(): string;
  getParenturn(): string;
  getNoparent(): boolean;
}

function aliasSpecs(req: RegisterRequest) {
  return req.getAliasesList().map((a) => {
    const s = a.getSpec();
    if (!s) return { urn: a.getUrn() };
    return {
      name: s.getName(),
      type: s.getType(),
      stack: s.getStack(),
      project: s.getProject(),
      parent: s.getParenturn(),
      noParent: s.getNoparent(),
    };
  });
}

export { provproto };

/** Cloud packages whose resources this stand-in previews (created only, never updated or deleted here). */
const CLOUD_PACKAGES = ["aws", "azure-native"];

/**
 * What a cloud provider's preview leaves unknown that the program reads: the addresses the VMs get (pulumi-aws schema
 * `aws:ec2/instance:Instance` output `privateIp`; azure-native `network:NetworkInterface` output
 * `ipConfigurations[].privateIPAddress`, computed with Dynamic allocation).
 */
function computedUnknowns(urn: string): WireMap {
  if (urn.includes("aws:ec2/instance:Instance::")) return { privateIp: UNKNOWN };
  if (urn.includes("azure-native:network:NetworkInterface::")) return { ipConfigurations: UNKNOWN };
  return {};
}
