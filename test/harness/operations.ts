/**
 * What the engine does between program runs, on the recorded state: `pulumi refresh`, `pulumi destroy` and
 * `pulumi stack rename`, each citing the engine source it mirrors.
 */
import { DynamicPlugin } from "./dynamic-plugin";
import { DYNAMIC_PACKAGE, deleteOrder, ResourceState, ROOT_STACK_TYPE, StackState, Step } from "./engine";
import { markSecretOutputs, reveal, WireMap } from "./wire";

const packageOf = (type: string) => type.split(":")[0];

/**
 * `pulumi refresh`: every custom resource is read back; a dynamic resource through its provider's Read (an empty
 * id means it is gone and leaves the state). Kubernetes objects keep their state here: the stand-in has no
 * pulumi-kubernetes Read.
 */
export async function refresh(
  state: StackState,
  plugin: DynamicPlugin,
  config: WireMap,
): Promise<{ state: StackState; steps: Step[] }> {
  await plugin.configure(config);
  const steps: Step[] = [];
  const resources: ResourceState[] = [];
  for (const r of state.resources) {
    if (!r.custom || packageOf(r.type) !== DYNAMIC_PACKAGE) {
      resources.push(r);
      continue;
    }
    const read = await plugin.read(r.urn, r.id, r.outputs, r.inputs);
    if (!read.id) {
      steps.push({ op: "delete", urn: r.urn, type: r.type });
      continue;
    }
    const outputs = markSecretOutputs(read.outputs, r.additionalSecretOutputs);
    const changed = JSON.stringify(reveal(outputs)) !== JSON.stringify(reveal(r.outputs));
    steps.push({ op: changed ? "refresh" : "same", urn: r.urn, type: r.type });
    resources.push({ ...r, outputs, inputs: read.inputs ?? r.inputs });
  }
  return { state: { ...state, resources }, steps };
}

/** `pulumi destroy`: everything, dependents first; returns the order in which resources were deleted. */
export async function destroy(state: StackState, plugin: DynamicPlugin, config: WireMap): Promise<string[]> {
  await plugin.configure(config);
  const order: string[] = [];
  for (const r of deleteOrder(state.resources)) {
    if (r.custom && packageOf(r.type) === DYNAMIC_PACKAGE) await plugin.delete(r.urn, r.id, r.outputs);
    order.push(r.urn);
  }
  return order;
}

/** `pulumi stack rename` (pkg/resource/edit/operations.go `RenameStack`): the stack part of every URN is rewritten. */
export function renameStack(state: StackState, newName: string): StackState {
  const re = (u: string) => u.replace(/^urn:pulumi:[^:]+::/, `urn:pulumi:${newName}::`);
  const root = (r: ResourceState) =>
    r.type === ROOT_STACK_TYPE ? r.name.replace(new RegExp(`-${state.stack}$`), `-${newName}`) : r.name;
  return {
    stack: newName,
    resources: state.resources.map((r) => {
      const name = root(r);
      const urn = r.type === ROOT_STACK_TYPE ? re(r.urn).replace(/::[^:]+$/, `::${name}`) : re(r.urn);
      return {
        ...r,
        name,
        urn,
        parent: r.parent && re(r.parent),
        provider: r.provider && re(r.provider),
        dependencies: r.dependencies.map(re),
      };
    }),
  };
}
