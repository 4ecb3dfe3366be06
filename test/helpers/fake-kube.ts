import * as http from "http";
import { AddressInfo } from "net";

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

  async stop(): Promise<void> {
    // Idle keep-alive connections would hold close() (and the jest worker) open.
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  private reply(res: http.ServerResponse, status: number, body: unknown): void {
    res.writeHead(status, { "Content-Type": "application/json" });
    res.end(JSON.stringify(body));
  }
}
