import { WMCO_HOST_KEY_ANNOTATION, WMCO_HOST_KEY_TYPE_ANNOTATION } from "../../facts/day2";
import type { LabWindows } from "../lab/lab-windows";

/** WMCO's host-key pin on a Node (pkg/windows/hostkey.go): the key's wire format in base64, and its type. */
export function wmcoPin(l: LabWindows): Record<string, string> {
  return {
    [WMCO_HOST_KEY_ANNOTATION]: l.host.hostKeyLine.split(" ")[1],
    [WMCO_HOST_KEY_TYPE_ANNOTATION]: l.host.hostKeyLine.split(" ")[0],
  };
}

/**
 * How day-2 operations reach lab BYOH hosts: one WMCO key for every node, as in a real cluster (the first host's user
 * key, which the suite authorizes on all of them), each host's user from its `windows-instances` entry.
 */
export function byohReach(labs: readonly LabWindows[], platform: string) {
  return {
    platform,
    privateKey: labs[0]?.host.privateKey ?? "",
    byohUsers: Object.fromEntries(labs.map((l) => [l.host.host, l.host.user])),
    hostKeys: {},
    trustOnFirstUse: false,
    connectTimeoutSeconds: 5,
  };
}
