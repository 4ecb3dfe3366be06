import type { labApi } from "./lab";

type Api = ReturnType<typeof labApi>;

/** A container any Windows node could run; no kubelet runs it here. */
export const WINDOWS_CONTAINER = { name: "c", image: "mcr.microsoft.com/windows/nanoserver:ltsc2022" };

/**
 * A controller whose pods carry `app: <app>`, to own the pods a test binds (so a drain sees them managed): a
 * StatefulSet, which no controller of the lab runs (its kube-controller-manager runs the deployment and replicaset
 * controllers, which would adopt such pods and create or delete pods to match a ReplicaSet's replicas), so it
 * recreates nothing. Returns its kind, name and UID for the pods' owner reference.
 */
export async function ownerController(
  api: Api,
  namespace: string,
  name: string,
  app: string,
  replicas: number,
): Promise<Owner> {
  const sts = await api.must("POST", `/apis/apps/v1/namespaces/${namespace}/statefulsets`, {
    apiVersion: "apps/v1",
    kind: "StatefulSet",
    metadata: { name },
    spec: {
      replicas,
      serviceName: name,
      selector: { matchLabels: { app } },
      template: { metadata: { labels: { app } }, spec: { containers: [WINDOWS_CONTAINER] } },
    },
  });
  return { kind: "StatefulSet", name, uid: sts.metadata.uid };
}

/** A pod's controller, as its owner reference names it. */
export interface Owner {
  kind: string;
  name: string;
  uid: string;
}

/**
 * A pod of `owner` bound to `node` (bound at creation, so the scheduler has nothing to do; no played kubelet runs
 * Windows pods) with the status its kubelet would post: Running and Ready, so the disruption controller counts it
 * healthy.
 */
export async function boundReadyPod(
  api: Api,
  p: { namespace: string; name: string; node: string; app: string; owner: Owner },
): Promise<void> {
  await api.must("POST", `/api/v1/namespaces/${p.namespace}/pods`, {
    apiVersion: "v1",
    kind: "Pod",
    metadata: {
      name: p.name,
      labels: { app: p.app },
      ownerReferences: [
        { apiVersion: "apps/v1", kind: p.owner.kind, name: p.owner.name, uid: p.owner.uid, controller: true },
      ],
    },
    spec: {
      nodeName: p.node,
      containers: [WINDOWS_CONTAINER],
      nodeSelector: { "kubernetes.io/os": "windows" },
    },
  });
  const now = new Date().toISOString().replace(/\.\d+Z$/, "Z");
  await api.must(
    "PATCH",
    `/api/v1/namespaces/${p.namespace}/pods/${p.name}/status`,
    {
      status: {
        phase: "Running",
        conditions: [{ type: "Ready", status: "True", lastTransitionTime: now }],
        containerStatuses: [
          {
            name: WINDOWS_CONTAINER.name,
            ready: true,
            restartCount: 0,
            image: WINDOWS_CONTAINER.image,
            imageID: "",
            started: true,
            state: { running: { startedAt: now } },
          },
        ],
      },
    },
    "application/merge-patch+json",
  );
}
