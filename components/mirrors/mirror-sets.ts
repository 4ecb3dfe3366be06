import { createHash } from "crypto";
import { MirrorsConfigInput } from "../../stacks/schema/mirrors";
import { MANAGED_BY } from "../operator/builders";
import { IDMS, ITMS } from "./hosts-toml";

type Entry = MirrorsConfigInput["digest"][number];

export interface MirrorSetObject<K extends "ImageDigestMirrorSet" | "ImageTagMirrorSet"> {
  apiVersion: "config.openshift.io/v1";
  kind: K;
  metadata: { name: string; labels: Record<string, string> };
  spec: K extends "ImageDigestMirrorSet"
    ? { imageDigestMirrors: { source: string; mirrors: string[]; mirrorSourcePolicy?: string }[] }
    : { imageTagMirrors: { source: string; mirrors: string[]; mirrorSourcePolicy?: string }[] };
}

/**
 * A stable object name for an entry: its `name`, or one derived from the source alone, so adding, removing or
 * reordering other entries never renames (and so never replaces) this one. Long sources keep a hash suffix.
 */
export function mirrorSetName(kind: "digest" | "tag", entry: Entry): string {
  if (entry.name) return entry.name;
  const slug = entry.source.toLowerCase().replace(/^[a-z]+:\/\//, "").replace(/[^a-z0-9]+/g, "-").replace(/^-+|-+$/g, "");
  const base = `windows-estate-${kind}-${slug}`;
  if (base.length <= 63) return base;
  const hash = createHash("sha256").update(entry.source).digest("hex").slice(0, 8);
  return `${base.slice(0, 54).replace(/-+$/, "")}-${hash}`;
}

function entrySpec(e: Entry) {
  return { source: e.source, mirrors: [...e.mirrors], ...(e.mirrorSourcePolicy ? { mirrorSourcePolicy: e.mirrorSourcePolicy } : {}) };
}

/** One object per entry, sorted by name as the API lists them (the order WMCO merges them in). */
function buildSets<K extends "ImageDigestMirrorSet" | "ImageTagMirrorSet">(kind: K, entries: Entry[], field: string, nameKind: "digest" | "tag"): MirrorSetObject<K>[] {
  return entries
    .map((e) => ({
      apiVersion: "config.openshift.io/v1" as const,
      kind,
      metadata: { name: mirrorSetName(nameKind, e), labels: { ...MANAGED_BY } },
      spec: { [field]: [entrySpec(e)] } as MirrorSetObject<K>["spec"],
    }))
    .sort((a, b) => Buffer.compare(Buffer.from(a.metadata.name), Buffer.from(b.metadata.name)));
}

/** One ImageDigestMirrorSet per `mirrors.digest` entry. */
export function buildDigestMirrorSets(m: MirrorsConfigInput): (MirrorSetObject<"ImageDigestMirrorSet"> & IDMS)[] {
  return buildSets("ImageDigestMirrorSet", m.digest, "imageDigestMirrors", "digest");
}

/** One ImageTagMirrorSet per `mirrors.tag` entry. */
export function buildTagMirrorSets(m: MirrorsConfigInput): (MirrorSetObject<"ImageTagMirrorSet"> & ITMS)[] {
  return buildSets("ImageTagMirrorSet", m.tag, "imageTagMirrors", "tag");
}
