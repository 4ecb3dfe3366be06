import * as fs from "fs";
import { windowsHostProvider, WindowsHostInputs, WindowsHostOutputs } from "../../../providers/windows-host/provider";
import { LabHost } from "../../lab/sshd";
import { labConnection, labHostPerFile } from "../../helpers/lab-host";
import { freshWindowsState } from "../../lab/windows-state";
import { launchLog, standInBin } from "../../lab/lab-windows";
import { sshCounters } from "../../../providers/ssh/limits";

// The provider's flow over real SSH against a simulated Windows host (test/lab/fake-powershell.js answers the
// probe and prepare scripts from a state file). What is proven: transport, -EncodedCommand decoding, the
// decisions (refuse, prepare, verify, drift). What only Windows proves: the scripts' effect on a real host.
const { dir: bin, state } = standInBin("fake-windows-");
const WMCO_KEY = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOV5dlQWQSK28jlJ4HUAdZdwjLQOseVptgTZMMrslCYc";
const fresh = freshWindowsState();

let h: LabHost;
labHostPerFile(bin, (started) => (h = started));
beforeEach(() => {
  fs.writeFileSync(state, JSON.stringify(fresh));
  fs.rmSync(state + ".log", { force: true });
});

const inputs = (over: Partial<WindowsHostInputs> = {}): WindowsHostInputs => ({
  connection: labConnection(h, { deadlineSeconds: 8 }),
  wmcoPublicKey: WMCO_KEY,
  wmcoPrivateKey: h.privateKey,
  ...over,
});

test("create prepares the host, verifies the WMCO login and reports hostname, build and host key", async () => {
  const r = await windowsHostProvider.create(inputs());
  expect(r.outs).toMatchObject({
    hostname: "win-byoh-1",
    osBuild: "20348",
    windowsServer: "2022",
    keyAuthorized: true,
    hostKeyFingerprint: h.hostKeyFingerprint,
  });
  const host = JSON.parse(fs.readFileSync(state, "utf8"));
  expect(host.authorizedKeys).toEqual([WMCO_KEY]);
  // The scripts arrived intact through -EncodedCommand: the prepare script is exactly what we generate.
  const { prepareScript } = await import("../../../providers/windows-host/scripts");
  expect(fs.readFileSync(state + ".log", "utf8")).toContain(prepareScript(WMCO_KEY));
});

test("a host WMCO cannot use is refused before anything changes", async () => {
  fs.writeFileSync(state, JSON.stringify({ ...fresh, containerdInstalled: true, hostname: "win_1" }));
  await expect(windowsHostProvider.create(inputs())).rejects.toThrow(
    /cannot become a WMCO node: hostname "win_1".*; containerd is already installed.*Nothing was changed/,
  );
  expect(fs.readFileSync(state + ".log", "utf8")).not.toContain("Write-Output 'prepared'");
});

test("BYOH prerequisites through the stand-in: a static 2019 address without DeviceLessNicDisabled is refused before any change; a missing PTR record is a warning in the outputs", async () => {
  // docs/byoh-instance-pre-requisites.md (release-4.18 to master): the PTR record and the registry value.
  const on2019 = { ...fresh, osBuild: "17763", updateRevision: 6893, productName: "Windows Server 2019 Datacenter" };
  fs.writeFileSync(state, JSON.stringify({ ...on2019, addressDhcp: "Disabled" }));
  await expect(windowsHostProvider.create(inputs())).rejects.toThrow(
    new RegExp(
      `${h.host.replace(/\./g, "\\.")} is a static address .*DeviceLessNicDisabled is not set.*Nothing was changed`,
    ),
  );
  expect(fs.readFileSync(state + ".log", "utf8")).not.toContain("Write-Output 'prepared'");
  fs.writeFileSync(
    state,
    JSON.stringify({ ...on2019, addressDhcp: "Disabled", deviceLessNicDisabled: 1, ptrNames: [] }),
  );
  const r = (await windowsHostProvider.create(inputs())).outs as WindowsHostOutputs;
  expect(r.prerequisiteWarnings).toEqual([expect.stringMatching(/^DNS gives no PTR record for /)]);
  // The defaults of the stand-in (a PTR record naming the host, DHCP): nothing to report.
  fs.writeFileSync(state, JSON.stringify(fresh));
  expect(((await windowsHostProvider.create(inputs())).outs as WindowsHostOutputs).prerequisiteWarnings).toEqual([]);
});

test("refresh finds drift (key removed, firewall rule gone) and update converges it", async () => {
  const outs = (await windowsHostProvider.create(inputs())).outs as WindowsHostOutputs;
  fs.writeFileSync(
    state,
    JSON.stringify({ ...JSON.parse(fs.readFileSync(state, "utf8")), authorizedKeys: [], firewallPorts: [22, 9182] }),
  );
  const read = (await windowsHostProvider.read!("id", outs)).props as WindowsHostOutputs;
  expect(read).toMatchObject({ keyAuthorized: false, firewallPorts: [22, 9182] });
  expect((await windowsHostProvider.diff!("id", read, inputs())).changes).toBe(true);
  await windowsHostProvider.update!("id", read, inputs());
  const again = (await windowsHostProvider.read!("id", outs)).props as WindowsHostOutputs;
  expect((await windowsHostProvider.diff!("id", again, inputs())).changes).toBe(false);
});

/** The PowerShell launches the host saw, in order, each with the scripts it ran named by what they do. */
function launches(): string[][] {
  return launchLog(state).map((scripts) =>
    scripts.map((x) =>
      x.includes("Write-Output 'prepared'") ? "prepare" : x.includes("ConvertTo-Json -Compress") ? "probe" : "other",
    ),
  );
}

/** What one operation costs the host: SSH logins and PowerShell launches (with their scripts). */
async function cost<T>(op: () => Promise<T>): Promise<{ result: T; logins: number; launches: string[][] }> {
  fs.rmSync(state + ".log", { force: true });
  const before = sshCounters().logins;
  const result = await op();
  return { result, logins: sshCounters().logins - before, launches: launches() };
}

test("round trips per operation (a regression guard for performance): one PowerShell launch each", async () => {
  // PowerShell start-up dominates on real Windows hosts: every operation runs its scripts in one process, and a change
  // that adds a launch or a login fails here.
  const created = await cost(() => windowsHostProvider.create(inputs()));
  // Probe, prepare, check in one process; sshd was reconfigured, so a second login proves the WMCO key still works.
  expect(created.launches).toEqual([["probe", "prepare", "probe"]]);
  expect(created.logins).toBe(2);
  const outs = created.result.outs as WindowsHostOutputs;
  const refreshed = await cost(() => windowsHostProvider.read!("id", outs));
  expect(refreshed.launches).toEqual([["probe"]]);
  expect(refreshed.logins).toBe(1);
  // An update that finds nothing to change (e.g. new provider code): one login with the WMCO key, which is the proof.
  const updated = await cost(() => windowsHostProvider.update!("id", outs, inputs()));
  expect(updated.launches).toEqual([["probe", "prepare", "probe"]]);
  expect(updated.logins).toBe(1);
});

test("a host WMCO has joined (its containerd and services present) updates cleanly, e.g. for a key rotation", async () => {
  const outs = (await windowsHostProvider.create(inputs())).outs as WindowsHostOutputs;
  // What WMCO leaves on a host it configured (pkg/windows/windows.go: ContainerdServiceName, KubeletServiceName, WicdServiceName).
  fs.writeFileSync(
    state,
    JSON.stringify({
      ...JSON.parse(fs.readFileSync(state, "utf8")),
      containerdInstalled: true,
      wmcoServices: ["kubelet", "windows-instance-config-daemon"],
    }),
  );
  const rotated = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGx1DOS9JkxvG0bSWG1Vbi0eQ6Kd4X9RrFyQeJTtkSfA";
  const r = await windowsHostProvider.update!("id", outs, inputs({ wmcoPublicKey: rotated }));
  expect(r.outs).toMatchObject({ wmcoPublicKey: rotated, containerdInstalled: true });
  expect(JSON.parse(fs.readFileSync(state, "utf8")).authorizedKeys).toEqual([WMCO_KEY, rotated]);
  // A joined host passes even a first preparation; containerd without WMCO's services (someone else's) does not.
  await expect(windowsHostProvider.create(inputs())).resolves.toBeDefined();
  fs.writeFileSync(state, JSON.stringify({ ...fresh, containerdInstalled: true }));
  await expect(windowsHostProvider.create(inputs())).rejects.toThrow(/containerd is already installed/);
});

test("a host below the declared version or without KB5012637 is refused with the reason", async () => {
  fs.writeFileSync(state, JSON.stringify({ ...fresh, updateRevision: 350 }));
  await expect(windowsHostProvider.create(inputs())).rejects.toThrow(
    /20348\.350, below 20348\.681: it lacks KB5012637/,
  );
  fs.writeFileSync(state, JSON.stringify(fresh));
  await expect(windowsHostProvider.create(inputs({ expectedWindowsServer: "2025" }))).rejects.toThrow(
    /declares windowsServer 2025/,
  );
});

test("check refuses unverifiable hosts and malformed keys without echoing secrets", async () => {
  const r = await windowsHostProvider.check!(
    {} as WindowsHostInputs,
    inputs({
      connection: { host: "10.0.0.5", user: "Administrator", password: "hunter2" },
      wmcoPublicKey: "not a key",
    }),
  );
  const text = JSON.stringify(r.failures);
  expect(text).toMatch(/hostKey is required/);
  expect(text).toMatch(/authorized_keys line/);
  expect(text).not.toContain("hunter2");
});

test("serialized, as the dynamic-provider host runs it: create then read through a separate process", async () => {
  const { serializedProviderOf, runInHost } = await import("../../helpers/dynamic-host");
  const { WindowsHost } = await import("../../../providers/windows-host");
  const s = await serializedProviderOf(
    () =>
      new WindowsHost("byoh", {
        connection: inputs().connection,
        wmcoPublicKey: WMCO_KEY,
        wmcoPrivateKey: h.privateKey,
      }),
  );
  for (const line of h.privateKey.trim().split("\n").slice(2, -1)) expect(s.text).not.toContain(line);
  expect(JSON.stringify(s.inputs.wmcoPrivateKey)).toContain("4dabf18193072939515e22adb298388d");
  const [created, read] = await runInHost(s.text, [
    { method: "create", args: [inputs()] },
    { method: "read", args: ["id", { ...inputs(), hostKey: h.hostKeyLine }] },
  ]);
  expect(created).toMatchObject({
    ok: true,
    value: { outs: { hostname: "win-byoh-1", windowsServer: "2022", keyAuthorized: true } },
  });
  expect(read).toMatchObject({ ok: true, value: { props: { keyAuthorized: true, firewallPorts: [22, 9182, 10250] } } });
}, 60_000);
