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
  nodeAccess: nodeAccessSchema,
  reboot: rebootSchema,
  patching: patchingSchema,
  kubernetes: kubernetesSchema,
  nodes: nodesSchema,
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
  "nodeAccess",
  "reboot",
  "patching",
  "kubernetes",
  "nodes",
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
  "nodeAccess",
  "reboot",
  "patching",
  "kubernetes",
  "nodes",
  "privateKey",
  "privateKeyPath",
]);
