import { FakeKube } from "./fake-kube";

/** A Node as the API stand-in serves it (valid against core/v1 Node: test/schemas). */
export interface NodeObject {
  apiVersion: "v1";
  kind: "Node";
  metadata: { name: string; labels: Record<string, string>; annotations: Record<string, string> };
  spec: { unschedulable?: boolean };
  status: {
    addresses: { type: string; address: string }[];
    nodeInfo: Record<string, string>;
    conditions: { type: string; status: string; lastHeartbeatTime: string; lastTransitionTime: string }[];
  };
}

export interface FakeNodeOptions {
  address: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  unschedulable?: boolean;
  /** Once rebooted (its boot time changed), the kubelet never reports Ready again. */
  neverReadyAfterReboot?: () => boolean;
  /** The `kernelVersion` the kubelet reports now (it reads the registry at start); default NODE_INFO's. */
  kernelVersion?: () => string;
}

/** The node info a Windows Server 2022 kubelet reports (kubelet `winstats`: `<maj>.<min>.<build>.<UBR>`). */
export const NODE_INFO = {
  architecture: "amd64",
  bootID: "",
  containerRuntimeVersion: "containerd://1.7.27",
  kernelVersion: "10.0.20348.2700",
  kubeProxyVersion: "",
  kubeletVersion: "v1.33.2",
  machineID: "win",
  operatingSystem: "windows",
  osImage: "Windows Server 2022 Datacenter",
  systemUUID: "ec2a0000-0000-0000-0000-000000000000",
};

/**
 * Windows Nodes behind the local API stand-in, stateful: GET and list them, PATCH them with a JSON merge patch
 * (RFC 7386: `null` removes a key), and a kubelet that renews its node Lease each time the Lease is read (the
 * stand-in has no clock of its own; state changes come from requests) while its Ready heartbeat stays put. Every PATCH is recorded in `events`.
 */
export class FakeNodes {
  readonly nodes = new Map<string, NodeObject>();
  readonly events: string[] = [];
  private readonly renewals = new Map<string, number>();
  private readonly neverReady = new Map<string, () => boolean>();
  private readonly kernels = new Map<string, () => string>();

  constructor(private readonly kube: FakeKube) {
    kube.route("/api/v1/nodes", (_n, req) => {
      if (req.method !== "GET") return { status: 405 };
      const items = [...this.nodes.keys()].map((name) => this.serve(name));
      return { status: 200, body: { apiVersion: "v1", kind: "NodeList", metadata: {}, items } };
    });
    // Pods of a node (drain): none besides what a test adds with its own route.
    kube.route("/api/v1/pods", () => ({
      status: 200,
      body: { apiVersion: "v1", kind: "PodList", metadata: {}, items: [] },
    }));
  }

  add(name: string, o: FakeNodeOptions): NodeObject {
    const node = windowsNode(name, {
      ...o,
      addresses: [
        { type: "InternalIP", address: o.address },
        { type: "Hostname", address: name },
      ],
    });
    this.nodes.set(name, node);
    if (o.neverReadyAfterReboot) this.neverReady.set(name, o.neverReadyAfterReboot);
    if (o.kernelVersion) this.kernels.set(name, o.kernelVersion);
    // The kubelet's node Lease, renewed on every read while it is up (pkg/kubelet/kubelet.go renews every 10 s; the
    // stand-in has no clock of its own, so a read stands for the next renewal).
    this.kube.route(`/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/${name}`, (_n, req) => {
      if (req.method !== "GET") return { status: 405 };
      if (!this.nodes.has(name)) return { status: 404 };
      const down = this.neverReady.get(name)?.() === true;
      const n = down ? (this.renewals.get(name) ?? 0) : (this.renewals.get(name) ?? 0) + 1;
      this.renewals.set(name, n);
      const renewTime = new Date(Date.parse("2026-11-23T00:00:00Z") + n * 10_000).toISOString().replace("Z", "000Z");
      return {
        status: 200,
        body: {
          apiVersion: "coordination.k8s.io/v1",
          kind: "Lease",
          metadata: { name, namespace: "kube-node-lease" },
          spec: { holderIdentity: name, leaseDurationSeconds: 40, renewTime },
        },
      };
    });
    this.kube.route(`/api/v1/nodes/${name}`, (_n, req) => {
      if (req.method === "GET") return this.nodes.has(name) ? { status: 200, body: this.serve(name) } : { status: 404 };
      if (req.method === "PATCH") {
        const current = this.nodes.get(name);
        if (!current) return { status: 404 };
        this.nodes.set(name, mergePatch(current, req.body) as NodeObject);
        this.events.push(`${name} ${describePatch(req.body)}`);
        return { status: 200, body: this.serve(name) };
      }
      if (req.method === "DELETE") {
        if (!this.nodes.delete(name)) return { status: 404 };
        this.events.push(`${name} deleted`);
        return { status: 200, body: { kind: "Status", status: "Success" } };
      }
      return { status: 405 };
    });
    return node;
  }

  /**
   * The node as read now. Its Ready heartbeat does not move while the kubelet runs on (a real kubelet re-posts it only
   * on a change or every 5 minutes, `nodeStatusReportFrequency`); a node that never comes back is Ready=Unknown.
   */
  private serve(name: string): NodeObject {
    const node = this.nodes.get(name) as NodeObject;
    const down = this.neverReady.get(name)?.() === true;
    const kernel = this.kernels.get(name);
    if (kernel) node.status.nodeInfo.kernelVersion = kernel();
    node.status.conditions = [ready(down ? "Unknown" : "True")];
    return JSON.parse(JSON.stringify(node));
  }
}

/** The Ready condition as the kubelet last posted it (heartbeat and transition at fixed times: no clock here). */
const ready = (status: string) => ({
  type: "Ready",
  status,
  lastHeartbeatTime: "2026-11-23T00:00:00Z",
  lastTransitionTime: "2026-11-01T00:00:00Z",
});

/** A Ready Windows Server 2022 Node with these addresses, labels and annotations (core/v1 Node). */
export function windowsNode(
  name: string,
  o: Pick<FakeNodeOptions, "labels" | "annotations" | "unschedulable"> & {
    addresses: NodeObject["status"]["addresses"];
  },
): NodeObject {
  return {
    apiVersion: "v1",
    kind: "Node",
    metadata: {
      name,
      labels: {
        "kubernetes.io/os": "windows",
        "node.kubernetes.io/windows-build": "10.0.20348",
        ...(o.labels ?? {}),
      },
      annotations: { ...(o.annotations ?? {}) },
    },
    spec: o.unschedulable ? { unschedulable: true } : {},
    status: { addresses: o.addresses, nodeInfo: { ...NODE_INFO }, conditions: [ready("True")] },
  };
}

/** RFC 7386 JSON merge patch. */
export function mergePatch(target: unknown, patch: unknown): unknown {
  if (typeof patch !== "object" || patch === null || Array.isArray(patch)) return patch;
  const out: Record<string, unknown> =
    typeof target === "object" && target !== null && !Array.isArray(target)
      ? { ...(target as Record<string, unknown>) }
      : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = mergePatch(out[k], v);
  }
  return out;
}

/** `cordon`/`uncordon` plus the annotations a patch sets, for readable event lists. */
function describePatch(patch: unknown): string {
  const p = patch as {
    spec?: { unschedulable?: boolean; taints?: unknown; providerID?: string };
    metadata?: { annotations?: Record<string, unknown>; labels?: Record<string, unknown> };
  };
  const parts: string[] = [];
  if (p.spec?.unschedulable === true) parts.push("cordon");
  if (p.spec?.unschedulable === false) parts.push("uncordon");
  for (const k of Object.keys(p.metadata?.labels ?? {})) parts.push(`label ${k}`);
  if (p.spec?.taints) parts.push("taints");
  if (p.spec?.providerID) parts.push(`providerID ${p.spec.providerID}`);
  for (const [k, v] of Object.entries(p.metadata?.annotations ?? {})) parts.push(v === null ? `-${k}` : `+${k}`);
  return parts.join(" ");
}
