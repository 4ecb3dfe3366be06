import { spawnSync } from "child_process";
import * as fs from "fs";
import * as path from "path";
import { LabError } from "./errors";

/**
 * The lab's PKI: one CA, the API server's serving certificate, an admin client in system:masters, the SA key, the API
 * server's client certificate towards kubelets and the played Linux kubelets' serving certificate.
 */
export interface LabPki {
  caCert: string;
  caKey: string;
  serverCert: string;
  serverKey: string;
  adminCert: string;
  adminKey: string;
  serviceAccountKey: string;
  serviceAccountPub: string;
  /** etcd's certificate, for its server side and for the API server as its client. */
  etcdCert: string;
  etcdKey: string;
  /** The API server's client certificate towards kubelets (`--kubelet-client-certificate`/`-key`). */
  kubeletClientCert: string;
  kubeletClientKey: string;
  /**
   * The serving certificate of the played Linux kubelets (127.0.0.1), signed by the CA the API server checks them
   * against (`--kubelet-certificate-authority`).
   */
  kubeletServingCert: string;
  kubeletServingKey: string;
}

function openssl(args: string[], cwd: string): void {
  const r = spawnSync("openssl", args, { cwd, encoding: "utf8", timeout: 60_000 });
  if (r.error && "code" in r.error && r.error.code === "ENOENT")
    throw new LabError(
      "openssl is not on PATH: the lab makes its certificates with it; install it (apt-get install openssl)",
    );
  if (r.status !== 0)
    throw new LabError(`openssl ${args[0]} failed: ${(r.stderr || r.stdout).trim().split("\n").pop()}`);
}

/**
 * `<name>.key` and `<name>.crt` in `dir`: an RSA key and a certificate for `subject` valid for two days, signed by
 * `ca` (its serial file in `dir`), for the extended key `usage` (serverAuth, clientAuth) and naming `altNames`.
 */
export function leafCertificate(
  dir: string,
  name: string,
  subject: string,
  usage: string,
  altNames: string | undefined,
  ca: { cert: string; key: string },
): void {
  fs.writeFileSync(
    path.join(dir, `${name}.ext`),
    `basicConstraints=CA:FALSE\nkeyUsage=digitalSignature,keyEncipherment\nextendedKeyUsage=${usage}\n` +
      (altNames ? `subjectAltName=${altNames}\n` : ""),
  );
  openssl(
    ["req", "-newkey", "rsa:2048", "-nodes", "-keyout", `${name}.key`, "-out", `${name}.csr`, "-subj", subject],
    dir,
  );
  openssl(
    [
      "x509",
      "-req",
      "-in",
      `${name}.csr`,
      "-CA",
      ca.cert,
      "-CAkey",
      ca.key,
      "-CAcreateserial",
      "-CAserial",
      path.join(dir, "ca.srl"),
      "-days",
      "2",
      "-out",
      `${name}.crt`,
      "-extfile",
      `${name}.ext`,
    ],
    dir,
  );
}

/**
 * Certificates valid for two days, made fresh for every lab in its own folder. The serving certificate names only
 * the loopback address and the in-cluster names kubeadm puts in its own (certs.GetAPIServerAltNames), since the lab
 * listens on 127.0.0.1 alone.
 */
export function makePki(dir: string, serviceIp: string): LabPki {
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const p = (f: string) => path.join(dir, f);
  openssl(
    [
      "req",
      "-x509",
      "-newkey",
      "rsa:2048",
      "-nodes",
      "-days",
      "2",
      "-keyout",
      "ca.key",
      "-out",
      "ca.crt",
      "-subj",
      "/CN=windows-estate-lab-ca",
    ],
    dir,
  );
  const leaf = (name: string, subject: string, usage: string, altNames?: string) =>
    leafCertificate(dir, name, subject, usage, altNames, { cert: "ca.crt", key: "ca.key" });
  leaf(
    "apiserver",
    "/CN=kube-apiserver",
    "serverAuth",
    `IP:127.0.0.1,IP:${serviceIp},DNS:localhost,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc,DNS:kubernetes.default.svc.cluster.local`,
  );
  leaf("admin", "/O=system:masters/CN=windows-estate-lab-admin", "clientAuth");
  leaf("etcd", "/CN=etcd", "serverAuth,clientAuth", "IP:127.0.0.1,DNS:localhost");
  // kubeadm's apiserver-kubelet-client (cmd/kubeadm/app/phases/certs/certlist.go KubeadmCertKubeletClient): CN
  // kube-apiserver-kubelet-client, clientAuth; a kubelet authorizes it with a SubjectAccessReview, which the
  // ClusterRoleBinding kubeadm:apiserver-kubelet-client to system:kubelet-api-admin allows (lab/start.ts).
  leaf("apiserver-kubelet-client", "/CN=kube-apiserver-kubelet-client", "clientAuth");
  // A kubelet's serving certificate names its node's addresses (pkg/kubelet/certificate/kubelet.go
  // NewKubeletServerCertificateManager); the played Linux kubelets all listen on 127.0.0.1, so one serves them all.
  leaf("kubelet-serving", "/O=system:nodes/CN=system:node:lab-linux", "serverAuth", "IP:127.0.0.1,DNS:localhost");
  openssl(["genrsa", "-out", "sa.key", "2048"], dir);
  openssl(["rsa", "-in", "sa.key", "-pubout", "-out", "sa.pub"], dir);
  for (const f of fs.readdirSync(dir)) fs.chmodSync(p(f), 0o600);
  return {
    caCert: p("ca.crt"),
    caKey: p("ca.key"),
    serverCert: p("apiserver.crt"),
    serverKey: p("apiserver.key"),
    adminCert: p("admin.crt"),
    adminKey: p("admin.key"),
    serviceAccountKey: p("sa.key"),
    serviceAccountPub: p("sa.pub"),
    etcdCert: p("etcd.crt"),
    etcdKey: p("etcd.key"),
    kubeletClientCert: p("apiserver-kubelet-client.crt"),
    kubeletClientKey: p("apiserver-kubelet-client.key"),
    kubeletServingCert: p("kubelet-serving.crt"),
    kubeletServingKey: p("kubelet-serving.key"),
  };
}

/** A kubeconfig for the admin client, everything embedded (it must work from any folder, pasted anywhere). */
export function adminKubeconfig(pki: LabPki, server: string, name: string): string {
  const b64 = (f: string) => fs.readFileSync(f).toString("base64");
  return [
    "apiVersion: v1",
    "kind: Config",
    "clusters:",
    `- name: ${name}`,
    "  cluster:",
    `    server: ${server}`,
    `    certificate-authority-data: ${b64(pki.caCert)}`,
    "users:",
    "- name: admin",
    "  user:",
    `    client-certificate-data: ${b64(pki.adminCert)}`,
    `    client-key-data: ${b64(pki.adminKey)}`,
    "contexts:",
    `- name: ${name}`,
    "  context:",
    `    cluster: ${name}`,
    "    user: admin",
    `current-context: ${name}`,
    "",
  ].join("\n");
}
