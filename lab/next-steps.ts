import { PLATFORMS } from "./seed/openshift";
import type { LabPlatform } from "./start";

/** The stack file the repository keeps for the lab: the Azure example, whose cluster is the Azure lab's seed. */
export const LAB_STACK_EXAMPLE = { platform: "azure", file: "stacks/examples/Pulumi.lab.yaml" } as const;

/**
 * What `start` prints after the `export` lines (docs/lab.md, quick start): the stack file `pulumi up` needs, the
 * Pulumi commands, and how to stop. Without a stack file `pulumi up` stops at "has no 'config:' section".
 */
export function nextSteps(name: string, platform: LabPlatform, infrastructureName?: string): string {
  const cluster =
    platform === "none"
      ? "a kubeadm cluster"
      : `the ${PLATFORMS[platform].type} cluster ${infrastructureName ?? PLATFORMS[platform].infrastructureName}`;
  const example = platform === LAB_STACK_EXAMPLE.platform && infrastructureName === undefined;
  return [
    `then, in the project folder and this shell, for ${cluster}:`,
    example
      ? `  cp ${LAB_STACK_EXAMPLE.file} Pulumi.lab.yaml   # its stack file (the WMCO key at ~/.ssh/wmco)`
      : "  write its stack file Pulumi.lab.yaml (docs/lab.md#quick-start)",
    "  pulumi login && pulumi stack init lab && pulumi up",
    `Stop it with: npm run lab -- stop${name === "default" ? "" : ` --name ${name}`}`,
  ].join("\n");
}
