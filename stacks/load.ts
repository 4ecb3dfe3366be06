import * as fs from "fs";
import * as path from "path";
import { z } from "zod";
import { KeyRejected, ParsedKey, parsePrivateKey } from "./key";
import { Audience, ConfigIssue, formatIssue, formatIssues, worded } from "./config-issue";
import { defaultProviderIssue, DISABLE_DEFAULT_PROVIDERS } from "./default-providers";
import { namespaceTypos } from "./namespace";
import { suggest } from "./did-you-mean";
import { UNDECRYPTED_SECRET } from "./offline";
import {
  componentKeys,
  isComponentKey,
  isTopLevelKey,
  NAMESPACE,
  OPTIONAL_KEYS,
  TOP_LEVEL_KEY_NAMES,
  TOP_LEVEL_KEYS,
  TopLevelKey,
} from "./schema";
import { codeOf } from "../lib/errors";
import { get, objects, strings } from "../lib/json";
import { expandHome } from "../lib/paths";
import { ByohHostConfig } from "./schema/byoh";
import { asOpenShift, ClusterConfig, isVanilla, OpenShiftClusterConfig } from "./schema/cluster";
import { KubernetesConfig, VanillaNodeConfig } from "./schema/kubernetes";
import { NodeAccessConfig, PatchingConfig, RebootConfig } from "./schema/day2";
import { MachineSetConfig } from "./schema/machinesets";
import { MirrorsConfigInput } from "./schema/mirrors";
import { OperatorConfig } from "./schema/operator";
import { absentValue, coerceIntegers, fromZodIssues, unwrap } from "./zod-issues";

/** The WMCO private key after validation. `pem` is only ever handed to Pulumi as a secret. */
export interface PrivateKeyConfig {
  /** Which config key supplied it, for messages. */
  from: "privateKey" | "privateKeyPath";
  pem: string;
  /** Undefined when the key could not be read offline (an encrypted `secure:` value under synth). */
  parsed?: ParsedKey;
}

/** A Windows node as discovery saw it (providers/day2/inventory.ts reads it from the API objects). */
export interface DiscoveredNode {
  name: string;
  address?: string;
  build?: string;
  /** `MachineSet <name>`, `BYOH <address>` or `other`. */
  from: string;
  /** Digest of the reboot token this node was last rebooted for. */
  rebootedFor?: string;
  labels: Record<string, string>;
  /** The Machine it came from (`<namespace>/<name>`), for MachineSet nodes. */
  machine?: string;
  /** What the kubelet reports (`status.nodeInfo`): `10.0.<build>.<UBR>`, product name, versions. */
  kernelVersion?: string;
  osImage?: string;
  kubeletVersion?: string;
  containerRuntimeVersion?: string;
  unschedulable?: boolean;
}

/** One typed, validated view of a stack's `windows-estate:*` config, defaults applied. */
export interface EstateConfig {
  cluster: OpenShiftClusterConfig & { discovery: boolean; clusterIdentifier: string };
  operator: OperatorConfig;
  privateKey: PrivateKeyConfig;
  machineSets: MachineSetConfig[];
  mirrors: MirrorsConfigInput;
  byoh: ByohHostConfig[];
  /** Whether and how long `pulumi up` waits for WMCO to configure the Windows nodes. */
  waitForNodes: { enabled: boolean; timeoutSeconds: number };
  /** How node operations reach Windows nodes. */
  nodeAccess: NodeAccessConfig;
  /** The rolling reboot asked for, if any. */
  reboot?: RebootConfig;
  /** The patch level declared for the BYOH hosts, if any. */
  patching?: PatchingConfig;
  /** Registries the cluster's pull secret has credentials for (filled by discovery; never the credentials). */
  registriesWithCredentials?: string[];
  /** What discovery learned about the cluster beyond MachineSet values (undefined without discovery). */
  discovered?: {
    /** The cluster-wide proxy WMCO applies to Windows nodes, credentials removed. */
    proxy?: { httpProxy?: string; httpsProxy?: string; noProxy?: string; trustedCA?: string };
    /** Every IDMS/ITMS in the cluster, as WMCO merges them into hosts.toml. */
    mirrorSets?: { idms: unknown[]; itms: unknown[] };
    /** Which WMCO the support rules were checked against, and why. */
    wmco?: string;
    /** The cluster's Windows nodes (day-2 inventory), when a day-2 operation needs them. */
    windowsNodes?: DiscoveredNode[];
    /** The cluster's RuntimeClasses: name and node selector. */
    runtimeClasses?: { name: string; nodeSelector: Record<string, string> }[];
    /** The Machine API's Machines: name, MachineSet, and the image each boots (for image rollouts). */
    machines?: { name: string; machineSet: string; image: string; deleting: boolean; marked?: boolean }[];
    /** `spec.replicas` of each MachineSet by name (a surge rollout under way keeps the live value declared). */
    machineSetReplicas?: Record<string, number>;
    /** How many Linux nodes the node relay can be scheduled on (components/node-access/placement.ts). */
    relayNodes?: number;
  };
  /** Things worth saying that do not stop the run. */
  warnings: ConfigIssue[];
}

/** A vanilla Kubernetes stack (`cluster.platform: Kubernetes`): no WMCO; Windows nodes joined by this program. */
export interface VanillaEstateConfig {
  cluster: Omit<ClusterConfig, "platform" | "infrastructureId"> & {
    platform: "Kubernetes";
    /** A name for the cluster in object names: `cluster.infrastructureId`, default the stack name. */
    infrastructureId: string;
    discovery: boolean;
    clusterIdentifier: string;
  };
  kubernetes: KubernetesConfig;
  nodes: VanillaNodeConfig[];
  /** The SSH key the nodes authorize (the same keys as the WMCO key: `privateKey`/`privateKeyPath`). */
  privateKey: PrivateKeyConfig;
  mirrors: MirrorsConfigInput;
  nodeAccess: NodeAccessConfig;
  reboot?: RebootConfig;
  /** The patch level declared for the nodes, if any. */
  patching?: PatchingConfig;
  /** What discovery read from the cluster (version, networks, API endpoint). */
  discovered?: Pick<NonNullable<EstateConfig["discovered"]>, "windowsNodes" | "runtimeClasses">;
  warnings: ConfigIssue[];
}

/** Either kind of stack, told apart by `cluster.platform`. */
export type AnyEstateConfig = EstateConfig | VanillaEstateConfig;

export function isVanillaConfig(c: AnyEstateConfig): c is VanillaEstateConfig {
  return c.cluster.platform === "Kubernetes";
}

/** The stack's raw config as Pulumi hands it to a program: `namespace:key` → string (objects as JSON). */
export interface RawConfig {
  values: Readonly<Record<string, string>>;
  secretKeys: ReadonlySet<string>;
}

/**
 * What the loader reads: each top-level key's value, decoded once (a stack's JSON text, or a component's args as
 * given: stacks/from-args.ts), and what the reader knows beside them.
 */
export interface KeyValues {
  values: Partial<Record<TopLevelKey, unknown>>;
  /** Fully qualified config keys holding secrets (`windows-estate:privateKey` when the key is one; BYOH passwords). */
  secretKeys: ReadonlySet<string>;
  /** The text of a secret config key of this namespace (ValidatorContext.secretText). */
  secretText(key: string): string | undefined;
  /** Problems around the keys (the stack file, other namespaces, unknown keys), listed first. */
  issues: readonly ConfigIssue[];
}

/**
 * Who reads a component's args, with what it knows around them: a library user (argsReader, the default: the host's
 * secret keys), or a stack's user through the program (stacks/from-pulumi.ts argsFromStack: the stack config's
 * secrets and problems). Each reads the problems with keys named its own way (Audience).
 */
export type Reader = Omit<KeyValues, "values"> & { audience: Audience };

interface LoadOptions {
  /** The stack's name: a vanilla cluster's default `infrastructureId`. Default `kubernetes`. */
  stackName?: string;
  /** Directory relative `privateKeyPath`s are resolved against (the Pulumi project directory). */
  projectDir: string;
  /** True under synth: nothing can be asked of a cluster, so discovery is off. */
  offline: boolean;
  /**
   * The domain checks to run once keys have the right shape (components/validators.ts). Passed in: the config layer
   * knows no domain rules, and a caller cannot forget to register them.
   */
  validators: readonly Validator[];
  /** Problems with the stack file itself (stacks/stack-file-shape.ts), listed with the config's own. */
  stackFileIssues?: readonly ConfigIssue[];
}

/** Whether missing values may still come from the cluster at `pulumi preview/up`: on, unless offline or rendering. */
export function discoveryEnabled(cluster: Pick<ClusterConfig, "render" | "discovery">, offline: boolean): boolean {
  return !offline && (cluster.discovery ?? cluster.render === undefined);
}

/** Every problem in a stack's config, found before anything is declared. */
export class ConfigErrors extends Error {
  constructor(readonly issues: ConfigIssue[]) {
    super(formatIssues(issues));
    this.name = "ConfigErrors";
  }
}

export { formatIssue };

/** A semantic check that runs once a key has the right shape; it sees every key that parsed. */
export type Validator = (
  cfg: Partial<ParsedKeys>,
  ctx: ValidatorContext,
) => { errors: ConfigIssue[]; warnings?: ConfigIssue[] };
interface ValidatorContext {
  offline: boolean;
  /** Fully qualified config keys holding secrets (`windows-estate:byohPassword`). */
  secretKeys: ReadonlySet<string>;
  /** The WMCO key's public half, when it could be read (not under synth with an encrypted key). */
  wmcoKey?: ParsedKey;
  /**
   * The text of a secret config key of this namespace (`byohAdminPassword`) for a check of its form, undefined when it
   * is not set or not decrypted (synth). A check must never put it in a message.
   */
  secretText(key: string): string | undefined;
}
export type ParsedKeys = { [K in TopLevelKey]: z.output<(typeof TOP_LEVEL_KEYS)[K]["schema"]> };
/** The table again, typed so that a key's schema and its parsed value stay paired where the key is generic. */
const KEY_SCHEMAS: { [K in TopLevelKey]: { schema: z.ZodType<ParsedKeys[K]> } } = TOP_LEVEL_KEYS;

/** Pulumi stores structured values as JSON text; a key whose schema takes text (the private keys) keeps its text. */
function decode(key: TopLevelKey, text: string): unknown {
  if (unwrap(TOP_LEVEL_KEYS[key].schema) instanceof z.ZodString) return text;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function loadPrivateKey(
  parsed: Partial<ParsedKeys>,
  secretKeys: ReadonlySet<string>,
  opts: LoadOptions,
  errors: ConfigIssue[],
  warnings: ConfigIssue[],
): PrivateKeyConfig | undefined {
  const inline = parsed.privateKey;
  const file = parsed.privateKeyPath;
  if (inline !== undefined && file !== undefined) {
    errors.push({ path: "privateKey", message: "set either privateKey or privateKeyPath, not both" });
    return undefined;
  }
  if (inline === undefined && file === undefined) {
    errors.push({
      path: "privateKeyPath",
      ...worded((a) =>
        a.stack
          ? "WMCO needs an SSH private key: set `pulumi config set windows-estate:privateKeyPath ~/.ssh/wmco` or " +
            "`pulumi config set --secret windows-estate:privateKey < ~/.ssh/wmco`"
          : "WMCO needs an SSH private key: pass privateKeyPath, or privateKey as a secret",
      ),
    });
    return undefined;
  }
  let pem: string;
  let from: PrivateKeyConfig["from"];
  if (inline !== undefined) {
    from = "privateKey";
    if (!secretKeys.has(`${NAMESPACE}:privateKey`)) {
      errors.push({
        path: "privateKey",
        ...worded((a) =>
          a.stack
            ? "is stored in plain text; set it again with `pulumi config set --secret windows-estate:privateKey < <key file>`"
            : "must be a secret, or it is stored in plain text in the state: pass pulumi.secret(key) or config.requireSecret(...), or use privateKeyPath",
        ),
      });
      return undefined;
    }
    if (inline === UNDECRYPTED_SECRET) {
      warnings.push({
        path: "privateKey",
        message: "is encrypted in the stack file, so it was not validated offline; `pulumi preview` validates it",
      });
      return { from, pem: inline };
    }
    pem = inline;
  } else {
    from = "privateKeyPath";
    if (file === undefined) return undefined; // ruled out above
    const resolved = path.resolve(opts.projectDir, expandHome(file));
    try {
      pem = fs.readFileSync(resolved, "utf8");
    } catch (e) {
      const why = codeOf(e) === "ENOENT" ? "does not exist" : "cannot be read";
      errors.push({ path: "privateKeyPath", message: `${resolved} ${why}; point it at the WMCO private key file` });
      return undefined;
    }
  }
  try {
    return { from, pem, parsed: parsePrivateKey(pem) };
  } catch (e) {
    if (e instanceof KeyRejected) {
      errors.push({ path: from, message: e.message });
      return undefined;
    }
    throw e;
  }
}

/**
 * Turns an OpenShift stack's raw config into one typed EstateConfig, or throws ConfigErrors listing every problem at
 * once. Nothing may be declared before this returns.
 */
export function loadEstateConfig(raw: RawConfig, opts: LoadOptions): EstateConfig {
  const cfg = loadAnyConfig(raw, opts);
  if (isVanillaConfig(cfg))
    throw new ConfigErrors([
      {
        path: "cluster.platform",
        message: "Kubernetes stacks are loaded with loadAnyConfig (this caller expects OpenShift)",
      },
    ]);
  return cfg;
}

/**
 * Turns a stack's raw config into its typed config (OpenShift with WMCO, or vanilla Kubernetes), or throws
 * ConfigErrors listing every problem at once. Nothing may be declared before this returns.
 */
export function loadAnyConfig(raw: RawConfig, opts: LoadOptions): AnyEstateConfig {
  return loadKeyValues(stackKeyValues(raw, opts.stackFileIssues ?? []), opts);
}

/**
 * A stack's raw config as the loader reads it: each `windows-estate:` key decoded once, the stack's secrets, and the
 * problems of the stack config beyond its keys' values (the stack file, mistyped namespaces, default providers,
 * unknown keys). A file whose settings are all lost (no `config:`, or a mistyped one) is that one problem, thrown
 * at once, not a list of every key it seems to lack.
 */
export function stackKeyValues(raw: RawConfig, fileIssues: readonly ConfigIssue[]): KeyValues {
  if (fileIssues.length > 0 && !Object.keys(raw.values).some((k) => k.startsWith(`${NAMESPACE}:`)))
    throw new ConfigErrors([...fileIssues]);
  const issues: ConfigIssue[] = [...fileIssues];
  const known = TOP_LEVEL_KEY_NAMES;
  issues.push(...namespaceTypos(Object.keys(raw.values), NAMESPACE));
  const denied = defaultProviderIssue(raw.values[DISABLE_DEFAULT_PROVIDERS]);
  if (denied) issues.push(denied);
  const values: KeyValues["values"] = {};
  const unknown: string[] = [];
  for (const [fullKey, text] of Object.entries(raw.values)) {
    if (!fullKey.startsWith(`${NAMESPACE}:`)) continue;
    const key = fullKey.slice(NAMESPACE.length + 1);
    if (isTopLevelKey(key)) values[key] = decode(key, text);
    else unknown.push(key);
  }
  // The passwords BYOH hosts and nodes name live in their own secret keys; those keys are known, not typos.
  const referencedSecrets = strings(
    [...objects(values.byoh), ...objects(values.nodes)].flatMap((h) => [
      get(h, "bootstrap", "passwordSecret"),
      get(h, "azure", "adminPasswordSecret"),
    ]),
  );
  for (const key of unknown) {
    if (referencedSecrets.includes(key)) continue;
    const hint = suggest(key, known);
    issues.push({
      path: key,
      message: `unknown key${hint ? `; did you mean '${NAMESPACE}:${hint}'?` : ""} Known keys: ${known.join(", ")}`,
    });
  }
  const secretText = (key: string) => {
    const full = `${NAMESPACE}:${key}`;
    const text = raw.secretKeys.has(full) ? raw.values[full] : undefined;
    return text === UNDECRYPTED_SECRET ? undefined : text;
  };
  return { values, secretKeys: raw.secretKeys, secretText, issues };
}

/**
 * Turns the keys' values into the typed config (OpenShift with WMCO, or vanilla Kubernetes), or throws ConfigErrors
 * listing every problem at once: a stack's (loadAnyConfig) and a component's args (stacks/from-args.ts) alike.
 */
export function loadKeyValues(kv: KeyValues, opts: LoadOptions): AnyEstateConfig {
  const errors: ConfigIssue[] = [...kv.issues];
  const warnings: ConfigIssue[] = [];
  const present = (key: TopLevelKey) => kv.values[key] !== undefined;

  /**
   * One key through its own schema: the value (defaults applied), or undefined with the problems recorded. A key left
   * out takes what its schema makes of nothing (zod-issues.ts absentValue).
   */
  const parseKey = <S extends z.ZodType>(key: TopLevelKey, schema: S): z.output<S> | undefined => {
    if (!present(key)) {
      if (OPTIONAL_KEYS.has(key)) return absentValue(schema);
      errors.push({ path: key, ...requiredMessage(key) });
      return undefined;
    }
    let value = kv.values[key];
    let result = schema.safeParse(value);
    // Integers where text is expected (`windowsServer: 2022`) are taken as their text, and whole-number text where a
    // number or text is (`maxUnavailable: "2"`) as the number; each pass fixes every such leaf zod reported, and a fixed leaf can reveal others below it, so a few passes may be needed.
    for (let pass = 0; !result.success && pass < 8; pass++) {
      const coerced = coerceIntegers(value, result.error.issues, schema);
      if (coerced === undefined) break;
      value = coerced;
      result = schema.safeParse(value);
    }
    if (result.success) return result.data;
    errors.push(...fromZodIssues(key, schema, value, result.error.issues));
    return undefined;
  };
  // Every component key, in the table's order (so are the problems listed); `pipeline` is the scripts' alone.
  const parsed: Partial<ParsedKeys> = {};
  const take = <K extends TopLevelKey>(key: K) => {
    parsed[key] = parseKey(key, KEY_SCHEMAS[key].schema);
  };
  for (const key of TOP_LEVEL_KEY_NAMES) if (isComponentKey(key)) take(key);
  // Keys of the other kind of cluster are mistakes, not silently ignored settings.
  const vanilla = parsed.cluster !== undefined && isVanilla(parsed.cluster.platform);
  if (parsed.cluster) {
    const mine = componentKeys(vanilla ? "vanilla" : "openshift");
    const theirs = componentKeys(vanilla ? "openshift" : "vanilla");
    const platform = parsed.cluster.platform;
    for (const key of theirs)
      if (present(key) && !mine.includes(key))
        errors.push({
          path: key,
          ...worded((a) =>
            vanilla
              ? `applies to OpenShift/OKD with WMCO; with cluster.platform Kubernetes, Windows hosts go in ${a.key("nodes")}`
              : `applies to cluster.platform Kubernetes (vanilla); on OpenShift (${platform}) Windows hosts come from machineSets or byoh`,
          ),
        });
    if (!vanilla && parsed.cluster.infrastructureId === undefined)
      errors.push({
        path: "cluster.infrastructureId",
        message: `is required on OpenShift: \`oc get infrastructure cluster -o jsonpath='{.status.infrastructureName}'\``,
      });
  }

  const privateKey = loadPrivateKey(parsed, kv.secretKeys, opts, errors, warnings);
  for (const validate of opts.validators) {
    const r = validate(parsed, {
      offline: opts.offline,
      secretKeys: kv.secretKeys,
      wmcoKey: privateKey?.parsed,
      secretText: kv.secretText,
    });
    errors.push(...r.errors);
    warnings.push(...(r.warnings ?? []));
  }
  if (errors.length > 0 || !parsed.cluster || !privateKey) throw new ConfigErrors(errors);
  /** A key's value, given or its schema's default: a key that failed its schema was an error above. */
  const valueOf = <K extends TopLevelKey>(key: K): ParsedKeys[K] => {
    const value = parsed[key];
    if (value === undefined) throw new ConfigErrors(errors); // ruled out above
    return value;
  };
  const common = {
    privateKey,
    mirrors: valueOf("mirrors"),
    nodeAccess: valueOf("nodeAccess"),
    ...(parsed.reboot ? { reboot: parsed.reboot } : {}),
    ...(parsed.patching ? { patching: parsed.patching } : {}),
    warnings,
  };

  const parsedCluster = parsed.cluster;
  const { platform } = parsedCluster;
  if (isVanilla(platform)) {
    const infrastructureId = parsedCluster.infrastructureId ?? opts.stackName ?? "kubernetes";
    return {
      cluster: {
        ...parsedCluster,
        platform,
        infrastructureId,
        discovery: discoveryEnabled(parsedCluster, opts.offline),
        clusterIdentifier: parsedCluster.clusterIdentifier ?? infrastructureId,
      },
      kubernetes: parsed.kubernetes ?? TOP_LEVEL_KEYS.kubernetes.schema.unwrap().parse({}),
      nodes: valueOf("nodes"),
      ...common,
    };
  }
  const cluster = asOpenShift(parsedCluster);
  if (!cluster) throw new ConfigErrors(errors); // ruled out above: a WMCO platform with its infrastructure ID
  return {
    cluster: {
      ...cluster,
      discovery: discoveryEnabled(cluster, opts.offline),
      clusterIdentifier: cluster.clusterIdentifier ?? cluster.infrastructureId,
    },
    operator: valueOf("operator"),
    machineSets: valueOf("machineSets"),
    byoh: valueOf("byoh"),
    waitForNodes: { enabled: valueOf("waitForNodes"), timeoutSeconds: valueOf("waitForNodesTimeoutSeconds") },
    ...common,
  };
}

function requiredMessage(key: TopLevelKey): Pick<ConfigIssue, "message" | "argsMessage"> {
  if (key !== "cluster") return { message: "is required" };
  return worded((a) =>
    a.stack
      ? "is required: `pulumi config set --path windows-estate:cluster.platform Azure` and `... cluster.infrastructureId <id>` (docs/configuration.md)"
      : "is required: at least { platform, infrastructureId } (docs/configuration.md)",
  );
}
