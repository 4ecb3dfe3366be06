/**
 * What pulumi-kubernetes decides for an object and for its provider, mirrored for the engine stand-in (the Go
 * plugin cannot run here). Sources: pulumi/pulumi-kubernetes provider/pkg/provider/diff.go (`forceNewProperties`)
 * and provider.go (`Diff`: delete-before-replace; `DiffConfig`: provider replacement).
 */
import { changedPaths, reveal, WireMap } from "./wire";

export interface KubeProviderOptions {
  enableConfigMapMutable: boolean;
  enableSecretMutable: boolean;
}

export function providerOptions(inputs: WireMap | undefined): KubeProviderOptions {
  const i = (reveal(inputs ?? {}) as WireMap) ?? {};
  // Provider inputs arrive JSON-encoded as strings (the SDK serializes provider args that way).
  const flag = (v: unknown) => v === true || v === "true";
  return { enableConfigMapMutable: flag(i.enableConfigMapMutable), enableSecretMutable: flag(i.enableSecretMutable) };
}

function groupVersionKind(obj: WireMap): { group: string; version: string; kind: string } {
  const apiVersion = String(obj.apiVersion ?? "");
  const [group, version] = apiVersion.includes("/") ? apiVersion.split("/") : ["", apiVersion];
  return { group, version, kind: String(obj.kind ?? "") };
}

/** `forceNewProperties`, for the kinds this program declares (anything else: only name and namespace). */
export function forceNewPaths(obj: WireMap, opts: KubeProviderOptions, isPatch: boolean): string[] {
  const props = [".metadata.name", ".metadata.namespace"];
  if (isPatch) return props; // Patch resources update in place for every other property (provider.go Diff).
  const { group, version, kind } = groupVersionKind(obj);
  const immutable = (obj as { immutable?: unknown }).immutable === true;
  if ((group === "" || group === "core") && version === "v1") {
    if (kind === "Secret" && (!opts.enableSecretMutable || immutable)) props.push(".type", ".stringData", ".data");
    else if (kind === "Secret") props.push(".type");
    else if (kind === "ConfigMap" && (!opts.enableConfigMapMutable || immutable)) props.push(".binaryData", ".data");
    else if (kind === "Service") props.push(".spec.clusterIP");
  }
  if (group === "apps" && version === "v1" && (kind === "Deployment" || kind === "DaemonSet"))
    props.push(".spec.selector");
  if (group === "rbac.authorization.k8s.io" && (kind === "RoleBinding" || kind === "ClusterRoleBinding"))
    props.push(".roleRef");
  return props;
}

export interface KubeDiff {
  changes: boolean;
  replaces: string[];
  deleteBeforeReplace: boolean;
}

/**
 * `Diff`: replacement when a changed path lies under a force-new path; delete-before-replace when the object is
 * named (not autonamed) and keeps its name and namespace, because the new one cannot exist beside the old.
 */
export function kubeDiff(olds: WireMap, news: WireMap, opts: KubeProviderOptions, isPatch: boolean): KubeDiff {
  const changed = changedPaths(stripPulumiMeta(olds), stripPulumiMeta(news));
  const force = forceNewPaths(reveal(news) as WireMap, opts, isPatch);
  const replaces = changed.filter((p) => force.some((f) => p === f || p.startsWith(f + ".")));
  const o = reveal(olds) as { metadata?: { name?: string; namespace?: string } };
  const n = reveal(news) as { metadata?: { name?: string; namespace?: string } };
  const named = typeof n.metadata?.name === "string" && n.metadata.name !== "";
  const deleteBeforeReplace =
    replaces.length > 0 &&
    named &&
    o.metadata?.name === n.metadata?.name &&
    (o.metadata?.namespace ?? "") === (n.metadata?.namespace ?? "");
  return { changes: changed.length > 0, replaces, deleteBeforeReplace };
}

/** `DiffConfig`: a provider is replaced only when `clusterIdentifier` changes, or the render directory does. */
export function kubeProviderDiff(olds: WireMap, news: WireMap): KubeDiff {
  const o = reveal(olds) as WireMap;
  const n = reveal(news) as WireMap;
  const changed = changedPaths(o, n);
  const replaces: string[] = [];
  if (
    o.clusterIdentifier !== undefined &&
    n.clusterIdentifier !== undefined &&
    o.clusterIdentifier !== n.clusterIdentifier
  )
    replaces.push("clusterIdentifier");
  if (changed.includes(".renderYamlToDirectory")) replaces.push("renderYamlToDirectory");
  return { changes: changed.length > 0, replaces, deleteBeforeReplace: false };
}

/** Pulumi's own bookkeeping keys are not part of the object. */
function stripPulumiMeta(v: WireMap): WireMap {
  const { __inputs: _i, __provider: _p, ...rest } = v as WireMap & { __inputs?: unknown; __provider?: unknown };
  return rest;
}
