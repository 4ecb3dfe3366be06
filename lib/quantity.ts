/**
 * Binary-SI quantities (`16Gi`, `1.5Gi`, `16384Mi`) written the way Kubernetes writes them back. Pure, and safe in
 * the configuration schema (stacks/schema/machinesets.ts) and the builders (components/machinesets/nutanix.ts). machine-api's
 * defaulting webhook decodes a Nutanix providerSpec into openshift/api's `NutanixMachineProviderConfig`, whose
 * `memorySize` and `systemDiskSize` are `resource.Quantity`, and marshals it again (machine-api-operator
 * pkg/webhooks/machine_webhook.go, `defaultNutanix`). `Quantity.MarshalJSON` keeps the text only when
 * `ParseQuantity` cached it, which for a binary suffix it does only when the number is not a multiple of 8 and has
 * no fraction; otherwise it writes `CanonicalizeBytes` (k8s.io/apimachinery v0.34.1, the version
 * machine-api-operator 88465550a74b pins, pkg/api/resource/quantity.go l.276-345, l.424-461, l.693-717). A value
 * written otherwise is rewritten on create, and pulumi-kubernetes then shows a diff after every create.
 */

const BINARY_SUFFIXES = ["", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"] as const;
const DECIMAL_SUFFIXES = ["", "k", "M", "G", "T", "P", "E"] as const;
const EXPONENT: Record<string, number> = { Ki: 1, Mi: 2, Gi: 3, Ti: 4, Pi: 5, Ei: 6 };

/** The number of bytes a quantity like `1.5Gi` stands for, or undefined when it is not a whole number of bytes. */
export function quantityBytes(q: string): bigint | undefined {
  const m = /^(\d+)(?:\.(\d+))?(Ki|Mi|Gi|Ti|Pi|Ei)$/.exec(q);
  if (!m) return undefined;
  const [, whole, fraction = "", suffix] = m;
  const scaled = BigInt(whole + fraction) * 1024n ** BigInt(EXPONENT[suffix]);
  const divisor = 10n ** BigInt(fraction.length);
  return scaled % divisor === 0n ? scaled / divisor : undefined;
}

/**
 * `CanonicalizeBytes` for a quantity parsed with a binary suffix: zero is `0`; under 1024 bytes it is written as a
 * decimal-SI number ("This avoids rounding", l.434-436: 1000 bytes is `1k`); otherwise as the largest power of 1024
 * that divides it, up to `Ei` (`AsCanonicalBase1024Bytes`). A quantity that is not a whole number of bytes is an error:
 * Kubernetes would write it in milli-bytes, and the configuration schema refuses it.
 */
export function canonicalQuantity(q: string): string {
  const bytes = quantityBytes(q);
  if (bytes === undefined)
    throw new Error(`internal: ${q} is not a whole number of bytes (validation should have said so)`);
  if (bytes === 0n) return "0";
  let [n, e] = [bytes, 0];
  if (bytes < 1024n) {
    while (n % 1000n === 0n && e < DECIMAL_SUFFIXES.length - 1) [n, e] = [n / 1000n, e + 1];
    return `${n}${DECIMAL_SUFFIXES[e]}`;
  }
  while (n % 1024n === 0n && e < BINARY_SUFFIXES.length - 1) [n, e] = [n / 1024n, e + 1];
  return `${n}${BINARY_SUFFIXES[e]}`;
}
