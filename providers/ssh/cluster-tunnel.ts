/**
 * The stream under an SSH session that goes through the cluster: find a ready relay pod, open a port-forward to
 * it through the Kubernetes API (`@kubernetes/client-node` `PortForward`, WebSocket channel protocol: data on
 * channel 0, errors on channel 1, each channel's first frame is the port), ask the relay for `host:port` with HTTP
 * CONNECT, and hand the stream to ssh2 as its `sock`. Every step has a timeout that names the node and the pod.
 */
import { Duplex, PassThrough } from "stream";
import { connectKube, KubeApi, loadKubeConfig } from "../kube-wait/api";
import { get, objects, str } from "../../lib/json";
import { messageOf, finalError, unreachableError } from "../../lib/errors";
import { within } from "./limits";
import { ClusterTunnel } from "./types";

/** relay-proxy.js `connectTimeoutMs` when RELAY_CONNECT_TIMEOUT_MS is not set, and `ClusterTunnel.timeoutSeconds`'s default. */
const DEFAULT_TIMEOUT_SECONDS = 15;
/**
 * How much longer than the relay's own connect timeout the wait for its CONNECT answer lasts: the relay answers 504
 * with its X-Relay-Error when the node gives no TCP connection in time (relay-proxy.js), and that answer, which says
 * what happened, must arrive before this side gives up (audit row 9).
 */
const RELAY_ANSWER_MARGIN_SECONDS = 5;
/** A CONNECT answer is a status line and a few headers; more without an end is not the relay talking. */
const MAX_ANSWER_BYTES = 16 * 1024;
/** The lines before the node's SSH identification are bounded too (ssh2 allows 1024 lines of 8 KiB, Protocol.js). */
const MAX_IDENT_BYTES = 64 * 1024;

/** What to check when the relay refuses, by its status (relay-proxy.js answers 400, 403, 502 and 504). */
const RELAY_HINTS: Record<number, string> = {
  403: "; the relay opens only the SSH port (RELAY_ALLOWED_PORTS)",
  502: "; from the relay's pod the node refused or was unreachable: check the node's address and that sshd listens",
  504: "; from the relay's pod the node gave no TCP connection: check the node's address, its firewall for port 22 and any NetworkPolicy on the relay's egress, or raise nodeAccess.connectTimeoutSeconds",
};

/** Which relay a tunnel went through, and whether it was lost while SSH used it. */
export interface TunnelInfo {
  /** `relay pod <namespace>/<name>`, for messages. */
  relay: string;
  /**
   * What happened when the port-forward ended or failed while SSH used it and this side had not closed it (the relay
   * pod deleted or evicted, its node drained, the API server restarting); undefined while it did not.
   */
  lost?: string;
  /** What the relay pod's state says now, for the message of a lost session (one API read, never throws). */
  diagnose(): Promise<string>;
}

/** A relay pod that can take a port-forward: Running and Ready. */
export function readyRelayPod(list: unknown): string | undefined {
  for (const pod of objects(get(list, "items"))) {
    if (str(get(pod, "metadata", "deletionTimestamp"))) continue;
    if (str(get(pod, "status", "phase")) !== "Running") continue;
    const ready = objects(get(pod, "status", "conditions")).some(
      (c) => str(get(c, "type")) === "Ready" && str(get(c, "status")) === "True",
    );
    const name = str(get(pod, "metadata", "name"));
    if (ready && name) return name;
  }
  return undefined;
}

/** Parses the relay's answer to CONNECT: the status line and where the tunnelled bytes begin. */
export function connectAnswer(buf: Buffer): { status: number; reason: string; rest: Buffer } | undefined {
  const end = buf.indexOf("\r\n\r\n");
  if (end < 0) return undefined;
  const head = buf.subarray(0, end).toString("latin1");
  const m = /^HTTP\/1\.[01] (\d{3})([^\r\n]*)/.exec(head);
  const reason = (/^X-Relay-Error: *(.*)$/im.exec(head)?.[1] ?? m?.[2] ?? "").trim();
  return { status: m ? Number(m[1]) : 0, reason, rest: buf.subarray(end + 4) };
}

/**
 * Why the API refused the port-forward's upgrade. ws, under client-node, reports only "Unexpected server response:
 * 403" and drops the body, so the same request is asked again without the upgrade: the API server authorizes it the
 * same way (the filter's `get`, then the pod registry's `create`) and answers a refusal with a Status naming it, or,
 * with both granted, the proxy's 400 "Upgrade request required" (apimachinery pkg/util/proxy/upgradeaware.go
 * `ServeHTTP`), which means the refusal came from the kubelet's subprotocol handshake instead.
 */
async function refusal(api: KubeApi, t: ClusterTunnel, pod: string, where: string, msg: string): Promise<Error> {
  const rbac = (verbs: string, why: string) =>
    finalError(
      `the Kubernetes API refused a port-forward to ${where}${why}: the identity running pulumi up needs ${verbs} on pods/portforward in namespace ${t.namespace} (a Role bound to it, or nodeAccess.portForwardSubjects; docs/day2.md, "Node access")`,
    );
  const answer = await api
    .request("GET", `${podsPath(t)}/${encodeURIComponent(pod)}/portforward?ports=${t.port}`, undefined, {
      passThrough: () => true,
    })
    .catch(() => undefined);
  const said = str(get(answer?.body, "message"));
  if (answer?.status === 401)
    return finalError(
      `the Kubernetes API did not accept the kubeconfig's credentials for a port-forward to ${where}: check windows-estate:cluster.kubeconfig and cluster.context`,
    );
  if (answer?.status === 403 && said && /cannot get resource "pods\/portforward"/.test(said))
    return rbac("get and create", ` (${said.slice(0, 300)})`);
  if (answer?.status === 403)
    // pkg/registry/core/pod/rest/subresources.go `PortForwardREST.Connect` → authorize.go `ensureAuthorizedForVerb`.
    return rbac(
      "create as well as get",
      ` (${(said ?? "403").slice(0, 300)}): since Kubernetes 1.35 a port-forward's WebSocket upgrade is authorized as create too (AuthorizePodWebsocketUpgradeCreatePermission, kubernetes PR #134577)`,
    );
  if (answer?.status === 400)
    return finalError(
      `the kubelet of ${where} refused the port-forward's WebSocket subprotocol (${msg.slice(0, 120)}), though RBAC allows it: the node's kubelet accepts v4.channel.k8s.io; check for a proxy between here and the API server that rewrites Sec-WebSocket-Protocol`,
    );
  return rbac("get and create", ` (${msg.slice(0, 120)})`);
}

function podsPath(t: ClusterTunnel): string {
  return `/api/v1/namespaces/${encodeURIComponent(t.namespace)}/pods`;
}

/**
 * Opens the stream to `host:port` through the cluster. `node` names the target in messages (the Node name, or
 * the address).
 */
export async function openClusterTunnel(
  t: ClusterTunnel,
  host: string,
  port: number,
  node: string,
): Promise<Duplex & { tunnel: TunnelInfo }> {
  const seconds = t.timeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS;
  const ms = seconds * 1000;
  const api = await connectKube({ kubeconfig: t.kubeconfig, context: t.context }, ms);
  const path = `${podsPath(t)}?labelSelector=${encodeURIComponent(t.selector)}`;
  const list = await api.get(path);
  const pod = readyRelayPod(list);
  if (!pod)
    throw unreachableError(
      `no ready relay pod (${t.selector}) in namespace ${t.namespace} to reach node ${node} through the cluster; check the ${t.selector.split("=")[1] ?? "relay"} Deployment (image pull, scheduling) or use nodeAccess.via: direct`,
    );

  const k8s: typeof import("@kubernetes/client-node") = require("@kubernetes/client-node");
  const kc = loadKubeConfig({ kubeconfig: t.kubeconfig, context: t.context });
  const fromPod = new PassThrough();
  const errors = new PassThrough();
  const toPod = new PassThrough();
  const where = `relay pod ${t.namespace}/${pod}`;
  const target = `${host.includes(":") ? `[${host}]` : host}:${port}`;
  type Socket = { close(): void; on?(event: string, fn: () => void): void };
  let socket: Socket | undefined;

  // The stream ssh2 gets is built before the port-forward opens, and one listener on each channel serves the whole
  // life of the stream: first the relay's answer to CONNECT, then everything after it, pushed into `sock` (which
  // buffers until ssh2 reads). client-node writes each WebSocket frame to `fromPod` as it is parsed
  // (portforward.js `portForward`), and ws parses every frame of one read synchronously (receiver.js,
  // allowSynchronousEvents), so the frame after the answer (the sshd banner) can arrive before any `await` resumes;
  // a flowing stream drops what no listener takes (Node.js stream docs, "Two reading modes"). Audit row 1.
  const sock = new Duplex({
    // SSH ends when the relay's stream ends; ending the writable side then lets `close` reach ssh2 at once.
    allowHalfOpen: false,
    read() {},
    write(chunk: Buffer, _enc, cb) {
      toPod.write(chunk, cb);
    },
    final(cb) {
      closing = true;
      toPod.end();
      cb();
    },
    destroy(err, cb) {
      closing = true;
      socket?.close();
      cb(err);
    },
  });
  // Whether this side ended the stream (ssh2 closing the session, a command timeout); a port-forward that ends
  // otherwise while SSH uses it is a lost session.
  let closing = false;
  const info: TunnelInfo = {
    relay: where,
    diagnose: () => relayState(api, path, pod, where),
  };
  const lose = (what: string) => {
    if (!closing && info.lost === undefined) info.lost = what;
  };
  // The wait for the answer, settled once: then the stream belongs to SSH (`ssh`), or the tunnel failed (`failed`).
  let phase: "answer" | "ssh" | "failed" = "answer";
  let answer!: { resolve: () => void; reject: (e: Error) => void };
  const answered = new Promise<void>((resolve, reject) => (answer = { resolve, reject }));
  const settle = (e?: Error) => {
    if (phase !== "answer") return;
    phase = e ? "failed" : "ssh";
    if (e) answer.reject(e);
    else answer.resolve();
  };
  // Until the node's identification line (`SSH-2.0-…`, RFC 4253 section 4.2, after any other lines) is complete, its
  // bytes are held and handed to ssh2 in one chunk: ssh2 1.17 keeps only the first of three or more reads of that
  // line (lib/protocol/Protocol.js `parseHeader` sets `_buffer` once), so an ident the stream split three ways
  // reaches the key exchange garbled ("signature verification failed"). A plain TCP read never splits it that way;
  // frames of the port-forward can.
  let ident: Buffer | undefined = Buffer.alloc(0);
  const toSsh = (d: Buffer) => {
    if (!ident) return void sock.push(d);
    ident = Buffer.concat([ident, d]);
    if (ident.length < MAX_IDENT_BYTES && !/(^|\n)SSH-[^\n]*\n/.test(ident.toString("latin1"))) return;
    sock.push(ident);
    ident = undefined;
  };
  const endOfStream = () => {
    if (ident?.length) sock.push(ident);
    ident = undefined;
    sock.push(null);
  };
  let head = Buffer.alloc(0);
  fromPod.on("data", (d: Buffer) => {
    if (phase === "ssh") return toSsh(d);
    if (phase === "failed") return;
    head = Buffer.concat([head, d]);
    const a = connectAnswer(head);
    if (!a) {
      if (head.length > MAX_ANSWER_BYTES)
        settle(finalError(`${where} answered CONNECT with something that is not HTTP (${head.length} bytes, no end)`));
      return;
    }
    if (a.status !== 200)
      return settle(
        (a.status === 403 ? finalError : unreachableError)(
          `${where} would not connect to node ${node} at ${target}: ${`${a.status} ${a.reason}`.trim()}${RELAY_HINTS[a.status] ?? ""}`,
        ),
      );
    if (a.rest.length > 0) toSsh(a.rest);
    settle();
  });
  errors.on("data", (d: Buffer) => {
    const text = d.toString("utf8").trim();
    if (!text) return;
    if (phase === "answer") settle(unreachableError(`${where} refused the port-forward for node ${node}: ${text}`));
    else if (phase === "ssh") {
      lose(`the port-forward reported: ${text.slice(0, 300)}`);
      sock.destroy(unreachableError(`${where} reported for node ${node}: ${text}`));
    }
  });

  try {
    let late = false;
    const opening = new k8s.PortForward(kc).portForward(t.namespace, pod, [t.port], fromPod, errors, toPod);
    // A port-forward the API opens after this side gave up on it would stay open with nobody using it: close it.
    void opening.then(
      (ws) => late && typeof ws !== "function" && ws.close(),
      () => undefined,
    );
    const opened = await within(
      ms,
      opening,
      () => unreachableError(`opening a port-forward to ${where} for node ${node} timed out after ${ms / 1000}s`),
      () => (late = true),
    );
    if (typeof opened === "function") throw finalError("the port-forward did not open a WebSocket");
    socket = opened;
  } catch (e) {
    // The WebSocket layer rejects with an ErrorEvent ({ message, error }), not an Error.
    const msg = str(get(e, "message")) ?? messageOf(e);
    if (/\b(401|403)\b/.test(msg)) throw await refusal(api, t, pod, where, msg);
    throw unreachableError(`cannot open a port-forward to ${where} for node ${node}: ${msg.slice(0, 200)}`);
  }
  socket.on?.("close", () => {
    if (phase === "answer")
      settle(unreachableError(`the port-forward to ${where} closed before node ${node} answered`));
    else if (phase === "ssh") {
      lose("the port-forward closed");
      endOfStream();
    }
  });

  toPod.write(`CONNECT ${target} HTTP/1.1\r\nHost: ${target}\r\n\r\n`);
  const answerSeconds = seconds + RELAY_ANSWER_MARGIN_SECONDS;
  try {
    await within(answerSeconds * 1000, answered, () =>
      unreachableError(
        `waiting for ${where} to answer about node ${node} at ${target} timed out after ${answerSeconds}s (the relay answers 504 itself after ${seconds}s without a TCP connection, so it is stuck or is not windows-estate's relay program; see kubectl -n ${t.namespace} logs ${pod})`,
      ),
    );
  } catch (e) {
    socket.close();
    throw e;
  }
  return Object.assign(sock, { tunnel: info });
}

/**
 * What the relay pod's state says about a lost session, from one read of the relay pods (the same list the tunnel
 * chose from): gone, terminating (deleted, evicted, drained), not Ready, or still Ready (then the node, its sshd or
 * the API server ended the stream).
 */
async function relayState(api: KubeApi, path: string, pod: string, where: string): Promise<string> {
  try {
    const found = objects(get(await api.get(path), "items")).find((p) => str(get(p, "metadata", "name")) === pod);
    if (!found) return `${where} no longer exists (deleted, or evicted by a drain)`;
    if (str(get(found, "metadata", "deletionTimestamp")))
      return `${where} is terminating (deleted, evicted, or its node drained)`;
    if (readyRelayPod({ items: [found] }) === undefined)
      return `${where} is no longer Ready (${str(get(found, "status", "phase")) ?? "no phase"})`;
    return `${where} is still Ready: the node or its sshd closed the connection, or the API server ended the port-forward`;
  } catch (e) {
    return `${where}'s state could not be read (${messageOf(e).slice(0, 120)})`;
  }
}
