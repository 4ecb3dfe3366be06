import * as pulumi from "@pulumi/pulumi";
import type { PatchingConfig } from "../../stacks/schema/day2";
import type { DiscoveredNode } from "../../stacks/load";
import type { ClusterAccess } from "../cluster-access";
import type { NodeReachSettings } from "../../providers/day2/node-reach";
import type { SshConnection } from "../../providers/ssh/types";
import { describeRollout } from "../../providers/day2/batches";
import { belowMinimum, planPatching } from "../../providers/day2/patch-plan";
import { outsideWindow } from "../../providers/day2/maintenance-window";
import { resolveMaxUnavailable } from "../../providers/day2/batches";
import { WindowsPatching } from "../../providers/patching";
import type { WuaProxy } from "../../providers/day2/patch-scripts";
import { drainInputs } from "../../providers/day2/drain";

export interface PatchRolloutArgs {
  /** `windows-estate:patching`, validated. */
  patching: NonNullable<PatchingConfig>;
  /** The cluster's Windows nodes as discovery read them (their kubelet-reported revisions). */
  nodes: readonly DiscoveredNode[];
  /** Whether a node is a host this stack manages (BYOH, vanilla): only those are patched in place. */
  isManaged: (n: DiscoveredNode) => boolean;
  /** Nodes an image rollout of this update replaces (their MachineSet's `rollout`): not left below the level. */
  replacedByRollout?: ReadonlySet<string>;
  access: ClusterAccess;
  /** How nodes are reached the WMCO way (OpenShift). */
  reach?: pulumi.Input<Omit<NodeReachSettings, "recordedHostKeys">>;
  /** How nodes are reached by address (vanilla). */
  connections?: pulumi.Input<Record<string, SshConnection>>;
  /** The proxy the stack declares for the nodes (vanilla `kubernetes.proxy`): WUA's unless `patching.proxy` is set. */
  clusterProxy?: { httpProxy?: string; httpsProxy?: string; noProxy: readonly string[] };
}

/**
 * The proxy Windows Update goes through: `patching.proxy`, else the stack's node proxy (HTTPS first: WUA's metadata
 * and most content are HTTPS), else none. WUA does not read the machine's HTTP(S)_PROXY variables, so without this
 * a proxied host fails its search (day2-facts §3.2; audit-day2 §3 "WinHTTP proxy").
 */
export function wuaProxy(
  own: { url: string; bypass: readonly string[] } | undefined,
  cluster: PatchRolloutArgs["clusterProxy"],
): WuaProxy | undefined {
  if (own) return { url: own.url, bypass: [...own.bypass] };
  const url = cluster?.httpsProxy ?? cluster?.httpProxy;
  return url ? { url, bypass: [...(cluster?.noProxy ?? [])] } : undefined;
}

/** What preview shows of a patch rollout. */
export interface PatchSummary {
  minimumUpdateRevision: Record<string, number>;
  /** The batches, or why nothing is done now. */
  plan: string;
  /** Nodes below the level that are not patched in place (MachineSet nodes: roll a new image instead). */
  notManaged: string[];
  /** Of those, the ones this update's image rollout replaces. */
  replacedByImageRollout: string[];
}

/**
 * Plans a patch rollout from the nodes' reported revisions (managed nodes below the minimum, `maxUnavailable` at a
 * time; none outside the window) and declares the WindowsPatching resource that runs it at `pulumi up`.
 */
export class PatchRollout extends pulumi.ComponentResource {
  readonly summary: PatchSummary;
  /** Per managed node, as read over SSH at up and refresh: boot time, uptime hours, a pending restart. */
  readonly hostStatus: pulumi.Output<Record<string, unknown>>;

  constructor(name: string, args: PatchRolloutArgs, opts?: pulumi.ComponentResourceOptions) {
    super("windows-estate:index:PatchRollout", name, {}, opts);
    const p = args.patching;
    const plan = planPatching(
      args.nodes.map((n) => ({
        name: n.name,
        ...(n.kernelVersion ? { kernelVersion: n.kernelVersion } : {}),
        managed: args.isManaged(n),
      })),
      p.minimumUpdateRevision,
      // A percentage is of every Windows node (the run counts them again before each batch).
      resolveMaxUnavailable(p.maxUnavailable, args.nodes.length),
    );
    const rolled = args.replacedByRollout ?? new Set<string>();
    const closed = plan.batches.length > 0 ? outsideWindow(new Date(), p.window, "patch") : undefined;
    const batches = closed ? [] : plan.batches;
    const patching = new WindowsPatching(
      `${name}-nodes`,
      {
        minimumUpdateRevision: p.minimumUpdateRevision,
        categories: p.categories,
        batches,
        managedNodes: args.nodes.filter((n) => args.isManaged(n)).map((n) => n.name),
        belowNotPatched: plan.notManaged
          .filter((n) => !rolled.has(n))
          .map((n) => {
            const node = args.nodes.find((x) => x.name === n);
            return `${n} (${node?.from ?? "unknown origin"}): ${belowMinimum(node?.kernelVersion, p.minimumUpdateRevision) ?? "below"}`;
          }),
        disableEviction: p.disableEviction,
        drainTimeoutSeconds: p.drainTimeoutSeconds,
        ...drainInputs(p),
        readyTimeoutSeconds: p.readyTimeoutSeconds,
        installTimeoutMinutes: p.installTimeoutMinutes,
        ...(wuaProxy(p.proxy, args.clusterProxy) ? { proxy: wuaProxy(p.proxy, args.clusterProxy) } : {}),
        maxUnavailable: p.maxUnavailable,
        blockers: p.blockers,
        kubeconfig: args.access.kubeconfig,
        context: args.access.context,
        ...(p.window ? { window: p.window } : {}),
        ...(args.reach ? { reach: args.reach } : {}),
        ...(args.connections ? { connections: args.connections } : {}),
      },
      { parent: this },
    );
    this.summary = {
      minimumUpdateRevision: p.minimumUpdateRevision,
      plan: closed ? `${plan.batches.flat().length} node(s) below the level wait: ${closed}` : describeRollout(plan),
      notManaged: plan.notManaged,
      replacedByImageRollout: plan.notManaged.filter((n) => rolled.has(n)),
    };
    this.hostStatus = patching.hostStatus;
    this.registerOutputs({ summary: this.summary, hostStatus: this.hostStatus });
  }
}
