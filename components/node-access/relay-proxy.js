// The node relay: runs in a pod of the WMCO namespace (ConfigMap windows-estate-node-relay, `node relay-proxy.js`)
// and carries SSH sessions from a port-forward to a Windows node. It is an HTTP CONNECT proxy on the pod's
// loopback only (a port-forward reaches it; other pods cannot) that opens nothing but the allowed ports (22). It
// holds no key, mounts no Secret and never sees the session's content: SSH runs end to end from the program.
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
  if (!m) return answer("400 Bad Request", "expected host:port");
  const host = m[1];
  const target = Number(m[2]);
  if (!allowed.has(target)) return answer("403 Forbidden", `port ${target} is not relayed (allowed: ${[...allowed]})`);
  const upstream = net.connect({ host, port: target });
  upstream.setTimeout(connectTimeoutMs);
  upstream.once("timeout", () => {
    answer("504 Gateway Timeout", `no TCP connection to ${host}:${target} within ${connectTimeoutMs / 1000}s`);
    upstream.destroy();
  });
  upstream.once("connect", () => {
    upstream.setTimeout(0);
    open = true;
    console.log(`relay: ${host}:${target} open`);
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
  client.on("close", () => upstream.destroy());
});

server.listen(port, "127.0.0.1", () => console.log(`relay: listening on 127.0.0.1:${port}, ports ${[...allowed]}`));
for (const sig of ["SIGTERM", "SIGINT"]) process.on(sig, () => server.close(() => process.exit(0)));
