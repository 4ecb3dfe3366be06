import { BYOH_NODES_PATH, MACHINE_API_NAMESPACE, USER_DATA_SECRET } from "../../facts/wmco";
import { MACHINESET_LABEL, WINDOWS_NODES_PATH } from "../../facts/day2";
import type * as pulumi from "@pulumi/pulumi";
import { connectKube, KubeAccess, KubeApi } from "./api";
import { answerError } from "../../lib/kube-api";
import {
  byohGoneVerdict,
  byohHostReleasedVerdict,
  Fetched,
  objectPath,
  objectVerdict,
  ObjectExistsOutputs,
  ObjectTarget,
  OLM,
  pluralOf,
  Verdict,
} from "./conditions";
import {
  nextFromSubscription,
  OperatorObservation,
  operatorVerdict,
  OperatorReadyOutputs,
  OperatorTarget,
  Persistence,
  Readable,
} from "./olm";
import { isUnknown } from "../unknown";
import { pollUntil } from "./poll";
import {
  describeHostFailure,
  eventStamps,
  eventsOf,
  hostFailure,
  INSTANCE_SETUP_FAILURE,
  JoinOutputs,
  JoinTarget,
  joinVerdict,
  MACHINE_SETUP_FAILURE,
} from "./joins";
import { messageOf, isUnreachable } from "../../lib/errors";
import { obj as objOf, objects } from "../../lib/json";

const REQUEST_TIMEOUT_MS = 15_000;

export interface WaitCommon extends KubeAccess {
  timeoutSeconds: number;
  intervalSeconds: number;
}
export type OperatorReadyInputs = WaitCommon &
  OperatorTarget & {
    /** What the Subscription asks for (resources.ts OperatorReadyArgs): a change waits again. */
    subscriptionSpec?: Record<string, string | undefined>;
  };
export type ObjectExistsInputs = WaitCommon & ObjectTarget;

/**
 * A read that only informs: a 403 (credentials that may create but not list OperatorGroups, or not read
 * openshift-marketplace) makes it unreadable instead of ending the wait, and so does a 404 of a list (no such API).
 */
async function readIfAllowed(api: KubeApi, path: string, list: boolean): Promise<Readable<Fetched>> {
  const r = await api.request("GET", path, undefined, { passThrough: (status) => status === 403 });
  if (r.status === 403) return { readable: false, why: `GET ${path} was refused (403)` };
  if (r.status === 404)
    return list ? { readable: false, why: answerError("GET", path, r) } : { readable: true, value: undefined };
  if (r.status < 200 || r.status >= 300) throw new Error(answerError("GET", path, r));
  return { readable: true, value: objOf(r.body) };
}

/**
 * One look at what OLM wrote: the Subscription, the CSV it installed, the InstallPlan it references while nothing is
 * installed or an upgrade is pending, the namespace's OperatorGroups and, while nothing resolved, the CatalogSource.
 */
export async function observeOperator(api: KubeApi, t: OperatorTarget): Promise<OperatorObservation> {
  const ns = t.namespace;
  const sub = await api.get(objectPath(OLM, "subscriptions", ns, t.subscription));
  const next = nextFromSubscription(sub);
  const [csv, installPlan, groups, catalogSource] = await Promise.all([
    next.csv ? api.get(objectPath(OLM, "clusterserviceversions", ns, next.csv)) : undefined,
    // The InstallPlan while nothing is installed, and while an installed CSV is being replaced (`UpgradePending`: the
    // plan says whether the upgrade waits for approval or failed).
    next.installPlan && next.state !== "AtLatestKnown"
      ? api.get(objectPath(OLM, "installplans", ns, next.installPlan))
      : undefined,
    readIfAllowed(api, `/apis/operators.coreos.com/v1/namespaces/${encodeURIComponent(ns)}/operatorgroups`, true),
    // The CatalogSource only while OLM has resolved nothing: afterwards installing needs no catalog.
    next.source && !next.installPlan && !next.csv
      ? readIfAllowed(api, objectPath(OLM, "catalogsources", next.source.namespace, next.source.name), false)
      : undefined,
  ]);
  return {
    subscription: sub,
    csv,
    installPlan,
    operatorGroups: groups.readable ? { readable: true, value: objects(groups.value?.items) } : groups,
    ...(catalogSource ? { catalogSource } : {}),
  };
}

/** The operator wait's check: each look observes and decides, timing what lasts by `now` (tests pass their clock). */
export function operatorCheck(
  api: KubeApi,
  t: OperatorTarget,
  now: () => number = Date.now,
): () => Promise<Verdict<OperatorReadyOutputs>> {
  const persistence = new Persistence(now);
  return async () => {
    const seen = await observeOperator(api, t);
    return persistence.look((held) => operatorVerdict(t, seen, held));
  };
}

/** The check of one look, made from the connected API once per wait (a check may keep what its first look saw). */
type MakeCheck<I, O> = (api: KubeApi, i: I) => () => Promise<Verdict<O>>;
// Not named `describe`: jest defines a global of that name, and the closure serializer leaves globals uncaptured.
/** What a wait says: its resource's id, what it waits for, what to check when it times out, its progress label. */
type DescribeWait<I> = (i: I) => { id: string; what: string; hint: string; progress?: string };

/** Connects with `i`'s access and polls a new check until it is done or failed, or `i`'s timeout passes. */
async function waitFor<I extends WaitCommon, O>(i: I, makeCheck: MakeCheck<I, O>, describeWait: DescribeWait<I>) {
  const { what, hint, progress: label } = describeWait(i);
  return pollUntil(makeCheck(await connectKube(i, REQUEST_TIMEOUT_MS), i), {
    timeoutSeconds: i.timeoutSeconds,
    intervalSeconds: i.intervalSeconds,
    what,
    hint,
    // A dynamic provider's stderr reaches the engine's log and the console (as the other long jobs report).
    ...(label ? { progress: (line: string) => console.error(`${label}: ${line}`) } : {}),
  });
}

/** Whether input `k` changed; a preview's unknown counts as a change, absent and null as the same. */
function differs(olds: object, news: object, k: PropertyKey): boolean {
  const [o, n] = [Reflect.get(olds, k), Reflect.get(news, k)];
  return isUnknown(n) || JSON.stringify(n ?? null) !== JSON.stringify(o ?? null);
}

/**
 * Inputs that do not change what is waited for but must reach the state: a rotated kubeconfig, a new context or
 * timeout, and the provider's own code (`__provider`, the serialized provider the engine stores with every dynamic
 * resource). If diff ignored them the engine would take a Same step and keep the old values, which `read` then uses
 * (a stale kubeconfig fails the next refresh with 401).
 */
function settingsChanged(olds: object, news: object): boolean {
  return ["kubeconfig", "context", "timeoutSeconds", "intervalSeconds", "__provider"].some((k) =>
    differs(olds, news, k),
  );
}

/**
 * A wait owns nothing in the cluster: create and update wait, read re-checks once (so `pulumi refresh` drops a wait
 * whose condition no longer holds and the next `up` waits again), delete does nothing.
 */
function waitProvider<I extends WaitCommon, O extends object>(
  identity: (keyof I)[],
  makeCheck: MakeCheck<I, O>,
  describeWait: DescribeWait<I>,
  /** Inputs that change what is waited for without making it another wait: an update waits again. */
  updates: (keyof I)[] = [],
): pulumi.dynamic.ResourceProvider {
  return {
    async create(inputs: I) {
      const outs = await waitFor(inputs, makeCheck, describeWait);
      return { id: describeWait(inputs).id, outs: { ...inputs, ...outs } };
    },
    async diff(_id: string, olds: I, news: I) {
      const replaces = identity.filter((k) => differs(olds, news, k)).map(String);
      return {
        changes: replaces.length > 0 || updates.some((k) => differs(olds, news, k)) || settingsChanged(olds, news),
        replaces,
        deleteBeforeReplace: true,
      };
    },
    async update(_id: string, _olds: I, news: I) {
      return { outs: { ...news, ...(await waitFor(news, makeCheck, describeWait)) } };
    },
    async read(id: string, props?: I) {
      if (!props) return { id, props: {} };
      let verdict: Verdict<O>;
      try {
        verdict = await makeCheck(await connectKube(props, REQUEST_TIMEOUT_MS), props)();
      } catch (e) {
        // An API outage says nothing about the condition: keep the last known state, so one blip does not fail a
        // scheduled refresh. Refused credentials and the like still fail (they are final errors, not outages).
        if (isUnreachable(e)) {
          console.error(`warning: ${describeWait(props).what}: refresh kept the last known state: ${messageOf(e)}`);
          return { id, props };
        }
        throw e;
      }
      return verdict.state === "done" ? { id, props: { ...props, ...verdict.outputs } } : { id: "", props: {} };
    },
    async delete() {
      // Nothing to remove: the wait only observed the cluster.
    },
  };
}

export const operatorReadyProvider = waitProvider<OperatorReadyInputs, OperatorReadyOutputs>(
  ["namespace", "subscription"],
  operatorCheck,
  (i) => ({
    id: `${i.namespace}/${i.subscription}`,
    what: `the WMCO operator (Subscription ${i.namespace}/${i.subscription}) to run`,
    hint: `Check \`oc get subscription,installplan,csv,operatorgroup -n ${i.namespace}\` and the catalog source; raise operator.waitTimeoutSeconds if the cluster is slow.`,
    progress: "WMCO operator",
  }),
  ["subscriptionSpec"],
);

export const objectExistsProvider = waitProvider<ObjectExistsInputs, ObjectExistsOutputs>(
  ["apiVersion", "kind", "namespace", "name", "dataKey"],
  (api, i) => {
    const path = objectPath(i.apiVersion, pluralOf(i.kind), i.namespace, i.name);
    return async () => objectVerdict(i, await api.get(path));
  },
  (i) => ({
    id: `${i.namespace}/${i.name}`,
    what: `${i.kind} ${i.namespace}/${i.name}${i.dataKey ? ` with '${i.dataKey}'` : ""}`,
    hint:
      i.name === USER_DATA_SECRET
        ? "WMCO writes it once cloud-private-key exists in its namespace (windows-estate:operator.namespace); check `oc logs -n <that namespace> deploy/windows-machine-config-operator`."
        : "Check that whatever creates it is running.",
  }),
);

const q = (s: string) => encodeURIComponent(s);

/** WMCO's failure Events of one `reason` in a namespace (filtered by field). */
const failureEvents = (api: KubeApi, namespace: string, reason: string) =>
  api.get(`/api/v1/namespaces/${q(namespace)}/events?fieldSelector=${q(`reason=${reason}`)}`);

/** The `windows-instances` ConfigMap in WMCO's namespace (when it was last written: joins.ts `lastWritten`). */
const windowsInstances = (api: KubeApi, namespace: string) =>
  api.get(`/api/v1/namespaces/${q(namespace)}/configmaps/windows-instances`);

export type WindowsNodesJoinedInputs = WaitCommon & JoinTarget;

/** One look at the Nodes, this stack's Machines and WMCO's failure Events (a list per namespace, filtered by field). */
function checkJoins(api: KubeApi, i: WindowsNodesJoinedInputs) {
  const sets = i.machineSets.map((s) => s.name);
  const byoh = i.byoh.length > 0;
  let before: Map<string, string> | undefined;
  return async () => {
    const [nodes, machines, hostEvents, machineEvents, instances] = await Promise.all([
      api.get(WINDOWS_NODES_PATH),
      sets.length > 0
        ? api.get(
            `/apis/machine.openshift.io/v1beta1/namespaces/${MACHINE_API_NAMESPACE}/machines?labelSelector=${q(`${MACHINESET_LABEL} in (${sets.join(",")})`)}`,
          )
        : undefined,
      byoh ? failureEvents(api, i.namespace, INSTANCE_SETUP_FAILURE) : undefined,
      sets.length > 0 ? failureEvents(api, MACHINE_API_NAMESPACE, MACHINE_SETUP_FAILURE) : undefined,
      byoh ? windowsInstances(api, i.namespace) : undefined,
    ]);
    const events = [hostEvents, machineEvents];
    // The first look's Events are the baseline: only what WMCO says from then on fails this wait.
    before ??= eventStamps(eventsOf(events));
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

/**
 * A wait that holds a deletion back: create, update and read only record the inputs (a change of `own` or of the
 * settings is an update); delete waits until the check is done.
 */
function destroyWait<I extends WaitCommon>(
  own: keyof I,
  makeCheck: MakeCheck<I, unknown>,
  describeWait: DescribeWait<I>,
): pulumi.dynamic.ResourceProvider {
  return {
    async create(inputs: I) {
      return { id: describeWait(inputs).id, outs: { ...inputs } };
    },
    async diff(_id: string, olds: I, news: I) {
      return {
        changes: settingsChanged(olds, news) || differs(olds, news, own),
        replaces: [],
        deleteBeforeReplace: false,
      };
    },
    async update(_id: string, _olds: I, news: I) {
      return { outs: { ...news } };
    },
    async read(id: string, props?: I) {
      return { id, props: props ?? {} };
    },
    async delete(_id: string, props: I) {
      await waitFor(props, makeCheck, describeWait);
    },
  };
}

/**
 * Holds WMCO's key and namespace back on `pulumi destroy` until WMCO has deconfigured the BYOH nodes. The
 * `windows-instances` ConfigMap depends on this resource and this resource on the key Secret and the operator, so
 * the engine deletes in that order: ConfigMap, then this wait (BYOH nodes gone, or a clear timeout), then the key
 * and the operator. Create, update and read only record; delete waits.
 */
export const byohDeconfiguredProvider = destroyWait<WaitCommon & { namespace: string }>(
  "namespace",
  (api) => async () => byohGoneVerdict(await api.get(BYOH_NODES_PATH)),
  (i) => ({
    id: `${i.namespace}/byoh-deconfigured`,
    what: "WMCO to deconfigure the bring-your-own Windows nodes before its key and namespace are removed",
    hint:
      `Check \`oc get nodes -l windowsmachineconfig.openshift.io/byoh=true\` and \`oc logs -n ${i.namespace} deploy/windows-machine-config-operator\`; ` +
      "or remove the nodes by hand and run `pulumi destroy` again.",
  }),
);

/**
 * Holds a VM this stack created back, when its `byoh` entry is removed, until WMCO has deconfigured its node: the VM
 * depends on nothing here, this resource depends on the VM, so the engine deletes this first (after the
 * `windows-instances` update that drops the host), waiting, and the VM after.
 */
export const byohHostReleasedProvider = destroyWait<WaitCommon & { address: string; namespace?: string }>(
  "address",
  (api, { address, namespace: ns }) => {
    let before: Map<string, string> | undefined;
    return async (): Promise<Verdict<Record<string, never>>> => {
      const [nodes, events, instances] = await Promise.all([
        api.get(BYOH_NODES_PATH),
        ns ? failureEvents(api, ns, INSTANCE_SETUP_FAILURE) : undefined,
        ns ? windowsInstances(api, ns) : undefined,
      ]);
      const verdict = byohHostReleasedVerdict(nodes, address);
      // WMCO deconfigures removed hosts only after every listed host is configured (configmap_controller.go
      // `reconcileNodes`): a failing one blocks the removal, and says so only in its Event.
      const seen = eventsOf([events]);
      before ??= eventStamps(seen);
      const blocked = ns && verdict.state === "waiting" ? hostFailure(seen, instances, before) : undefined;
      return blocked && ns
        ? {
            state: "failed",
            message: `WMCO cannot deconfigure the node at ${address} while it fails to configure another ${describeHostFailure(blocked, ns)}. Fix or remove that host; WMCO handles windows-instances all or nothing`,
          }
        : verdict;
    };
  },
  (i) => ({
    id: `byoh-host-${i.address}`,
    what: `WMCO to deconfigure the BYOH node at ${i.address} before its VM is deleted`,
    hint: "Check `oc get nodes -l windowsmachineconfig.openshift.io/byoh=true -o wide` and WMCO's log; or remove the node by hand and run `pulumi up` again.",
  }),
);
