import { MANAGED_BY } from "../operator/builders";

/** WMCO reads BYOH hosts from this ConfigMap in its own namespace (pkg/wiparser). */
const WINDOWS_INSTANCES = "windows-instances";

interface ConfigMapObject {
  apiVersion: "v1";
  kind: "ConfigMap";
  metadata: { name: string; namespace: string; labels: Record<string, string> };
  data: Record<string, string>;
}

/**
 * The `windows-instances` ConfigMap: key = address, value exactly `username=<user>`. WMCO splits on the first `=`
 * and does not trim, so no spaces and no trailing newline (YAML `|-`, not `|`).
 */
export function buildInstancesConfigMap(
  namespace: string,
  hosts: ReadonlyArray<{ address: string; username: string }>,
): ConfigMapObject {
  const data: Record<string, string> = {};
  for (const h of [...hosts].sort((a, b) => a.address.localeCompare(b.address)))
    data[h.address] = `username=${h.username}`;
  return {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: WINDOWS_INSTANCES, namespace, labels: { ...MANAGED_BY } },
    data,
  };
}
