import { hostProblems, parseProbe, prepareScript, preparationDrift, probeScript } from "../../../providers/windows-host/scripts";
import { powershellErrors } from "../../helpers/powershell-parser";

const KEY = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOV5dlQWQSK28jlJ4HUAdZdwjLQOseVptgTZMMrslCYc";

test.each([
  ["probe", probeScript(KEY)],
  ["prepare", prepareScript(KEY)],
  ["probe with a quote in the key comment", probeScript("ssh-ed25519 AAAAC3Nz it's")],
])("the %s script parses as PowerShell without errors", async (_n, script) => {
  expect(await powershellErrors(script)).toEqual([]);
});

// Recorded output of the probe on a freshly installed Windows Server 2022 (ConvertTo-Json -Compress, with the BOM
// and CRLF PowerShell writes over SSH), and on one that was prepared.
const FRESH =
  '\uFEFF{"hostname":"WIN-7Q2KDL3","osBuild":"20348","productName":"Windows Server 2022 Datacenter","keyAuthorized":false,"keyFileAclOk":false,"pubkeyAuthentication":"","passwordAuthentication":"","firewallPorts":[],"containerdInstalled":false}\r\n';
const PREPARED =
  '{"hostname":"win-byoh-1","osBuild":"20348","productName":"Windows Server 2022 Datacenter","keyAuthorized":true,"keyFileAclOk":true,"pubkeyAuthentication":"yes","passwordAuthentication":"no","firewallPorts":[22,9182,10250],"containerdInstalled":false}';
// PowerShell 5.1 prints a one-element array as a scalar.
const ONE_PORT = '{"hostname":"h","osBuild":"17763","productName":"Windows Server 2019","keyAuthorized":true,"keyFileAclOk":true,"pubkeyAuthentication":"yes","passwordAuthentication":"no","firewallPorts":22,"containerdInstalled":true}';

test("a fresh host parses, needs preparation and can be prepared", () => {
  const p = parseProbe(FRESH);
  expect(p).toMatchObject({ hostname: "WIN-7Q2KDL3", osBuild: "20348", keyAuthorized: false, firewallPorts: [] });
  expect(hostProblems(p)).toEqual([]);
  expect(preparationDrift(p)).toEqual(["WMCO key not authorized", "administrators_authorized_keys ACL", "PasswordAuthentication", "firewall port 22", "firewall port 10250", "firewall port 9182"]);
});

test("a prepared host has no drift", () => {
  expect(preparationDrift(parseProbe(PREPARED))).toEqual([]);
});

test("scalar-for-array output and a pre-installed containerd", () => {
  const p = parseProbe(ONE_PORT);
  expect(p.firewallPorts).toEqual([22]);
  expect(hostProblems(p)).toEqual([expect.stringMatching(/containerd is already installed/)]);
});

test("hostnames WMCO cannot use and unsupported builds are named", () => {
  const p = parseProbe(PREPARED);
  expect(hostProblems({ ...p, hostname: "win_byoh" })).toEqual([expect.stringMatching(/RFC 1123/)]);
  expect(hostProblems({ ...p, osBuild: "14393", productName: "Windows Server 2016" })).toEqual([expect.stringMatching(/14393 \(Windows Server 2016\) is not a Windows Server version WMCO supports/)]);
});

test("garbage instead of JSON is a clear error", () => {
  expect(() => parseProbe("Access is denied.")).toThrow(/printed no JSON/);
});
