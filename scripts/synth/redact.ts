import * as pulumi from "@pulumi/pulumi";
import { isObject } from "../../lib/json";

/** Pulumi's wire markers (the SDK's public constants): a secret value and a value not known until `pulumi up`. */
export const SECRET_SIG: string = pulumi.runtime.specialSigKey;
export const SECRET_MARK: string = pulumi.runtime.specialSecretSig;
export { UNKNOWN } from "../../providers/unknown";
import { UNKNOWN } from "../../providers/unknown";

export const REDACTED = "<redacted: secret>";
export const COMPUTED = "<computed at pulumi up>";

/**
 * Unwraps Pulumi's secret and unknown markers from resource inputs: secrets become a fixed marker (or their value
 * with `reveal`), unknowns say when they will be known. Reports whether any secret was met.
 */
export function clean(value: unknown, reveal: boolean): { value: unknown; hadSecret: boolean } {
  let hadSecret = false;
  // Inside a secret, structure stays (so objects still match their schema) and only the leaves are hidden.
  const walk = (v: unknown, inSecret: boolean): unknown => {
    if (v === UNKNOWN) return COMPUTED;
    if (Array.isArray(v)) return v.map((x) => walk(x, inSecret));
    if (isObject(v)) {
      const o = v;
      if (o[SECRET_SIG] === SECRET_MARK) {
        // The Kubernetes SDK wraps absent fields (a Secret's `data` when only `stringData` is set) as secrets too.
        if (o.value === undefined || o.value === null) return undefined;
        hadSecret = true;
        return walk(o.value, !reveal);
      }
      const out: Record<string, unknown> = {};
      for (const [k, child] of Object.entries(o)) {
        const c = walk(child, inSecret);
        if (c !== undefined) out[k] = c;
      }
      return out;
    }
    return inSecret && v !== undefined ? REDACTED : v;
  };
  return { value: walk(value, false), hadSecret };
}
