import * as http from "http";
import * as net from "net";
import { AddressInfo } from "net";
import { WebSocketServer } from "ws";

/** What a route answers on its n-th request (n counts from 1), as status and JSON body. */
/** The request a route sees: method, query string and the parsed JSON body (undefined for none). */
export interface RouteRequest {
  method: string;
  query: string;
  body: unknown;
}
export type Route = (
  n: number,
  req: RouteRequest,
) => { status: number; body?: unknown; headers?: Record<string, string> };

/**
 * A PodDisruptionBudget as the eviction registry reads it (kubernetes pkg/registry/core/pod/storage/eviction.go):
 * the pods of its namespace whose labels include `matchLabels`, and `status.disruptionsAllowed` (with the healthy
 * counts its refusal message quotes), kept up to date by hand where the disruption controller would.
 */
export interface FakeBudget {
  namespace: string;
  name: string;
  matchLabels: Record<string, string>;
  disruptionsAllowed: number;
  desiredHealthy: number;
  currentHealthy: number;
  /**
   * The disruption controller's next update, counted in refusals (the stand-in has no clock): after this many 429s
   * the budget allows one disruption. Undefined: it never does.
   */
  allowsAfterRefusals?: number;
}

/** A pod of the model: its object, and how many reads still show it terminating once its deletion has started. */
interface ModelPod {
  pod: PodObject;
  deleting?: number;
}
type PodObject = {
  metadata: { name: string; namespace: string; uid: string; labels?: Record<string, string>; [k: string]: unknown };
  spec: { nodeName?: string; [k: string]: unknown };
  [k: string]: unknown;
};

/**
 * A local HTTP server on 127.0.0.1 that answers the Kubernetes API paths a test sets, with a token check like the
 * real API server's. State changes are driven by how many times a path was asked, never by time.
 */
export class FakeKube {
  readonly hits = new Map<string, number>();
  private readonly routes = new Map<string, Route>();
  private server?: http.Server;
  readonly token = "test-token-" + Math.random().toString(36).slice(2);

  /** Port-forward targets: `<namespace>/<pod>:<port>` → a local TCP port standing in for the pod's port (-1: forbidden). */
  readonly portForwards = new Map<string, number>();
  /** Every port-forward asked for, as `<namespace>/<pod>:<port>` (refused ones too). */
  readonly portForwardRequests: string[] = [];
  private readonly sockets = new Set<net.Socket>();

  route(path: string, r: Route): this {
    this.routes.set(path, r);
    return this;
  }

  /** The pods of the model (`pods()`), by `namespace/name`; evicted and deleted pods leave it. */
  readonly pods = new Map<string, ModelPod>();
  /** The PodDisruptionBudgets the model's evictions obey. */
  readonly budgets: FakeBudget[] = [];
  /** Every eviction asked for, `namespace/name` and the API's status, in order of arrival. */
  readonly evictions: string[] = [];
  /** Every eviction and delete body, by `namespace/name`. */
  readonly deleteOptions = new Map<string, unknown>();

  /**
   * Serves pods, their evictions and deletions, and PodDisruptionBudgets as the API server does: the pod list honours
   * `fieldSelector=spec.nodeName=<node>` and an equality `labelSelector` (`a=b,c=d`; anything else answers 400, as a
   * selector the stand-in cannot read must not pass for "every pod"); an eviction is checked against the budgets
   * that select the pod (eviction.go `Create`, `checkAndDecrement`); a deleted pod reads as terminating
   * (`deletionTimestamp`) `terminatingReads` more times, then 404. `daemonSets` (`namespace/name`) exist.
   */
  model(pods: PodObject[], opts: { terminatingReads?: number; daemonSets?: string[] } = {}): this {
    const key = (ns: string, name: string) => `${ns}/${name}`;
    for (const pod of pods) this.pods.set(key(pod.metadata.namespace, pod.metadata.name), { pod });
    this.route("/api/v1/pods", (_n, req) => {
      const q = new URLSearchParams(req.query);
      const field = q.get("fieldSelector");
      const labels = q.get("labelSelector");
      if (field !== null && !/^spec\.nodeName=[^,]*$/.test(field))
        return { status: 400, body: { kind: "Status", code: 400, message: `unsupported fieldSelector ${field}` } };
      const wanted: [string, string][] = [];
      for (const part of labels ? labels.split(",") : []) {
        const m = /^([^=!]+)=([^=]*)$/.exec(part);
        if (!m)
          return { status: 400, body: { kind: "Status", code: 400, message: `unsupported labelSelector ${labels}` } };
        wanted.push([m[1], m[2]]);
      }
      const node = field?.slice("spec.nodeName=".length);
      const items = [...this.pods.values()]
        .map((p) => p.pod)
        .filter((p) => node === undefined || p.spec.nodeName === node)
        .filter((p) => wanted.every(([k, v]) => p.metadata.labels?.[k] === v));
      return { status: 200, body: { apiVersion: "v1", kind: "PodList", metadata: {}, items } };
    });
    for (const ds of opts.daemonSets ?? []) {
      const [ns, name] = ds.split("/");
      this.route(`/apis/apps/v1/namespaces/${ns}/daemonsets/${name}`, () => ({
        status: 200,
        body: { apiVersion: "apps/v1", kind: "DaemonSet", metadata: { name, namespace: ns } },
      }));
    }
    const startDeletion = (k: string, options: unknown) => {
      const p = this.pods.get(k);
      if (!p || p.deleting !== undefined) return;
      this.deleteOptions.set(k, options);
      p.deleting = opts.terminatingReads ?? 0;
      p.pod = { ...p.pod, metadata: { ...p.pod.metadata, deletionTimestamp: "2026-11-26T00:00:00Z" } };
      if (p.deleting === 0) this.pods.delete(k);
    };
    for (const pod of pods) {
      const { namespace: ns, name } = pod.metadata;
      const k = key(ns, name);
      const path = `/api/v1/namespaces/${ns}/pods/${name}`;
      const notFound = {
        status: 404,
        body: { kind: "Status", apiVersion: "v1", status: "Failure", reason: "NotFound", code: 404 },
      };
      this.route(path, (_n, req) => {
        const p = this.pods.get(k);
        if (!p) return notFound;
        if (req.method === "DELETE") {
          startDeletion(k, req.body);
          return { status: 200, body: p.pod };
        }
        if (p.deleting !== undefined && p.deleting-- <= 1) this.pods.delete(k);
        return { status: 200, body: p.pod };
      });
      this.route(`${path}/eviction`, (_n, req) => {
        const answer = this.evict(k, req.body, startDeletion);
        this.evictions.push(`${k}:${answer.status}`);
        return answer;
      });
    }
    return this;
  }

  /** One eviction as kubernetes pkg/registry/core/pod/storage/eviction.go `Create` answers it. */
  private evict(k: string, body: unknown, startDeletion: (k: string, options: unknown) => void) {
    const p = this.pods.get(k);
    if (!p)
      return {
        status: 404,
        body: { kind: "Status", apiVersion: "v1", status: "Failure", reason: "NotFound", code: 404 },
      };
    const labels = p.pod.metadata.labels ?? {};
    const budgets = this.budgets.filter(
      (b) =>
        b.namespace === p.pod.metadata.namespace && Object.entries(b.matchLabels).every(([l, v]) => labels[l] === v),
    );
    if (budgets.length > 1)
      // eviction.go returns a Failure Status; the API server answers it as an error with its code
      // (k8s.io/apiserver pkg/endpoints/handlers/finisher/finisher.go), 500.
      return {
        status: 500,
        body: {
          kind: "Status",
          apiVersion: "v1",
          metadata: {},
          status: "Failure",
          message: "This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.",
          code: 500,
        },
      };
    const budget = budgets[0];
    if (budget && budget.disruptionsAllowed <= 0 && budget.allowsAfterRefusals !== undefined) {
      if (budget.allowsAfterRefusals-- <= 0) budget.disruptionsAllowed = 1;
    }
    if (budget && budget.disruptionsAllowed <= 0)
      return { status: 429, body: budgetRefusal(budget.name, budget.desiredHealthy, budget.currentHealthy) };
    if (budget) budget.disruptionsAllowed--;
    startDeletion(k, body);
    return { status: 201, body: { kind: "Status", apiVersion: "v1", metadata: {}, status: "Success", code: 201 } };
  }

  async start(): Promise<string> {
    this.server = http.createServer((req, res) => {
      const [path, query = ""] = (req.url ?? "").split("?");
      let text = "";
      req.on("data", (d: Buffer) => (text += d.toString()));
      req.on("end", () => {
        const n = (this.hits.get(path) ?? 0) + 1;
        this.hits.set(path, n);
        if (req.headers.authorization !== `Bearer ${this.token}`)
          return this.reply(res, 401, { kind: "Status", code: 401, reason: "Unauthorized" });
        const r = this.routes.get(path);
        if (!r) return this.reply(res, 404, { kind: "Status", code: 404, reason: "NotFound" });
        const { status, body, headers } = r(n, {
          method: req.method ?? "GET",
          query,
          body: text ? JSON.parse(text) : undefined,
        });
        this.reply(res, status, body ?? { kind: "Status", code: status }, headers);
      });
    });
    this.server.on("upgrade", (req, socket, head) => this.portForward(req, socket, head));
    await new Promise<void>((resolve) => this.server?.listen(0, "127.0.0.1", resolve));
    return this.url;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server?.address() as AddressInfo).port}`;
  }

  /** A kubeconfig for this server; `token` overrides the right one to test refusals. */
  kubeconfig(token = this.token): string {
    return [
      "apiVersion: v1",
      "kind: Config",
      "clusters:",
      // Plain HTTP on loopback: client-node only allows it with TLS verification explicitly off.
      `- name: fake\n  cluster:\n    server: ${this.url}\n    insecure-skip-tls-verify: true`,
      "users:",
      `- name: tester\n  user:\n    token: ${token}`,
      "contexts:",
      "- name: fake\n  context:\n    cluster: fake\n    user: tester",
      "current-context: fake",
      "",
    ].join("\n");
  }

  /**
   * `GET /api/v1/namespaces/{ns}/pods/{pod}/portforward?ports=N` upgraded to a WebSocket, as the API server and
   * kubelet serve it (kubernetes pkg/kubelet/cri/streaming/portforward/websocket.go, `v4.channel.k8s.io`): per port a
   * data channel (0) and an error channel (1), each opened by a frame holding the port (uint16, little endian);
   * every later frame is the channel byte plus payload. The pod's port is a local TCP port here.
   */
  private portForward(req: http.IncomingMessage, socket: import("stream").Duplex, head: Buffer): void {
    const m = /^\/api\/v1\/namespaces\/([^/]+)\/pods\/([^/]+)\/portforward\?ports=(\d+)$/.exec(req.url ?? "");
    const refuse = (status: number, text: string) => {
      socket.end(`HTTP/1.1 ${status} ${text}\r\nContent-Length: 0\r\n\r\n`);
    };
    if (!m) return refuse(404, "Not Found");
    if (req.headers.authorization !== `Bearer ${this.token}`) return refuse(401, "Unauthorized");
    const key = `${m[1]}/${m[2]}:${m[3]}`;
    this.portForwardRequests.push(key);
    const port = Number(m[3]);
    const local = this.portForwards.get(key);
    // -1: the identity lacks pods/portforward (RBAC answers 403 before any upgrade).
    if (local === -1) return refuse(403, "Forbidden");
    const wss = new WebSocketServer({
      noServer: true,
      handleProtocols: (protocols) => (protocols.has("v4.channel.k8s.io") ? "v4.channel.k8s.io" : false),
    });
    wss.handleUpgrade(req, socket, head, (ws) => {
      const portBytes = Buffer.from([port & 0xff, port >> 8]);
      ws.send(Buffer.concat([Buffer.from([0]), portBytes]));
      ws.send(Buffer.concat([Buffer.from([1]), portBytes]));
      const fail = (why: string) => {
        ws.send(Buffer.concat([Buffer.from([1]), Buffer.from(why)]));
        ws.close();
      };
      if (local === undefined) return fail(`error forwarding port ${port} to pod ${m[2]}: no such pod port`);
      const tcp = net.connect(local, "127.0.0.1");
      this.sockets.add(tcp);
      const pending: Buffer[] = [];
      let open = false;
      tcp.on("connect", () => {
        open = true;
        for (const p of pending) tcp.write(p);
      });
      tcp.on("data", (d: Buffer) => ws.send(Buffer.concat([Buffer.from([0]), d])));
      tcp.on("error", (e) => fail(`error forwarding port ${port} to pod ${m[2]}: ${e.message}`));
      tcp.on("close", () => ws.close());
      ws.on("message", (data: Buffer) => {
        if (data[0] !== 0) return;
        const payload = data.subarray(1);
        if (open) tcp.write(payload);
        else pending.push(payload);
      });
      ws.on("close", () => tcp.destroy());
    });
  }

  async stop(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    // Idle keep-alive connections would hold close() (and the jest worker) open.
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  private reply(res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
    res.writeHead(status, { "Content-Type": "application/json", ...headers });
    res.end(JSON.stringify(body));
  }
}

/**
 * The Status the eviction registry answers when a PodDisruptionBudget allows no disruption (kubernetes
 * pkg/registry/core/pod/storage/eviction.go `checkAndDecrement`: errors.NewTooManyRequests with a DisruptionBudget
 * cause, serialized as `reason`: apimachinery meta/v1 StatusCause.Type).
 */
export function budgetRefusal(name: string, desiredHealthy: number, currentHealthy: number) {
  return {
    kind: "Status",
    apiVersion: "v1",
    metadata: {},
    status: "Failure",
    message: "Cannot evict pod as it would violate the pod's disruption budget.",
    reason: "TooManyRequests",
    details: {
      causes: [
        {
          reason: "DisruptionBudget",
          message: `The disruption budget ${name} needs ${desiredHealthy} healthy pods and has ${currentHealthy} currently`,
        },
      ],
    },
    code: 429,
  };
}
