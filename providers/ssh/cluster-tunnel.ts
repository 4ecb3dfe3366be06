/**
 * The stream under an SSH session that goes through the cluster: find a ready relay pod, open a port-forward to
 * it through the Kubernetes API (`@kubernetes/client-node` `PortForward`, WebSocket channel protocol: data on
 * channel 0, errors on channel 1, each channel's first frame is the port), ask the relay for `host:port` with HTTP
 * CONNECT, and hand the stream to ssh2 as its `sock`. Every step has a timeout that names the node and the pod.
 */
import { Duplex, PassThrough } from "stream";
import { finalError, unreachableError } from "../errors";
import { loadKubeConfig, connectKube } from "../kube-wait/api";
import { get, objects, str } from "../../lib/json";
import { messageOf } from "../../lib/errors";
import { ClusterTunnel } from "./types";

const DEFAULT_TIMEOUT_SECONDS = 15;

function within<T>(ms: number, what: string, p: Promise<T>, onTimeout?: () => void): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const t = setTimeout(() => {
      onTimeout?.();
      reject(unreachableError(`${what} timed out after ${ms / 1000}s`));
    }, ms);
    p.then(
      (v) => {
        clearTimeout(t);
        resolve(v);
      },
      (e) => {
        clearTimeout(t);
        reject(e);
      },
    );
  });
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
 * Opens the stream to `host:port` through the cluster. `node` names the target in messages (the Node name, or
 * the address).
 */
export async function openClusterTunnel(t: ClusterTunnel, host: string, port: number, node: string): Promise<Duplex> {
  const ms = (t.timeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS) * 1000;
  const api = await connectKube({ kubeconfig: t.kubeconfig, context: t.context }, ms);
  const path = `/api/v1/namespaces/${encodeURIComponent(t.namespace)}/pods?labelSelector=${encodeURIComponent(t.selector)}`;
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
  type Socket = { close(): void; on?(event: string, fn: () => void): void };
  let socket: Socket;
  try {
    const opened = await within(
      ms,
      `opening a port-forward to ${where} for node ${node}`,
      new k8s.PortForward(kc).portForward(t.namespace, pod, [t.port], fromPod, errors, toPod),
    );
    if (typeof opened === "function") throw finalError("the port-forward did not open a WebSocket");
    socket = opened;
  } catch (e) {
    // The WebSocket layer rejects with an ErrorEvent ({ message, error }), not an Error.
    const msg = str(get(e, "message")) ?? messageOf(e);
    if (/\b(401|403)\b/.test(msg))
      throw finalError(
        `the Kubernetes API refused a port-forward to ${where} (${msg.slice(0, 120)}): the identity needs get and create on pods/portforward in ${t.namespace} (docs/day2.md, "Node access")`,
      );
    throw unreachableError(`cannot open a port-forward to ${where} for node ${node}: ${msg.slice(0, 200)}`);
  }
  const closed = new Promise<void>((resolve) => socket.on?.("close", () => resolve()));

  // The relay's answer to CONNECT, or the port-forward's own error (channel 1), whichever comes first.
  const target = `${host.includes(":") ? `[${host}]` : host}:${port}`;
  toPod.write(`CONNECT ${target} HTTP/1.1\r\nHost: ${target}\r\n\r\n`);
  let head = Buffer.alloc(0);
  const answered = new Promise<Buffer>((resolve, reject) => {
    const onData = (d: Buffer) => {
      head = Buffer.concat([head, d]);
      const a = connectAnswer(head);
      if (!a) return;
      fromPod.off("data", onData);
      if (a.status === 200) return resolve(a.rest);
      reject(
        (a.status === 403 ? finalError : unreachableError)(
          `${where} would not connect to node ${node} at ${target}: ${a.status} ${a.reason}`.trim(),
        ),
      );
    };
    fromPod.on("data", onData);
    errors.once("data", (d: Buffer) =>
      reject(unreachableError(`${where} refused the port-forward for node ${node}: ${d.toString("utf8").trim()}`)),
    );
    void closed.then(() =>
      reject(unreachableError(`the port-forward to ${where} closed before node ${node} answered`)),
    );
  });
  let rest: Buffer;
  try {
    rest = await within(ms, `reaching node ${node} at ${target} through ${where}`, answered);
  } catch (e) {
    socket.close();
    throw e;
  }

  const sock = new Duplex({
    read() {},
    write(chunk: Buffer, _enc, cb) {
      toPod.write(chunk, cb);
    },
    final(cb) {
      toPod.end();
      cb();
    },
    destroy(err, cb) {
      socket.close();
      cb(err);
    },
  });
  if (rest.length > 0) sock.push(rest);
  fromPod.on("data", (d: Buffer) => sock.push(d));
  errors.on("data", (d: Buffer) =>
    sock.destroy(unreachableError(`${where} reported for node ${node}: ${d.toString("utf8").trim()}`)),
  );
  void closed.then(() => sock.push(null));
  return sock;
}
