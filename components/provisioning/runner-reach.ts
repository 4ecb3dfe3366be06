/**
 * A stack that creates its Windows VMs (`byoh[]` or `nodes[]` entries with an `aws` or `azure` block) prepares them
 * over SSH from wherever `pulumi up` runs. Those VMs have private addresses only (components/provisioning/cloud-hosts.ts
 * uses the private IP), and a GitHub-hosted runner sits on GitHub's network, not the VMs': with `nodeAccess.via:
 * direct` every connection would time out, twenty minutes per host, long after the VMs were paid for. Refused at
 * preview instead, naming the key and the ways that do reach the VMs. Pure: the config and the environment in.
 */
import type { ConfigIssue } from "../../stacks/config-issue";
import type { ParsedKeys } from "../../stacks/load";

/**
 * `RUNNER_ENVIRONMENT` is set by GitHub on every job: `github-hosted` or `self-hosted` (GitHub docs, "Variables
 * reference", default environment variables). Anywhere else (a laptop, the Pulumi Kubernetes Operator) it is unset.
 */
const HOSTED = "github-hosted";

type Entry = { aws?: unknown; azure?: unknown };

/** The keys of the entries that create a VM: `byoh[0].aws`, `nodes[2].azure`. */
function createdVms(cfg: Partial<Pick<ParsedKeys, "byoh" | "nodes">>): string[] {
  const keys = (list: readonly Entry[] | undefined, at: string) =>
    (list ?? []).flatMap((e, i) => [
      ...(e.aws !== undefined ? [`${at}[${i}].aws`] : []),
      ...(e.azure !== undefined ? [`${at}[${i}].azure`] : []),
    ]);
  return [...keys(cfg.byoh, "byoh"), ...keys(cfg.nodes, "nodes")];
}

/**
 * An error at `nodeAccess.via` when this run is on a GitHub-hosted runner, the stack creates VMs, and it would reach
 * them directly. The choices exclude `cluster` for a render-only stack, which has no cluster to tunnel through
 * (components/day2/validate.ts refuses that pair).
 */
export function hostedRunnerIssues(
  cfg: Partial<Pick<ParsedKeys, "byoh" | "nodes" | "nodeAccess" | "cluster">>,
  env: Readonly<Record<string, string | undefined>>,
): ConfigIssue[] {
  if (env.RUNNER_ENVIRONMENT !== HOSTED) return [];
  if ((cfg.nodeAccess?.via ?? "direct") !== "direct") return [];
  const vms = createdVms(cfg);
  if (vms.length === 0) return [];
  const render = cfg.cluster?.render !== undefined;
  const choices = [
    ...(render ? [] : ["`cluster` (a relay pod this stack declares, reached through the Kubernetes API)"]),
    "`jumpHost` (with nodeAccess.jumpHost, a bastion in the VMs' network)",
  ];
  return [
    {
      path: "nodeAccess.via",
      message:
        `is direct, but this GitHub-hosted runner cannot reach the private addresses of the VMs this stack creates ` +
        `(${vms.join(", ")}); SSH to them would time out at pulumi up: set nodeAccess.via to ${choices.join(" or ")}, ` +
        `or run the workflow on a self-hosted runner in the VMs' network (docs/gitops.md)`,
    },
  ];
}
