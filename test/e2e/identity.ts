import { execFileSync } from "child_process";
import * as fs from "fs";
import * as https from "https";
import * as path from "path";
import { parse } from "yaml";
import type { LabInfo } from "../../lab/record";
import { labApi, labCredentials } from "./lab";

/**
 * Identities other than the lab's admin, made as a cluster's users are: a client certificate issued through the
 * certificates API (signer `kubernetes.io/kube-apiserver-client`, approved by the admin, signed by the real
 * controller manager's csrsigning with the lab's CA), and RBAC for it. What each may do is then the real API server's
 * decision.
 */

export interface Identity {
  user: string;
  /** A kubeconfig for this user, everything embedded. */
  kubeconfig: string;
  cert: string;
  key: string;
}

/** A client certificate for `user` (CN, no groups but system:authenticated) and a kubeconfig using it, in `dir`. */
export async function issueIdentity(lab: LabInfo, user: string, dir: string): Promise<Identity> {
  const api = labApi(lab);
  fs.mkdirSync(dir, { recursive: true });
  const key = path.join(dir, `${user}.key`);
  execFileSync("openssl", ["genrsa", "-out", key, "2048"], { stdio: "ignore" });
  const csr = execFileSync("openssl", ["req", "-new", "-key", key, "-subj", `/CN=${user}`], { encoding: "utf8" });
  const name = `e2e-${user}`;
  await api.must("POST", "/apis/certificates.k8s.io/v1/certificatesigningrequests", {
    apiVersion: "certificates.k8s.io/v1",
    kind: "CertificateSigningRequest",
    metadata: { name },
    spec: {
      request: Buffer.from(csr).toString("base64"),
      signerName: "kubernetes.io/kube-apiserver-client",
      usages: ["client auth"],
      expirationSeconds: 86_400,
    },
  });
  const csrPath = `/apis/certificates.k8s.io/v1/certificatesigningrequests/${name}`;
  const pending = await api.get(csrPath);
  await api.must("PUT", `${csrPath}/approval`, {
    ...pending,
    status: {
      conditions: [{ type: "Approved", status: "True", reason: "E2E", message: `the e2e suite's ${user}` }],
    },
  });
  const signed = await api.until(csrPath, (c) => !!c.status?.certificate, `the certificate of ${user} signed`);
  const cert = Buffer.from(signed.status.certificate, "base64").toString("utf8");
  const admin = parse(fs.readFileSync(lab.kubeconfig, "utf8")) as {
    clusters: { cluster: { server: string; "certificate-authority-data": string } }[];
  };
  const kubeconfig = path.join(dir, `${user}.kubeconfig`);
  fs.writeFileSync(
    kubeconfig,
    [
      "apiVersion: v1",
      "kind: Config",
      "clusters:",
      "- name: lab",
      "  cluster:",
      `    server: ${admin.clusters[0].cluster.server}`,
      `    certificate-authority-data: ${admin.clusters[0].cluster["certificate-authority-data"]}`,
      "users:",
      `- name: ${user}`,
      "  user:",
      `    client-certificate-data: ${Buffer.from(cert).toString("base64")}`,
      `    client-key-data: ${fs.readFileSync(key).toString("base64")}`,
      "contexts:",
      "- name: lab",
      "  context:",
      "    cluster: lab",
      `    user: ${user}`,
      "current-context: lab",
      "",
    ].join("\n"),
    { mode: 0o600 },
  );
  return { user, kubeconfig, cert, key: fs.readFileSync(key, "utf8") };
}

/**
 * Everything the API server serves, every verb, except `pods/portforward`, bound to `user` cluster-wide: what a stack
 * needs for its own objects (and more), so that the only grant to port-forward it can hold is the one the stack
 * declares for it (the relay's RoleBinding). RBAC has no deny; the core group's resources are listed one by one from
 * discovery, leaving that one out, every other group has `*` (which includes RBAC's `escalate` and `bind`, needed to
 * declare a Role granting what the user does not hold).
 */
export async function allButPortForward(lab: LabInfo, user: string): Promise<void> {
  const api = labApi(lab);
  const core = (await api.get("/api/v1")).resources.map((r: { name: string }) => r.name) as string[];
  const groups = (await api.get("/apis")).groups.map((g: { name: string }) => g.name) as string[];
  const name = `e2e-all-but-portforward-${user}`;
  await api.must("POST", "/apis/rbac.authorization.k8s.io/v1/clusterroles", {
    apiVersion: "rbac.authorization.k8s.io/v1",
    kind: "ClusterRole",
    metadata: { name },
    rules: [
      { apiGroups: [""], resources: core.filter((r) => r !== "pods/portforward"), verbs: ["*"] },
      { apiGroups: groups, resources: ["*"], verbs: ["*"] },
      { nonResourceURLs: ["*"], verbs: ["*"] },
    ],
  });
  await api.must("POST", "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings", {
    apiVersion: "rbac.authorization.k8s.io/v1",
    kind: "ClusterRoleBinding",
    metadata: { name },
    roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name },
    subjects: [{ kind: "User", name: user, apiGroup: "rbac.authorization.k8s.io" }],
  });
}

/** The real API server's answer to "may `user` do `verb` on `resource` in `namespace`", with its reason. */
export async function review(
  lab: LabInfo,
  user: string,
  attrs: { verb: string; resource: string; subresource?: string; namespace: string },
): Promise<{ allowed: boolean; reason: string }> {
  const r = await labApi(lab).must("POST", "/apis/authorization.k8s.io/v1/subjectaccessreviews", {
    apiVersion: "authorization.k8s.io/v1",
    kind: "SubjectAccessReview",
    spec: { user, groups: ["system:authenticated"], resourceAttributes: attrs },
  });
  return { allowed: r.status?.allowed === true, reason: r.status?.reason ?? "" };
}

/**
 * A WebSocket port-forward opened as `who` straight against the API server (the request @kubernetes/client-node
 * makes: GET …/portforward?ports=N, subprotocols v4.channel.k8s.io first): 101 and the subprotocol, or the status and
 * body of the refusal.
 */
export function portForwardAs(
  lab: LabInfo,
  who: Identity,
  namespace: string,
  pod: string,
  port: number,
): Promise<{ status: number; protocol?: string; body: string }> {
  const { server, tls } = labCredentials(lab);
  const url = new URL(server);
  return new Promise((resolve, reject) => {
    const req = https.request({
      host: url.hostname,
      port: url.port,
      path: `/api/v1/namespaces/${namespace}/pods/${pod}/portforward?ports=${port}`,
      method: "GET",
      ca: tls.ca,
      cert: who.cert,
      key: who.key,
      agent: false,
      headers: {
        Connection: "Upgrade",
        Upgrade: "websocket",
        "Sec-WebSocket-Version": "13",
        "Sec-WebSocket-Key": Buffer.from("e2e-port-forward").toString("base64"),
        "Sec-WebSocket-Protocol": "v4.channel.k8s.io, v4.base64.channel.k8s.io",
      },
    });
    req.on("upgrade", (res, socket) => {
      socket.destroy();
      resolve({ status: res.statusCode ?? 0, protocol: String(res.headers["sec-websocket-protocol"] ?? ""), body: "" });
    });
    req.on("response", (res) => {
      let body = "";
      res.on("data", (c: Buffer) => (body += c.toString("utf8")));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on("error", reject);
    req.end();
  });
}
