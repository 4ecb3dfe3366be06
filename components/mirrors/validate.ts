import { ConfigIssue, joinPath } from "../../stacks/config-issue";
import { MirrorsConfigInput } from "../../stacks/schema/mirrors";
import { mirrorSetsOf, registryHost } from "./hosts-toml";
import { buildDigestMirrorSets, buildTagMirrorSets, mirrorSetName } from "./mirror-sets";

// The API server's own patterns for IDMS/ITMS (openshift/api): host[:port][/namespace...], sources also `*.host`.
const HOST = "(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])(?:(?:\\.(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9]))+)?(?::[0-9]+)?";
const PATH = "(?:(?:/[a-z0-9]+(?:(?:(?:[._]|__|[-]*)[a-z0-9]+)+)?)+)?";
const LOCATION = new RegExp(`^${HOST}${PATH}$`);
const WILDCARD = /^\*(?:\.(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9]))+$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

type Kind = "digest" | "tag";

function shapeHint(v: string): string {
  if (/^[a-z]+:\/\//i.test(v)) return "; leave out the scheme";
  if (/[@]|:[^/]*$/.test(v.split("/").slice(1).join("/"))) return "; leave out the tag or digest";
  if (/[A-Z]/.test(v.split("/").slice(1).join("/"))) return "; repository paths are lowercase";
  return "";
}

/**
 * Checks `windows-estate:mirrors` the way the API server will, plus the Windows rules: on Windows nodes WMCO
 * mirrors whole registries and strips from each mirror the path it shares with the source, so a mirror must end
 * with the source's repository path. Warnings (not fatal) say when one entry changes the policy of a whole registry.
 */
export function validateMirrors(m: MirrorsConfigInput): { errors: ConfigIssue[]; warnings: ConfigIssue[] } {
  const errors: ConfigIssue[] = [];
  const warnings: ConfigIssue[] = [];
  const names = new Map<string, string>();
  for (const kind of ["digest", "tag"] as const) {
    const sources = new Map<string, number>();
    m[kind].forEach((e, i) => {
      const at = (...p: (string | number)[]) => joinPath(["mirrors", kind, i, ...p]);
      const src = e.source;
      if (WILDCARD.test(src)) {
        warnings.push({ path: at("source"), message: `wildcard source ${src} is applied on Linux nodes only: WMCO cannot write a registry directory named '${src}' on Windows` });
      } else if (!LOCATION.test(src)) {
        errors.push({ path: at("source"), message: `${JSON.stringify(src)} is not a repository or registry like registry.redhat.io/ubi9 or mirror.local:5000${shapeHint(src)}` });
      }
      const firstSource = sources.get(src);
      if (firstSource !== undefined) errors.push({ path: at("source"), message: `${src} is listed twice (also mirrors.${kind}[${firstSource}]); put all its mirrors in one entry` });
      else sources.set(src, i);

      const sourcePath = src.split("/").slice(1).join("/");
      const seen = new Set<string>();
      e.mirrors.forEach((mirror, j) => {
        if (!LOCATION.test(mirror)) {
          errors.push({ path: at("mirrors", j), message: `${JSON.stringify(mirror)} is not a location like mirror.example.com:5000/org/repo${shapeHint(mirror)}` });
          return;
        }
        if (seen.has(mirror)) errors.push({ path: at("mirrors", j), message: `${mirror} is listed twice` });
        seen.add(mirror);
        if (sourcePath && mirror !== src && !mirror.endsWith(`/${sourcePath}`)) {
          errors.push({
            path: at("mirrors", j),
            message: `on Windows nodes a mirror must end with the source's path: use <mirror host>/<optional namespaces>/${sourcePath} (e.g. ${registryHost(mirror)}/${sourcePath})`,
          });
        }
      });
      if (e.mirrorSourcePolicy === "NeverContactSource" && e.mirrors.length === 0) {
        errors.push({ path: at("mirrorSourcePolicy"), message: "NeverContactSource without mirrors leaves nowhere to pull from; add mirrors or drop the policy" });
      }
      const name = mirrorSetName(kind, e);
      if (!DNS_SUBDOMAIN.test(name) || name.length > 253) errors.push({ path: at("name"), message: `${JSON.stringify(name)} must be a lowercase DNS subdomain` });
      const key = `${kind}:${name}`;
      if (names.has(key)) errors.push({ path: at("name"), message: `object name ${name} is used twice (also ${names.get(key)}); set distinct names` });
      else names.set(key, at());
    });
  }
  if (errors.length === 0) warnings.push(...policyWarnings(m));
  return { errors, warnings };
}

/** Where the registry-wide policy WMCO ends up with differs from what an entry asked for. */
function policyWarnings(m: MirrorsConfigInput): ConfigIssue[] {
  const out: ConfigIssue[] = [];
  const merged = new Map(mirrorSetsOf(buildDigestMirrorSets(m), buildTagMirrorSets(m)).map((s) => [s.source, s.policy]));
  for (const kind of ["digest", "tag"] as const satisfies readonly Kind[]) {
    m[kind].forEach((e, i) => {
      const host = registryHost(e.source);
      const effective = merged.get(host) ?? "";
      const asked = e.mirrorSourcePolicy ?? "";
      const path = joinPath(["mirrors", kind, i, "mirrorSourcePolicy"]);
      if (effective === "NeverContactSource" && asked !== "NeverContactSource") {
        out.push({ path, message: `on Windows nodes every image of ${host} becomes NeverContactSource, because another entry for ${host} sets it (mirroring is per registry on Windows)` });
      } else if (asked === "NeverContactSource" && effective !== "NeverContactSource") {
        out.push({ path, message: `on Windows nodes this has no effect: an entry for ${host} processed earlier leaves mirrorSourcePolicy unset, and WMCO keeps that; set AllowContactingSource explicitly on the other entries of ${host}` });
      }
    });
  }
  return out;
}
