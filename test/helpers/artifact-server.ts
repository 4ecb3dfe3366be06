import { execFileSync } from "child_process";
import { createHash, randomBytes } from "crypto";
import * as fs from "fs";
import * as https from "https";
import type { AddressInfo } from "net";
import * as os from "os";
import * as path from "path";
import {
  CNI_PLUGINS_VERSION,
  DOWNLOADS,
  FLANNEL_CNI_PLUGIN_VERSION,
  FLANNEL_VERSION,
  mirrored,
} from "../../facts/kubernetes";

/** One file the server answers with. */
export interface Artifact {
  body: Buffer;
  contentType: string;
}

/**
 * A mirror of release downloads on 127.0.0.1 over HTTPS (`kubernetes.artifacts.baseUrl` must be https://,
 * components/vanilla/validate.ts), with a CA of its own that the lab's Windows hosts are told to trust
 * (`trustedCaFiles` in their state, as a Windows host trusts a mirror's CA in its certificate store).
 */
export interface ArtifactServer {
  baseUrl: string;
  caFile: string;
  /** Every path asked for, in order. */
  requests: string[];
  close(): Promise<void>;
}

const sha256 = (b: Buffer) => createHash("sha256").update(b).digest("hex");

/** A CA and a serving certificate for IP 127.0.0.1, made with openssl (lab/certs.ts does the same for the lab). */
function certificates(dir: string): { ca: string; key: string; cert: string } {
  const run = (args: string[]) => execFileSync("openssl", args, { cwd: dir, stdio: "pipe" });
  const ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"];
  run([
    "req",
    "-x509",
    ...ec,
    "-days",
    "1",
    "-subj",
    "/CN=windows-estate-test-mirror-ca",
    "-keyout",
    "ca.key",
    "-out",
    "ca.crt",
  ]);
  run(["req", ...ec, "-subj", "/CN=127.0.0.1", "-keyout", "tls.key", "-out", "tls.csr"]);
  fs.writeFileSync(path.join(dir, "tls.ext"), "subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth\n");
  run(
    ["x509", "-req", "-in", "tls.csr", "-CA", "ca.crt", "-CAkey", "ca.key", "-CAcreateserial", "-days", "1"].concat([
      "-extfile",
      "tls.ext",
      "-out",
      "tls.crt",
    ]),
  );
  return {
    ca: path.join(dir, "ca.crt"),
    key: fs.readFileSync(path.join(dir, "tls.key"), "utf8"),
    cert: fs.readFileSync(path.join(dir, "tls.crt"), "utf8"),
  };
}

/** Serves `files` (URL path → artifact) until closed; anything else is a 404. */
export async function startArtifactServer(files: Record<string, Artifact>): Promise<ArtifactServer> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "artifact-server-"));
  const { ca, key, cert } = certificates(dir);
  const requests: string[] = [];
  const server = https.createServer({ key, cert }, (req, res) => {
    const p = decodeURIComponent(new URL(req.url ?? "/", "https://x").pathname);
    requests.push(p);
    const a = files[p];
    if (!a) {
      res.writeHead(404, { "Content-Type": "text/plain" });
      res.end("Not Found");
      return;
    }
    res.writeHead(200, { "Content-Type": a.contentType, "Content-Length": a.body.length });
    res.end(req.method === "HEAD" ? undefined : a.body);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    baseUrl: `https://127.0.0.1:${port}`,
    caFile: ca,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
        fs.rmSync(dir, { recursive: true, force: true });
      }),
  };
}

/** A small stand-in for a Windows executable: the `MZ` of a PE file, its name, random bytes (a digest of its own). */
function executable(name: string): Buffer {
  return Buffer.concat([Buffer.from(`MZ stand-in for ${name}\n`), randomBytes(512)]);
}

/** A gzipped tar of `entries` (archive path → content), made with tar as the release scripts do. */
function tarball(entries: Record<string, Buffer>): Buffer {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "artifact-tar-"));
  try {
    for (const [p, body] of Object.entries(entries)) {
      fs.mkdirSync(path.dirname(path.join(dir, "in", p)), { recursive: true });
      fs.writeFileSync(path.join(dir, "in", p), body);
    }
    execFileSync("tar", ["-czf", path.join(dir, "out.tgz"), "-C", path.join(dir, "in"), ...Object.keys(entries)]);
    return fs.readFileSync(path.join(dir, "out.tgz"));
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const OCTET = "application/octet-stream";

/**
 * The downloads one Windows node makes (components/vanilla/node-plan.ts vanillaNodePlan, URLs from facts/kubernetes.ts
 * DOWNLOADS under `baseUrl`), as small generated artifacts with checksum files in the formats upstream publishes:
 * dl.k8s.io's `<binary>.sha256` holds the bare hex digest; containerd's `.sha256sum` is sha256sum's `<hex>  <file>`
 * line (containerd Makefile `release`); the CNI plugins' `.sha256` is the same line (containernetworking/plugins
 * scripts/release.sh); flannel publishes none (its two executables are checked against pinned digests, so
 * `digests` gives theirs, to be configured or pinned by the test). GitHub serves every release asset, checksum files
 * included, as application/octet-stream (cynative/cynative#148, checked against a live asset; elvisun/newsjack#41),
 * which Windows PowerShell 5.1 returns as bytes (test/lab/windows-51/web.js); so are they served here. dl.k8s.io's
 * checksum files are served as text/plain here (their bucket's own type is not checked from here), so both ways of
 * reading a sum run. The archives hold
 * what the nodes use: containerd's `bin/` (extracted with its top folder stripped) and the CNI plugins the flannel
 * conf delegates to (plugins/windows_only.txt: win-bridge, win-overlay; and host-local). Several Kubernetes versions
 * (an upgrade's old and new) are served side by side, each release's binaries and sums of their own.
 */
export function releaseArtifacts(v: { kubernetes: string | readonly string[]; containerd: string }) {
  const files: Record<string, Artifact> = {};
  const at = (url: string) => new URL(mirrored(url, "https://mirror.invalid")).pathname;
  const put = (url: string, body: Buffer, contentType = OCTET) => (files[at(url)] = { body, contentType });
  for (const version of typeof v.kubernetes === "string" ? [v.kubernetes] : v.kubernetes)
    for (const name of ["kubelet", "kubeadm", "kube-proxy", "kube-log-runner"]) {
      const url = DOWNLOADS.kubernetes(version, name);
      const body = executable(`${name}.exe`);
      put(url, body);
      put(`${url}.sha256`, Buffer.from(sha256(body)), "text/plain; charset=utf-8");
    }
  const containerd = tarball({
    "bin/containerd.exe": executable("containerd.exe"),
    "bin/containerd-shim-runhcs-v1.exe": executable("containerd-shim-runhcs-v1.exe"),
    "bin/ctr.exe": executable("ctr.exe"),
  });
  const containerdUrl = DOWNLOADS.containerd(v.containerd);
  put(containerdUrl, containerd);
  put(`${containerdUrl}.sha256sum`, Buffer.from(`${sha256(containerd)}  ${path.basename(containerdUrl)}\n`));
  const cni = tarball({
    "./host-local.exe": executable("host-local.exe"),
    "./win-bridge.exe": executable("win-bridge.exe"),
    "./win-overlay.exe": executable("win-overlay.exe"),
  });
  const cniUrl = DOWNLOADS.cniPlugins(CNI_PLUGINS_VERSION);
  put(cniUrl, cni);
  put(`${cniUrl}.sha256`, Buffer.from(`${sha256(cni)}  ${path.basename(cniUrl)}\n`));
  const flanneld = executable("flanneld.exe");
  put(DOWNLOADS.flanneld(FLANNEL_VERSION), flanneld);
  const flannelCni = executable("flannel-amd64.exe");
  put(DOWNLOADS.flannelCni(FLANNEL_CNI_PLUGIN_VERSION), flannelCni);
  return { files, digests: { flanneld: sha256(flanneld), flannelCni: sha256(flannelCni) } };
}
