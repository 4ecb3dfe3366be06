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
 * Every top-level key of the namespace and its schema. A key not listed here is an error (with a
 * "did you mean" hint), so a typo never silently drops part of the estate.
 */
export const TOP_LEVEL_KEYS = {
  cluster: clusterSchema,
  operator: operatorSchema,
  /** The WMCO private key itself; must be a secret (`pulumi config set --secret windows-estate:privateKey < key`). */
  privateKey: z.string(),
  /** Path to the WMCO private key file (`~` expanded, relative paths from the project directory). */
  privateKeyPath: z.string().min(1),
  machineSets: machineSetsSchema,
  mirrors: mirrorsSchema,
  byoh: byohSchema,
  /**
   * Whether `pulumi up` waits, after `windows-instances` and the MachineSets, until every Windows node they stand for
   * has joined and WMCO has configured it (Ready, WMCO's `version` equal to its `desired-version` and to the running
   * operator's, not cordoned, not upgrading), printing progress; a WMCO setup failure Event for one of them fails the
   * update at once, quoting it. OpenShift only. Default true; false for pipelines that must not wait (nothing then
   * tells the update that WMCO failed).
   */
  waitForNodes: z.boolean().default(true),
  /**
   * How long `pulumi up` waits for the Windows nodes (`waitForNodes`), in seconds: a cloud VM boots, installs and is
   * configured by WMCO in 15 to 30 minutes. Default 2700.
   */
  waitForNodesTimeoutSeconds: z.number().int().min(60).max(14400).default(2700),
  nodeAccess: nodeAccessSchema,
  reboot: rebootSchema,
  patching: patchingSchema,
  kubernetes: kubernetesSchema,
  nodes: nodesSchema,
  /**
   * Whether the GitHub workflows preview and update this stack (`npm run gitops:stacks` lists it; docs/gitops.md). The
   * program itself does not read it. Default true; false for a stack that has no cluster the pipeline could reach,
   * such as the built-in `dev` stack that `npm start` renders offline.
   */
  pipeline: z.boolean().default(true),
} as const;

export type TopLevelKey = keyof typeof TOP_LEVEL_KEYS;

/** The keys in a fixed order (messages list them so); the type checks it names exactly the schemas above. */
export const TOP_LEVEL_KEY_NAMES = [
  "cluster",
  "operator",
  "privateKey",
  "privateKeyPath",
  "machineSets",
  "mirrors",
  "byoh",
  "waitForNodes",
  "waitForNodesTimeoutSeconds",
  "nodeAccess",
  "reboot",
  "patching",
  "kubernetes",
  "nodes",
  "pipeline",
] as const satisfies readonly TopLevelKey[];
type Missing = Exclude<TopLevelKey, (typeof TOP_LEVEL_KEY_NAMES)[number]>;
const _allListed: Missing extends never ? true : never = true;
void _allListed;

export function isTopLevelKey(k: string): k is TopLevelKey {
  return TOP_LEVEL_KEY_NAMES.some((name) => name === k);
}
/** Keys that may be left out entirely; their schema supplies the default. */
export const OPTIONAL_KEYS: ReadonlySet<TopLevelKey> = new Set([
  "operator",
  "machineSets",
  "mirrors",
  "byoh",
  "waitForNodes",
  "waitForNodesTimeoutSeconds",
  "nodeAccess",
  "reboot",
  "patching",
  "kubernetes",
  "nodes",
  "privateKey",
  "privateKeyPath",
  "pipeline",
]);
