/**
 * The sample stack the Windows workflow renders: the kubeadm example (stacks/examples/Pulumi.kubeadm.yaml), read
 * through the same schemas, node expansion and node plan as `pulumi up` (components/vanilla: resolveKubernetes in
 * render mode, expandNodes, vanillaNodePlan). Only its first node is used: every node gets the same scripts.
 */
import * as fs from "fs";
import * as path from "path";
import { parse } from "yaml";
import { resolveKubernetes } from "../../components/vanilla/discover";
import { expandNodes, JoinedNode } from "../../components/vanilla/hosts";
import { NodePlan, vanillaNodePlan } from "../../components/vanilla/node-plan";
import { WINDOWS_TAINT } from "../../facts/kubernetes";
import { isObject } from "../../lib/json";
import type { KubeletRegistration } from "../../providers/vanilla-node/scripts";
import { NAMESPACE } from "../../stacks/schema";
import { kubernetesSchema, nodesSchema } from "../../stacks/schema/kubernetes";

export const SAMPLE_STACK = path.join("stacks", "examples", "Pulumi.kubeadm.yaml");

export interface Sample {
  node: JoinedNode;
  plan: NodePlan;
  /** The kubelet's registration as the VanillaNode provider builds it (provider.ts theRest), named `nodeName`. */
  registration: (nodeName: string) => KubeletRegistration;
}

/** The sample stack's first node and its plan; throws naming the stack file when the example no longer resolves. */
export function sampleNode(root: string): Sample {
  const file = path.join(root, SAMPLE_STACK);
  const doc: unknown = parse(fs.readFileSync(file, "utf8"));
  const config = isObject(doc) && isObject(doc.config) ? doc.config : {};
  const k = kubernetesSchema.parse(config[`${NAMESPACE}:kubernetes`]);
  if (!k) throw new Error(`${SAMPLE_STACK} has no ${NAMESPACE}:kubernetes`);
  const nodes = expandNodes(nodesSchema.parse(config[`${NAMESPACE}:nodes`]));
  const { resolved, issues } = resolveKubernetes(k, undefined, { render: true });
  if (!resolved || issues.length > 0)
    throw new Error(
      `${SAMPLE_STACK} no longer resolves offline: ${issues.map((i) => `${i.path} ${i.message}`).join("; ")}`,
    );
  const node = nodes[0];
  if (!node) throw new Error(`${SAMPLE_STACK} has no node`);
  return {
    node,
    plan: vanillaNodePlan(node, resolved, {}),
    registration: (nodeName) => ({
      nodeName,
      labels: node.labels ?? {},
      taints: (node.taints ?? [WINDOWS_TAINT]).map((t) => ({ ...t })),
    }),
  };
}
