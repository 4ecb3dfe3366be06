/**
 * Where a stack's checkpoint bytes go (issue 45 part 3). With the file backend the engine rewrites the whole
 * checkpoint after every step of an `up` (pulumi pkg/backend/snapshot.go `saveSnapshot`), so a first `up` of N
 * resources costs about N × the checkpoint's size: the bytes per resource set the constant of that quadratic term.
 * Reads the output of `pulumi stack export` (apitype.UntypedDeployment: `deployment.resources[]`, each with `type`,
 * `inputs`, `outputs`).
 */

import { get, JsonObject, obj, objects, str } from "../lib/json";

/** Bytes per resource type and, for the heaviest type, per property. */
export interface StateSize {
  /** The serialized checkpoint's bytes (its `deployment`, as `stack export` prints it, compact). */
  bytes: number;
  resources: number;
  /** Per type, heaviest first: how many, and their average bytes each. */
  types: { type: string; count: number; avgBytes: number }[];
  /** The heaviest type's properties, heaviest first: average bytes each across inputs and outputs together. */
  heaviest: { type: string; props: { name: string; avgBytes: number }[] };
}

const size = (v: unknown): number => Buffer.byteLength(JSON.stringify(v) ?? "");

/** The size figures of a `pulumi stack export` document. */
export function stateSize(exported: unknown): StateSize {
  const deployment = obj(get(exported, "deployment")) ?? {};
  const resources = objects(deployment.resources);
  const byType = new Map<string, JsonObject[]>();
  for (const r of resources) {
    const t = str(r.type) ?? "?";
    byType.set(t, [...(byType.get(t) ?? []), r]);
  }
  const types = [...byType]
    .map(([type, rs]) => ({
      type,
      count: rs.length,
      avgBytes: Math.round(rs.reduce((a, r) => a + size(r), 0) / rs.length),
    }))
    .sort((a, b) => b.avgBytes * b.count - a.avgBytes * a.count);
  const top = types[0];
  const props = new Map<string, number>();
  for (const r of top ? (byType.get(top.type) ?? []) : [])
    for (const half of [r.inputs, r.outputs])
      for (const [k, v] of Object.entries(obj(half) ?? {})) props.set(k, (props.get(k) ?? 0) + size(v));
  return {
    bytes: size(deployment),
    resources: resources.length,
    types,
    heaviest: {
      type: top?.type ?? "",
      props: [...props]
        .map(([name, b]) => ({ name, avgBytes: Math.round(b / (top?.count ?? 1)) }))
        .sort((a, b) => b.avgBytes - a.avgBytes),
    },
  };
}

/** Two lines for the log: the checkpoint and its heaviest type. */
export function stateSizeLines(who: string, s: StateSize): string[] {
  const kb = (b: number) => `${(b / 1024).toFixed(1)} KB`;
  return [
    `  ${who} checkpoint: ${kb(s.bytes)} for ${s.resources} resources; per type: ${s.types
      .slice(0, 4)
      .map((t) => `${t.type.split(":").pop()} ×${t.count} ${kb(t.avgBytes)}`)
      .join(", ")}`,
    `  ${who} heaviest (${s.heaviest.type}), per property inputs+outputs: ${s.heaviest.props
      .slice(0, 6)
      .map((p) => `${p.name} ${kb(p.avgBytes)}`)
      .join(", ")}`,
  ];
}
