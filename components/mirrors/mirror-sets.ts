import { createHash } from "crypto";
import { MANAGED_BY } from "../operator/builders";
import { IDMS, ITMS, MirrorSourcePolicy } from "./hosts-toml";
import type { MirrorsConfigInput } from "../../stacks/schema/mirrors";

/** `windows-estate:mirrors`: entries for ImageDigestMirrorSets (`digest`) and ImageTagMirrorSets (`tag`). */
export type MirrorsConfig = MirrorsConfigInput;
/** One `windows-estate:mirrors.digest[]` / `.tag[]` entry (stacks/schema/mirrors.ts). */
export type MirrorEntry = MirrorsConfig["digest"][number];

type Kind = "ImageDigestMirrorSet" | "ImageTagMirrorSet";

/** One rendered mirror entry, as the API stores it. */
type MirrorSpec = Omit<MirrorEntry, "name">;

/** A rendered `config.openshift.io/v1` ImageDigestMirrorSet or ImageTagMirrorSet. */
interface MirrorSetObject<K extends Kind> {
  apiVersion: "config.openshift.io/v1";
  kind: K;
  metadata: { name: string; labels: Record<string, string> };
  spec: K extends "ImageDigestMirrorSet" ? { imageDigestMirrors: MirrorSpec[] } : { imageTagMirrors: MirrorSpec[] };
}

const NAME_LIMIT = 63;

/**
 * The object name of an entry: its `name`, or one derived from its source alone. One object per entry, named by
 * source, means adding, removing or reordering other entries never renames (and so never replaces) this one, and a
 * change to one entry touches one object. Derived names stay within 63 characters (well under the API's 253) so they
 * read well in `oc get` and fit where a label value is needed; longer ones end in a hash of the full source. Two
 * sources that slug alike (`a.b/c` and `a-b/c`) collide; validateMirrors reports that and asks for a `name`.
 */
export function mirrorSetName(kind: "digest" | "tag", entry: Pick<MirrorEntry, "source" | "name">): string {
  if (entry.name) return entry.name;
  const slug = entry.source
    .toLowerCase()
    .replace(/^[a-z][a-z0-9+.-]*:\/\//, "")
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "");
  const base = `windows-estate-${kind}${slug ? `-${slug}` : ""}`;
  if (base.length <= NAME_LIMIT) return base;
  const hash = createHash("sha256").update(entry.source).digest("hex").slice(0, 8);
  return `${base.slice(0, NAME_LIMIT - hash.length - 1).replace(/-+$/, "")}-${hash}`;
}

/**
 * The policy the object carries. An entry with mirrors always gets an explicit one: WMCO reads the sets in no fixed
 * order and lets a set without a policy, met first, cancel another set's NeverContactSource for the whole registry.
 * Writing AllowContactingSource (what unset means everywhere else) makes Windows nodes' result independent of that
 * order. Without mirrors the API documents the policy as meaningless, so none is written.
 */
export function emittedPolicy(
  entry: Pick<MirrorEntry, "mirrors" | "mirrorSourcePolicy">,
): MirrorSourcePolicy | undefined {
  return entry.mirrorSourcePolicy ?? ((entry.mirrors ?? []).length > 0 ? "AllowContactingSource" : undefined);
}

function mirrorSpec(e: MirrorEntry): MirrorSpec {
  const policy = emittedPolicy(e);
  return { source: e.source, mirrors: [...(e.mirrors ?? [])], ...(policy ? { mirrorSourcePolicy: policy } : {}) };
}

/** Sorted by name so rendered files and diffs are stable (WMCO itself reads the sets unordered). */
function byName<T extends { metadata: { name: string } }>(sets: T[]): T[] {
  return sets.sort((a, b) => Buffer.compare(Buffer.from(a.metadata.name), Buffer.from(b.metadata.name)));
}

/** One object of `kind` per entry, sorted by name, each entry's spec placed by `spec`. */
function mirrorSets<K extends Kind>(
  kind: K,
  entries: MirrorEntry[],
  spec: (m: MirrorSpec) => MirrorSetObject<K>["spec"],
): MirrorSetObject<K>[] {
  const short = kind === "ImageDigestMirrorSet" ? "digest" : "tag";
  return byName(
    entries.map((e) => ({
      apiVersion: "config.openshift.io/v1" as const,
      kind,
      metadata: { name: mirrorSetName(short, e), labels: { ...MANAGED_BY } },
      spec: spec(mirrorSpec(e)),
    })),
  );
}

/** One ImageDigestMirrorSet per `mirrors.digest` entry. */
export function buildDigestMirrorSets(m: MirrorsConfig): (MirrorSetObject<"ImageDigestMirrorSet"> & IDMS)[] {
  return mirrorSets("ImageDigestMirrorSet", m.digest, (s) => ({ imageDigestMirrors: [s] }));
}

/** One ImageTagMirrorSet per `mirrors.tag` entry. */
export function buildTagMirrorSets(m: MirrorsConfig): (MirrorSetObject<"ImageTagMirrorSet"> & ITMS)[] {
  return mirrorSets("ImageTagMirrorSet", m.tag, (s) => ({ imageTagMirrors: [s] }));
}
