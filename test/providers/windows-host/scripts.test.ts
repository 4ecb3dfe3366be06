import {
  hostProblems,
  parseProbe,
  prepareScript,
  preparationDrift,
  probeScript,
  retireKeysScript,
} from "../../../providers/windows-host/scripts";
import { powershellErrors } from "../../helpers/powershell-parser";

const KEY = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOV5dlQWQSK28jlJ4HUAdZdwjLQOseVptgTZMMrslCYc";

test.each([
  ["probe", probeScript(KEY)],
  ["prepare", prepareScript(KEY)],
  ["probe with a quote in the key comment", probeScript("ssh-ed25519 AAAAC3Nz it's")],
  ["retire one key", retireKeysScript(KEY, ["ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQ"])],
  ["retire two keys", retireKeysScript(KEY, ["ssh-rsa AAAAB3Nza", "ecdsa-sha2-nistp256 AAAAE2Vj it's"])],
])("the %s script parses as PowerShell without errors", async (_n, script) => {
  expect(await powershellErrors(script)).toEqual([]);
});

// Hand-built probe outputs in the shape the probe script prints (ConvertTo-Json -Compress over SSH, with the BOM and
// CRLF PowerShell writes); not recorded from a Windows host. Only a real host proves the script's values.
const FRESH =
  '\uFEFF{"hostname":"win-7q2kdl3","osBuild":"20348","updateRevision":2700,"productName":"Windows Server 2022 Datacenter","keyAuthorized":false,"keyFileAclOk":false,"pubkeyAuthentication":"","passwordAuthentication":"","firewallPorts":[],"containerdInstalled":false,"wmcoServices":[],"sshdStartType":"Manual"}\r\n';
const PREPARED =
  '{"hostname":"win-byoh-1","osBuild":"20348","updateRevision":2700,"productName":"Windows Server 2022 Datacenter","keyAuthorized":true,"keyFileAclOk":true,"pubkeyAuthentication":"yes","passwordAuthentication":"no","firewallPorts":[22,9182,10250],"containerdInstalled":false,"wmcoServices":[],"sshdStartType":"Automatic"}';
// PowerShell 5.1 prints a one-element array as a scalar.
const ONE_PORT =
  '{"hostname":"h","osBuild":"17763","updateRevision":6893,"productName":"Windows Server 2019","keyAuthorized":true,"keyFileAclOk":true,"pubkeyAuthentication":"yes","passwordAuthentication":"no","firewallPorts":22,"containerdInstalled":true,"wmcoServices":"kubelet","sshdStartType":"Automatic"}';
const first = { firstPreparation: true };

test("a fresh host parses, needs preparation (sshd start type included) and can be prepared", () => {
  const p = parseProbe(FRESH);
  expect(p).toMatchObject({
    hostname: "win-7q2kdl3",
    osBuild: "20348",
    updateRevision: 2700,
    keyAuthorized: false,
    firewallPorts: [],
    sshdStartType: "Manual",
  });
  expect(hostProblems(p, first)).toEqual([]);
  expect(preparationDrift(p)).toEqual([
    "WMCO key not authorized",
    "administrators_authorized_keys ACL",
    "PasswordAuthentication",
    "firewall port 22",
    "firewall port 10250",
    "firewall port 9182",
    "sshd start type",
  ]);
});

test("a prepared host has no drift", () => {
  expect(preparationDrift(parseProbe(PREPARED))).toEqual([]);
});

test("sshd that does not start automatically is drift: WMCO reboots hosts and must reconnect (pkg/secrets/secrets.go sets Automatic)", () => {
  expect(preparationDrift({ ...parseProbe(PREPARED), sshdStartType: "Manual" })).toEqual(["sshd start type"]);
});

test("scalar-for-array output", () => {
  const p = parseProbe(ONE_PORT);
  expect(p.firewallPorts).toEqual([22]);
  expect(p.wmcoServices).toEqual(["kubelet"]);
});

test("a pre-installed containerd is refused at first preparation only; a host WMCO joined (its services present) stays updatable", () => {
  const fresh = { ...parseProbe(PREPARED), containerdInstalled: true };
  expect(hostProblems(fresh, first)).toEqual([expect.stringMatching(/containerd is already installed/)]);
  // WMCO installs its own service named containerd (pkg/windows/windows.go ContainerdServiceName) when it joins the host.
  expect(hostProblems({ ...fresh, wmcoServices: ["kubelet", "windows-instance-config-daemon"] }, first)).toEqual([]);
  expect(hostProblems(fresh, { firstPreparation: false })).toEqual([]);
});

test("hostnames: upper case is refused with the reason (docs/byoh-instance-pre-requisites.md: lowercase; pkg/csr matchesHostname)", () => {
  const p = parseProbe(PREPARED);
  expect(hostProblems({ ...p, hostname: "WIN-BYOH-1" }, first)).toEqual([
    expect.stringMatching(/upper-case letters.*never be approved.*rename it to "win-byoh-1"/),
  ]);
  expect(hostProblems({ ...p, hostname: "win_byoh" }, first)).toEqual([expect.stringMatching(/RFC 1123/)]);
});

test("builds: unsupported, not the declared version, and 2022 without KB5012637 (docs/wmco-prerequisites.md: build 20348.681)", () => {
  const p = parseProbe(PREPARED);
  expect(hostProblems({ ...p, osBuild: "14393", productName: "Windows Server 2016" }, first)).toEqual([
    expect.stringMatching(/14393 \(Windows Server 2016\) is not a Windows Server version WMCO supports/),
  ]);
  expect(hostProblems(p, { firstPreparation: true, windowsServer: "2025" })).toEqual([
    expect.stringMatching(/runs Windows Server 2022 \(build 20348\), but its entry declares windowsServer 2025/),
  ]);
  expect(hostProblems({ ...p, updateRevision: 680 }, first)).toEqual([
    expect.stringMatching(/20348\.680, below 20348\.681: it lacks KB5012637/),
  ]);
  expect(hostProblems({ ...p, updateRevision: 681 }, first)).toEqual([]);
});

test("garbage instead of JSON is a clear error", () => {
  expect(() => parseProbe("Access is denied.")).toThrow(/printed no JSON/);
});

test("retiring keys refuses to run unless the new key is authorized, and writes ASCII with the restricted ACL", () => {
  const s = retireKeysScript(KEY, ["ssh-rsa AAAAB3Nza"]);
  // The refusal comes before any write: the host never holds zero usable keys.
  expect(s.indexOf("the new WMCO key is not authorized")).toBeLessThan(s.indexOf("Set-Content"));
  expect(s).toContain("-Encoding ascii");
  expect(s).toContain("/inheritance:r /grant '*S-1-5-32-544:F' /grant '*S-1-5-18:F'");
});
