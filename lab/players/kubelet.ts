/**
 * The kubelets of Windows nodes, played: registration of the Node (kubernetes pkg/kubelet/kubelet_node_status.go
 * `initialNode`, `registerWithAPIServer`, nodestatus/setters.go), the node Lease renewed every 10 s (0.25 of the 40 s
 * lease, pkg/kubelet/kubelet.go `nodeLeaseRenewIntervalFraction`; k8s.io/component-helpers apimachinery/lease
 * controller.go; owner reference from pkg/kubelet/util/nodelease.go `SetNodeOwnerFunc`), and the Ready heartbeat posted
 * on change or every nodeStatusReportFrequency (5 min) (kubelet_node_status.go `tryUpdateNodeStatus`,
 * `isUpdateStatusPeriodExpired`). A kubelet is "running" for each Node registered through it, and for Nodes that carry
 * WMCO's kubelet label `node.openshift.io/os_id=Windows` when the player starts (only players create those here).
 * Pods: none run (a pod bound to these nodes keeps the status it has); a pod being deleted from a running node is
 * removed as the kubelet does once its containers stopped. Simplified: no cloud-provider taint or CCM (the providerID
 * is set at registration), fixed capacity.
 */
import { get, obj, objects, str } from "../../lib/json";
import { errText, isNotFound, JsonObject, Kube, metaOf, now, nowMicro, Player, resourcePath, say } from "./kube";
import { Informer } from "./informer";

const PLAYER = "kubelet";
/** WMCO starts kubelet with `--node-labels=node.openshift.io/os_id=Windows` (pkg/nodeconfig `WindowsOSLabel`). */
export const WINDOWS_OS_ID_LABEL = "node.openshift.io/os_id";
export const WINDOWS_BUILD_LABEL = "node.kubernetes.io/windows-build";

export interface KubeletOptions {
  /** Lease duration (kubelet `nodeLeaseDurationSeconds`, default 40); renewed at a quarter of it. */
  leaseDurationSeconds: number;
  /** nodeStatusReportFrequency (default 5 min). */
  statusReportSeconds: number;
  /** Whether leases and heartbeats run (`--only` without `kubelet` registers nodes that then stay silent). */
  heartbeats: boolean;
}

export interface Registration {
  name: string;
  addresses: { type: string; address: string }[];
  /** `--node-labels`. */
  labels: Record<string, string>;
  providerID?: string;
  /** `<major>.<minor>.<build>`, e.g. `10.0.20348` (kubelet_node_status_windows.go `getOSSpecificLabels`). */
  windowsBuild: string;
}

/** Windows Server names by build, for `osImage`. */
const OS_IMAGES: Record<string, string> = {
  "10.0.17763": "Windows Server 2019 Datacenter",
  "10.0.20348": "Windows Server 2022 Datacenter",
  "10.0.26100": "Windows Server 2025 Datacenter",
};

/** kubelet's node conditions as nodestatus/setters.go words them, all healthy, heartbeats at `at`. */
function conditions(at: string, since: (type: string) => string): JsonObject[] {
  const c = (type: string, status: string, reason: string, message: string) => ({
    type,
    status,
    reason,
    message,
    lastHeartbeatTime: at,
    lastTransitionTime: since(type),
  });
  return [
    c("MemoryPressure", "False", "KubeletHasSufficientMemory", "kubelet has sufficient memory available"),
    c("DiskPressure", "False", "KubeletHasNoDiskPressure", "kubelet has no disk pressure"),
    c("PIDPressure", "False", "KubeletHasSufficientPID", "kubelet has sufficient PID available"),
    c("Ready", "True", "KubeletReady", "kubelet is posting ready status"),
  ];
}

interface Running {
  lease?: NodeJS.Timeout;
  status?: NodeJS.Timeout;
  lastReport: number;
}

/**
 * A kubelet's two loops for each node it runs: the node Lease renewed every quarter of its duration, and the node
 * status posted on change or once the report period expired (with the not-ready taint dropped once Ready). Shared by
 * the Windows kubelets here and the Linux ones (lab/players/linux-kubelet.ts); `player` names who logs.
 */
export class NodeHeartbeats {
  private readonly running = new Map<string, Running>();

  constructor(
    private readonly kube: Kube,
    private readonly opts: Pick<KubeletOptions, "leaseDurationSeconds" | "statusReportSeconds">,
    private readonly player: string,
  ) {}

  has(name: string): boolean {
    return this.running.has(name);
  }

  /** Stops the loops of a node (its kubelet stopped); `why` is logged. */
  halt(name: string, why?: string): void {
    const r = this.running.get(name);
    if (!r) return;
    clearTimeout(r.lease);
    clearTimeout(r.status);
    this.running.delete(name);
    if (why) say(this.player, `stopped the kubelet of ${name} (${why})`);
  }

  haltAll(): void {
    for (const name of [...this.running.keys()]) this.halt(name);
  }

  start(name: string): void {
    if (this.running.has(name)) return;
    const r: Running = { lastReport: 0 };
    this.running.set(name, r);
    const renewMs = this.opts.leaseDurationSeconds * 250;
    const leaseLoop = async () => {
      await this.renewLease(name);
      if (this.running.get(name) === r) r.lease = setTimeout(() => void leaseLoop(), renewMs);
    };
    // nodeStatusUpdateFrequency is 10 s: each tick posts only on change or when the report period expired.
    const statusLoop = async () => {
      await this.postStatus(name, r);
      if (this.running.get(name) === r) r.status = setTimeout(() => void statusLoop(), 10_000);
    };
    void leaseLoop();
    void statusLoop();
  }

  /** lease/controller.go `backoffEnsureLease` + `retryUpdateLease`: create once, then renew `renewTime`. */
  private async renewLease(name: string): Promise<void> {
    const path = resourcePath("coordination.k8s.io/v1", "leases", "kube-node-lease", name);
    try {
      const node = await this.kube.get(resourcePath("v1", "nodes", undefined, name));
      if (!node) return this.halt(name, "node gone");
      const owner = [{ apiVersion: "v1", kind: "Node", name, uid: metaOf(node).uid }];
      const lease = await this.kube.get(path);
      if (!lease) {
        await this.kube.create(resourcePath("coordination.k8s.io/v1", "leases", "kube-node-lease"), {
          apiVersion: "coordination.k8s.io/v1",
          kind: "Lease",
          metadata: { name, namespace: "kube-node-lease", ownerReferences: owner },
          spec: { holderIdentity: name, leaseDurationSeconds: this.opts.leaseDurationSeconds, renewTime: nowMicro() },
        });
        say(this.player, `created Lease kube-node-lease/${name}`);
        return;
      }
      const owners = objects(get(lease, "metadata", "ownerReferences"));
      await this.kube.put(path, {
        ...lease,
        metadata: { ...(obj(lease.metadata) ?? {}), ownerReferences: owners.length ? owners : owner },
        spec: { holderIdentity: name, leaseDurationSeconds: this.opts.leaseDurationSeconds, renewTime: nowMicro() },
      });
    } catch (e) {
      if (!isNotFound(e)) say(this.player, `renewing Lease kube-node-lease/${name} failed: ${errText(e)}`);
    }
  }

  /** The Ready heartbeat: conditions re-posted when they changed or the report period expired. */
  private async postStatus(name: string, r: Running): Promise<void> {
    try {
      const node = await this.kube.get(resourcePath("v1", "nodes", undefined, name));
      if (!node) return this.halt(name, "node gone");
      // The apiserver's TaintNodesByCondition admission registers every Node with `node.kubernetes.io/not-ready:
      // NoSchedule`; kube-controller-manager's node lifecycle controller drops it once Ready
      // (nodelifecycle/node_lifecycle_controller.go `doNoScheduleTaintingPass`). The lab's controller manager may not
      // run that controller, so the player drops it for the nodes it plays.
      const taints = objects(get(node, "spec", "taints"));
      const notReady = (t: JsonObject) => t.key === "node.kubernetes.io/not-ready" && t.effect === "NoSchedule";
      const ready = objects(get(node, "status", "conditions")).some((c) => c.type === "Ready" && c.status === "True");
      if (ready && taints.some(notReady))
        await this.kube.patch(resourcePath("v1", "nodes", undefined, name), {
          spec: { taints: taints.filter((t) => !notReady(t)) },
        });
      const old = objects(get(node, "status", "conditions"));
      const healthy = old.length === 4 && old.every((c) => c.status === (c.type === "Ready" ? "True" : "False"));
      const expired = Date.now() - r.lastReport >= this.opts.statusReportSeconds * 1000;
      if (healthy && !expired) return;
      const at = now();
      const since = (type: string) => {
        const c = old.find((x) => x.type === type);
        const want = type === "Ready" ? "True" : "False";
        return c && c.status === want ? (str(c.lastTransitionTime) ?? at) : at;
      };
      await this.kube.patch(resourcePath("v1", "nodes", undefined, name, "status"), {
        status: { conditions: conditions(at, since) },
      });
      r.lastReport = Date.now();
      if (!healthy) say(this.player, `Node ${name} Ready`);
    } catch (e) {
      if (!isNotFound(e)) say(this.player, `posting the status of Node ${name} failed: ${errText(e)}`);
    }
  }
}

/**
 * What the Windows kubelets here and the Linux ones (lab/players/linux-kubelet.ts) share: the heartbeats of their
 * nodes (`NodeHeartbeats`), the version they report, and how a pod whose containers stopped is removed.
 */
export abstract class KubeletPlayer<
  O extends Pick<KubeletOptions, "leaseDurationSeconds" | "statusReportSeconds">,
> implements Player {
  protected readonly beats: NodeHeartbeats;
  /** The API server's version (`readKubeletVersion`): the lab's kubelets are of the cluster's own release. */
  protected kubeletVersion = "v0.0.0";

  constructor(
    readonly name: string,
    protected readonly kube: Kube,
    protected readonly opts: O,
  ) {
    this.beats = new NodeHeartbeats(kube, opts, name);
  }

  abstract start(): Promise<void>;
  abstract stop(): void;

  /**
   * kubelet_node_status.go `initialNode`, created (`registerWithAPIServer`): its OS's well-known labels beside `labels`,
   * attach/detach left to the controller, healthy conditions, and nodeInfo at the cluster's kubelet version.
   */
  protected createNode(
    name: string,
    os: "windows" | "linux",
    n: { labels: Record<string, string>; spec: JsonObject; status: JsonObject & { nodeInfo: JsonObject } },
  ): Promise<JsonObject> {
    const at = now();
    return this.kube.create(resourcePath("v1", "nodes"), {
      apiVersion: "v1",
      kind: "Node",
      metadata: {
        name,
        labels: {
          "kubernetes.io/hostname": name,
          "kubernetes.io/os": os,
          "kubernetes.io/arch": "amd64",
          "beta.kubernetes.io/os": os,
          "beta.kubernetes.io/arch": "amd64",
          ...n.labels,
        },
        annotations: { "volumes.kubernetes.io/controller-managed-attach-detach": "true" },
      },
      spec: n.spec,
      status: {
        ...n.status,
        conditions: conditions(at, () => at),
        nodeInfo: {
          architecture: "amd64",
          operatingSystem: os,
          ...n.status.nodeInfo,
          kubeletVersion: this.kubeletVersion,
          kubeProxyVersion: "",
          machineID: name,
          systemUUID: name,
          bootID: "",
        },
      },
    });
  }

  protected async readKubeletVersion(): Promise<void> {
    this.kubeletVersion = str(get(await this.kube.request("GET", "/version"), "gitVersion")) ?? this.kubeletVersion;
  }

  /**
   * status_manager.go `canBeDeleted`: the object of a pod whose containers stopped, removed with grace period 0 (this
   * uid only); `where` ends the log line.
   */
  protected async removePod(pod: JsonObject, where = ""): Promise<void> {
    const m = metaOf(pod);
    try {
      await this.kube.remove(resourcePath("v1", "pods", m.namespace, m.name), {
        apiVersion: "v1",
        kind: "DeleteOptions",
        gracePeriodSeconds: 0,
        preconditions: { uid: m.uid },
      });
      say(this.name, `pod ${m.namespace}/${m.name} terminated${where}`);
    } catch (e) {
      if (!isNotFound(e)) say(this.name, `removing terminated pod ${m.namespace}/${m.name} failed: ${errText(e)}`);
    }
  }
}

export class Kubelets extends KubeletPlayer<KubeletOptions> {
  private informer?: Informer;
  private pods?: Informer;
  private stopped = false;

  constructor(kube: Kube, opts: KubeletOptions) {
    super(PLAYER, kube, opts);
  }

  async start(): Promise<void> {
    await this.readKubeletVersion();
    let listed = false;
    this.informer = new Informer(
      this.kube,
      PLAYER,
      resourcePath("v1", "nodes"),
      { labelSelector: `${WINDOWS_OS_ID_LABEL}=Windows` },
      (verb, node) => {
        const name = metaOf(node).name;
        if (verb === "DELETED") this.halt(name, "node deleted");
        // Nodes that exist when the player starts have a kubelet; later ones only once registered through it.
        else if (!listed && !this.beats.has(name) && !metaOf(node).deleting) this.run(name);
      },
    );
    // status/status_manager.go `syncPod` → `canBeDeleted`: once a pod on a running node is being deleted and its
    // containers are gone (none run here), the kubelet removes the object with grace period 0.
    this.pods = new Informer(this.kube, PLAYER, resourcePath("v1", "pods"), {}, (verb, pod) => {
      const node = str(get(pod, "spec", "nodeName"));
      if (verb !== "DELETED" && node && this.beats.has(node) && metaOf(pod).deleting)
        void this.removePod(pod, ` on ${node}`);
    });
    this.informer.start();
    this.pods.start();
    await Promise.all([this.informer.ready, this.pods.ready]);
    listed = true;
  }

  stop(): void {
    this.stopped = true;
    this.informer?.stop();
    this.pods?.stop();
    this.beats.haltAll();
  }

  /**
   * The kubelet starting on a configured host: registers its Node (or finds it registered) and starts its lease and
   * status loops. Returns the Node as the API holds it.
   */
  async register(r: Registration): Promise<JsonObject> {
    const path = resourcePath("v1", "nodes", undefined, r.name);
    let node = await this.kube.get(path);
    if (!node) {
      node = await this.createNode(r.name, "windows", {
        labels: { [WINDOWS_BUILD_LABEL]: r.windowsBuild, ...r.labels },
        spec: {
          ...(r.providerID ? { providerID: r.providerID } : {}),
          // WMCO's kubelet config `registerWithTaints` (pkg/nodeconfig `generateKubeletConfiguration`).
          taints: [{ key: "os", value: "Windows", effect: "NoSchedule" }],
        },
        status: {
          addresses: r.addresses,
          daemonEndpoints: { kubeletEndpoint: { Port: 10250 } },
          // WMCO's kubelet config: maxPods 250, systemReserved cpu 500m / memory 2Gi / ephemeral-storage 1Gi.
          capacity: { cpu: "4", memory: "16776692Ki", pods: "250", "ephemeral-storage": "133156860Ki" },
          allocatable: { cpu: "3500m", memory: "14577140Ki", pods: "250", "ephemeral-storage": "118792054502" },
          nodeInfo: {
            osImage: OS_IMAGES[r.windowsBuild] ?? "Windows Server Datacenter",
            kernelVersion: `${r.windowsBuild}.2700`,
            containerRuntimeVersion: "containerd://1.7.27",
          },
        },
      });
      say(PLAYER, `registered Node ${r.name} (${r.addresses.map((a) => `${a.type}=${a.address}`).join(", ")})`);
    }
    if (!this.beats.has(r.name)) this.run(r.name);
    return node;
  }

  /** The kubelet stops (WICD cleanup stops the services): no more lease renewals or heartbeats. */
  halt(name: string, why?: string): void {
    this.beats.halt(name, why);
  }

  private run(name: string): void {
    if (!this.opts.heartbeats || this.stopped) return;
    this.beats.start(name);
  }
}
