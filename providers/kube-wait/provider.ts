import { USER_DATA_SECRET } from "../../facts/wmco";
import type * as pulumi from "@pulumi/pulumi";
import { connectKube, KubeAccess, KubeApi } from "./api";
import { answerError } from "../../lib/kube-api";
import {
  BYOH_NODES_PATH,
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
  listItems,
  nextFromSubscription,
  OperatorObservation,
  operatorVerdict,
  OperatorReadyOutputs,
  OperatorTarget,
  Persistence,
  Readable,
  wantsCatalogSource,
  wantsInstallPlan,
} from "./olm";
import { isUnknown } from "../unknown";
import { pollUntil } from "./poll";
import { describeHostFailure, eventStamps, hostFailure } from "./joins";
import { messageOf } from "../../lib/errors";
import { obj as objOf } from "../../lib/json";
import { isUnreachable } from "../errors";

export const REQUEST_TIMEOUT_MS = 15_000;

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
    next.installPlan && wantsInstallPlan(sub)
      ? api.get(objectPath(OLM, "installplans", ns, next.installPlan))
      : undefined,
    readIfAllowed(api, `/apis/operators.coreos.com/v1/namespaces/${encodeURIComponent(ns)}/operatorgroups`, true),
    next.source && wantsCatalogSource(sub)
      ? readIfAllowed(api, objectPath(OLM, "catalogsources", next.source.namespace, next.source.name), false)
      : undefined,
  ]);
  return {
    subscription: sub,
    csv,
    installPlan,
    operatorGroups: groups.readable ? { readable: true, value: listItems(groups.value) } : groups,
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

async function checkOperator(i: OperatorReadyInputs): Promise<() => Promise<Verdict<OperatorReadyOutputs>>> {
  return operatorCheck(await connectKube(i, REQUEST_TIMEOUT_MS), i);
}

async function checkObject(i: ObjectExistsInputs): Promise<() => Promise<Verdict<ObjectExistsOutputs>>> {
  const api = await connectKube(i, REQUEST_TIMEOUT_MS);
  const path = objectPath(i.apiVersion, pluralOf(i.kind), i.namespace, i.name);
  return async () => objectVerdict(i, await api.get(path));
}

function changed<T extends object>(olds: T, news: T, keys: (keyof T)[]): (keyof T)[] {
  return keys.filter((k) => isUnknown(news[k]) || olds[k] !== news[k]);
}

/** The serialized provider the engine stores with every dynamic resource (`__provider`). */
const PROVIDER_KEY = "__provider";

/**
 * Inputs that do not change what is waited for but must reach the state: a rotated kubeconfig, a new context or
 * timeout, and the provider's own code (`__provider`). If diff ignored them the engine would take a Same step and
 * keep the old values, which `read` then uses (a stale kubeconfig fails the next refresh with 401).
 */
function settingsChanged(olds: object, news: object): boolean {
  return ["kubeconfig", "context", "timeoutSeconds", "intervalSeconds", PROVIDER_KEY].some((k) => {
    const [o, n] = [Reflect.get(olds, k), Reflect.get(news, k)];
    return isUnknown(n) || (n ?? null) !== (o ?? null);
  });
}

/**
 * A wait owns nothing in the cluster: create and update wait, read re-checks once (so `pulumi refresh` drops a wait
 * whose condition no longer holds and the next `up` waits again), delete does nothing.
 */
export function waitProvider<I extends WaitCommon, O extends object>(
  identity: (keyof I)[],
  makeCheck: (i: I) => Promise<() => Promise<Verdict<O>>>,
  // Not named `describe`: jest defines a global of that name, and the closure serializer leaves globals uncaptured.
  describeWait: (i: I) => { id: string; what: string; hint: string; progress?: string },
  /** Inputs that change what is waited for without making it another wait: an update waits again. */
  updates: (keyof I)[] = [],
): pulumi.dynamic.ResourceProvider {
  const wait = async (i: I): Promise<O> => {
    const d = describeWait(i);
    const label = d.progress;
    return pollUntil(await makeCheck(i), {
      timeoutSeconds: i.timeoutSeconds,
      intervalSeconds: i.intervalSeconds,
      what: d.what,
      hint: d.hint,
      // A dynamic provider's stderr reaches the engine's log and the console (as the other long jobs report).
      ...(label ? { progress: (line: string) => console.error(`${label}: ${line}`) } : {}),
    });
  };
  return {
    async create(inputs: I) {
      const outs = await wait(inputs);
      return { id: describeWait(inputs).id, outs: { ...inputs, ...outs } };
    },
    async diff(_id: string, olds: I, news: I) {
      const replaces = changed(olds, news, identity).map(String);
      const updated = updates.some((k) => isUnknown(news[k]) || JSON.stringify(olds[k]) !== JSON.stringify(news[k]));
      return {
        changes: replaces.length > 0 || updated || settingsChanged(olds, news),
        replaces,
        deleteBeforeReplace: true,
      };
    },
    async update(_id: string, _olds: I, news: I) {
      return { outs: { ...news, ...(await wait(news)) } };
    },
    async read(id: string, props?: I) {
      if (!props) return { id, props: {} };
      let verdict: Verdict<O>;
      try {
        verdict = await (await makeCheck(props))();
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
  checkOperator,
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
  checkObject,
  (i) => ({
    id: `${i.namespace}/${i.name}`,
    what: `${i.kind} ${i.namespace}/${i.name}${i.dataKey ? ` with '${i.dataKey}'` : ""}`,
    hint:
      i.name === USER_DATA_SECRET
        ? "WMCO writes it once cloud-private-key exists in its namespace (windows-estate:operator.namespace); check `oc logs -n <that namespace> deploy/windows-machine-config-operator`."
        : "Check that whatever creates it is running.",
  }),
);

/**
 * A wait that holds a deletion back: create, update and read only record the inputs (the id made from them, a change
 * of `own` or of the settings is an update); `remove` waits on delete.
 */
function destroyWait<I extends WaitCommon>(
  id: (inputs: I) => string,
  own: keyof I,
  remove: (props: I) => Promise<void>,
): pulumi.dynamic.ResourceProvider {
  return {
    async create(inputs: I) {
      return { id: id(inputs), outs: { ...inputs } };
    },
    async diff(_id: string, olds: I, news: I) {
      return {
        changes: settingsChanged(olds, news) || olds[own] !== news[own],
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
    delete: (_id: string, props: I) => remove(props),
  };
}

export type ByohDeconfiguredInputs = WaitCommon & { namespace: string };

/**
 * Holds WMCO's key and namespace back on `pulumi destroy` until WMCO has deconfigured the BYOH nodes. The
 * `windows-instances` ConfigMap depends on this resource and this resource on the key Secret and the operator, so
 * the engine deletes in that order: ConfigMap, then this wait (BYOH nodes gone, or a clear timeout), then the key
 * and the operator. Create, update and read only record; delete waits.
 */
export const byohDeconfiguredProvider = destroyWait<ByohDeconfiguredInputs>(
  (i) => `${i.namespace}/byoh-deconfigured`,
  "namespace",
  async (props) => {
    const api = await connectKube(props, REQUEST_TIMEOUT_MS);
    await pollUntil(async () => byohGoneVerdict(await api.get(BYOH_NODES_PATH)), {
      timeoutSeconds: props.timeoutSeconds,
      intervalSeconds: props.intervalSeconds,
      what: "WMCO to deconfigure the bring-your-own Windows nodes before its key and namespace are removed",
      hint:
        `Check \`oc get nodes -l windowsmachineconfig.openshift.io/byoh=true\` and \`oc logs -n ${props.namespace} deploy/windows-machine-config-operator\`; ` +
        "or remove the nodes by hand and run `pulumi destroy` again.",
    });
  },
);

export type ByohHostReleasedInputs = WaitCommon & { address: string; namespace?: string };

/**
 * Holds a VM this stack created back, when its `byoh` entry is removed, until WMCO has deconfigured its node: the VM
 * depends on nothing here, this resource depends on the VM, so the engine deletes this first (after the
 * `windows-instances` update that drops the host), waiting, and the VM after.
 */
export const byohHostReleasedProvider = destroyWait<ByohHostReleasedInputs>(
  (i) => `byoh-host-${i.address}`,
  "address",
  async (props) => {
    const api = await connectKube(props, REQUEST_TIMEOUT_MS);
    const ns = props.namespace;
    let before: Map<string, string> | undefined;
    await pollUntil(
      async () => {
        const [nodes, events, instances] = await Promise.all([
          api.get(BYOH_NODES_PATH),
          ns
            ? api.get(`/api/v1/namespaces/${encodeURIComponent(ns)}/events?fieldSelector=reason%3DInstanceSetupFailure`)
            : undefined,
          ns ? api.get(`/api/v1/namespaces/${encodeURIComponent(ns)}/configmaps/windows-instances`) : undefined,
        ]);
        const verdict = byohHostReleasedVerdict(nodes, props.address);
        // WMCO deconfigures removed hosts only after every listed host is configured (configmap_controller.go
        // `reconcileNodes`): a failing one blocks the removal, and says so only in its Event.
        before ??= eventStamps([events]);
        const blocked = ns && verdict.state === "waiting" ? hostFailure([events], instances, before) : undefined;
        return blocked && ns
          ? {
              state: "failed",
              message: `WMCO cannot deconfigure the node at ${props.address} while it fails to configure another ${describeHostFailure(blocked, ns)}. Fix or remove that host; WMCO handles windows-instances all or nothing`,
            }
          : verdict;
      },
      {
        timeoutSeconds: props.timeoutSeconds,
        intervalSeconds: props.intervalSeconds,
        what: `WMCO to deconfigure the BYOH node at ${props.address} before its VM is deleted`,
        hint: "Check `oc get nodes -l windowsmachineconfig.openshift.io/byoh=true -o wide` and WMCO's log; or remove the node by hand and run `pulumi up` again.",
      },
    );
  },
);
