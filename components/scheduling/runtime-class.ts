import { WindowsServer } from "../../stacks/schema/machinesets";
import { WINDOWS_BUILD_LABEL, WINDOWS_SERVER } from "../../facts/wmco";
import { MANAGED_BY } from "../operator/builders";

interface RuntimeClassObject {
  apiVersion: "node.k8s.io/v1";
  kind: "RuntimeClass";
  metadata: { name: string; labels: Record<string, string> };
  handler: string;
  scheduling: {
    nodeSelector: Record<string, string>;
    tolerations: { key: string; operator: "Equal"; value: string; effect: "NoSchedule" }[];
  };
}

/**
 * A RuntimeClass per Windows build (`windows2022`, …): pods that name it land on Windows nodes of exactly that build
 * (container images must match the host build) and tolerate the `os=Windows:NoSchedule` taint kubelet registers.
 * Both spellings of the value are tolerated, as WMCO's docs do.
 */
export function buildRuntimeClass(version: WindowsServer): RuntimeClassObject {
  return {
    apiVersion: "node.k8s.io/v1",
    kind: "RuntimeClass",
    metadata: { name: `windows${version}`, labels: { ...MANAGED_BY } },
    handler: "runhcs-wcow-process",
    scheduling: {
      nodeSelector: {
        "kubernetes.io/os": "windows",
        "kubernetes.io/arch": "amd64",
        [WINDOWS_BUILD_LABEL]: WINDOWS_SERVER[version].buildLabel,
      },
      tolerations: [
        { key: "os", operator: "Equal", value: "Windows", effect: "NoSchedule" },
        { key: "os", operator: "Equal", value: "windows", effect: "NoSchedule" },
      ],
    },
  };
}
