// The network side of the lab's PowerShell stand-in (fake-powershell.js loads it when a script needs it): the install
// step's downloads from the tests' artifact server, and `kubeadm join` with the kubelet's TLS bootstrap against the
// lab's real API server. Plain Node, no npm dependencies (it sits beside the stand-in in each host's folder); keys
// and certificate requests are made with the `openssl` CLI. Each behaviour names the upstream code it follows; what
// only real Windows, kubeadm and a kubelet prove is said in docs/testing.md.
const fs = require("fs");
const os = require("os");
const path = require("path");
const http = require("http");
const https = require("https");
const crypto = require("crypto");
const { execFileSync } = require("child_process");
// Windows PowerShell 5.1's rules (windows-51/index.js): here, what Invoke-WebRequest's `.Content` is.
const win = require(path.join(__dirname, "windows-51"));

const pause = (ms) => new Promise((r) => setTimeout(r, ms));
const sha256 = (b) => crypto.createHash("sha256").update(b).digest("hex");
const b64url = (b) => Buffer.from(b).toString("base64").replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");

/** One HTTP(S) request; the body is a Buffer. `insecure` skips the server's certificate check. */
function request(url, opts = {}) {
  return new Promise((resolve, reject) => {
    const u = new URL(url);
    const body = opts.body === undefined ? undefined : Buffer.from(opts.body);
    const req = (u.protocol === "https:" ? https : http).request(
      {
        hostname: u.hostname,
        port: u.port,
        path: u.pathname + u.search,
        method: opts.method || "GET",
        agent: false,
        ca: opts.ca,
        cert: opts.cert,
        key: opts.key,
        rejectUnauthorized: !opts.insecure,
        timeout: opts.timeoutMs || 30_000,
        headers: {
          "User-Agent": opts.userAgent || "stand-in",
          Accept: "application/json",
          ...(opts.headers || {}),
          ...(body ? { "Content-Length": body.length } : {}),
        },
      },
      (res) => {
        const chunks = [];
        res.on("data", (c) => chunks.push(c));
        res.on("end", () => resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks) }));
        res.on("error", reject);
      },
    );
    req.on("timeout", () => req.destroy(new Error(`${opts.method || "GET"} ${url} timed out`)));
    req.on("error", reject);
    req.end(body);
  });
}

// ---- downloads, as installScript's Invoke-WebRequest lines do them ----------------------------------------------

/** The CA files the host trusts for HTTPS (its certificate store, here the state's `trustedCaFiles`). */
const trusted = (host) =>
  (host.trustedCaFiles || []).length > 0 ? host.trustedCaFiles.map((f) => fs.readFileSync(f)) : undefined;

/**
 * `Invoke-WebRequest -UseBasicParsing -Uri …` in Windows PowerShell 5.1: follows up to five redirects, and fails with
 * .NET's WebException words (System.Net.HttpWebRequest) on an HTTP error or an untrusted certificate.
 */
async function webGet(url, host, redirects = 5) {
  let r;
  try {
    r = await request(url, {
      ca: trusted(host),
      userAgent: "Mozilla/5.0 (Windows NT; Windows NT 10.0; en-US) WindowsPowerShell/5.1",
    });
  } catch (e) {
    if (/certificate|self.signed|unable to verify/i.test(e.message))
      throw new Error(
        "The underlying connection was closed: Could not establish trust relationship for the SSL/TLS secure channel.",
      );
    throw new Error(`Unable to connect to the remote server (${e.message})`);
  }
  if ([301, 302, 303, 307, 308].includes(r.status) && r.headers.location && redirects > 0)
    return webGet(new URL(r.headers.location, url).toString(), host, redirects - 1);
  if (r.status !== 200)
    throw new Error(`The remote server returned an error: (${r.status}) ${http.STATUS_CODES[r.status] || ""}.`);
  return r;
}

/**
 * `$published` as the install script computes it from a checksum file's `.Content` (windows-51/web.js webContent:
 * a string for a text type, a byte[] otherwise), by the lines the script holds (providers/vanilla-node/scripts.ts
 * installScript):
 * - `if ($content -is [byte[]]) { … ASCII.GetString($content) }`, then the first word of `[string]$content`: the text;
 * - `((…).Content -split '\s+')[0]` (the line before issue 26): for a byte[] the first byte as a decimal number
 *   (rule web.bytes-as-text);
 * - otherwise the first word of `[string]$content`: for a byte[] again a decimal number.
 */
function publishedSum(content, script) {
  const decodes = /\$content -is \[byte\[\]\]/.test(script) && /ASCII\.GetString\(\$content\)/.test(script);
  if (Buffer.isBuffer(content) && decodes) content = content.toString("ascii");
  if (/\.Content -split '\\s\+'\)\[0\]/.test(script)) return (win.psSplitWhitespace(content)[0] || "").toLowerCase();
  return (win.psString(content).trim().split(/\s+/)[0] || "").toLowerCase();
}

/**
 * One item of the install step (providers/vanilla-node/scripts.ts installScript): downloaded, its SHA-256 checked
 * against the published checksum file's first word (or the pinned digest), and only then placed: a file moved to its
 * target, an archive extracted there with tar (`--strip-components=1` when asked). The published sum is read as the
 * script reads it: a byte[] `.Content` is decoded only if the script decodes it; otherwise PowerShell's [string] of a
 * byte[] is its numbers joined by spaces, so the "sum" is a decimal byte (issue 26 item 2).
 */
async function installItem(it, { script, host, hostFile, mismatch }) {
  const got = await webGet(it.url, host);
  let published;
  if (it.sha) published = it.sha.toLowerCase();
  else {
    const sum = await webGet(it.sum, host);
    published = publishedSum(win.webContent(sum.headers["content-type"], sum.body), script);
    // The script's own check of the sum's shape, when it has one (the script before issue 26 had none).
    if (/-notmatch '\^\[0-9a-f\]\{64\}\$'/.test(script) && !/^[0-9a-f]{64}$/.test(published))
      throw new Error(`${it.name}: ${it.sum} holds no SHA-256; nothing was replaced`);
  }
  const actual = sha256(got.body);
  if (published !== actual) throw new Error(mismatch(script, { "it.name": it.name, published, actual }));
  (host.fetched ||= {})[it.name] = { url: it.url, sha256: actual, bytes: got.body.length };
  if (!host.driveRoot) return;
  const target = hostFile(it.target);
  // Files in use (the state's `runningImages`): placed as the script's own lines place them, with Windows' rules for
  // each (windows-51/services.js): tar.exe into the target or into a staging folder, then each file moved by
  // `Move-IntoPlace` as its body says (moveIntoPlaceOf), or a file moved by `Move-Item … -Force`.
  const how = win.moveIntoPlaceOf(script);
  if (how instanceof Error) throw how;
  // The script's statements in the order they run, blocks opened (windows-51/statements.js).
  const steps = win.reader.leaves(script);
  const step = (re) => steps.find((st) => re.test(st));
  const staged = !!step(/^tar\.exe -xf \$tmp -C \$stage\b/);
  const cleansUp = !!step(/Get-ChildItem .*'\*\.windows-estate-old\*'/);
  const tmpDir = fs.mkdtempSync(path.join(os.tmpdir(), "stand-in-"));
  const tmp = path.join(tmpDir, path.basename(new URL(it.url).pathname));
  fs.writeFileSync(tmp, got.body);
  const placed = (err) => {
    if (err) throw new Error(`${it.name}: ${err.message}`);
  };
  try {
    if (cleansUp) win.removeSetAside(it.target, it.kind, host, hostFile);
    if (it.kind === "tgz") {
      // Staged, the script extracts into `<target>.windows-estate-new` (emptied first, removed after).
      const extracted = staged ? hostFile(`${it.target}.windows-estate-new`) : path.join(tmpDir, "extracted");
      fs.rmSync(extracted, { recursive: true, force: true });
      fs.mkdirSync(extracted, { recursive: true });
      try {
        execFileSync("tar", ["-xf", tmp, "-C", extracted, ...(it.strip ? ["--strip-components=1"] : [])], {
          stdio: "pipe",
        });
      } catch (e) {
        throw new Error(`${it.name}: tar.exe failed with ${e.status ?? 1}`);
      }
      fs.mkdirSync(target, { recursive: true });
      if (staged) {
        if (!how || !step(/^Move-IntoPlace \$it\.name \$f\.FullName \$dest$/))
          throw new Error("the stand-in finds no Move-IntoPlace of the staged files");
        const files = win.filesUnder(extracted).map((rel) => ({
          from: path.join(extracted, ...rel.split("\\")),
          to: `${it.target}\\${rel}`,
        }));
        placed(win.placeFiles(files, how, host, hostFile));
        fs.rmSync(extracted, { recursive: true, force: true });
      } else {
        const errors = win.tarOver(extracted, it.target, host, hostFile);
        if (errors.length > 0) throw new Error(`${errors.join("\r\n")}\r\n${it.name}: tar.exe failed with 1`);
      }
    } else if (how && step(/^Move-IntoPlace \$it\.name \$tmp \$it\.target$/))
      placed(win.placeFiles([{ from: tmp, to: it.target }], how, host, hostFile));
    else {
      const move = step(/^Move-Item -LiteralPath \$tmp -Destination \$it\.target\b/);
      if (!move) throw new Error("the stand-in finds no move of $tmp to $it.target");
      const force = { setsAside: false, force: win.reader.commandWords(move).includes("-Force") };
      placed(win.placeFiles([{ from: tmp, to: it.target }], force, host, hostFile));
    }
  } finally {
    fs.rmSync(tmpDir, { recursive: true, force: true });
  }
}

// ---- kubeadm join and the kubelet's TLS bootstrap, against a real API server -------------------------------------

const TOKEN = /^([a-z0-9]{6})\.([a-z0-9]{16})$/;
const failure = (phase, message) =>
  new Error(
    `error execution phase ${phase}: ${message}\nTo see the stack trace of this error execute with --v=5 or higher`,
  );
/** The API server's words for a refused request (its Status object's message), else the HTTP status. */
function statusMessage(r) {
  try {
    const s = JSON.parse(r.body.toString("utf8"));
    if (s && s.message) return s.message;
  } catch {
    // not a Status
  }
  return `the server answered ${r.status}`;
}

/**
 * Verifies a detached JWS (RFC 7515 appendix F) over `content` with the token's secret, as kubeadm does with the
 * signature the bootstrapsigner controller writes into cluster-info (k8s.io/cluster-bootstrap token/jws/jws.go
 * DetachedTokenIsValid: HS256, the token ID as `kid`).
 */
function detachedJwsValid(jws, content, tokenId, tokenSecret) {
  const parts = String(jws).split(".");
  if (parts.length !== 3 || parts[1] !== "") return false;
  let header;
  try {
    header = JSON.parse(Buffer.from(parts[0], "base64url").toString("utf8"));
  } catch {
    return false;
  }
  if (header.alg !== "HS256" || header.kid !== tokenId) return false;
  const mac = crypto
    .createHmac("sha256", tokenSecret)
    .update(`${parts[0]}.${b64url(Buffer.from(content, "utf8"))}`)
    .digest();
  const sig = Buffer.from(parts[2], "base64url");
  return sig.length === mac.length && crypto.timingSafeEqual(sig, mac);
}

/** The CA pin kubeadm compares: SHA-256 of the certificate's SubjectPublicKeyInfo (cmd/kubeadm/app/util/pubkeypin Hash). */
const spkiPin = (pem) => sha256(new crypto.X509Certificate(pem).publicKey.export({ type: "spki", format: "der" }));
const certsIn = (pem) => pem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) || [];

/**
 * The CSR's name as the kubelet makes it (pkg/kubelet/certificate/bootstrap/bootstrap.go digestedName): `node-csr-`
 * and SHA-512/256 of the public key, subject and usages, each base64url and `|`-terminated.
 */
function digestedName(publicKeyDer, cn, orgs, usages) {
  const h = crypto.createHash("sha512-256");
  for (const part of [
    publicKeyDer,
    Buffer.from(cn),
    ...orgs.map((o) => Buffer.from(o)),
    ...usages.map((u) => Buffer.from(u)),
  ])
    h.update(b64url(part) + "|");
  return `node-csr-${b64url(h.digest())}`;
}

/**
 * Waits for the CSR to be approved and signed, with a watch as the kubelet does (k8s.io/client-go util/certificate/csr
 * WaitForCertificate), until `deadline`: the certificate's PEM, or an error for a denied or failed request.
 */
function waitForCertificate(server, ca, token, name, userAgent, deadline) {
  return new Promise((resolve, reject) => {
    const seconds = Math.max(1, Math.ceil((deadline - Date.now()) / 1000));
    const u = new URL(
      `${server}/apis/certificates.k8s.io/v1/certificatesigningrequests?fieldSelector=${encodeURIComponent(`metadata.name=${name}`)}&watch=true&timeoutSeconds=${seconds}`,
    );
    const req = https.get(
      {
        hostname: u.hostname,
        port: u.port,
        path: u.pathname + u.search,
        ca,
        agent: false,
        headers: { Authorization: `Bearer ${token}`, "User-Agent": userAgent, Accept: "application/json" },
      },
      (res) => {
        if (res.statusCode !== 200) {
          const chunks = [];
          res.on("data", (c) => chunks.push(c));
          res.on("end", () =>
            reject(new Error(statusMessage({ status: res.statusCode, body: Buffer.concat(chunks) }))),
          );
          return;
        }
        let buffered = "";
        res.on("data", (c) => {
          buffered += c.toString("utf8");
          const lines = buffered.split("\n");
          buffered = lines.pop();
          for (const line of lines.filter((l) => l.trim() !== "")) {
            const ev = JSON.parse(line);
            const st = (ev.object && ev.object.status) || {};
            const cond = (t) => (st.conditions || []).find((c) => c.type === t && c.status !== "False");
            if (cond("Denied") || cond("Failed")) {
              req.destroy();
              return reject(
                new Error(
                  `certificate request was ${cond("Denied") ? "denied" : "failed"}: ${(cond("Denied") || cond("Failed")).message || ""}`,
                ),
              );
            }
            if (cond("Approved") && st.certificate) {
              req.destroy();
              return resolve(Buffer.from(st.certificate, "base64").toString("utf8"));
            }
          }
        });
        res.on("end", () => reject(new Error("timed out waiting for the condition")));
      },
    );
    req.on("error", (e) => reject(e));
  });
}

/**
 * `kubeadm join` with token discovery, then the kubelet's start (cmd/kubeadm/app/cmd/phases/join/kubelet.go), over
 * real HTTPS:
 *  - discovery (cmd/kubeadm/app/discovery/token/token.go retrieveValidatedConfigInfo): cluster-info fetched
 *    anonymously without checking TLS, until the bootstrapsigner has signed it for this token; the signature
 *    verified with the token's secret; the CA in it checked against the pins; fetched again over TLS checked with that
 *    CA, and the two compared. The TLS bootstrap then goes to the server cluster-info names (discovery.go For);
 *  - the reads of the join (cmd/kubeadm/app/util/config/cluster.go: kubeadm-config; componentconfigs/kubelet.go:
 *    kubelet-config, which must exist) and the check that no Ready Node has the name, all as the bootstrap token;
 *  - kubeadm-flags.env written, the kubelet started with the service's command line: it sends a node-client CSR as
 *    the token (bootstrap.go requestNodeCertificate: ECDSA P-256, CN system:node:<name>, O system:nodes, signer
 *    kubernetes.io/kube-apiserver-client-kubelet), waits for the controller manager to approve and sign it, writes
 *    kubelet.conf, and registers its Node as system:node:<name> (kubelet_node_status.go initialNode,
 *    registerWithAPIServer), where the Node authorizer and NodeRestriction decide. The Node is registered Ready once:
 *    no heartbeat or Lease follows, and no pod runs (docs/testing.md).
 * kubeadm returns once kubelet.conf exists; a registration the API server refuses does not fail the join (the kubelet
 * retries on its own), so it is recorded, not thrown. Returns what was created.
 */
async function joinCluster(cfg, ctx) {
  const { host, nodeName, hostname, kubeadmFlagsEnv, writeHostText, kubeletStart, parseYaml, pinProblem } = ctx;
  const [, tokenId, tokenSecret] = TOKEN.exec(cfg.token);
  const version = (host.versions && host.versions.kubeadm) || "0.0.0";
  const kubeadmUA = `kubeadm.exe/v${version} (windows/amd64) kubernetes/stand-in`;
  const kubeletUA = `kubelet.exe/v${(host.versions && host.versions.kubelet) || version} (windows/amd64) kubernetes/stand-in`;
  const discoveryDeadline = Date.now() + (host.discoveryTimeoutSeconds || 60) * 1000;
  const identity = (m) => failure("preflight", `couldn't validate the identity of the API Server: ${m}`);
  const clusterInfo = async (tls) => {
    let lastError;
    for (;;) {
      try {
        const r = await request(`https://${cfg.endpoint}/api/v1/namespaces/kube-public/configmaps/cluster-info`, {
          userAgent: kubeadmUA,
          ...tls,
        });
        if (r.status !== 200) lastError = `failed to request the cluster-info ConfigMap: ${statusMessage(r)}`;
        else {
          const cm = JSON.parse(r.body.toString("utf8"));
          if ((cm.data || {})[`jws-kubeconfig-${tokenId}`]) return cm;
          lastError = `could not find a JWS signature in the cluster-info ConfigMap for token ID "${tokenId}"`;
        }
      } catch (e) {
        lastError = `failed to request the cluster-info ConfigMap: ${e.message}`;
      }
      // kubeadm retries every 5 s until the discovery timeout (constants DiscoveryRetryInterval; 5 min by default);
      // the stand-in asks more often within its own deadline (`discoveryTimeoutSeconds`, default 60).
      if (Date.now() > discoveryDeadline) throw identity(lastError);
      await pause(500);
    }
  };
  const insecure = await clusterInfo({ insecure: true });
  const pin = pinProblem(cfg.pins);
  if (pin) throw identity(`invalid discovery token CA certificate hash: ${pin}`);
  const kubeconfigText = (insecure.data || {}).kubeconfig;
  if (!kubeconfigText)
    throw identity(
      `there is no kubeconfig key in the cluster-info ConfigMap. This API Server isn't set up for token bootstrapping, can't connect`,
    );
  if (!detachedJwsValid(insecure.data[`jws-kubeconfig-${tokenId}`], kubeconfigText, tokenId, tokenSecret))
    throw identity("failed to verify JWS signature of received cluster info object, can't trust this API Server");
  const kubeconfig = parseYaml(kubeconfigText) || {};
  const cluster = ((kubeconfig.clusters || [])[0] || {}).cluster || {};
  const caPem = Buffer.from(String(cluster["certificate-authority-data"] || ""), "base64").toString("utf8");
  if (!cluster.server) throw identity("malformed kubeconfig in the cluster-info ConfigMap: no server");
  if (cfg.pins.length > 0) {
    const hashes = certsIn(caPem).map(spkiPin);
    const pinned = cfg.pins.map((p) => p.split(":")[1].toLowerCase());
    if (!hashes.some((h) => pinned.includes(h)))
      throw identity(
        `cluster CA found in cluster-info ConfigMap is invalid: none of the public keys "${hashes.map((h) => `sha256:${h}`).join(":")}" are pinned`,
      );
    const secure = await clusterInfo({ ca: caPem });
    if (secure.data.kubeconfig !== kubeconfigText)
      throw identity(
        "the second kubeconfig from the cluster-info ConfigMap (using validated TLS) was different from the first",
      );
  }
  const server = String(cluster.server).replace(/\/+$/, "");
  const asToken = (method, p, body) =>
    request(`${server}${p}`, {
      method,
      ca: caPem,
      userAgent: kubeadmUA,
      headers: {
        Authorization: `Bearer ${cfg.tlsBootstrapToken}`,
        ...(body ? { "Content-Type": "application/json" } : {}),
      },
      body: body ? JSON.stringify(body) : undefined,
    });
  const kubeadmConfig = await asToken("GET", "/api/v1/namespaces/kube-system/configmaps/kubeadm-config");
  if (kubeadmConfig.status !== 200)
    throw failure("preflight", `failed to get config map: ${statusMessage(kubeadmConfig)}`);
  const kubeletConfig = await asToken("GET", "/api/v1/namespaces/kube-system/configmaps/kubelet-config");
  if (kubeletConfig.status !== 200)
    throw failure(
      "preflight",
      `could not download the kubelet configuration from ConfigMap "kubelet-config": ${statusMessage(kubeletConfig)}`,
    );
  const existing = await asToken("GET", `/api/v1/nodes/${encodeURIComponent(nodeName)}`);
  if (existing.status === 200) {
    const ready = ((JSON.parse(existing.body.toString("utf8")).status || {}).conditions || []).some(
      (c) => c.type === "Ready" && c.status === "True",
    );
    if (ready)
      throw failure(
        "kubelet-start",
        `a Node with name "${nodeName}" and status "Ready" already exists in the cluster. You must delete the existing Node or change the name of this new joining Node`,
      );
  } else if (existing.status !== 404)
    throw failure("kubelet-start", `cannot get Node "${nodeName}": ${statusMessage(existing)}`);

  // What kubeadm writes for the kubelet (kubelet.go runKubeletStartJoinPhase).
  const ca = caPem.endsWith("\n") ? caPem : caPem + "\n";
  writeHostText("C:\\etc\\kubernetes\\pki\\ca.crt", ca);
  writeHostText(
    "C:\\etc\\kubernetes\\bootstrap-kubelet.conf",
    JSON.stringify({
      apiVersion: "v1",
      kind: "Config",
      clusters: [{ name: "kubernetes", cluster: { server } }],
      users: [{ name: "tls-bootstrap-token-user" }],
    }),
  );
  writeHostText(
    "C:\\var\\lib\\kubelet\\config.yaml",
    JSON.parse(kubeletConfig.body.toString("utf8")).data.kubelet || "",
  );
  writeHostText("C:\\var\\lib\\kubelet\\kubeadm-flags.env", kubeadmFlagsEnv);

  // The kubelet service starts (kubeadm's TryStartKubelet), with the command line the provider registered.
  const waitFailure = (m) => failure("kubelet-wait-bootstrap", `failed while waiting for the kubelet to start: ${m}`);
  if (!host.services || !host.services.kubelet || host.services.kubelet.status === "Missing")
    throw waitFailure("the kubelet service is not registered");
  if (!host.kubeletFlags) throw waitFailure("the kubelet service has no command line the stand-in can read");
  const kubelet = kubeletStart(host.kubeletFlags, hostname);
  if (kubelet.error) throw waitFailure(`the kubelet exits at start: ${kubelet.error}`);

  // TLS bootstrap: an ECDSA P-256 key and a CSR made with openssl, sent as the bootstrap token.
  const work = fs.mkdtempSync(path.join(os.tmpdir(), "stand-in-kubelet-"));
  let keyPem;
  let csrPem;
  try {
    const run = (args) => execFileSync("openssl", args, { cwd: work, stdio: "pipe" });
    run(["ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out", "key.pem"]);
    run([
      "req",
      "-new",
      "-key",
      "key.pem",
      "-subj",
      `/O=system:nodes/CN=system:node:${kubelet.name}`,
      "-out",
      "csr.pem",
    ]);
    keyPem = fs.readFileSync(path.join(work, "key.pem"), "utf8");
    csrPem = fs.readFileSync(path.join(work, "csr.pem"), "utf8");
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
  const usages = ["digital signature", "client auth"];
  const publicDer = crypto.createPublicKey(keyPem).export({ type: "spki", format: "der" });
  const csrName = digestedName(publicDer, `system:node:${kubelet.name}`, ["system:nodes"], usages);
  const bootstrap = (m) => failure("kubelet-wait-bootstrap", `failed while waiting for TLS bootstrap: ${m}`);
  const posted = await request(`${server}/apis/certificates.k8s.io/v1/certificatesigningrequests`, {
    method: "POST",
    ca: caPem,
    userAgent: kubeletUA,
    headers: { Authorization: `Bearer ${cfg.tlsBootstrapToken}`, "Content-Type": "application/json" },
    body: JSON.stringify({
      apiVersion: "certificates.k8s.io/v1",
      kind: "CertificateSigningRequest",
      metadata: { name: csrName },
      spec: {
        request: Buffer.from(csrPem).toString("base64"),
        signerName: "kubernetes.io/kube-apiserver-client-kubelet",
        usages,
      },
    }),
  });
  if (posted.status !== 201 && posted.status !== 409)
    throw bootstrap(`the kubelet's CSR was refused: ${statusMessage(posted)}`);
  let certPem;
  try {
    certPem = await waitForCertificate(
      server,
      caPem,
      cfg.tlsBootstrapToken,
      csrName,
      kubeletUA,
      Date.now() + (host.tlsBootstrapTimeoutSeconds || 120) * 1000,
    );
  } catch (e) {
    throw bootstrap(`CSR ${csrName}: ${e.message}`);
  }
  // The kubelet's client certificate and key, and its kubeconfig (bootstrap.go writeKubeconfigFromBootstrapping).
  const clientPem = "C:\\var\\lib\\kubelet\\pki\\kubelet-client-current.pem";
  writeHostText(clientPem, certPem + keyPem);
  writeHostText(
    "C:\\etc\\kubernetes\\kubelet.conf",
    JSON.stringify({
      apiVersion: "v1",
      kind: "Config",
      clusters: [
        { name: "default-cluster", cluster: { server, "certificate-authority": "C:\\etc\\kubernetes\\pki\\ca.crt" } },
      ],
      users: [{ name: "default-auth", user: { "client-certificate": clientPem, "client-key": clientPem } }],
      contexts: [{ name: "default-context", context: { cluster: "default-cluster", user: "default-auth" } }],
      "current-context": "default-context",
    }),
  );
  writeHostText("C:\\etc\\kubernetes\\bootstrap-kubelet.conf", ""); // kubeadm removes it once bootstrapped

  // Registration as the node (kubelet_node_status.go initialNode; _windows.go adds the Windows build label).
  const build = `10.0.${host.osBuild || "20348"}`;
  const now = new Date().toISOString().replace(/\.\d+Z$/, "Z");
  const condition = (type, status, reason, message) => ({
    type,
    status,
    reason,
    message,
    lastHeartbeatTime: now,
    lastTransitionTime: now,
  });
  const node = {
    apiVersion: "v1",
    kind: "Node",
    metadata: {
      name: kubelet.name,
      labels: {
        "kubernetes.io/hostname": kubelet.name,
        "kubernetes.io/os": "windows",
        "kubernetes.io/arch": "amd64",
        "beta.kubernetes.io/os": "windows",
        "beta.kubernetes.io/arch": "amd64",
        "node.kubernetes.io/windows-build": build,
        ...kubelet.labels,
      },
      annotations: { "volumes.kubernetes.io/controller-managed-attach-detach": "true" },
    },
    spec: kubelet.taints.length > 0 ? { taints: kubelet.taints } : {},
    status: {
      addresses: [
        ...(kubelet.nodeIp ? [{ type: "InternalIP", address: kubelet.nodeIp }] : []),
        { type: "Hostname", address: kubelet.name },
      ],
      daemonEndpoints: { kubeletEndpoint: { Port: 10250 } },
      capacity: { cpu: "4", memory: "16776692Ki", pods: "110" },
      allocatable: { cpu: "4", memory: "16674292Ki", pods: "110" },
      // At registration; each start of the kubelet service posts them fresh again (kubeletStarted), and the node Lease is
      // renewed between starts.
      conditions: healthyConditions(condition),
      nodeInfo: {
        architecture: "amd64",
        operatingSystem: "windows",
        osImage: host.productName || "Windows Server",
        kernelVersion: `${build}.${host.updateRevision || 0}`,
        kubeletVersion: `v${(host.versions && host.versions.kubelet) || version}`,
        kubeProxyVersion: "",
        containerRuntimeVersion: `containerd://${(host.versions && host.versions.containerd) || "unknown"}`,
        machineID: kubelet.name,
        systemUUID: kubelet.name,
        bootID: "",
      },
    },
  };
  const registered = await request(`${server}/api/v1/nodes`, {
    method: "POST",
    ca: caPem,
    cert: certPem,
    key: keyPem,
    userAgent: kubeletUA,
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(node),
  });
  const ok = registered.status === 201 || registered.status === 409;
  return {
    endpoint: cfg.endpoint,
    server,
    tokenId,
    csr: csrName,
    kubeadmNodeName: nodeName,
    kubeletNodeName: kubelet.name,
    registration: ok ? { ok: true } : { ok: false, status: registered.status, message: statusMessage(registered) },
  };
}

// ---- the kubelet of a joined node, while its service runs ----------------------------------------------------

/** Time as the API serializes metav1.Time (RFC 3339, seconds) and metav1.MicroTime (microseconds). */
/** A healthy kubelet's node conditions, in nodestatus/setters.go's words, built by the caller's `condition`. */
function healthyConditions(condition) {
  return [
    condition("MemoryPressure", "False", "KubeletHasSufficientMemory", "kubelet has sufficient memory available"),
    condition("DiskPressure", "False", "KubeletHasNoDiskPressure", "kubelet has no disk pressure"),
    condition("PIDPressure", "False", "KubeletHasSufficientPID", "kubelet has sufficient PID available"),
    condition("Ready", "True", "KubeletReady", "kubelet is posting ready status"),
  ];
}

const metaTime = (ms) => new Date(ms).toISOString().replace(/\.\d+Z$/, "Z");
const microTime = (ms) => new Date(ms).toISOString().replace(/\.(\d{3})Z$/, ".$1000Z");

/** Requests as the node: the kubelet's client certificate and key (`pem`, as kubelet.conf names them) and the CA. */
function asNodeOf(host, pem, ca) {
  const version = (host.versions && host.versions.kubelet) || "";
  return (method, p, body, contentType = "application/json") =>
    request(`${host.cluster.server}${p}`, {
      method,
      ca,
      cert: pem,
      key: pem,
      userAgent: `kubelet.exe/v${version} (windows/amd64) kubernetes/stand-in`,
      headers: body ? { "Content-Type": contentType } : {},
      body: body ? JSON.stringify(body) : undefined,
    });
}

/**
 * The node Lease as the kubelet keeps it (pkg/kubelet/kubelet.go: k8s.io/component-helpers/apimachinery/lease
 * controller.go ensureLease/newLease, with pkg/kubelet/util/nodelease.go SetNodeOwnerFunc): kube-node-lease/<name>,
 * held by the node, 40 s (NodeLeaseDurationSeconds' default), renewTime now, owned by its Node; created if missing,
 * else renewed. An update refused with a conflict (another writer got there first: the kubelet process of the
 * service's previous start, still on its last tick) is retried on the Lease read again, up to five times, as the lease
 * controller's retryUpdateLease does (IsConflict → backoffEnsureLease, maxUpdateRetries).
 */
async function renewNodeLease(host, asNode, nodeUid) {
  for (let attempt = 1; ; attempt++) {
    const r = await renewNodeLeaseOnce(host, asNode, nodeUid);
    if (r.status === 200 || r.status === 201) return;
    if (r.status !== 409 || attempt >= 5) throw new Error(`the kubelet's node Lease was refused: ${statusMessage(r)}`);
  }
}

/** One read and create-or-update of the node Lease; the API server's answer to the write. */
async function renewNodeLeaseOnce(host, asNode, nodeUid) {
  const name = host.cluster.kubeletNodeName;
  const leases = "/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases";
  const current = await asNode("GET", `${leases}/${encodeURIComponent(name)}`);
  const spec = { holderIdentity: name, leaseDurationSeconds: 40, renewTime: microTime(Date.now()) };
  let r = current;
  if (current.status === 404) {
    let uid = nodeUid;
    if (!uid) {
      const node = await asNode("GET", `/api/v1/nodes/${encodeURIComponent(name)}`);
      if (node.status !== 200) throw new Error(`the kubelet could not read its Node ${name}: ${statusMessage(node)}`);
      uid = JSON.parse(node.body.toString("utf8")).metadata.uid;
    }
    r = await asNode("POST", leases, {
      apiVersion: "coordination.k8s.io/v1",
      kind: "Lease",
      metadata: {
        name,
        namespace: "kube-node-lease",
        ownerReferences: [{ apiVersion: "v1", kind: "Node", name, uid }],
      },
      spec,
    });
  } else if (current.status === 200) {
    const lease = JSON.parse(current.body.toString("utf8"));
    r = await asNode("PUT", `${leases}/${encodeURIComponent(name)}`, { ...lease, spec: { ...lease.spec, ...spec } });
  }
  return r;
}

/**
 * What a kubelet does against the API server as its service starts on a node that has joined, as the node: its first
 * node status sync (pkg/kubelet/kubelet_node_status.go syncNodeStatus → registerWithAPIServer, the Node already
 * there, → tryUpdateNodeStatus; at start the kubelet syncs at once, kubelet.go fastStatusUpdateOnce): the conditions
 * of pkg/kubelet/nodestatus/setters.go, each with a heartbeat of now (ReadyCondition's `currentTime`) and its
 * transition time kept while its status holds, and nodeInfo from VersionInfo (the kubelet's and the runtime's
 * versions), sent as nodeutil.PatchNodeStatus sends it: a strategic merge patch of nodes/<name>/status; then its node
 * Lease. While it runs it renews the Lease (`runKubelet`); the status is not posted again (a real kubelet re-posts it
 * on a change or every 5 minutes, nodeStatusReportFrequency). Returns the heartbeat time it posted.
 */
async function kubeletStarted(host, { readHostText }) {
  const name = host.cluster.kubeletNodeName;
  const asNode = asNodeOf(
    host,
    readHostText("C:\\var\\lib\\kubelet\\pki\\kubelet-client-current.pem"),
    readHostText("C:\\etc\\kubernetes\\pki\\ca.crt"),
  );
  const version = (n) => (host.versions && host.versions[n]) || "";
  const nodePath = `/api/v1/nodes/${encodeURIComponent(name)}`;
  const got = await asNode("GET", nodePath);
  if (got.status !== 200) throw new Error(`the kubelet could not read its Node ${name}: ${statusMessage(got)}`);
  const node = JSON.parse(got.body.toString("utf8"));
  const heartbeat = metaTime(Date.now());
  const was = Object.fromEntries(((node.status || {}).conditions || []).map((c) => [c.type, c]));
  const condition = (type, status, reason, message) => ({
    type,
    status,
    reason,
    message,
    lastHeartbeatTime: heartbeat,
    lastTransitionTime: was[type] && was[type].status === status ? was[type].lastTransitionTime : heartbeat,
  });
  const patched = await asNode(
    "PATCH",
    `${nodePath}/status`,
    {
      status: {
        conditions: healthyConditions(condition),

        nodeInfo: {
          kubeletVersion: `v${version("kubelet")}`,
          containerRuntimeVersion: `containerd://${version("containerd") || "unknown"}`,
        },
      },
    },
    "application/strategic-merge-patch+json",
  );
  if (patched.status !== 200)
    throw new Error(`the kubelet's node status update was refused: ${statusMessage(patched)}`);
  await renewNodeLease(host, asNode, node.metadata.uid);
  return heartbeat;
}

/**
 * Pods bound to this node that are being deleted: no container runs for them here, so the kubelet removes each object
 * with grace period 0 and its uid as precondition, as pkg/kubelet/status/status_manager.go syncPod does once
 * canBeDeleted holds (its containers gone). Without it, deleting a pod the scheduler bound here (a DaemonSet pod an
 * upgrade restarts, a drained pod) would wait for ever. As the node: the Node authorizer and NodeRestriction let a
 * kubelet list and delete the pods bound to it.
 */
async function finishDeletedPods(host, asNode) {
  const name = host.cluster.kubeletNodeName;
  const r = await asNode("GET", `/api/v1/pods?fieldSelector=${encodeURIComponent(`spec.nodeName=${name}`)}`);
  if (r.status !== 200) throw new Error(`the kubelet could not list its pods: ${statusMessage(r)}`);
  for (const pod of JSON.parse(r.body.toString("utf8")).items) {
    if (!pod.metadata.deletionTimestamp) continue;
    const m = pod.metadata;
    await asNode("DELETE", `/api/v1/namespaces/${encodeURIComponent(m.namespace)}/pods/${encodeURIComponent(m.name)}`, {
      apiVersion: "v1",
      kind: "DeleteOptions",
      gracePeriodSeconds: 0,
      preconditions: { uid: m.uid },
    });
  }
}

/** The host's state while this process is still its running kubelet (the state file says so), else undefined. */
function stillTheKubelet(stateFile) {
  let host;
  try {
    host = JSON.parse(fs.readFileSync(stateFile, "utf8"));
  } catch {
    return undefined;
  }
  const kubelet = (host.services || {}).kubelet;
  return kubelet && kubelet.status === "Running" && host.kubeletPid === process.pid ? host : undefined;
}

/**
 * The running kubelet, as a process of its own (started by the stand-in with its service, `--kubelet <state> <pem>
 * <ca>`): renews its node Lease every `nodeLeaseRenewSeconds` (default 10: a quarter of the 40 s lease,
 * kubelet.go nodeLeaseRenewIntervalFraction), a failed renewal retried at the next tick as the lease controller does,
 * and at each tick finishes the pods bound to its node that are being deleted (`finishDeletedPods`).
 * It ends when its service is no longer running, another kubelet process took over (`kubeletPid`), the host is gone
 * (its state file removed), or after an hour (nothing in the lab runs longer).
 */
async function runKubelet(stateFile, pemFile, caFile) {
  const until = Date.now() + 3_600_000;
  for (;;) {
    const before = stillTheKubelet(stateFile);
    if (!before || Date.now() > until) return;
    await pause((before.nodeLeaseRenewSeconds || 10) * 1000);
    // Asked again after the wait: a kubelet whose service stopped or restarted meanwhile writes nothing more.
    const host = stillTheKubelet(stateFile);
    if (!host) return;
    const asNode = asNodeOf(host, fs.readFileSync(pemFile, "utf8"), fs.readFileSync(caFile, "utf8"));
    try {
      await renewNodeLease(host, asNode);
    } catch {
      // retried at the next tick
    }
    try {
      await finishDeletedPods(host, asNode);
    } catch {
      // retried at the next tick
    }
  }
}

if (require.main === module && process.argv[2] === "--kubelet")
  runKubelet(process.argv[3], process.argv[4], process.argv[5]).then(() => process.exit(0));

module.exports = { installItem, publishedSum, joinCluster, kubeletStarted, detachedJwsValid, digestedName };
