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

  /**
   * Port-forward targets: `<namespace>/<pod>:<port>` → a local TCP port standing in for the pod's port. A pod exists
   * when it has at least one entry; a port-forward to a pod without one is answered 404, as the registry's pod lookup
   * does (pkg/registry/core/pod/strategy.go `PortForwardLocation`).
   */
  readonly portForwards = new Map<string, number>();
  /** Every port-forward asked for, as `<namespace>/<pod>:<port>` (refused ones too). */
  readonly portForwardRequests: string[] = [];
  /**
   * Every port-forward the stand-in accepted (before `portForwardHold`): its key, the subprotocol chosen, whether it
   * was upgraded yet, and when its connection closed (after the WebSocket's close, or before any upgrade).
   */
  readonly portForwardSessions: { key: string; protocol: string; upgraded: boolean; closed: Promise<void> }[] = [];
  /**
   * How many bytes the stand-in's kubelet reads from the pod's port at a time (default 32 KiB, Go's io.Copy buffer).
   * Each read becomes one data frame, and the frames of one read reach the client in one TCP write: the API server
   * proxies the kubelet's stream as bytes (apimachinery pkg/util/proxy/upgradeaware.go), so frame boundaries never
   * follow what the pod wrote, and frames sent apart can arrive in one read.
   */
  portForwardReadBytes = 32 * 1024;
  /** Awaited before a port-forward is upgraded: an API server or kubelet that is slow to answer. */
  portForwardHold?: () => Promise<void>;
  private readonly sockets = new Set<net.Socket>();
  /**
   * Who each bearer token is and which verbs RBAC grants it on `pods/portforward` (nothing else is authorized per
   * verb here). The stand-in's own token is a user with both.
   */
  private readonly identities = new Map<string, { user: string; portForward: ReadonlySet<"get" | "create"> }>([
    [this.token, { user: "tester", portForward: new Set(["get", "create"] as const) }],
  ]);

  /**
   * Another identity the stand-in knows, holding `portForwardVerbs` on `pods/portforward`; returns its token for
   * `kubeconfig(token)`. A Role with only `get` is what sufficed before Kubernetes 1.35.
   */
  identity(user: string, portForwardVerbs: ("get" | "create")[]): string {
    const token = `${user}-token-${Math.random().toString(36).slice(2)}`;
    this.identities.set(token, { user, portForward: new Set(portForwardVerbs) });
    return token;
  }

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
        if (!this.identities.has((req.headers.authorization ?? "").replace(/^Bearer /, "")))
          return this.reply(res, 401, { kind: "Status", code: 401, reason: "Unauthorized" });
        const pf = portForwardPath.exec(path);
        if (pf) {
          // Without an upgrade the registry still authorizes and finds the pod, then the proxy refuses it.
          const refused = this.portForwardRefusal(req, pf[1], pf[2]);
          if (refused) return this.reply(res, refused.code, refused);
          return this.reply(res, 400, kubeStatus(400, "BadRequest", "Upgrade request required"));
        }
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
   * Why the API server refuses a port-forward to `ns/pod` before any upgrade, in its order, or undefined: the token
   * (401), RBAC's `get` from the request's method (the authorization filter; apiserver
   * pkg/endpoints/handlers/responsewriters/errors.go `forbiddenMessage`), the `create` check the pod registry adds for
   * WebSocket upgrades (1.35+, gate AuthorizePodWebsocketUpgradeCreatePermission, kubernetes PR #134577:
   * pkg/registry/core/pod/rest/subresources.go `PortForwardREST.Connect`, authorize.go `ensureAuthorizedForVerb`, whose
   * message carries RBAC's reason, empty for a plain denial), then the pod itself (404).
   */
  private portForwardRefusal(req: http.IncomingMessage, ns: string, pod: string): KubeStatus | undefined {
    const who = this.identities.get((req.headers.authorization ?? "").replace(/^Bearer /, ""));
    if (!who) return kubeStatus(401, "Unauthorized", "Unauthorized");
    const forbidden = (why: string) =>
      kubeStatus(403, "Forbidden", `pods ${JSON.stringify(pod)} is forbidden: ${why}`, { name: pod, kind: "pods" });
    // A WebSocket upgrade is a GET, which the filter authorizes as `get` (SPDY's POST is `create`).
    const verb = req.method === "POST" ? "create" : "get";
    if (!who.portForward.has(verb))
      return forbidden(
        `User ${JSON.stringify(who.user)} cannot ${verb} resource "pods/portforward" in API group "" in the namespace ${JSON.stringify(ns)}`,
      );
    if (!who.portForward.has("create")) return forbidden("");
    if (![...this.portForwards.keys()].some((k) => k.startsWith(`${ns}/${pod}:`)))
      return kubeStatus(404, "NotFound", `pods ${JSON.stringify(pod)} not found`, { name: pod, kind: "pods" });
    return undefined;
  }

  /**
   * `GET /api/v1/namespaces/{ns}/pods/{pod}/portforward?ports=N` upgraded to a WebSocket. Refusals come first, as
   * JSON Status bodies before any upgrade (`portForwardRefusal`). Then, as in 1.36 for a client that asks no tunneling
   * subprotocol, the API server proxies the upgrade to the kubelet, which answers as kubelet
   * pkg/cri/streaming/portforward/websocket.go `handleWebSocketStreams` does: subprotocols "", `v4.channel.k8s.io`
   * and `v4.base64.channel.k8s.io`, the first the client lists that is one of them (wsstream conn.go `handshake`),
   * anything else refused 403 with no body (golang.org/x/net/websocket server.go `newServerConn`); per port a data
   * channel (0) and an error channel (1), each opened by a frame holding the port (uint16, little endian), then the
   * channel byte (base64: the channel digit) plus payload. The pod's port is a local TCP port here.
   */
  private portForward(req: http.IncomingMessage, socket: import("stream").Duplex, head: Buffer): void {
    const raw = (code: number, text: string, body?: KubeStatus) => {
      const payload = body ? JSON.stringify(body) : "";
      socket.end(
        `HTTP/1.1 ${code} ${text}\r\n${body ? "Content-Type: application/json\r\n" : ""}Content-Length: ${Buffer.byteLength(payload)}\r\nConnection: close\r\n\r\n${payload}`,
      );
    };
    const [path, query = ""] = (req.url ?? "").split("?");
    const m = portForwardPath.exec(path);
    const ports = new URLSearchParams(query).get("ports");
    if (!m)
      return raw(404, "Not Found", kubeStatus(404, "NotFound", "the server could not find the requested resource"));
    const [, ns, pod] = m;
    this.portForwardRequests.push(`${ns}/${pod}:${ports}`);
    const refused = this.portForwardRefusal(req, ns, pod);
    if (refused) return raw(refused.code, http.STATUS_CODES[refused.code] ?? "", refused);
    if (!ports || !/^\d+$/.test(ports) || Number(ports) < 1 || Number(ports) > 65535)
      return raw(
        400,
        "Bad Request",
        kubeStatus(400, "BadRequest", `unable to parse ${JSON.stringify(ports)} as a port`),
      );
    const key = `${ns}/${pod}:${ports}`;
    const port = Number(ports);
    const offered = String(req.headers["sec-websocket-protocol"] ?? "")
      .split(",")
      .map((p) => p.trim())
      .filter((p) => p !== "");
    const kubeletProtocols = ["v4.channel.k8s.io", "v4.base64.channel.k8s.io"];
    const chosen = offered.length === 0 ? "" : offered.find((p) => kubeletProtocols.includes(p));
    if (chosen === undefined) return raw(403, "Forbidden");
    const base64 = chosen === "v4.base64.channel.k8s.io";
    const local = this.portForwards.get(key);
    const session = {
      key,
      protocol: chosen,
      upgraded: false,
      closed: new Promise<void>((r) => socket.once("close", () => r())),
    };
    this.portForwardSessions.push(session);
    const wss = new WebSocketServer({ noServer: true, handleProtocols: () => chosen || false });
    const upgrade = () =>
      wss.handleUpgrade(req, socket, head, (ws) => {
        session.upgraded = true;
        const frame = (channel: number, data: Buffer) =>
          base64
            ? ws.send(String.fromCharCode(48 + channel) + data.toString("base64"))
            : ws.send(Buffer.concat([Buffer.from([channel]), data]));
        const portBytes = Buffer.from([port & 0xff, port >> 8]);
        frame(0, portBytes);
        frame(1, portBytes);
        const fail = (why: string) => {
          frame(1, Buffer.from(why));
          ws.close();
        };
        if (local === undefined) return fail(`error forwarding port ${port} to pod ${pod}: no such pod port`);
        const tcp = net.connect(local, "127.0.0.1");
        this.sockets.add(tcp);
        const pending: Buffer[] = [];
        let open = false;
        tcp.on("connect", () => {
          open = true;
          for (const p of pending) tcp.write(p);
        });
        tcp.on("data", (d: Buffer) => {
          // One TCP write for the frames of one read (see portForwardReadBytes).
          (socket as net.Socket).cork();
          for (let i = 0; i < d.length; i += this.portForwardReadBytes)
            frame(0, d.subarray(i, i + this.portForwardReadBytes));
          process.nextTick(() => (socket as net.Socket).uncork());
        });
        tcp.on("error", (e) => fail(`error forwarding port ${port} to pod ${pod}: ${e.message}`));
        tcp.on("close", () => ws.close());
        ws.on("message", (data: Buffer, isBinary: boolean) => {
          const channel = base64 && !isBinary ? data[0] - 48 : data[0];
          if (channel !== 0) return;
          const payload = base64 ? Buffer.from(data.subarray(1).toString("latin1"), "base64") : data.subarray(1);
          if (open) tcp.write(payload);
          else pending.push(payload);
        });
        ws.on("close", () => tcp.destroy());
      });
    if (this.portForwardHold) void this.portForwardHold().then(upgrade);
    else upgrade();
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

const portForwardPath = /^\/api\/v1\/namespaces\/([^/]+)\/pods\/([^/]+)\/portforward$/;

/** A metav1.Status as the API server writes a refusal (apimachinery pkg/api/errors/errors.go). */
type KubeStatus = ReturnType<typeof kubeStatus>;
function kubeStatus(code: number, reason: string, message: string, details?: { name: string; kind: string }) {
  return {
    kind: "Status",
    apiVersion: "v1",
    metadata: {},
    status: "Failure",
    message,
    reason,
    ...(details ? { details } : {}),
    code,
  };
}
