/**
 * The containerd `hosts.toml` files WMCO writes under `C:\k\containerd\registries` on every Windows node, computed
 * from the cluster's ImageDigestMirrorSets and ImageTagMirrorSets exactly as WMCO computes them
 * (pkg/registries, the format since April 2025: `/v2` server paths, `override_path`, LF line endings).
 */

export type MirrorSourcePolicy = "AllowContactingSource" | "NeverContactSource";

export interface MirrorEntry {
  source: string;
  mirrors?: string[];
  mirrorSourcePolicy?: MirrorSourcePolicy | string;
}

/** An ImageDigestMirrorSet as the cluster holds it (only what WMCO reads). */
export interface IDMS {
  metadata?: { name?: string };
  spec: { imageDigestMirrors?: MirrorEntry[] };
}

/** An ImageTagMirrorSet as the cluster holds it (only what WMCO reads). */
export interface ITMS {
  metadata?: { name?: string };
  spec: { imageTagMirrors?: MirrorEntry[] };
}

/** One mirror as a registry file lists it: host plus the namespaces not shared with the source. */
export interface Mirror {
  host: string;
  resolveTags: boolean;
}

/** Everything one source registry's file says. */
export interface MirrorSet {
  source: string;
  mirrors: Mirror[];
  /** As given; an unset policy behaves like AllowContactingSource but does not merge like it (see mergeMirrorSets). */
  policy: string;
}

/**
 * The registry host (with port) of an image or registry reference. Like Go's url.Parse, only a `scheme://` (or `//`)
 * prefix yields a parsed host; anything else is everything before the first `/`.
 */
export function registryHost(ref: string): string {
  const m = /^(?:[A-Za-z][A-Za-z0-9+.-]*:)?\/\/([^/?#]*)/.exec(ref);
  if (m) {
    const authority = m[1].slice(m[1].lastIndexOf("@") + 1);
    const hp = /^(\[[^\]]*\]|[^:]*)(?::(\d*))?$/.exec(authority);
    const hostname = hp ? hp[1].replace(/^\[|\]$/g, "") : "";
    if (hostname !== "") return hp?.[2] ? `${hostname}:${hp[2]}` : hostname;
  }
  return ref.split("/")[0];
}

/** The namespaces after the registry host of a registry reference (no image name), e.g. `org/sub` of `r.io/org/sub`. */
export function orgPath(registry: string): string {
  const host = registryHost(registry);
  const at = registry.indexOf(host);
  if (host === "" || at < 0) return "";
  return registry.slice(at + host.length).replace(/^\//, "");
}

/**
 * The mirror location without the trailing path segments it shares with the source: containerd appends the image's
 * repository path itself. Stops at the first differing segment from the end.
 */
export function mirrorBase(source: string, mirror: string): string {
  if (source === mirror) return registryHost(mirror);
  const s = source.split("/");
  const m = mirror.split("/");
  let keep = m.length;
  for (let i = 0; i < s.length && i < m.length; i++) {
    if (s[s.length - 1 - i] !== m[m.length - 1 - i]) break;
    keep--;
  }
  return m.slice(0, keep).join("/");
}

function toMirrorSet(entry: MirrorEntry, resolveTags: boolean): MirrorSet {
  return {
    source: registryHost(entry.source),
    mirrors: (entry.mirrors ?? []).map((m) => ({ host: mirrorBase(entry.source, m), resolveTags })),
    policy: entry.mirrorSourcePolicy ?? "",
  };
}

/** Unions mirrors by host; when a host appears for both digests and tags, the tag-resolving one wins. */
function mergeMirrors(existing: Mirror[], added: Mirror[]): Mirror[] {
  const byHost = new Map<string, Mirror>();
  for (const m of existing) byHost.set(m.host, m);
  for (const m of added) {
    const had = byHost.get(m.host);
    if (!had || (!had.resolveTags && m.resolveTags)) byHost.set(m.host, m);
  }
  return [...byHost.values()];
}

/**
 * One set per source registry. A later entry's policy replaces the registry's only while that is exactly
 * AllowContactingSource: so one NeverContactSource entry makes the whole registry NeverContactSource, but an entry
 * that leaves the policy unset keeps it unset for the rest. Mirrors of a lone entry are not deduplicated, as in WMCO.
 * Sets are sorted by source and mirrors by host (byte order, as Go compares strings).
 */
export function mergeMirrorSets(sets: MirrorSet[]): MirrorSet[] {
  const bySource = new Map<string, MirrorSet>();
  for (const s of sets) {
    const had = bySource.get(s.source);
    if (!had) {
      bySource.set(s.source, { ...s, mirrors: [...s.mirrors] });
      continue;
    }
    had.mirrors = mergeMirrors(had.mirrors, s.mirrors);
    if (had.policy === "AllowContactingSource") had.policy = s.policy;
  }
  const byteOrder = (a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b));
  const out = [...bySource.values()];
  for (const s of out) s.mirrors.sort((a, b) => byteOrder(a.host, b.host));
  return out.sort((a, b) => byteOrder(a.source, b.source));
}

/** All IDMS entries (digest mirrors, pull only), then all ITMS entries (tag mirrors, pull and resolve), merged. */
export function mirrorSetsOf(imageDigestMirrorSets: readonly IDMS[], imageTagMirrorSets: readonly ITMS[]): MirrorSet[] {
  const all: MirrorSet[] = [];
  for (const idms of imageDigestMirrorSets) for (const e of idms.spec.imageDigestMirrors ?? []) all.push(toMirrorSet(e, false));
  for (const itms of imageTagMirrorSets) for (const e of itms.spec.imageTagMirrors ?? []) all.push(toMirrorSet(e, true));
  return mergeMirrorSets(all);
}

/** Registry host → `user:password`, read from a `.dockerconfigjson` the way Kubernetes' credential provider reads it. */
export function pullSecretCredentials(pullSecret: string | undefined): Map<string, string> {
  const out = new Map<string, string>();
  if (!pullSecret) return out;
  let doc: unknown;
  try {
    doc = JSON.parse(pullSecret);
  } catch {
    throw new Error("the pull secret is not valid JSON (.dockerconfigjson expected)");
  }
  const auths = (doc as { auths?: Record<string, { auth?: string; username?: string; password?: string }> }).auths ?? {};
  for (const [registry, entry] of Object.entries(auths)) {
    let user = entry.username ?? "";
    let pass = entry.password ?? "";
    if (entry.auth) {
      const decoded = Buffer.from(entry.auth, "base64").toString("utf8");
      const sep = decoded.indexOf(":");
      // The credential provider rejects the whole secret here, and WMCO then writes no registry files at all.
      if (sep < 0) throw new Error(`the pull secret's auth for ${registry} is not base64(username:password)`);
      user = decoded.slice(0, sep);
      pass = decoded.slice(sep + 1);
    }
    out.set(registry, `${user}:${pass}`);
  }
  return out;
}

function url(hostAndPath: string): string {
  const host = registryHost(hostAndPath);
  const org = orgPath(hostAndPath);
  return `https://${host}/v2${org ? `/${org}` : ""}`;
}

/** The text of one registry's `hosts.toml`; empty when it has no mirrors (WMCO still writes the empty file). */
export function hostsTomlText(set: MirrorSet, credentials: Map<string, string>): string {
  if (set.mirrors.length === 0) return "";
  // NeverContactSource: the fallback server is the first mirror, so even when every mirror fails the source is not asked.
  const fallback = set.policy === "NeverContactSource" ? set.mirrors[0].host : set.source;
  let out = `server = "${url(fallback)}"\n\noverride_path = true\n`;
  for (const m of set.mirrors) {
    const u = url(m.host);
    out += `\n[host."${u}"]\n`;
    out += m.resolveTags ? `  capabilities = ["pull", "resolve"]\n` : `  capabilities = ["pull"]\n`;
    out += "  override_path = true\n";
    const cred = credentials.get(registryHost(m.host));
    if (cred !== undefined) {
      out += `  [host."${u}".header]\n    authorization = "Basic ${Buffer.from(cred, "utf8").toString("base64")}"\n`;
    }
  }
  return out;
}

/**
 * The directory containerd on Windows looks up for a registry: `host_port_` for `host:port` (its hostDirectory
 * rule), since `:` cannot appear in a Windows file name. WMCO itself writes `host:port`, which NTFS cannot hold,
 * so for registries with a port this is where the file has to be for containerd to find it.
 */
export function registryDirectory(source: string): string {
  const i = source.lastIndexOf(":");
  return i > 0 ? `${source.slice(0, i)}_${source.slice(i + 1)}_` : source;
}

/**
 * Every Windows node's registry files: directory under `C:\k\containerd\registries` → exact `hosts.toml` text.
 * Sets are processed in the order given; pass them in the order the API lists them (by name) to match WMCO.
 */
export function renderHostsToml(input: { imageDigestMirrorSets: IDMS[]; imageTagMirrorSets: ITMS[]; pullSecret?: string }): Record<string, string> {
  const credentials = pullSecretCredentials(input.pullSecret);
  const files: Record<string, string> = {};
  for (const set of mirrorSetsOf(input.imageDigestMirrorSets, input.imageTagMirrorSets)) {
    files[registryDirectory(set.source)] = hostsTomlText(set, credentials);
  }
  return files;
}

/** The same text with registry credentials replaced, for showing in outputs, logs and pull requests. */
export function redactHostsToml(text: string): string {
  return text.replace(/(authorization = "Basic )[^"]*(")/g, "$1<redacted>$2");
}
