/**
 * A vanilla node's identity on its Node object: the labels and taints the stack declares, and on vSphere the
 * `spec.providerID` from the VM's BIOS serial. Pure parts here; the provider reads the serial over SSH and patches.
 */
import { get, objects, str, stringMap } from "../../lib/json";

/**
 * `vsphere://<uuid>` from the BIOS serial a vSphere VM reports (`VMware-56 4d … -d8 …`), normalised as the legacy
 * in-tree vSphere provider did (legacy-cloud-providers vsphere_util_linux.go `GetVMUUID`, mirrored by its Windows
 * twin): require the `VMware-` prefix, drop spaces and dashes, require 32 hex digits, re-dash as 8-4-4-4-12.
 * Undefined when the serial is not a vSphere one.
 */
export function vsphereProviderId(serial: string): string | undefined {
  const s = serial.trim();
  if (!s.startsWith("VMware-")) return undefined;
  const hex = s.slice("VMware-".length).replace(/[\s-]/g, "");
  if (!/^[0-9a-fA-F]{32}$/.test(hex)) return undefined;
  const h = hex.toLowerCase();
  return `vsphere://${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

export interface Taint {
  key: string;
  value?: string;
  effect: "NoSchedule" | "PreferNoSchedule" | "NoExecute";
}

/**
 * The merge patch that makes the Node carry the declared labels and taints (other labels and taints, e.g. the ones
 * the kubelet or a controller set, are kept), and the providerID when it is still empty. Undefined when nothing
 * differs. A providerID that is set to something else cannot change (k/k PR #51761): that is an error for the caller.
 */
export function identityPatch(
  node: unknown,
  want: { labels: Record<string, string>; taints: readonly Taint[]; providerId?: string },
): { patch?: Record<string, unknown>; conflict?: string } {
  const labels = stringMap(get(node, "metadata", "labels"));
  const taints = objects(get(node, "spec", "taints"));
  const current = str(get(node, "spec", "providerID")) ?? "";
  if (want.providerId && current !== "" && current !== want.providerId)
    return {
      conflict: `its providerID is ${current}, not ${want.providerId}; a providerID cannot change once set: delete the Node and let the node join again`,
    };
  const labelPatch: Record<string, string> = {};
  for (const [k, v] of Object.entries(want.labels)) if (labels[k] !== v) labelPatch[k] = v;
  const same = (t: Record<string, unknown>, w: Taint) =>
    t.key === w.key && (str(t.value) ?? "") === (w.value ?? "") && t.effect === w.effect;
  const missing = want.taints.filter((w) => !taints.some((t) => same(t, w)));
  const spec: Record<string, unknown> = {};
  if (missing.length > 0) {
    // Taints are a list: a merge patch replaces it whole, so the Node's other taints are carried over.
    const keep = taints.filter((t) => !want.taints.some((w) => w.key === t.key && w.effect === t.effect));
    spec.taints = [...keep, ...want.taints.map((t) => ({ key: t.key, value: t.value ?? "", effect: t.effect }))];
  }
  if (want.providerId && current === "") spec.providerID = want.providerId;
  const patch: Record<string, unknown> = {};
  if (Object.keys(labelPatch).length > 0) patch.metadata = { labels: labelPatch };
  if (Object.keys(spec).length > 0) patch.spec = spec;
  return Object.keys(patch).length > 0 ? { patch } : {};
}
