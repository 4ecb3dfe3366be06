/**
 * Property values as they travel between the SDK, the engine and providers: plain JSON in which a secret is an
 * object `{ [specialSigKey]: specialSecretSig, value }` and an unknown is the string `unknownValue`. Both markers are
 * the SDK's public constants (`@pulumi/pulumi` runtime rpc.ts).
 */
import * as pulumi from "@pulumi/pulumi";

export type Wire = unknown;
export type WireMap = Record<string, Wire>;

const SIG = pulumi.runtime.specialSigKey;
const SECRET = pulumi.runtime.specialSecretSig;
export const UNKNOWN: string = pulumi.runtime.unknownValue;

export function isSecret(v: Wire): v is { value: Wire } {
  return typeof v === "object" && v !== null && (v as Record<string, unknown>)[SIG] === SECRET;
}

export function secret(v: Wire): Wire {
  return isSecret(v) ? v : { [SIG]: SECRET, value: v };
}

/** The value with every secret marker removed, as the engine marshals for a provider that does not accept secrets. */
export function reveal(v: Wire): Wire {
  if (isSecret(v)) return reveal(v.value);
  if (Array.isArray(v)) return v.map(reveal);
  if (typeof v === "object" && v !== null) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, reveal(x)]));
  return v;
}

export function containsSecrets(v: Wire): boolean {
  if (isSecret(v)) return true;
  if (Array.isArray(v)) return v.some(containsSecrets);
  if (typeof v === "object" && v !== null) return Object.values(v).some(containsSecrets);
  return false;
}

export function containsUnknowns(v: Wire): boolean {
  if (v === UNKNOWN) return true;
  if (isSecret(v)) return containsUnknowns(v.value);
  if (Array.isArray(v)) return v.some(containsUnknowns);
  if (typeof v === "object" && v !== null) return Object.values(v).some(containsUnknowns);
  return false;
}

/**
 * Copies secretness from inputs to outputs of the same key, recursing where both are objects: the engine's
 * `annotateSecrets` (pulumi/pulumi pkg/resource/plugin/provider_plugin.go), applied to providers that reply
 * `acceptSecrets: false`, as the dynamic-provider host does.
 */
export function annotateSecrets(outs: WireMap, ins: WireMap): WireMap {
  const result: WireMap = { ...outs };
  for (const [k, inValue] of Object.entries(ins)) {
    if (!(k in result)) continue;
    const out = result[k];
    const plainIn = isSecret(inValue) ? undefined : inValue;
    if (isObject(out) && isObject(plainIn)) result[k] = annotateSecrets(out, plainIn);
    else if (!isSecret(out) && containsSecrets(inValue)) result[k] = secret(out);
  }
  return result;
}

/** `additionalSecretOutputs`: top-level output keys the engine marks secret (pkg/resource/deploy/source_eval.go). */
export function markSecretOutputs(outs: WireMap, keys: readonly string[]): WireMap {
  const result = { ...outs };
  for (const k of keys) if (k in result && result[k] !== undefined) result[k] = secret(result[k]);
  return result;
}

function isObject(v: Wire): v is WireMap {
  return typeof v === "object" && v !== null && !Array.isArray(v) && !isSecret(v);
}

/** Every dotted path at which two values differ (secrets compared by content; arrays compared whole). */
export function changedPaths(olds: Wire, news: Wire, prefix = ""): string[] {
  const a = reveal(olds);
  const b = reveal(news);
  if (isObject(a) && isObject(b)) {
    const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
    return [...keys].flatMap((k) => changedPaths(a[k], b[k], `${prefix}.${k}`));
  }
  return JSON.stringify(a) === JSON.stringify(b) ? [] : [prefix];
}

/** Every string anywhere in a value, secrets revealed: for leak checks. */
export function allStrings(v: Wire): string[] {
  const r = reveal(v);
  if (typeof r === "string") return [r];
  if (Array.isArray(r)) return r.flatMap(allStrings);
  if (typeof r === "object" && r !== null) return Object.values(r).flatMap(allStrings);
  return [];
}

/** Strings that are stored in plaintext (outside any secret marker). */
export function plaintextStrings(v: Wire): string[] {
  if (isSecret(v)) return [];
  if (typeof v === "string") return [v];
  if (Array.isArray(v)) return v.flatMap(plaintextStrings);
  if (typeof v === "object" && v !== null) return Object.values(v).flatMap(plaintextStrings);
  return [];
}
