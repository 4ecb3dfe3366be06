import { ConfigIssue } from "./config-issue";
import { editDistance } from "./did-you-mean";

/**
 * Keys whose namespace is a near miss of ours (`windows_estate:byoh`, `windows-estat:byoh`, `Windows-Estate:byoh`).
 * Pulumi accepts any namespace and the program reads only its own, so without this check such a key would silently
 * drop part of the estate. Near: equal once case and punctuation are ignored, or at most 3 edits away; the namespaces
 * of real packages (`pulumi`, `kubernetes`, `aws`, `azure-native`…) are nowhere near.
 */
export function namespaceTypos(keys: Iterable<string>, namespace: string): ConfigIssue[] {
  const out: ConfigIssue[] = [];
  const squash = (s: string) => s.toLowerCase().replace(/[^a-z0-9]/g, "");
  for (const key of keys) {
    const colon = key.indexOf(":");
    if (colon < 0) continue;
    const ns = key.slice(0, colon);
    if (ns === namespace) continue;
    if (squash(ns) !== squash(namespace) && editDistance(ns, namespace) > 3) continue;
    const rest = key.slice(colon + 1);
    out.push({
      key,
      path: rest,
      message: `is in namespace '${ns}', which this program never reads; rename the key to ${namespace}:${rest}`,
    });
  }
  return out;
}
