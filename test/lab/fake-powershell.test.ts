import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { joinConfiguration, PATHS, vanillaNodePlan } from "../../components/vanilla/node-plan";
import {
  CNI_PLUGINS_VERSION,
  DEFAULT_CONTAINERD,
  FLANNEL_CNI_PLUGIN_VERSION,
  FLANNEL_VERSION,
  WINDOWS_TAINT,
} from "../../facts/kubernetes";
import { Download, installScript, joinScript, kubeletServiceScript } from "../../providers/vanilla-node/scripts";
import { nodesSchema } from "../../stacks/schema/kubernetes";
import { Artifact, releaseArtifacts, startArtifactServer, ArtifactServer } from "../helpers/artifact-server";
import { newHost as standInHost, runEncoded as run } from "./windows-51-run";
import {
  patchStatusScript,
  startPatchTaskScript,
  stopPatchTaskScript,
  windowsUpdateTaskScript,
} from "../../providers/day2/patch-scripts";

// The lab's PowerShell stand-in (test/lab/fake-powershell.js) against what the real pieces refuse, run as the hosts
// run it (`powershell -EncodedCommand`) on the program's own scripts: downloads from a local HTTPS mirror checked as
// the install script checks them, and the checks kubeadm and the kubelet make without a cluster. The join against
// the real API server is in test/e2e/vanilla-join.e2e.ts.

const KUBERNETES = "1.36.3";
let mirror: ArtifactServer;
let files: Record<string, Artifact>;
let digests: { flanneld: string; flannelCni: string };
let dir: string;

/** A fresh host with a C: drive of its own, trusting the mirror's CA. */
const newHost = (name: string, over: Record<string, unknown> = {}) =>
  standInHost(dir, name, { trustedCaFiles: [mirror.caFile], ...over });
const stateOf = (h: { state: string }) => JSON.parse(fs.readFileSync(h.state, "utf8"));

/** The downloads of one node's plan, from the mirror (components/vanilla/node-plan.ts, as the stack resolves them). */
function planDownloads(): Download[] {
  const [n] = nodesSchema.parse([{ address: "10.0.0.21", username: "Administrator" }]);
  const plan = vanillaNodePlan(
    { ...n, address: "10.0.0.21", username: "Administrator", index: 0 },
    {
      version: KUBERNETES,
      podNetworkCidr: "10.244.0.0/16",
      serviceCidr: "10.96.0.0/12",
      dnsServiceIp: "10.96.0.10",
      containerdVersion: DEFAULT_CONTAINERD,
      flannel: {
        vni: 4096,
        port: 4789,
        version: FLANNEL_VERSION,
        flanneldSha256: digests.flanneld,
        cniVersion: FLANNEL_CNI_PLUGIN_VERSION,
        cniSha256: digests.flannelCni,
      },
      artifactsBaseUrl: mirror.baseUrl,
      hostProcessImage: "mcr.microsoft.com/oss/kubernetes/windows-host-process-containers-base-image:v1.0.0",
    },
    {},
  );
  return plan.downloads;
}

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "stand-in-test-"));
  ({ files, digests } = releaseArtifacts({ kubernetes: KUBERNETES, containerd: DEFAULT_CONTAINERD }));
  mirror = await startArtifactServer(files);
});
afterAll(async () => {
  await mirror?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe("downloads from a mirror, checked as the install script checks them", () => {
  test("every download of a node's plan is fetched, its published or pinned SHA-256 checked, then placed", async () => {
    const h = newHost("WIN-DL-1");
    const downloads = planDownloads();
    const r = await run(installScript(downloads), h.state);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(stateOf(h).versions).toEqual(Object.fromEntries(downloads.map((d) => [d.name, d.version])));
    // Fetched from the mirror's paths (the public host and path below baseUrl, facts/kubernetes.ts `mirrored`).
    expect(mirror.requests).toEqual(
      expect.arrayContaining([
        `/dl.k8s.io/release/v${KUBERNETES}/bin/windows/amd64/kubelet.exe`,
        `/dl.k8s.io/release/v${KUBERNETES}/bin/windows/amd64/kubelet.exe.sha256`,
        `/github.com/containerd/containerd/releases/download/v${DEFAULT_CONTAINERD}/containerd-${DEFAULT_CONTAINERD}-windows-amd64.tar.gz.sha256sum`,
        `/github.com/containernetworking/plugins/releases/download/${CNI_PLUGINS_VERSION}/cni-plugins-windows-amd64-${CNI_PLUGINS_VERSION}.tgz.sha256`,
      ]),
    );
    // Placed where the node uses them: containerd's bin/ stripped, the plugins the flannel conf delegates to.
    expect(fs.existsSync(h.drive(`${PATHS.containerdDir}\\containerd.exe`))).toBe(true);
    expect(fs.existsSync(h.drive(`${PATHS.cniBin}\\win-overlay.exe`))).toBe(true);
    expect(fs.existsSync(h.drive(`${PATHS.cniBin}\\flannel.exe`))).toBe(true);
    expect(fs.readFileSync(h.drive("C:\\k\\kubelet.exe"))).toEqual(
      files[`/dl.k8s.io/release/v${KUBERNETES}/bin/windows/amd64/kubelet.exe`].body,
    );
  });

  test("an archive that is not what its .sha256sum publishes is refused with both digests, and nothing is placed", async () => {
    const h = newHost("WIN-DL-2");
    const downloads = planDownloads();
    const containerd = downloads[0];
    expect(containerd.name).toBe("containerd");
    // The mirror serves another archive under containerd's name; its checksum file still names the real one.
    const at = new URL(containerd.url).pathname;
    const real = files[at];
    files[at] = { ...real, body: files[new URL(downloads.find((d) => d.name === "cni-plugins")!.url).pathname].body };
    try {
      const r = await run(installScript(downloads), h.state);
      expect(r.code).toBe(1);
      const published = files[`${at}.sha256sum`].body.toString("utf8").split(/\s+/)[0];
      expect(r.stderr).toMatch(
        new RegExp(
          `^containerd: checksum mismatch, published ${published}, downloaded [0-9a-f]{64}; nothing was replaced`,
        ),
      );
      expect(fs.existsSync(h.drive(PATHS.containerdDir))).toBe(false);
      expect(stateOf(h).versions?.containerd).toBeUndefined();
    } finally {
      files[at] = real;
    }
  });

  test("a sum served as application/octet-stream is bytes to Windows PowerShell: read as a number unless the script decodes it", async () => {
    // issue 26 item 2: `(Invoke-WebRequest …).Content` of a GitHub release asset is a byte[]; split as text, the
    // "published" sum was a decimal byte. Without the script's decoding line the stand-in sees exactly that.
    const h = newHost("WIN-DL-3");
    const downloads = planDownloads();
    const withoutDecoding = installScript(downloads)
      .split("\n")
      .filter((l) => !l.includes("-is [byte[]]"))
      .join("\n");
    const r = await run(withoutDecoding, h.state);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`containerd: ${downloads[0].checksumUrl} holds no SHA-256; nothing was replaced`);
  });

  test("a mirror the host does not trust is refused as .NET refuses it", async () => {
    const h = newHost("WIN-DL-4", { trustedCaFiles: [] });
    const r = await run(installScript(planDownloads()), h.state);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      "The underlying connection was closed: Could not establish trust relationship for the SSL/TLS secure channel.",
    );
  });
});

describe("kubeadm's and the kubelet's checks that need no cluster", () => {
  const TOKEN = "abcdef.0123456789abcdef";
  const PIN = `sha256:${"ab".repeat(32)}`;
  const reg = (nodeName: string, labels: Record<string, string> = { pool: "windows" }) => ({
    nodeName,
    nodeIp: "10.0.0.22",
    labels,
    taints: [WINDOWS_TAINT],
  });
  /** The kubelet service step, then the join with the program's own join file (written as SFTP would). */
  async function join(
    hostname: string,
    nodeName: string,
    discovery: { endpoint?: string; caCertHash: string; token?: string },
    opts: { labels?: Record<string, string>; serviceScript?: (s: string) => string } = {},
  ) {
    const h = newHost(hostname);
    const r = reg(nodeName, opts.labels);
    const service = await run((opts.serviceScript ?? ((s) => s))(kubeletServiceScript(r)), h.state);
    expect(service.code).toBe(0);
    const file = "C:\\k\\kubeadm\\join.yaml";
    h.write(
      file,
      joinConfiguration(
        { labels: r.labels, taints: [WINDOWS_TAINT] },
        nodeName,
        { apiServerEndpoint: discovery.endpoint },
        {
          token: discovery.token ?? TOKEN,
          caCertHash: discovery.caCertHash,
        },
      ),
    );
    const result = await run(joinScript(file, r), h.state);
    // The token file never stays, whatever happened (the script's finally).
    expect(fs.existsSync(h.drive(file))).toBe(false);
    return { ...result, h };
  }

  test('caCertHashes: [""] (issue 26 item 8) is refused by discovery\'s pin check', async () => {
    const r = await join("WIN-J-1", "win-j-1", { endpoint: "10.0.0.10:6443", caCertHash: "" });
    expect(r.code).toBe(1);
    // cmd/kubeadm/app/util/pubkeypin/pubkeypin.go Set.Allow, wrapped by discovery/token/token.go.
    expect(r.stderr).toContain(
      'couldn\'t validate the identity of the API Server: invalid discovery token CA certificate hash: invalid hash, expected "format:hex-value". Known format(s) are: sha256',
    );
    expect(stateOf(r.h).joined ?? false).toBe(false);
  });

  test("the plan's endpoint placeholder is refused (no port), and a malformed token is never quoted back", async () => {
    const r = await join("WIN-J-2", "win-j-2", { caCertHash: PIN, token: "not-a-token" });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      'discovery.bootstrapToken.apiServerEndpoint: Invalid value: "<discovered at preview/up from kube-public/cluster-info>": address <discovered at preview/up from kube-public/cluster-info>: missing port in address',
    );
    expect(r.stderr).toContain(
      'discovery.bootstrapToken.token: Invalid value: "<hidden>": the bootstrap token is invalid',
    );
    expect(r.stderr).not.toContain("not-a-token");
  });

  test("a renamed node: kubeadm-flags.env as kubeadm writes it, merged into the service's command line once; the kubelet registers the declared name", async () => {
    const r = await join("WIN-J-3", "winjoin-b", { endpoint: "10.0.0.10:6443", caCertHash: PIN });
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    // cmd/kubeadm/app/phases/kubelet/flags.go: base flags sorted, then kubeletExtraArgs.
    expect(fs.readFileSync(r.h.drive("C:\\var\\lib\\kubelet\\kubeadm-flags.env"), "utf8")).toBe(
      'KUBELET_KUBEADM_ARGS="--hostname-override=winjoin-b --register-with-taints=os=windows:NoSchedule --node-labels=pool=windows"\n',
    );
    const s = stateOf(r.h);
    expect(s).toMatchObject({ joined: true, joinedAs: "winjoin-b", registeredAs: "winjoin-b" });
    for (const flag of ["--hostname-override", "--register-with-taints", "--node-labels"])
      expect(s.kubeletFlags.filter((f: string) => f.startsWith(`${flag}=`))).toHaveLength(1);
  });

  test("a service command line without --hostname-override registers the hostname, not the declared name", async () => {
    // What issue 26 item 3 was: kubeadm's flags reached the service only after the join, so the kubelet's first
    // registration used the hostname.
    const r = await join(
      "WIN-J-4",
      "winjoin-c",
      { endpoint: "10.0.0.10:6443", caCertHash: PIN },
      {
        serviceScript: (s) => s.replace(", '--hostname-override=winjoin-c'", ""),
      },
    );
    expect(r.code).toBe(0);
    expect(stateOf(r.h)).toMatchObject({ joinedAs: "winjoin-c", registeredAs: "win-j-4" });
  });

  test("a label in a namespace the kubelet reserves stops the kubelet, and so the join", async () => {
    const r = await join(
      "WIN-J-5",
      "win-j-5",
      { endpoint: "10.0.0.10:6443", caCertHash: PIN },
      {
        labels: { "node-role.kubernetes.io/worker": "" },
      },
    );
    expect(r.code).toBe(1);
    // cmd/kubelet/app/options/options.go ValidateKubeletFlags.
    expect(r.stderr).toContain(
      "failed while waiting for the kubelet to start: unknown 'kubernetes.io' or 'k8s.io' labels specified with --node-labels: [node-role.kubernetes.io/worker]",
    );
  });
});

describe("the Windows Update task (providers/day2/patch-scripts.ts), per-host state the patching tests set", () => {
  const cu = { kb: "5066782", title: "2026-10 Cumulative Update", revision: 2966 };
  const status = async (state: string) =>
    JSON.parse((await run(patchStatusScript(), state)).stdout.replace(/^\uFEFF/, ""));
  const start = (state: string, searchOnly: boolean, minutes = 120) =>
    run(startPatchTaskScript(windowsUpdateTaskScript([], { searchOnly }), minutes), state);
  const read = (state: string) => JSON.parse(fs.readFileSync(state, "utf8"));

  test("a search-only task answers what is applicable and a restart already pending, and changes nothing", async () => {
    const { state } = newHost("wua-search", { availableUpdates: [cu], rebootPending: true, revision: 2700 });
    expect((await start(state, true)).stdout).toContain("patch task started");
    expect((await status(state)).state).toBe("Running");
    const done = await status(state);
    expect(done.result).toEqual({
      stage: "search",
      resultCode: 2,
      hResult: 0,
      rebootRequired: true,
      applicable: [{ kb: cu.kb, title: cu.title }],
      updates: [],
      error: "",
    });
    expect(read(state)).toMatchObject({ availableUpdates: [cu], revision: 2700, patchSearches: 1 });
    expect(read(state).patchTasks).toBeUndefined();
  });

  test("a task past its limit runs until Stop-ScheduledTask; then it is Ready without a result", async () => {
    const { state } = newHost("wua-hang", { availableUpdates: [cu], taskHangs: true });
    await start(state, false, 30);
    expect(read(state).patchTaskLimitMinutes).toBe(30);
    for (let k = 0; k < 3; k++) expect((await status(state)).state).toBe("Running");
    expect((await run(stopPatchTaskScript(), state)).stdout).toContain("patch task stopped");
    expect(await status(state)).toMatchObject({ state: "Ready", result: null });
  });

  test("a failing update among others: SucceededWithErrors (3), each update's own result", async () => {
    const ssu = { kb: "5066999", title: "Servicing Stack Update", revision: 2966 };
    const { state } = newHost("wua-partial", { availableUpdates: [cu, ssu], failedUpdates: { [ssu.kb]: -2147010798 } });
    await start(state, false);
    await status(state);
    const r = (await status(state)).result;
    expect(r).toMatchObject({ stage: "install", resultCode: 3, rebootRequired: true });
    expect(r.updates).toEqual([
      { kb: cu.kb, title: cu.title, resultCode: 2, hResult: 0 },
      { kb: ssu.kb, title: ssu.title, resultCode: 4, hResult: -2147010798 },
    ]);
    // The one that installed takes effect at the restart; the failed one is still offered.
    expect(read(state)).toMatchObject({ pendingRevision: 2966, availableUpdates: [ssu] });
  });
});
