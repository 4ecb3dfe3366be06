import { ConfigIssue, joinPath } from "../../stacks/config-issue";
import { IDMS, ITMS, registryHost } from "./hosts-toml";
import { emittedPolicy, MirrorEntry, mirrorSetName, MirrorsConfig } from "./mirror-sets";
import { WINDOWS_NAME_FORBIDDEN, WINDOWS_REGISTRY, WMCO_REGISTRIES_DIR } from "../../facts/wmco";

// The API server's own patterns for IDMS/ITMS (openshift/api): host[:port][/namespace...]; sources may also be `*.host`.
const LABEL = "(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])";
const HOST = `${LABEL}(?:(?:\\.${LABEL})+)?(?::[0-9]+)?`;
const PATH = "(?:(?:/[a-z0-9]+(?:(?:(?:[._]|__|[-]*)[a-z0-9]+)+)?)+)?";
const LOCATION = new RegExp(`^${HOST}${PATH}$`);
const WILDCARD = new RegExp(`^\\*(?:\\.${LABEL})+$`);
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

type Kind = "digest" | "tag";
const KINDS: readonly Kind[] = ["digest", "tag"];
type At = (...p: (string | number)[]) => string;

/** Everything after the registry host, e.g. `oss/kubernetes/pause`. */
function repoPath(location: string): string {
  return location.split("/").slice(1).join("/");
}

/** A hint for the usual mistakes, or "" (the generic message already shows the allowed shape). */
function shapeHint(v: string): string {
  const path = repoPath(v);
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(v)) return "; leave out the scheme";
  if (path.includes("@")) return "; leave out the digest (@sha256:...)";
  if (path.includes(":")) return "; leave out the tag (:...)";
  if (/[A-Z]/.test(path)) return "; repository paths are lowercase";
  if (v.endsWith("/")) return "; drop the trailing /";
  return "";
}

/**
 * Who writes each source registry's `hosts.toml` on the Windows nodes: `wmco` for an OpenShift stack with Windows
 * nodes (MachineSets or BYOH hosts), `wmco-no-nodes` for one without, `kubeadm` for a Kubernetes stack, whose nodes
 * this program writes itself.
 */
export type MirrorWriter = "wmco" | "wmco-no-nodes" | "kubeadm";

/**
 * Why WMCO cannot write this source's `hosts.toml` on a Windows node, or undefined. WMCO names the directory after the
 * source registry as spelled (pkg/registries/registries.go `GenerateConfigFiles`, `extractRegistryHostname`), so a
 * port or a `*.` wildcard puts a character Windows does not allow into the path. The write is a step of node
 * configuration (pkg/nodeconfig/nodeconfig.go `Configure` → `createRegistryConfigFiles` → `ReplaceDir`), and every
 * WMCO release from release-4.18 to master does the same, so no pinned release avoids it.
 */
export function wmcoUnwritableSource(source: string): string | undefined {
  const host = registryHost(source);
  const bad = [...new Set(host.match(new RegExp(WINDOWS_NAME_FORBIDDEN.source, "g")) ?? [])];
  if (bad.length === 0) return undefined;
  return `WMCO writes this registry's mirrors to ${WMCO_REGISTRIES_DIR}\\${host}\\hosts.toml, naming the directory after the source as written (pkg/registries/registries.go GenerateConfigFiles), and ${bad.map((c) => `'${c}'`).join(" and ")} cannot be part of a Windows file name; the failed write stops WMCO from configuring or upgrading every Windows node of the cluster (pkg/nodeconfig/nodeconfig.go Configure), on every WMCO release from 10.18 to 11.0`;
}

/** How to avoid a source WMCO cannot write. */
function unwritableFix(source: string): string {
  const host = registryHost(source);
  return host.startsWith("*.")
    ? `list each registry it stands for as a source of its own (e.g. registry${host.slice(1)})`
    : `pull and mirror these images under a registry name without a port (one served on 443)`;
}

function checkSource(src: string, at: At, writer: MirrorWriter, errors: ConfigIssue[], warnings: ConfigIssue[]): void {
  const wildcard = WILDCARD.test(src);
  if (!wildcard && !LOCATION.test(src)) {
    errors.push({
      path: at("source"),
      message: `${JSON.stringify(src)} is not a registry or repository like registry.redhat.io/ubi9 or mirror.local:5000${shapeHint(src)}`,
    });
    return;
  }
  if (writer === "kubeadm") {
    // This program writes kubeadm nodes' files itself: a port goes into containerd's host_port_ directory
    // (registryDirectory), but no directory can carry a wildcard's '*'.
    if (wildcard)
      errors.push({
        path: at("source"),
        message: `this program writes each source registry's hosts.toml to ${WMCO_REGISTRIES_DIR}\\<registry>\\hosts.toml on every Windows node, and '*' cannot be part of a Windows file name; ${unwritableFix(src)}`,
      });
    return;
  }
  const why = wmcoUnwritableSource(src);
  if (!why) return;
  if (writer === "wmco")
    errors.push({ path: at("source"), message: `${src}: ${why}; ${unwritableFix(src)}, or remove this entry` });
  else
    warnings.push({
      path: at("source"),
      message: `${src}: ${why}. This stack declares no Windows nodes, so nothing fails yet, but no Windows node can join this cluster while the source exists; before adding one, ${unwritableFix(src)}, or remove this entry`,
    });
}

/**
 * Why a well-formed mirror would send Windows pulls to the wrong place, or undefined. WMCO strips from the mirror every
 * trailing segment it shares with the source and containerd appends the image's repository path, so the mirror must
 * end with exactly the source's path and must not repeat the source registry right before it.
 */
export function windowsNamingProblem(source: string, mirror: string): string | undefined {
  if (mirror === source) return undefined;
  const path = repoPath(source);
  const host = registryHost(mirror);
  if (path && repoPath(mirror) !== path && !repoPath(mirror).endsWith(`/${path}`)) {
    return `on Windows nodes a mirror of ${source} must end with its path: use <mirror host>/<optional namespaces>/${path} (e.g. ${host}/${path})`;
  }
  const s = source.split("/");
  const m = mirror.split("/");
  if (m.length > s.length && m.slice(m.length - s.length).join("/") === source) {
    const kept = m.slice(0, m.length - s.length).join("/");
    const tail = path ? "" : "/<repository>";
    const suggestion = `${kept}/${s[0].toLowerCase().replace(/[.:]/g, "-")}${path ? `/${path}` : ""}`;
    return `on Windows nodes WMCO strips the source registry ${s[0]} from this mirror too (it drops every trailing segment the two share), so pulls would go to ${kept}/${path || "<repository>"} instead of ${mirror}${tail}; use a mirror path that does not repeat the registry name, e.g. ${suggestion}`;
  }
  return undefined;
}

/**
 * Mirrors are cluster-wide; Windows nodes pull only a few images through them, all from `mcr.microsoft.com` (the
 * pause image WMCO's containerd config names, and Windows base images). A naming problem is an error where it
 * breaks those pulls, and a warning elsewhere: Linux nodes (CRI-O) do not strip path segments, so a mirror that
 * is wrong for Windows may be right for the Linux images it exists for (OKD docs' IDMS example: ubi9).
 */
export function namingBreaksWindowsPulls(source: string): boolean {
  return registryHost(source).toLowerCase() === WINDOWS_REGISTRY;
}

function checkMirrors(e: MirrorEntry, at: At, errors: ConfigIssue[], warnings: ConfigIssue[]): void {
  const seen = new Map<string, number>();
  (e.mirrors ?? []).forEach((mirror, j) => {
    if (!LOCATION.test(mirror)) {
      errors.push({
        path: at("mirrors", j),
        message: `${JSON.stringify(mirror)} is not a location like mirror.example.com:5000/org/repo${shapeHint(mirror)}`,
      });
      return;
    }
    const first = seen.get(mirror);
    if (first !== undefined)
      errors.push({
        path: at("mirrors", j),
        message: `${mirror} is listed twice in this entry (also mirrors[${first}]); remove one`,
      });
    else seen.set(mirror, j);
    const naming = LOCATION.test(e.source) ? windowsNamingProblem(e.source, mirror) : undefined;
    if (naming && namingBreaksWindowsPulls(e.source)) errors.push({ path: at("mirrors", j), message: naming });
    else if (naming)
      warnings.push({
        path: at("mirrors", j),
        message: `${naming} (a warning: ${e.source} is not an image Windows nodes pull through WMCO, and Linux nodes are not affected)`,
      });
  });
  if (e.mirrorSourcePolicy === "NeverContactSource" && (e.mirrors ?? []).length === 0) {
    errors.push({
      path: at("mirrorSourcePolicy"),
      message:
        "NeverContactSource without mirrors leaves nowhere to pull from, so every pull of this source fails; add mirrors or drop the policy",
    });
  }
}

function checkName(kind: Kind, e: MirrorEntry, at: At, names: Map<string, string>, errors: ConfigIssue[]): void {
  const name = mirrorSetName(kind, e);
  if (name.length > 253 || !DNS_SUBDOMAIN.test(name)) {
    errors.push({
      path: at("name"),
      message: `${JSON.stringify(name)} is not a valid object name: use lowercase letters, digits, '-' and '.', at most 253 characters`,
    });
  }
  const other = names.get(name);
  const why = e.name ? "" : " (derived from the source)";
  if (other !== undefined)
    errors.push({
      path: at("name"),
      message: `object name ${name}${why} is already used by ${other}; set a distinct name`,
    });
  else names.set(name, at());
}

/**
 * Checks `windows-estate:mirrors` the way the API server will, plus the Windows rules WMCO implies: mirrors are
 * per registry on Windows, and a mirror must end with its source's path. Warnings (shown, not fatal) say where
 * Windows nodes will behave differently from what an entry asks for. Paths are relative to the config namespace.
 */
export function validateMirrors(
  m: MirrorsConfig,
  writer: MirrorWriter = "wmco",
): { errors: ConfigIssue[]; warnings: ConfigIssue[] } {
  const errors: ConfigIssue[] = [];
  const warnings: ConfigIssue[] = [];
  for (const kind of KINDS) {
    const sources = new Map<string, string>();
    const names = new Map<string, string>();
    (m[kind] ?? []).forEach((e, i) => {
      const at: At = (...p) => joinPath(["mirrors", kind, i, ...p]);
      checkSource(e.source, at, writer, errors, warnings);
      const other = sources.get(e.source);
      if (other !== undefined)
        errors.push({
          path: at("source"),
          message: `${e.source} is listed twice (also ${other}); put all its mirrors in one entry`,
        });
      else sources.set(e.source, at());
      checkMirrors(e, at, errors, warnings);
      // A repeated source already explains why its derived name repeats.
      if (other === undefined || e.name) checkName(kind, e, at, names, errors);
    });
  }
  warnings.push(...policyWarnings(m));
  return { errors, warnings };
}

interface Located {
  at: (string | number)[];
  entry: MirrorEntry;
}

/** Entries of both lists grouped by source registry host, as WMCO groups them into one hosts.toml. */
function byRegistry(m: MirrorsConfig): Map<string, Located[]> {
  const out = new Map<string, Located[]>();
  for (const kind of KINDS) {
    (m[kind] ?? []).forEach((entry, i) => {
      const host = registryHost(entry.source);
      out.set(host, [...(out.get(host) ?? []), { at: ["mirrors", kind, i], entry }]);
    });
  }
  return out;
}

/**
 * Where a registry's single Windows policy differs from what an entry asks for. WMCO keeps one policy per registry:
 * any NeverContactSource wins over AllowContactingSource, but a set without a policy, read first, cancels it (and
 * WMCO reads the sets in no fixed order). Our objects carry an explicit policy whenever they have mirrors, so only
 * entries without mirrors can be unset.
 */
function policyWarnings(m: MirrorsConfig): ConfigIssue[] {
  const out: ConfigIssue[] = [];
  for (const [host, entries] of byRegistry(m)) {
    const never = entries.find((l) => emittedPolicy(l.entry) === "NeverContactSource");
    if (!never) continue;
    const neverPath = joinPath(never.at);
    for (const l of entries) {
      const policy = emittedPolicy(l.entry);
      if (policy === "AllowContactingSource") {
        out.push({
          path: joinPath([...l.at, "mirrorSourcePolicy"]),
          message: `on Windows nodes every image of ${host} becomes NeverContactSource, including ${l.entry.source}, because ${neverPath} sets it and Windows mirrors per registry; mirror all of ${host} before relying on that, or drop NeverContactSource from ${neverPath}`,
        });
      } else if (policy === undefined) {
        out.push({
          path: joinPath([...l.at, "mirrors"]),
          message: `this entry has no mirrors, so its object has no mirrorSourcePolicy; WMCO reads sets in no fixed order and, whenever it reads this one first, the NeverContactSource of ${neverPath} is dropped for all of ${host} on Windows nodes; add mirrors or remove the entry`,
        });
      }
    }
  }
  return out;
}

/**
 * The mirror sets already in the cluster that WMCO cannot write, said as validateMirrors says it for the config. WMCO
 * merges every ImageDigestMirrorSet and ImageTagMirrorSet in the cluster into each node's files
 * (pkg/registries/registries.go `GenerateConfigFiles` lists them all), so another team's set stops this stack's
 * Windows nodes as surely as one of ours: an error while the stack has Windows nodes, a warning otherwise. Sets named
 * in `ours` are this stack's, already checked as config (its declaration replaces them).
 */
export function clusterMirrorSetIssues(
  sets: { idms: readonly IDMS[]; itms: readonly ITMS[] },
  ours: ReadonlySet<string>,
  windowsNodes: boolean,
): { errors: ConfigIssue[]; warnings: ConfigIssue[] } {
  const errors: ConfigIssue[] = [];
  const warnings: ConfigIssue[] = [];
  const check = (kind: string, field: string, name: string, entries: { source: string }[]) =>
    entries.forEach((e, i) => {
      const why = wmcoUnwritableSource(e.source);
      if (!why || ours.has(name)) return;
      const what = `the cluster's ${kind} ${name} has source ${e.source} (spec.${field}[${i}].source): ${why}`;
      const fix = `change that object (${unwritableFix(e.source)}) or delete it: oc edit ${kind.toLowerCase()} ${name} (this stack does not own it and leaves it as it is)`;
      if (windowsNodes) errors.push({ path: "cluster", message: `${what}; ${fix}` });
      else
        warnings.push({
          path: "cluster",
          message: `${what}. This stack declares no Windows nodes, so nothing fails yet; before adding one, ${fix}`,
        });
    });
  for (const o of sets.idms)
    check("ImageDigestMirrorSet", "imageDigestMirrors", o.metadata?.name ?? "", o.spec.imageDigestMirrors ?? []);
  for (const o of sets.itms)
    check("ImageTagMirrorSet", "imageTagMirrors", o.metadata?.name ?? "", o.spec.imageTagMirrors ?? []);
  return { errors, warnings };
}
