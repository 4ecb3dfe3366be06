/**
 * Patch levels as data (day2-facts §3.1): a Node's Windows build and update revision (UBR) from its
 * `status.nodeInfo.kernelVersion` (`<major>.<minor>.<build>.<UBR>`, which the kubelet reads from the registry:
 * kubernetes pkg/kubelet/winstats/version.go), whether it meets the declared minimum, and which nodes a patch rollout
 * takes, in batches. Pure.
 */
import { planRollout, RolloutPlan } from "./batches";

export interface PatchLevel {
  /** `20348` */
  build: string;
  /** The update revision, `2700`. */
  revision: number;
}

/** `10.0.20348.2700` → build 20348, revision 2700; undefined for anything else (a Linux kernel, an empty value). */
export function patchLevel(kernelVersion: string | undefined): PatchLevel | undefined {
  const m = /^10\.0\.(\d+)\.(\d+)$/.exec(kernelVersion ?? "");
  return m ? { build: m[1], revision: Number(m[2]) } : undefined;
}

/** Build → the lowest update revision accepted (`windows-estate:patching.minimumUpdateRevision`). */
export type MinimumRevisions = Readonly<Record<string, number>>;

/** Why a node is below the declared level, or undefined when it meets it (or its build has no minimum). */
export function belowMinimum(kernelVersion: string | undefined, minimum: MinimumRevisions): string | undefined {
  const level = patchLevel(kernelVersion);
  if (!level) return undefined;
  const want = minimum[level.build];
  if (want === undefined || level.revision >= want) return undefined;
  return `build ${level.build} at revision ${level.revision}, below ${want}`;
}

/**
 * The policy as one canonical string: the rollout records its digest on the Nodes it patched (rollout.ts
 * `tokenDigest`), so a failed run resumes without redoing a node, and a raised minimum starts a new rollout.
 */
export function patchToken(minimum: MinimumRevisions, categories: readonly string[]): string {
  return JSON.stringify({
    minimum: Object.fromEntries(Object.entries(minimum).sort(([a], [b]) => (a < b ? -1 : 1))),
    categories: [...categories].sort(),
  });
}

export interface PatchCandidate {
  name: string;
  kernelVersion?: string;
  /** Whether the program manages this host (BYOH, vanilla): only those are patched in place. */
  managed: boolean;
}

export interface PatchPlan extends RolloutPlan {
  /** Nodes below the level that are not patched in place (MachineSet nodes: replace their image instead). */
  notManaged: string[];
}

/** The managed nodes below the declared level, in batches of `maxUnavailable`. */
export function planPatching(
  nodes: readonly PatchCandidate[],
  minimum: MinimumRevisions,
  maxUnavailable: number,
): PatchPlan {
  const below = nodes.filter((n) => belowMinimum(n.kernelVersion, minimum) !== undefined);
  const plan = planRollout(
    below.filter((n) => n.managed).map((n) => ({ name: n.name })),
    "",
    maxUnavailable,
  );
  return {
    ...plan,
    notManaged: below
      .filter((n) => !n.managed)
      .map((n) => n.name)
      .sort(),
  };
}
