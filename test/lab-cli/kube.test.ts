import * as fs from "fs";
import * as https from "https";
import * as net from "net";
import type { AddressInfo } from "net";
import * as os from "os";
import * as path from "path";
import { execFileSync } from "child_process";
import { LabError } from "../../lab/errors";
import { labClient } from "../../lab/kube";
import { isFinal, isUnreachable } from "../../lib/errors";
import { kubeClient } from "../../lib/kube-api";

// The lab's set-up client (lab/kube.ts, over lib/kube-api.ts) against an HTTPS server configured as lab/start.ts
// configures kube-apiserver: a CA, a serving certificate for 127.0.0.1 and an admin client certificate in
// system:masters, as lab/certs.ts makes them (EC keys here: makePki's RSA keys take seconds).

/** The CA, the server's and the admin's certificates in `dir`, each made in one `openssl req` (OpenSSL 3: -CA). */
function pkiIn(dir: string) {
  const p = (f: string) => path.join(dir, f);
  const make = (name: string, subject: string, extra: string[]) =>
    execFileSync(
      "openssl",
      ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"].concat([
        "-days",
        "1",
        "-subj",
        subject,
        "-keyout",
        p(`${name}.key`),
        "-out",
        p(`${name}.crt`),
        ...extra,
      ]),
      {
        stdio: "pipe",
      },
    );
  make("ca", "/CN=lab-ca", []);
  const signed = ["-CA", p("ca.crt"), "-CAkey", p("ca.key")];
  make("server", "/CN=kube-apiserver", [...signed, "-addext", "subjectAltName=IP:127.0.0.1"]);
  make("admin", "/O=system:masters/CN=windows-estate-lab-admin", [...signed, "-addext", "extendedKeyUsage=clientAuth"]);
  return {
    caCert: p("ca.crt"),
    serverCert: p("server.crt"),
    serverKey: p("server.key"),
    adminCert: p("admin.crt"),
    adminKey: p("admin.key"),
  };
}

let dir: string;
let pki: ReturnType<typeof pkiIn>;
let server: https.Server;
let base: string;
/** The client certificate's subject the server saw on each request. */
const subjects: string[] = [];

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "lab-kube-"));
  pki = pkiIn(dir);
  server = https.createServer(
    {
      cert: fs.readFileSync(pki.serverCert),
      key: fs.readFileSync(pki.serverKey),
      ca: fs.readFileSync(pki.caCert),
      requestCert: true,
      rejectUnauthorized: true,
    },
    (req, res) => {
      const peer = (req.socket as import("tls").TLSSocket).getPeerCertificate();
      subjects.push(`O=${peer.subject.O}, CN=${peer.subject.CN}`);
      // kube-apiserver answers /readyz in text.
      if (req.url === "/readyz") return res.writeHead(200, { "Content-Type": "text/plain" }).end("ok");
      res.writeHead(200, { "Content-Type": "application/json" }).end(JSON.stringify({ gitVersion: "v1.36.3" }));
    },
  );
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  base = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
  fs.rmSync(dir, { recursive: true, force: true });
});

test("the admin certificate is presented and the server is trusted through the lab's CA", async () => {
  const client = labClient(base, pki);
  expect(await client.request("GET", "/version")).toMatchObject({ status: 200, body: { gitVersion: "v1.36.3" } });
  expect(await client.request("GET", "/readyz")).toEqual({ status: 200, body: undefined, text: "ok" });
  expect(subjects).toEqual(Array(2).fill("O=system:masters, CN=windows-estate-lab-admin"));
});

test("a server the lab's CA did not sign is refused with a LabError naming the call and the server", async () => {
  // Trusting another certificate than the lab's CA: the CA the server presents in its chain is not trusted.
  const wrong = labClient(base, { ...pki, caCert: pki.adminCert });
  const failed = await wrong.request("GET", "/version").catch((e: unknown) => e);
  expect(failed).toBeInstanceOf(LabError);
  expect((failed as Error).message).toMatch(
    `GET /version: a certificate problem with the Kubernetes API at ${base} (SELF_SIGNED_CERT_IN_CHAIN: `,
  );
});

// What a kubeconfig with the wrong CA or client certificate meets: a certificate problem, said as one with its fix
// and Node's own words, and final (lib/errors.ts isFinal): waiting for the API to come back would never end.
describe("certificate failures are final, named as certificate problems with the fix", () => {
  const tls = () => ({
    ca: fs.readFileSync(pki.caCert),
    cert: fs.readFileSync(pki.adminCert),
    key: fs.readFileSync(pki.adminKey),
  });
  const failure = (server: string, t: ReturnType<typeof tls>) =>
    kubeClient({ server, tls: t, timeoutMs: 5_000 })
      .request("GET", "/version")
      .catch((e: unknown) => e);

  test("a server certificate the CA does not verify (another CA): certificate-authority-data", async () => {
    const failed = await failure(base, { ...tls(), ca: fs.readFileSync(pki.adminCert) });
    expect(isFinal(failed)).toBe(true);
    expect(isUnreachable(failed)).toBe(false);
    expect((failed as Error).message).toMatch(
      /\(SELF_SIGNED_CERT_IN_CHAIN: self[- ]signed certificate in certificate chain\)/,
    );
    expect((failed as Error).message).toContain("certificate-authority-data");
  });

  test("a server certificate for another address (localhost is not in its IP SAN): certificate-authority-data", async () => {
    const failed = await failure(base.replace("127.0.0.1", "localhost"), tls());
    expect(isFinal(failed)).toBe(true);
    expect((failed as Error).message).toMatch(/\(ERR_TLS_CERT_ALTNAME_INVALID: Hostname\/IP does not match/);
    expect((failed as Error).message).toContain("certificate-authority-data");
  });

  // Played: kube-apiserver (Go crypto/tls handshake_server.go `processCertsFromClient`) answers a client certificate
  // it cannot verify with the alert bad_certificate (42, RFC 8446 6.2); Node's own TLS server only drops the
  // connection. This server answers the ClientHello with that alert record.
  test("a client certificate the server refuses (TLS alert bad_certificate): client-certificate-data", async () => {
    const refusing = net.createServer((c) => c.once("data", () => c.end(Buffer.from([0x15, 3, 3, 0, 2, 2, 42]))));
    await new Promise<void>((r) => refusing.listen(0, "127.0.0.1", () => r()));
    try {
      const failed = await failure(`https://127.0.0.1:${(refusing.address() as AddressInfo).port}`, tls());
      expect(isFinal(failed)).toBe(true);
      expect((failed as Error).message).toMatch(/\(EPROTO: .*alert bad certificate.*SSL alert number 42\)/);
      expect((failed as Error).message).toContain("client-certificate-data");
    } finally {
      await new Promise((r) => refusing.close(r));
    }
  });
});
