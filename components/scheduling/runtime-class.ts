import { WindowsServer } from "../../stacks/schema/machinesets";
import { WINDOWS_BUILD_LABEL, WINDOWS_SERVER } from "../../facts/wmco";
import { MANAGED_BY } from "../operator/builders";

/**
 * A RuntimeClass per Windows build (`windows2022`, …): pods that name it land on Windows nodes of exactly that build
 * (container images must match the host build) and tolerate the `os=Windows:NoSchedule` taint kubelet registers.
 * Both spellings of the value are tolerated, as WMCO's docs do.
 */
export function buildRuntimeClass(version: WindowsServer) {
  return {
    apiVersion: "node.k8s.io/v1" as const,
    kind: "RuntimeClass" as const,
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
