// The node relay: runs in a pod (ConfigMap windows-estate-node-relay, `node relay-proxy.js`) and carries SSH sessions
// from a port-forward to a Windows node. It is an HTTP CONNECT proxy on the pod's loopback only (a port-forward
// reaches it; other pods cannot) that opens nothing but the allowed ports (22). It holds no key, mounts no Secret and
// never sees the session's content: SSH runs end to end from the program.
//
// Stopping (a drain, a rollout): on SIGTERM it stops listening, so new connections are refused and a session's next
// attempt goes to another relay pod, while the tunnels already open carry on; it exits when the last one ends, or at
// RELAY_DRAIN_SECONDS (set just under the pod's grace period), closing the ones still open and naming each in its log.
// Node's `server.close()` leaves those tunnels alone: once a CONNECT is handed to the 'connect' listener its socket is
// no longer the HTTP server's (lib/_http_server.js `onParserExecuteCommon` frees its parser), so neither
// `closeIdleConnections` nor the request timeout touches it. With nothing else, a tunnel that outlives the grace
// period is cut by the kubelet's SIGKILL without a word; here the relay says which.
"use strict";
const http = require("http");
const net = require("net");

const port = Number(process.env.RELAY_PORT || 2222);
const allowed = new Set(
  String(process.env.RELAY_ALLOWED_PORTS || "22")
    .split(",")
    .map(Number),
);
const connectTimeoutMs = Number(process.env.RELAY_CONNECT_TIMEOUT_MS || 15000);
const drainMs = Number(process.env.RELAY_DRAIN_SECONDS || 0) * 1000;

/** Every CONNECT being served: its client socket, where it goes, since when. */
const tunnels = new Set();
let draining = false;

const server = http.createServer((req, res) => {
  res.writeHead(405, { "Content-Type": "text/plain" });
  res.end("only CONNECT\n");
});

server.on("connect", (req, client, head) => {
  const m = /^\[?([^\]]+?)\]?:(\d+)$/.exec(req.url || "");
  let open = false;
  // An answer is only ever sent before the tunnel opens; afterwards the stream belongs to SSH.
  const answer = (status, reason) => {
    if (!open && !client.destroyed) client.end(`HTTP/1.1 ${status}\r\nX-Relay-Error: ${reason}\r\n\r\n`);
  };
  // A CONNECT that reaches a relay already stopping (on a connection accepted just before) goes elsewhere.
  if (draining) return answer("503 Service Unavailable", "the relay is stopping; try another relay pod");
  if (!m) return answer("400 Bad Request", "expected host:port");
  const host = m[1];
  const target = Number(m[2]);
  if (!allowed.has(target)) return answer("403 Forbidden", `port ${target} is not relayed (allowed: ${[...allowed]})`);
  const tunnel = { client, target: `${host}:${target}`, since: Date.now() };
  tunnels.add(tunnel);
  const upstream = net.connect({ host, port: target });
  upstream.setTimeout(connectTimeoutMs);
  upstream.once("timeout", () => {
    answer("504 Gateway Timeout", `no TCP connection to ${host}:${target} within ${connectTimeoutMs / 1000}s`);
    upstream.destroy();
  });
  upstream.once("connect", () => {
    upstream.setTimeout(0);
    open = true;
    console.log(`relay: ${tunnel.target} open`);
    client.write("HTTP/1.1 200 Connection established\r\n\r\n");
    if (head && head.length > 0) upstream.write(head);
    upstream.pipe(client);
    client.pipe(upstream);
  });
  upstream.on("error", (e) => {
    answer("502 Bad Gateway", `${host}:${target}: ${e.code || e.message}`);
    client.destroy();
  });
  upstream.on("close", () => client.destroy());
  client.on("error", () => upstream.destroy());
  client.on("close", () => {
    upstream.destroy();
    tunnels.delete(tunnel);
    if (open) console.log(`relay: ${tunnel.target} closed after ${seconds(tunnel.since)}s`);
    if (draining && tunnels.size === 0) {
      console.log("relay: the last tunnel has ended; exiting");
      process.exit(0);
    }
  });
});

function seconds(since) {
  return Math.round((Date.now() - since) / 1000);
}

function drain(signal) {
  if (draining) return;
  draining = true;
  // Stops listening (new connections are refused) and closes connections that carry no request yet.
  server.close();
  if (tunnels.size === 0) {
    console.log(`relay: ${signal}: no tunnel open; exiting`);
    process.exit(0);
  }
  console.log(
    `relay: ${signal}: refusing new connections; ${tunnels.size} tunnel(s) open may finish` +
      (drainMs > 0 ? ` within ${drainMs / 1000}s` : ""),
  );
  if (drainMs > 0)
    setTimeout(() => {
      for (const t of tunnels) {
        console.log(
          `relay: stop deadline (${drainMs / 1000}s) reached: closing the tunnel to ${t.target}, open for ${seconds(t.since)}s; its session is lost`,
        );
        t.client.destroy();
      }
      process.exit(0);
    }, drainMs);
}

server.listen(port, "127.0.0.1", () => console.log(`relay: listening on 127.0.0.1:${port}, ports ${[...allowed]}`));
for (const sig of ["SIGTERM", "SIGINT"]) process.on(sig, () => drain(sig));
