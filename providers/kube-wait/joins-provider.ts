import { MACHINE_API_NAMESPACE } from "../../facts/wmco";
import { MACHINESET_LABEL, WINDOWS_NODE_SELECTOR } from "../../facts/day2";
import { connectKube } from "./api";
import type { Fetched } from "./conditions";
import {
  eventStamps,
  INSTANCE_SETUP_FAILURE,
  JoinOutputs,
  JoinTarget,
  joinVerdict,
  MACHINE_SETUP_FAILURE,
} from "./joins";
import { REQUEST_TIMEOUT_MS, WaitCommon, waitProvider } from "./provider";

export type WindowsNodesJoinedInputs = WaitCommon & JoinTarget;

const q = (s: string) => encodeURIComponent(s);

/** One look at the Nodes, this stack's Machines and WMCO's failure Events (a list per namespace, filtered by field). */
async function checkJoins(i: WindowsNodesJoinedInputs) {
  const api = await connectKube(i, REQUEST_TIMEOUT_MS);
  const ns = q(i.namespace);
  const sets = i.machineSets.map((s) => s.name);
  let before: Map<string, string> | undefined;
  return async () => {
    const none: Fetched = { items: [] };
    const [nodes, machines, hostEvents, machineEvents, instances] = await Promise.all([
      api.get(`/api/v1/nodes?labelSelector=${q(WINDOWS_NODE_SELECTOR)}`),
      sets.length > 0
        ? api.get(
            `/apis/machine.openshift.io/v1beta1/namespaces/${MACHINE_API_NAMESPACE}/machines?labelSelector=${q(`${MACHINESET_LABEL} in (${sets.join(",")})`)}`,
          )
        : none,
      i.byoh.length > 0
        ? api.get(`/api/v1/namespaces/${ns}/events?fieldSelector=${q(`reason=${INSTANCE_SETUP_FAILURE}`)}`)
        : none,
      sets.length > 0
        ? api.get(
            `/api/v1/namespaces/${MACHINE_API_NAMESPACE}/events?fieldSelector=${q(`reason=${MACHINE_SETUP_FAILURE}`)}`,
          )
        : none,
      i.byoh.length > 0 ? api.get(`/api/v1/namespaces/${ns}/configmaps/windows-instances`) : undefined,
    ]);
    const events = [hostEvents, machineEvents];
    // The first look's Events are the baseline: only what WMCO says from then on fails this wait.
    before ??= eventStamps(events);
    return joinVerdict(i, { nodes, machines, events, instances, before });
  };
}

/**
 * Waits until every Windows node this stack expects has joined and WMCO has configured it; fails as soon as WMCO
 * reports a setup failure for one (quoting its Event). Read re-checks once, so a refresh that finds a node gone or
 * unconfigured drops the wait and the next `up` waits again.
 */
export const windowsNodesJoinedProvider = waitProvider<WindowsNodesJoinedInputs, JoinOutputs>(
  ["namespace"],
  checkJoins,
  (i) => ({
    id: `${i.namespace}/windows-nodes`,
    what: `WMCO to configure the Windows nodes (${[...i.byoh.map((a) => `BYOH ${a}`), ...i.machineSets.map((s) => `MachineSet ${s.name} × ${s.replicas}`)].join(", ")})`,
    hint:
      `WMCO logs what it is doing: \`oc logs -n ${i.namespace} deploy/windows-machine-config-operator\`; its Events: ` +
      `\`oc get events -n ${i.namespace}\` and \`oc get events -n ${MACHINE_API_NAMESPACE}\`. A slow cloud needs a larger ` +
      "windows-estate:waitForNodesTimeoutSeconds; windows-estate:waitForNodes: false leaves the join unwatched." +
      // pkg/wiparser/wiparser.go `Parse` resolves every key from the operator's pod and fails the whole list on one;
      // the ConfigMap controller only returns that error (a log line, no Event).
      (i.byoh.some((a) => !/^\d+\.\d+\.\d+\.\d+$/.test(a))
        ? ` WMCO resolves each windows-instances name from its pod: one it cannot resolve stops every host, and WMCO only logs it ("unable to parse instances from ConfigMap").`
        : ""),
    progress: "Windows nodes",
  }),
  ["byoh", "machineSets", "operatorVersion"],
);
