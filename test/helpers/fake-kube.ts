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
export type Route = (n: number, req: RouteRequest) => { status: number; body?: unknown };

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
        const { status, body } = r(n, {
          method: req.method ?? "GET",
          query,
          body: text ? JSON.parse(text) : undefined,
        });
        this.reply(res, status, body ?? { kind: "Status", code: status });
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

  private reply(res: http.ServerResponse, status: number, body: unknown): void {
    res.writeHead(status, { "Content-Type": "application/json" });
    res.end(JSON.stringify(body));
  }
}
