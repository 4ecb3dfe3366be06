import * as fs from "fs";
import * as path from "path";
import { vanillaNodeProvider, VanillaNodeInputs, VanillaNodeOutputs } from "../../../providers/vanilla-node/provider";
import { offlineJoinConfig, releaseDownloads } from "../../helpers/vanilla-fixtures";
import { LabHost } from "../../lab/sshd";
import { labConnection, labHostPerFile } from "../../helpers/lab-host";
import { launchLog, standInBin } from "../../lab/lab-windows";
import { sshCounters } from "../../../providers/ssh/limits";
import { freshWindowsState } from "../../lab/windows-state";
import { HOSTNAME_PLACEHOLDER } from "../../../providers/vanilla-node/scripts";
const win = require("../../lab/windows-51");

// What one VanillaNode operation costs a host, counted on a real sshd (logins) with the lab's PowerShell stand-in
// (launches and the scripts each ran): a regression guard for issue 17's target of one PowerShell launch per host per
// operation, two where a reboot splits it. PowerShell start-up is the dominant cost on a real Windows host.
// No kubeconfig: the API side (drain, identity) is covered in provider.test.ts; here only the host's round trips.
const { dir: bin, state } = standInBin("vanilla-trips-");

let h: LabHost;
labHostPerFile(bin, (started) => (h = started));

const inputs = (): VanillaNodeInputs => ({
  connection: labConnection(h, { pathStyle: "posix", deadlineSeconds: 8 }),
  downloads: releaseDownloads("1.36.2"),
  vxlanPort: 4789,
  containerdConfigPath: "C:\\k\\containerd\\config.toml",
  joinConfigPath: path.join(bin, "kubeadm", "join.yaml"),
  joinConfig: offlineJoinConfig(),
});

/** Each launch's scripts, named by what they print or read. */
function launches(): string[][] {
  return launchLog(state).map((scripts) =>
    scripts.map(
      (x) =>
        (/\$feature = (Get-WindowsFeature)/.exec(x) ||
          /(Install-WindowsFeature)/.exec(x) ||
          /(LastBootUpTime)/.exec(x) ||
          /(Restart-Computer)/.exec(x) ||
          /(join) --config/.exec(x) ||
          /Write-Output '([^']+)'/.exec(x) || ["", "?"])[1],
    ),
  );
}

/** An operation's cost, and the progress it reported (the provider writes it to stderr for the engine to show). */
async function cost<T>(
  op: () => Promise<T>,
): Promise<{ result: T; logins: number; launches: string[][]; progress: string[] }> {
  fs.rmSync(state + ".log", { force: true });
  const before = sshCounters().logins;
  const stderr = jest.spyOn(console, "error").mockImplementation(() => undefined);
  try {
    const result = await op();
    const progress = stderr.mock.calls.map((args) => args.join(" "));
    return { result, logins: sshCounters().logins - before, launches: launches(), progress };
  } finally {
    stderr.mockRestore();
  }
}

/** The progress lines of the steps that changed the host (providers/vanilla-node/provider.ts `theRest`). */
const stepsReported = () =>
  ["host settings", "binaries", "containerd service", "kubelet service", "join"].map(
    (step) => `vanilla node: ${h.user}@${h.host}:${h.port}: ${step}`,
  );

const FRESH_STEPS = [
  "Get-WindowsFeature",
  "Install-WindowsFeature",
  "host settings ok",
  "installed",
  "containerd ok",
  "kubelet service ok",
  "join",
  "Get-WindowsFeature",
];

test("a fresh node converges in one login and one PowerShell launch; a refresh and a no-op update in one each", async () => {
  fs.writeFileSync(state, JSON.stringify(freshWindowsState("win-trips-1")));
  const created = await cost(() => vanillaNodeProvider.create(inputs()));
  expect(created.launches).toEqual([FRESH_STEPS]);
  expect(created.logins).toBe(1);
  expect(created.progress).toEqual(stepsReported());
  const outs: VanillaNodeOutputs = created.result.outs;
  const refreshed = await cost(() => vanillaNodeProvider.read!("id", outs));
  expect(refreshed.launches).toEqual([["Get-WindowsFeature"]]);
  expect(refreshed.logins).toBe(1);
  expect(refreshed.progress).toEqual([]);
  const updated = await cost(() => vanillaNodeProvider.update!("id", outs, inputs()));
  expect(updated.launches).toEqual([["Get-WindowsFeature", "Get-WindowsFeature"]]);
  expect(updated.logins).toBe(1);
  expect(updated.progress).toEqual([]);
});

test("when the Containers feature needs a reboot, the reboot splits the converge into two launches", async () => {
  fs.writeFileSync(state, JSON.stringify({ ...freshWindowsState("win-trips-2"), featuresNeedReboot: true }));
  const created = await cost(() => vanillaNodeProvider.create(inputs()));
  expect(created.launches).toEqual([
    // Probe, install (Windows asks for a restart), the boot time, the restart: the process ends with Windows.
    ["Get-WindowsFeature", "Install-WindowsFeature", "LastBootUpTime", "Restart-Computer"],
    // Back with a new boot time: the rest, in the process that saw it.
    ["LastBootUpTime", ...FRESH_STEPS.slice(2)],
  ]);
  expect(created.logins).toBe(2);
  expect(created.result.outs).toMatchObject({ containersFeature: "Installed", joined: true, pendingSteps: [] });
  // Boot times as the PowerShell stand-in reports them (test/lab/fake-powershell.js): its default, then its clock.
  expect(created.progress).toEqual([
    `vanilla node: ${h.user}@${h.host}:${h.port}: the Containers feature needs a reboot`,
    "vanilla node: node win-trips-2: restarting (booted 2026-11-01T00:00:00.0000000Z)",
    expect.stringMatching(/^vanilla node: node win-trips-2: back \(booted \d{4}-\d\d-\d\dT[\d:.]+Z\)$/),
    ...stepsReported(),
  ]);
});

test("without nodes[].name the join file carries the host's own lower-case name, never the plan's placeholder", async () => {
  // kubeadm refuses a nodeRegistration.name that is not a DNS-1123 subdomain (cmd/kubeadm/app/apis/kubeadm/validation/
  // validation.go ValidateNodeRegistrationOptions); the stand-in refuses it the same way.
  fs.writeFileSync(state, JSON.stringify(freshWindowsState("WIN-TRIPS-3")));
  const placeholder = "<hostname, lower case, read on the host>";
  const joinConfig = offlineJoinConfig(undefined, placeholder);
  await cost(() => vanillaNodeProvider.create({ ...inputs(), joinConfig }));
  expect(JSON.parse(fs.readFileSync(state, "utf8"))).toMatchObject({ joined: true, joinedAs: "win-trips-3" });
});

test("a host whose DNS host name is long and mixed case joins under it in lower case, never under its NetBIOS name", async () => {
  // $env:COMPUTERNAME is the NetBIOS name, WIN-NODE-LONG-N; the kubelet and kubeadm take the DNS host name, lower case.
  const dns = "Win-Node-Long-Name-01";
  expect(win.rule("names.netbios").rows).toContain(8);
  expect(win.rule("names.kubelet-node-name").rows).toContain(8);
  expect(win.netbiosName(dns)).toBe("WIN-NODE-LONG-N");
  fs.writeFileSync(state, JSON.stringify(freshWindowsState(dns)));
  const joinConfig = offlineJoinConfig(undefined, HOSTNAME_PLACEHOLDER);
  const made = (await cost(() => vanillaNodeProvider.create({ ...inputs(), joinConfig }))).result;
  expect(made.outs).toMatchObject({ nodeName: "win-node-long-name-01", hostname: "WIN-NODE-LONG-N", dnsHostname: dns });
  const host = JSON.parse(fs.readFileSync(state, "utf8"));
  expect(host).toMatchObject({ joined: true, joinedAs: win.kubeletDefaultNodeName(dns) });
  expect(host.kubeletFlags).toContain("--hostname-override=win-node-long-name-01");
});

test("a host whose DNS host name kubeadm refuses stops after the probe, naming the host, the name and the key to set", async () => {
  // kubeadm lower-cases nodeRegistration.name, then refuses what is not a DNS-1123 subdomain: '_' is not allowed.
  expect(win.kubeadmNodeNameProblem("win_node_5")).toMatch(/^nodeRegistration\.name: Invalid value: "win_node_5"/);
  fs.writeFileSync(state, JSON.stringify(freshWindowsState("Win_Node_5")));
  const joinConfig = offlineJoinConfig(undefined, HOSTNAME_PLACEHOLDER);
  const r = await cost(() =>
    vanillaNodeProvider.create({ ...inputs(), joinConfig, nameKey: "windows-estate:nodes[4].name" }).then(
      () => "created",
      (e: Error) => e.message,
    ),
  );
  expect(r.result).toBe(
    `${h.user}@${h.host}:${h.port}: the host's DNS host name "Win_Node_5" (NetBIOS name "WIN_NODE_5") gives the Node name "win_node_5", which kubeadm refuses: a Node name must be a lowercase RFC 1123 subdomain: lower case letters, digits, '-' and '.', starting and ending with a letter or digit; set windows-estate:nodes[4].name to such a name (the kubelet then registers it through --hostname-override), or rename the host. Nothing was changed on the host`,
  );
  // Only the probe ran: no feature, firewall, download, service or join.
  expect(r.launches).toEqual([["Get-WindowsFeature"]]);
  const untouched = JSON.parse(fs.readFileSync(state, "utf8"));
  expect([untouched.joins ?? 0, untouched.containersFeature ?? "Available"]).toEqual([0, "Available"]);
  // With the key set, the same host joins under the declared name.
  await cost(() =>
    vanillaNodeProvider.create({
      ...inputs(),
      joinConfig: offlineJoinConfig(undefined, "win-node-5"),
      nodeName: "win-node-5",
    }),
  );
  expect(JSON.parse(fs.readFileSync(state, "utf8"))).toMatchObject({ joined: true, joinedAs: "win-node-5" });
});

test("a node joined under its NetBIOS name, before the DNS host name was read, keeps its Node name through an upgrade", async () => {
  // Its kubelet registered --hostname-override=win-node-long-n; renaming it would register a second Node.
  fs.writeFileSync(state, JSON.stringify(freshWindowsState("Win-Node-Long-Name-02")));
  const joinConfig = offlineJoinConfig(undefined, HOSTNAME_PLACEHOLDER);
  const made = (await cost(() => vanillaNodeProvider.create({ ...inputs(), joinConfig }))).result;
  const olds = { ...made.outs, nodeName: "win-node-long-n" } as VanillaNodeOutputs;
  const upgrade = { ...inputs(), joinConfig, downloads: releaseDownloads("1.36.3") };
  const updated = (await cost(() => vanillaNodeProvider.update!("id", olds, upgrade))).result;
  expect(updated.outs).toMatchObject({ nodeName: "win-node-long-n", pendingSteps: [] });
  const host = JSON.parse(fs.readFileSync(state, "utf8"));
  expect(host.kubeletFlags).toContain("--hostname-override=win-node-long-n");
  expect(host.joins).toBe(1);
});

test("a host that runs another Windows Server release is refused after the probe, before anything changes on it", async () => {
  // Build numbers: facts/kubernetes.ts WINDOWS_BUILDS (2022 = 20348, 2025 = 26100). The RuntimeClass and
  // images follow the declared release, and a container's build must match the host's.
  fs.writeFileSync(state, JSON.stringify({ ...freshWindowsState("win-trips-4"), osBuild: "26100" }));
  const r = await cost(() =>
    vanillaNodeProvider.create({ ...inputs(), windowsServer: "2022" }).then(
      () => "created",
      (e: Error) => e.message,
    ),
  );
  expect(r.result).toBe(
    `${h.user}@${h.host}:${h.port}: the host runs build 26100, Windows Server 2025, not the declared 2022 (build 20348); set this node's windowsServer to what it runs (its RuntimeClass and images follow it). Nothing was changed on the host`,
  );
  expect(r.launches).toEqual([["Get-WindowsFeature"]]);
  // Declared as what it runs, it converges; a refresh after an in-place upgrade names the drift.
  const made = (await cost(() => vanillaNodeProvider.create({ ...inputs(), windowsServer: "2025" }))).result;
  expect(made.outs).toMatchObject({ osBuild: "26100", osRevision: 2700, pendingSteps: [] });
  const host = JSON.parse(fs.readFileSync(state, "utf8"));
  fs.writeFileSync(state, JSON.stringify({ ...host, osBuild: "20348" }));
  const read = (await cost(() => vanillaNodeProvider.read!(made.id, made.outs))).result;
  expect(read.props?.pendingSteps).toEqual([
    "os: the host runs build 20348, Windows Server 2022, not the declared 2025 (build 26100)",
  ]);
});

test("a changed node IP re-joins the node (replace); state recorded before the node IP existed is left as it is", async () => {
  const outs = (nodeIp?: string) =>
    ({ ...inputs(), ...(nodeIp ? { nodeIp } : {}), nodeName: "n", pendingSteps: [] }) as unknown as VanillaNodeOutputs;
  const diff = (olds: VanillaNodeOutputs, nodeIp?: string) =>
    vanillaNodeProvider.diff!("id", olds, { ...inputs(), ...(nodeIp ? { nodeIp } : {}) });
  expect(await diff(outs("10.0.0.21"), "10.0.1.21")).toMatchObject({ replaces: ["nodeIp"], deleteBeforeReplace: true });
  expect(await diff(outs("10.0.0.21"), "10.0.0.21")).toMatchObject({ changes: false, replaces: [] });
  expect(await diff(outs(), "10.0.0.21")).toMatchObject({ changes: false, replaces: [] });
});
