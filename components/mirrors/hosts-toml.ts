/**
 * The containerd `hosts.toml` files WMCO writes under `C:\k\containerd\registries` on every Windows node, computed
 * from the cluster's ImageDigestMirrorSets and ImageTagMirrorSets the way WMCO computes them (pkg/registries, the
 * format since April 2025: `/v2` server paths, `override_path`, LF line endings). Pure functions only: the program
 * uses them to show the files in a pull request before anything reaches a node.
 */
import { isObject, JsonObject, parseJson } from "../../lib/json";

/** The two values the API accepts for `mirrorSourcePolicy`. */
export type MirrorSourcePolicy = "AllowContactingSource" | "NeverContactSource";

/**
 * One `spec.imageDigestMirrors[]` / `spec.imageTagMirrors[]` entry as the cluster holds it. The policy is a plain
 * string because objects from a cluster (or a broken config) may hold any value; only `NeverContactSource` changes
 * the output.
 */
export interface ImageMirrors {
  source: string;
  mirrors?: string[];
  mirrorSourcePolicy?: string;
}

/** An ImageDigestMirrorSet as the cluster holds it (only what WMCO reads). */
export interface IDMS {
  metadata?: { name?: string };
  spec: { imageDigestMirrors?: ImageMirrors[] };
}

/** An ImageTagMirrorSet as the cluster holds it (only what WMCO reads). */
export interface ITMS {
  metadata?: { name?: string };
  spec: { imageTagMirrors?: ImageMirrors[] };
}

/** One mirror as a registry file lists it: host plus the namespaces not shared with the source. */
interface Mirror {
  host: string;
  /** ITMS mirrors may turn a tag into a digest (`resolve`); IDMS mirrors may only be pulled from by digest. */
  resolveTags: boolean;
}

/** Everything one source registry's file says. */
export interface MirrorSet {
  /** The registry host (with port), or, for sets not yet reduced to a host, whatever the caller put there. */
  source: string;
  mirrors: Mirror[];
  /** As given; `""` when unset. An unset policy renders like AllowContactingSource but merges differently. */
  policy: string;
}

/**
 * The registry host (with port) of an image or registry reference. Go's url.Parse finds a host only after
 * `scheme://` (or a leading `//`); for everything else WMCO takes the text before the first `/`. Exact for every form
 * the API server admits (`host[:port][/path]`, `*.host`) and for `scheme://host[:port]/...`; malformed URLs the API
 * rejects anyway may differ from Go in corner cases.
 */
export function registryHost(ref: string): string {
  return urlHostname(ref) || ref.split("/")[0];
}

/** Host[:port] of `scheme://authority/...` as Go's Hostname()+Port() give it, or "" when Go would find none. */
function urlHostname(ref: string): string {
  // Go refuses URLs with control characters outright, so WMCO falls back to the plain split for them.
  if (/[\x00-\x1f\x7f]/.test(ref)) return "";
  const m = /^(?:[A-Za-z][A-Za-z0-9+.-]*:)?\/\/([^/?#]*)/.exec(ref);
  if (!m) return "";
  const authority = m[1].slice(m[1].lastIndexOf("@") + 1);
  const hp = /^(\[[^\]]*\]|[^:]*)(?::(\d*))?$/.exec(authority);
  if (!hp) return "";
  const hostname = hp[1].replace(/^\[|\]$/g, "");
  if (hostname === "") return "";
  return hp[2] ? `${hostname}:${hp[2]}` : hostname;
}

/**
 * The namespaces after the registry host of a registry reference (no image name), e.g. `org/sub` of `r.io/org/sub`.
 * Like WMCO it cuts at the first occurrence of the host; with an empty host Go's split-on-"" peels off one character.
 */
export function orgPath(registry: string): string {
  const host = registryHost(registry);
  let rest: string;
  if (host === "") {
    const chars = [...registry];
    if (chars.length < 2) return "";
    rest = registry.slice(chars[0].length);
  } else {
    const at = registry.indexOf(host);
    if (at < 0) return "";
    rest = registry.slice(at + host.length);
  }
  return rest.startsWith("/") ? rest.slice(1) : rest;
}

/**
 * The mirror without the trailing `/`-segments it shares with the source, comparing from the end and stopping at the
 * first difference. containerd appends the image's repository path itself, so the shared part must go.
 */
export function stripSharedSuffix(source: string, mirror: string): string {
  const s = source.split("/");
  const m = mirror.split("/");
  let keep = m.length;
  for (let i = 0; i < s.length && i < m.length && s[s.length - 1 - i] === m[m.length - 1 - i]; i++) keep--;
  return m.slice(0, keep).join("/");
}

/** The mirror location a registry file names. A mirror equal to its source keeps its registry, not an empty host. */
export function mirrorBase(source: string, mirror: string): string {
  return source === mirror ? registryHost(mirror) : stripSharedSuffix(source, mirror);
}

function toMirrorSet(entry: ImageMirrors, resolveTags: boolean): MirrorSet {
  return {
    source: registryHost(entry.source),
    mirrors: (entry.mirrors ?? []).map((m) => ({ host: mirrorBase(entry.source, m), resolveTags })),
    policy: entry.mirrorSourcePolicy ?? "",
  };
}

/** Unions mirrors by host; when a host appears for both digests and tags, the tag-resolving one wins. */
export function mergeMirrors(existing: readonly Mirror[], added: readonly Mirror[]): Mirror[] {
  const byHost = new Map<string, Mirror>();
  for (const m of existing) byHost.set(m.host, m);
  for (const m of added) {
    const had = byHost.get(m.host);
    if (!had || (!had.resolveTags && m.resolveTags)) byHost.set(m.host, m);
  }
  return [...byHost.values()];
}

/** Go compares strings byte by byte; JavaScript's `<` compares UTF-16 units, which differs outside ASCII. */
function byteOrder(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a), Buffer.from(b));
}

/**
 * One set per source registry, sorted by source and each set's mirrors by host. A later set's policy replaces the
 * registry's only while that is exactly AllowContactingSource: so one NeverContactSource makes the whole registry
 * NeverContactSource, but a set without a policy met first keeps the registry unset. Mirrors of a source that appears
 * only once are not deduplicated, as in WMCO.
 */
export function mergeMirrorSets(sets: readonly MirrorSet[]): MirrorSet[] {
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
  const out = [...bySource.values()];
  for (const s of out) s.mirrors.sort((a, b) => byteOrder(a.host, b.host));
  return out.sort((a, b) => byteOrder(a.source, b.source));
}

/** All IDMS entries (digest mirrors, pull only), then all ITMS entries (tag mirrors, pull and resolve), merged. */
export function mirrorSetsOf(imageDigestMirrorSets: readonly IDMS[], imageTagMirrorSets: readonly ITMS[]): MirrorSet[] {
  const all: MirrorSet[] = [];
  for (const idms of imageDigestMirrorSets)
    for (const e of idms.spec.imageDigestMirrors ?? []) all.push(toMirrorSet(e, false));
  for (const itms of imageTagMirrorSets)
    for (const e of itms.spec.imageTagMirrors ?? []) all.push(toMirrorSet(e, true));
  return mergeMirrorSets(all);
}

// ---- pull secret -------------------------------------------------------------------------------------------------

/** Go's encoding/json matches object keys to struct fields without regard to case; the last match wins. */
function fieldsNamed(obj: JsonObject, name: string): unknown[] {
  return Object.entries(obj)
    .filter(([k]) => k.replace(/[A-Z]/g, (c) => c.toLowerCase()) === name)
    .map(([, v]) => v);
}

function stringField(obj: JsonObject, name: string, where: string): string {
  let out = "";
  for (const v of fieldsNamed(obj, name)) {
    if (v === null) continue;
    if (typeof v !== "string") throw new Error(`${where}.${name} is not a string`);
    out = v;
  }
  return out;
}

/**
 * Decodes an `auth` field as Kubernetes' credential provider does: padded base64 when it ends with `=`, unpadded
 * otherwise, strictly (no stray characters; Go skips only CR and LF). Node's decoder would silently skip garbage.
 */
function decodeAuthField(field: string, where: string): Buffer {
  const s = field.replace(/[\r\n]/g, "");
  const padded = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
  const unpadded = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2,3})?$/;
  if (!(field.trim().endsWith("=") ? padded : unpadded).test(s)) throw new Error(`${where}.auth is not valid base64`);
  const decoded = Buffer.from(s, "base64");
  if (!decoded.includes(0x3a)) throw new Error(`${where}.auth is not base64(username:password)`);
  return decoded;
}

/** `username:password` bytes of one `auths` entry; `auth`, when not empty, replaces the separate fields. */
function entryCredentials(entry: unknown, where: string): Buffer {
  // Go decodes a null entry into an empty one, which still yields a (blank) header.
  if (entry === null) return Buffer.from(":");
  if (!isObject(entry)) throw new Error(`${where} is not an object`);
  stringField(entry, "email", where); // unused, but a non-string fails Go's parse all the same
  const auth = stringField(entry, "auth", where);
  // Re-joining the two halves WMCO splits at the first ':' gives back exactly the decoded bytes.
  if (auth !== "") return decodeAuthField(auth, where);
  return Buffer.from(`${stringField(entry, "username", where)}:${stringField(entry, "password", where)}`, "utf8");
}

/** `HttpHeaders` is never used for mirrors, but a malformed one fails Go's parse of the whole secret. */
function checkHttpHeaders(doc: JsonObject): void {
  for (const headers of fieldsNamed(doc, "httpheaders")) {
    if (headers === null) continue;
    if (!isObject(headers)) throw new Error("the pull secret's HttpHeaders is not an object");
    for (const [k, v] of Object.entries(headers)) {
      if (v !== null && typeof v !== "string")
        throw new Error(`the pull secret's HttpHeaders[${JSON.stringify(k)}] is not a string`);
    }
  }
}

/**
 * Registry key → `username:password` bytes, read from a `.dockerconfigjson` the way WMCO reads it (Kubernetes'
 * credentialprovider types). Keys are matched exactly, never normalised. Throws where WMCO's own parse fails: WMCO then
 * writes no registry files at all, so a pull request should not show any either.
 */
export function pullSecretCredentials(pullSecret: string | undefined): Map<string, Buffer> {
  const out = new Map<string, Buffer>();
  if (pullSecret === undefined) return out;
  let doc: unknown;
  try {
    doc = parseJson(pullSecret);
  } catch {
    throw new Error("the pull secret is not valid JSON (a .dockerconfigjson document is expected)");
  }
  if (doc === null) return out;
  if (!isObject(doc))
    throw new Error("the pull secret is not a JSON object (a .dockerconfigjson document is expected)");
  checkHttpHeaders(doc);
  for (const auths of fieldsNamed(doc, "auths")) {
    // Go resets the map on null and otherwise adds to it, so later keys that differ only in case merge.
    if (auths === null) out.clear();
    else if (!isObject(auths)) throw new Error("the pull secret's auths is not an object");
    else
      for (const [registry, entry] of Object.entries(auths))
        out.set(registry, entryCredentials(entry, `auths[${JSON.stringify(registry)}]`));
  }
  return out;
}

// ---- rendering ---------------------------------------------------------------------------------------------------

function v2Url(hostAndPath: string): string {
  const org = orgPath(hostAndPath);
  return `https://${registryHost(hostAndPath)}/v2${org ? `/${org}` : ""}`;
}

/** The text of one registry's `hosts.toml`; empty when it has no mirrors (WMCO still writes the empty file). */
export function hostsTomlText(set: MirrorSet, credentials: ReadonlyMap<string, Buffer>): string {
  if (set.mirrors.length === 0) return "";
  // NeverContactSource: the fallback server is the first mirror, so even when every mirror fails the source is not asked.
  const fallback = set.policy === "NeverContactSource" ? set.mirrors[0].host : set.source;
  let out = `server = "${v2Url(fallback)}"\n\noverride_path = true\n`;
  for (const m of set.mirrors) {
    const url = v2Url(m.host);
    out += `\n[host."${url}"]\n`;
    out += m.resolveTags ? `  capabilities = ["pull", "resolve"]\n` : `  capabilities = ["pull"]\n`;
    out += "  override_path = true\n";
    // Credentials are looked up by the mirror's registry host only, never by its path.
    const cred = credentials.get(registryHost(m.host));
    if (cred !== undefined) out += `  [host."${url}".header]\n    authorization = "Basic ${cred.toString("base64")}"\n`;
  }
  return out;
}

/**
 * The directory containerd looks up first for a registry (containerd remotes/docker/config/hosts.go `hostDirectory`):
 * `host_port_` for `host:port`, else the host. Only for files this program writes itself (the kubeadm nodes); WMCO
 * never uses it and writes the source as it is spelled (see renderHostsToml).
 */
export function registryDirectory(source: string): string {
  const i = source.lastIndexOf(":");
  return i > 0 ? `${source.slice(0, i)}_${source.slice(i + 1)}_` : source;
}

/**
 * Every Windows node's registry files: directory under `C:\k\containerd\registries` → exact `hosts.toml` text. The
 * directory is the source registry exactly as WMCO names it (pkg/registries/registries.go `GenerateConfigFiles`:
 * `<source>\hosts.toml`), port and wildcard included; validateMirrors refuses the names Windows cannot hold.
 *
 * Sets are merged in the order given. WMCO lists them from its informer cache, whose order is arbitrary; the result
 * depends on that order only when one registry mixes a set without mirrorSourcePolicy and a NeverContactSource set.
 * Without `pullSecret` no credentials are written (WMCO itself refuses to run without the cluster's pull secret).
 * Throws on a pull secret WMCO could not parse.
 */
export function renderHostsToml(input: {
  imageDigestMirrorSets: IDMS[];
  imageTagMirrorSets: ITMS[];
  pullSecret?: string;
}): Record<string, string> {
  const credentials = pullSecretCredentials(input.pullSecret);
  const files: Record<string, string> = {};
  for (const set of mirrorSetsOf(input.imageDigestMirrorSets, input.imageTagMirrorSets)) {
    files[set.source] = hostsTomlText(set, credentials);
  }
  return files;
}

/** The same text with registry credentials replaced by `<redacted>`, for outputs, logs and pull requests. */
export function redactHostsToml(text: string): string {
  return text.replace(/(authorization = "Basic )[^"]*(")/g, "$1<redacted>$2");
}
