/**
 * A played Linux kubelet's HTTPS server: the one endpoint the lab needs, the pod port-forward the API server proxies
 * to (kubernetes pkg/registry/core/pod/strategy.go `PortForwardLocation`: `https://<node address>:<kubeletEndpoint
 * port>/portForward/<namespace>/<pod>?port=N`, dialled with the API server's kubelet client certificate).
 *
 * What it does as the kubelet does:
 * - Authentication (pkg/kubelet/server/server.go `InstallAuthFilter`): a client certificate the cluster CA signed, or
 *   401 `Unauthorized`; its CN is the user, its O the groups (x509 request authenticator).
 * - Authorization (pkg/kubelet/server/auth.go `GetRequestAttributes`): a SubjectAccessReview against the real API server
 *   for verb get (GET) or create (POST) on `nodes/proxy` named after the node, or 403 `Forbidden (user=…, verb=…,
 *   resource=nodes, subresource(s)=[proxy])`.
 * - The routes (server.go `InstallDebuggingHandlers`: `/portForward/{podNamespace}/{podID}` and
 *   `/{podNamespace}/{podID}/{uid}`, GET or POST) and `getPortForward`: the pod must be one of this node's (404 `pod
 *   does not exist`), the uid, when given, its own (404 `pod not found`).
 * - The WebSocket port-forward (k8s.io/cri-streaming pkg/streaming/portforward/websocket.go `NewV4Options`,
 *   `handleWebSocketStreams`; k8s.io/streaming pkg/httpstream/wsstream/conn.go): the `port` query parameter is required
 *   (comma-separated lists allowed, each 1-65535); subprotocols `""`, `v4.channel.k8s.io` (binary frames) and
 *   `v4.base64.channel.k8s.io` (text frames, base64), the first the client offers that is supported, none offered
 *   meaning `""` (wsstream `handshake`); per port a data channel (2i, read-write) and an error channel (2i+1, written
 *   only), each starting with the port as 2 bytes little-endian; every frame is its channel's number then the data; a
 *   forward that fails writes `error forwarding port <p> to pod <pod>, uid <uid>: <cause>` on its error channel; once
 *   every port's forward has ended the WebSocket closes.
 *
 * Where it differs: the real kubelet hands the stream to the container runtime's streaming server (containerd, CRI-O),
 * which dials the port on the pod's loopback inside its network namespace; here the kubelet and runtime are one, and
 * the pod's "loopback port" is the local port its process was given (lab/players/linux-kubelet.ts). Not played: SPDY
 * port-forwards and KEP-4006's tunnelled SPDY over WebSocket (a client offering `SPDY/3.1+portforward.k8s.io` is
 * answered 400 here, where a 1.36 API server would translate it to SPDY for a kubelet that does not declare the
 * ExtendWebSocketsToKubelet feature), exec, attach, logs, metrics and every other kubelet endpoint (404), and the
 * authorization cache.
 */
import * as fs from "fs";
import * as https from "https";
import * as net from "net";
import { TLSSocket } from "tls";
import type { Duplex } from "stream";
import { RawData, WebSocket, WebSocketServer } from "ws";
import { get } from "../../lib/json";
import { errText, Kube, resourcePath, say } from "./kube";

/** A pod this kubelet runs, as the port-forward needs it: its uid, and where each of its ports is served locally. */
export interface ForwardTarget {
  uid: string;
  /** The port the pod listens on → the local port on 127.0.0.1 its process really listens on. */
  ports: ReadonlyMap<number, number>;
}

export interface KubeletServerOptions {
  player: string;
  node: string;
  kube: Kube;
  cert: string;
  key: string;
  /** The CA client certificates must chain to (the kubelet's `--client-ca-file`). */
  clientCa: string;
  /** The pod of this node by namespace and name, or undefined. */
  pod(namespace: string, name: string): ForwardTarget | undefined;
}

const BINARY = "v4.channel.k8s.io";
const BASE64 = "v4.base64.channel.k8s.io";
const SUPPORTED = ["", BINARY, BASE64];

/** A plain HTTP answer on a socket that asked to upgrade (what a handler's error reply is before the upgrade). */
function refuse(socket: Duplex, status: number, reason: string, body: string): void {
  const text = Buffer.from(body);
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: ${text.length}\r\n` +
      `Connection: close\r\n\r\n${body}`,
  );
}

/** The client certificate's user: CN the name, each O a group (k8s.io/apiserver pkg/authentication/request/x509). */
function userOf(socket: Duplex): { name: string; groups: string[] } | undefined {
  if (!(socket instanceof TLSSocket) || !socket.authorized) return undefined;
  const subject = socket.getPeerCertificate().subject;
  const cn = subject?.CN;
  const name = Array.isArray(cn) ? cn[0] : cn;
  if (!name) return undefined;
  const o = subject.O;
  return { name, groups: o === undefined ? [] : Array.isArray(o) ? o : [o] };
}

export class KubeletServer {
  private readonly server: https.Server;
  private readonly wss = new WebSocketServer({ noServer: true, handleProtocols: (offered) => chosen([...offered]) });
  private readonly sockets = new Set<net.Socket>();

  constructor(private readonly o: KubeletServerOptions) {
    this.server = https.createServer({
      cert: fs.readFileSync(o.cert),
      key: fs.readFileSync(o.key),
      ca: fs.readFileSync(o.clientCa),
      requestCert: true,
      // Checked per request below, so an unauthenticated client gets the kubelet's 401 rather than a TLS alert.
      rejectUnauthorized: false,
    });
    // A request that does not upgrade: the port-forward needs a WebSocket (or SPDY) upgrade; the rest is not played.
    this.server.on("request", (req, res) => {
      const status = /^\/portForward\//.test(req.url ?? "") ? 400 : 404;
      res.writeHead(status, { "Content-Type": "text/plain; charset=utf-8" });
      res.end(status === 400 ? "Upgrade request required\n" : "404 page not found\n");
    });
    this.server.on("upgrade", (req, socket, head) => void this.upgrade(req, socket, head));
  }

  /** Listens on 127.0.0.1 at a free port; resolves to it. */
  listen(): Promise<number> {
    return new Promise((resolve, reject) => {
      this.server.once("error", reject);
      this.server.listen(0, "127.0.0.1", () => {
        const a = this.server.address();
        resolve(typeof a === "object" && a ? a.port : 0);
      });
    });
  }

  close(): void {
    for (const s of this.sockets) s.destroy();
    this.server.close();
  }

  private async upgrade(req: import("http").IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
    const say_ = (text: string) => say(this.o.player, `${this.o.node}: ${text}`);
    const url = new URL(req.url ?? "/", "https://127.0.0.1");
    const user = userOf(socket);
    if (!user) return refuse(socket, 401, "Unauthorized", "Unauthorized");
    const verb = req.method === "POST" ? "create" : req.method === "GET" ? "get" : "";
    let allowed = false;
    try {
      const review = await this.o.kube.create(resourcePath("authorization.k8s.io/v1", "subjectaccessreviews"), {
        apiVersion: "authorization.k8s.io/v1",
        kind: "SubjectAccessReview",
        spec: {
          user: user.name,
          groups: user.groups,
          resourceAttributes: { verb, version: "v1", resource: "nodes", subresource: "proxy", name: this.o.node },
        },
      });
      allowed = get(review, "status", "allowed") === true;
    } catch (e) {
      // server.go: an authorizer error is a 500 naming the attributes.
      return refuse(
        socket,
        500,
        "Internal Server Error",
        `Authorization error (user=${user.name}, verb=${verb}, resource=nodes, subresource=proxy): ${errText(e)}`,
      );
    }
    if (!allowed) {
      say_(`refused ${req.method} ${url.pathname} for ${user.name} (no ${verb} on nodes/proxy)`);
      return refuse(
        socket,
        403,
        "Forbidden",
        `Forbidden (user=${user.name}, verb=${verb}, resource=nodes, subresource(s)=[proxy])\n`,
      );
    }
    const m = /^\/portForward\/([^/]+)\/([^/]+)(?:\/([^/]+))?$/.exec(url.pathname);
    if (!m) return refuse(socket, 404, "Not Found", "404 page not found\n");
    const [namespace, name, uid] = [m[1], m[2], m[3]].map((x) => (x === undefined ? undefined : decodeURIComponent(x)));
    if (!namespace || !name) return refuse(socket, 404, "Not Found", "404 page not found\n");
    if (/^SPDY\//i.test(req.headers.upgrade ?? "") || protocols(req).some((p) => /^SPDY\/3\.1\+/.test(p)))
      return refuse(socket, 400, "Bad Request", "lab kubelet: SPDY port-forwarding is not played; use a WebSocket");
    // websocket.go NewV4Options.
    const raw = url.searchParams.getAll("port");
    if (raw.length === 0) return refuse(socket, 400, "Bad Request", 'query parameter "port" is required');
    const ports: number[] = [];
    for (const value of raw) {
      if (value === "") return refuse(socket, 400, "Bad Request", 'query parameter "port" cannot be empty');
      for (const p of value.split(",")) {
        const n = /^\d+$/.test(p) ? Number(p) : NaN;
        if (!(n <= 65535)) return refuse(socket, 400, "Bad Request", `unable to parse "${value}" as a port`);
        if (n < 1) return refuse(socket, 400, "Bad Request", `port "${value}" must be > 0`);
        ports.push(n);
      }
    }
    const pod = this.o.pod(namespace, name);
    if (!pod) return refuse(socket, 404, "Not Found", "pod does not exist");
    if (uid && uid !== pod.uid) return refuse(socket, 404, "Not Found", "pod not found");
    if (chosen(protocols(req)) === false)
      return refuse(
        socket,
        403,
        "Forbidden",
        `requested protocol(s) are not supported: [${protocols(req).join(" ")}]; supports [${SUPPORTED.join(" ")}]`,
      );
    this.wss.handleUpgrade(req, socket, head, (ws) => this.forward(ws, socket, namespace, name, pod, ports, say_));
  }

  /** websocket.go `handleWebSocketStreams` + `portForward`, the runtime's dial being a local connection. */
  private forward(
    ws: WebSocket,
    raw: Duplex,
    namespace: string,
    name: string,
    pod: ForwardTarget,
    ports: number[],
    say_: (t: string) => void,
  ): void {
    const base64 = ws.protocol === BASE64;
    const send = (channel: number, data: Buffer) => {
      if (ws.readyState !== WebSocket.OPEN) return;
      if (base64) ws.send(String.fromCharCode(48 + channel) + data.toString("base64"));
      else ws.send(Buffer.concat([Buffer.from([channel]), data]));
    };
    const conns: (net.Socket | undefined)[] = [];
    let open = ports.length;
    // handleWebSocketStreams' deferred conn.Close(): x/net/websocket writes a close frame and closes the connection at
    // once, without waiting for the client's close frame.
    const done = () => {
      if (--open > 0) return;
      ws.close(1000);
      raw.end();
    };
    say_(`port-forward to ${namespace}/${name} port(s) ${ports.join(",")} (${ws.protocol || "no subprotocol"})`);
    ports.forEach((port, i) => {
      const portBytes = Buffer.alloc(2);
      portBytes.writeUInt16LE(port);
      send(2 * i, portBytes);
      send(2 * i + 1, portBytes);
      const local = pod.ports.get(port);
      const fail = (cause: string) => {
        send(2 * i + 1, Buffer.from(`error forwarding port ${port} to pod ${name}, uid ${pod.uid}: ${cause}`));
        done();
      };
      if (local === undefined) return fail(`failed to connect to localhost:${port} inside the pod: connection refused`);
      const c = net.connect(local, "127.0.0.1");
      conns[i] = c;
      this.sockets.add(c);
      let ended = false;
      const end = () => {
        if (ended) return;
        ended = true;
        this.sockets.delete(c);
        done();
      };
      c.on("data", (d: Buffer) => send(2 * i, d));
      c.on("error", (e) => {
        if (!ended)
          send(2 * i + 1, Buffer.from(`error forwarding port ${port} to pod ${name}, uid ${pod.uid}: ${e.message}`));
        end();
      });
      c.on("close", end);
    });
    ws.on("message", (data: RawData, isBinary: boolean) => {
      let frame = Buffer.isBuffer(data) ? data : Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data);
      if (frame.length === 0) return;
      let channel = frame[0];
      if (base64 && !isBinary) {
        channel -= 48;
        frame = Buffer.concat([Buffer.alloc(1), Buffer.from(frame.subarray(1).toString("latin1"), "base64")]);
      }
      // Only data channels are read (wsstream ReadWriteChannel); frames for others are dropped.
      if (channel % 2 !== 0 || channel / 2 >= ports.length) return;
      conns[channel / 2]?.write(frame.subarray(1));
    });
    ws.on("close", () => {
      for (const c of conns) c?.destroy();
    });
    ws.on("error", () => ws.terminate());
  }
}

/** The Sec-WebSocket-Protocol values a client offered, in its order. */
function protocols(req: import("http").IncomingMessage): string[] {
  const h = req.headers["sec-websocket-protocol"];
  return h === undefined
    ? []
    : h
        .split(",")
        .map((p) => p.trim())
        .filter((p) => p !== "");
}

/** wsstream `handshake`: the first protocol the client offers that is supported; none offered is `""`. */
function chosen(offered: string[]): string | false {
  if (offered.length === 0) return "";
  return offered.find((p) => SUPPORTED.includes(p)) ?? false;
}
