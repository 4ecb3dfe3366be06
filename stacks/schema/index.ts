import { z } from "zod";
import { byohSchema } from "./byoh";
import { nodeAccessSchema, patchingSchema, rebootSchema } from "./day2";
import { kubernetesSchema, nodesSchema } from "./kubernetes";
import { clusterSchema } from "./cluster";
import { machineSetsSchema } from "./machinesets";
import { mirrorsSchema } from "./mirrors";
import { operatorSchema } from "./operator";

/** The config namespace: every key this program reads is `windows-estate:<key>`. */
export const NAMESPACE = "windows-estate";

/**
 * Who takes a key: both components (WindowsEstate for OpenShift/OKD with WMCO, VanillaEstate for kubeadm), one of
 * them, or neither (`tooling`: read by the scripts alone). A stack of one kind that sets a key of the other is refused.
 */
type KeyScope = "both" | "openshift" | "vanilla" | "tooling";

/** One top-level key: its schema, who takes it, and what the components' args make of it. */
interface KeyEntry {
  schema: z.ZodType;
  scope: KeyScope;
  /** A key no stack can do without (the others have defaults, or are checked by the validators). */
  required?: true;
  /** An Input in the args, resolved by the component: the WMCO key may come from a secret Output. */
  input?: true;
}

/**
 * Every top-level key of the namespace, in the order a stack file is written: the one table the loader, both
 * components' args (library/args.ts), the JSON Schema and docs/configuration.md are made from. A key not listed here is
 * an error (with a "did you mean" hint), so a typo never silently drops part of the estate.
 */
export const TOP_LEVEL_KEYS = {
  cluster: { schema: clusterSchema, scope: "both", required: true },
  operator: { schema: operatorSchema, scope: "openshift" },
  /** The WMCO private key itself; must be a secret (`pulumi config set --secret windows-estate:privateKey < key`). */
  privateKey: { schema: z.string(), scope: "both", input: true },
  /** Path to the WMCO private key file (`~` expanded, relative paths from the project directory). */
  privateKeyPath: { schema: z.string().min(1), scope: "both" },
  machineSets: { schema: machineSetsSchema, scope: "openshift" },
  mirrors: { schema: mirrorsSchema, scope: "both" },
  byoh: { schema: byohSchema, scope: "openshift" },
  /**
   * Whether `pulumi up` waits, after `windows-instances` and the MachineSets, until every Windows node they stand for
   * has joined and WMCO has configured it (Ready, WMCO's `version` equal to its `desired-version` and to the running
   * operator's, not cordoned, not upgrading), printing progress; a WMCO setup failure Event for one of them fails the
   * update at once, quoting it. OpenShift only. Default true; false for pipelines that must not wait (nothing then
   * tells the update that WMCO failed).
   */
  waitForNodes: { schema: z.boolean().default(true), scope: "openshift" },
  /**
   * How long `pulumi up` waits for the Windows nodes (`waitForNodes`), in seconds: a cloud VM boots, installs and is
   * configured by WMCO in 15 to 30 minutes. Default 2700.
   */
  waitForNodesTimeoutSeconds: { schema: z.number().int().min(60).max(14400).default(2700), scope: "openshift" },
  nodeAccess: { schema: nodeAccessSchema, scope: "both" },
  reboot: { schema: rebootSchema, scope: "both" },
  patching: { schema: patchingSchema, scope: "both" },
  kubernetes: { schema: kubernetesSchema, scope: "vanilla" },
  nodes: { schema: nodesSchema, scope: "vanilla" },
  /**
   * Whether the GitHub workflows preview and update this stack (`npm run gitops:stacks` lists it; docs/gitops.md). The
   * program itself does not read it. Default true; false for a stack that has no cluster the pipeline could reach,
   * such as the built-in `dev` stack that `npm start` renders offline.
   */
  pipeline: { schema: z.boolean().default(true), scope: "tooling" },
} as const satisfies Record<string, KeyEntry>;

export type TopLevelKey = keyof typeof TOP_LEVEL_KEYS;

export function isTopLevelKey(k: string): k is TopLevelKey {
  // Not Object.hasOwn: the policy pack (policy/) is compiled by the Pulumi Node host's ts-node with its default
  // library, which has no ES2022 (policy.e2e, gitops.e2e failed to compile it).
  return Object.prototype.hasOwnProperty.call(TOP_LEVEL_KEYS, k);
}

/** The keys in the table's order (messages list them so). */
export const TOP_LEVEL_KEY_NAMES: readonly TopLevelKey[] = Object.keys(TOP_LEVEL_KEYS).filter(isTopLevelKey);

const entry = (k: TopLevelKey): KeyEntry => TOP_LEVEL_KEYS[k];

/** Keys that may be left out entirely; their schema supplies the default. */
export const OPTIONAL_KEYS: ReadonlySet<TopLevelKey> = new Set(TOP_LEVEL_KEY_NAMES.filter((k) => !entry(k).required));

/** Whether a key is an arg of either component (not one the scripts alone read, such as `pipeline`). */
export function isComponentKey(k: string): k is TopLevelKey {
  return isTopLevelKey(k) && entry(k).scope !== "tooling";
}

/** The args a component takes (`openshift`: WindowsEstate, `vanilla`: VanillaEstate), in the table's order. */
export function componentKeys(kind: "openshift" | "vanilla"): TopLevelKey[] {
  return TOP_LEVEL_KEY_NAMES.filter((k) => entry(k).scope === "both" || entry(k).scope === kind);
}

/** Whether a component's arg is an Input it resolves itself (`pulumi.Input<T>` in the args). */
export function isInputKey(k: TopLevelKey): boolean {
  return entry(k).input === true;
}
