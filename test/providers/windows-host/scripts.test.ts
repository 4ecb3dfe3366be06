import {
  byohPrerequisites,
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
  ["probe of an address", probeScript(KEY, "10.0.0.42")],
  ["probe of a DNS name with a quote", probeScript(KEY, "win-1.example.com'")],
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

// WMCO's BYOH prerequisites (docs/byoh-instance-pre-requisites.md, release-4.18 to master): "A PTR record must exist
// corresponding to the instance address which resolves to the instance hostname"; "If the instance uses a static IP,
// and the instance is *not* running Windows Server 2022, deviceless NICs must be disabled" with
// `New-ItemProperty HKLM:\SYSTEM\CurrentControlSet\Services\hns\State -Name DeviceLessNicDisabled ... -Value 1`.
describe("BYOH prerequisites the host can show", () => {
  const base = { ...parseProbe(PREPARED), wmcoIPv4: "10.0.0.42", ptrNames: ["win-byoh-1.corp.example."] };
  const on2019 = { ...base, osBuild: "17763", updateRevision: 6893, productName: "Windows Server 2019" };

  test("the probe reads the address, the PTR record, DHCP on the address's interface and the registry value", () => {
    const s = probeScript(KEY, "10.0.0.42");
    expect(s).toContain("$address = '10.0.0.42'");
    // DNS only: LLMNR/NetBIOS would answer for the host's own address and hide a missing record.
    expect(s).toMatch(/Resolve-DnsName -Name \$ipv4 -Type PTR -DnsOnly/);
    expect(s).toContain("Get-NetIPInterface -InterfaceIndex $ip.InterfaceIndex -AddressFamily IPv4");
    expect(s).toContain(
      "Get-ItemProperty -Path 'HKLM:\\SYSTEM\\CurrentControlSet\\Services\\hns\\State' -Name 'DeviceLessNicDisabled'",
    );
    const p = parseProbe(
      '{"hostname":"h","osBuild":"17763","wmcoIPv4":"10.0.0.42","ptrNames":"h.example.com","addressDhcp":"Disabled","deviceLessNicDisabled":1}',
    );
    expect(p).toMatchObject({ ptrNames: ["h.example.com"], addressDhcp: "Disabled", deviceLessNicDisabled: 1 });
    // An older probe's output (a state written before these fields): nothing is found or required.
    expect(parseProbe(PREPARED)).toMatchObject({ wmcoIPv4: "", ptrNames: [], deviceLessNicDisabled: -1 });
    expect(byohPrerequisites(parseProbe(PREPARED))).toEqual({ problems: [], warnings: [] });
  });

  test("a PTR record naming the host (FQDN, trailing dot, any case) is enough", () => {
    expect(byohPrerequisites(base)).toEqual({ problems: [], warnings: [] });
    expect(byohPrerequisites({ ...base, ptrNames: ["WIN-BYOH-1.Corp.Example"] }).warnings).toEqual([]);
  });

  // Audit row 8 (issue 41): on AWS WMCO names the Node after instance metadata's `local-hostname`
  // (pkg/services/services.go getHostnameCmd), and its CSR approver accepts a PTR record that contains the Node name
  // (pkg/csr/csr.go matchesDNS); the VPC's own record is that name, so a VM this stack created must not be warned.
  test("on AWS the record is compared with the Node name WMCO gives the host (the private DNS name), not the computer name", () => {
    const aws = { ...base, hostname: "winbyoh-1", ptrNames: ["ip-10-0-0-42.us-east-2.compute.internal."] };
    const nodeName = "ip-10-0-0-42.us-east-2.compute.internal";
    expect(byohPrerequisites(aws, nodeName)).toEqual({ problems: [], warnings: [] });
    // Without the Node name (the code before the fix) every AWS host was warned.
    expect(byohPrerequisites(aws).warnings).toHaveLength(1);
    // A record that names something else, or none, still warns, naming the record to add for the Node name.
    expect(byohPrerequisites({ ...aws, ptrNames: ["winbyoh-1.corp.example"] }, nodeName).warnings).toEqual([
      expect.stringMatching(
        /names winbyoh-1\.corp\.example, not the Node name WMCO gives the host, ip-10-0-0-42\.us-east-2\.compute\.internal: .*point 42\.0\.0\.10\.in-addr\.arpa at ip-10-0-0-42\.us-east-2\.compute\.internal$/,
      ),
    ]);
    expect(byohPrerequisites({ ...aws, ptrNames: [] }, nodeName).warnings).toEqual([
      expect.stringMatching(
        /add a PTR record 42\.0\.0\.10\.in-addr\.arpa → ip-10-0-0-42\.us-east-2\.compute\.internal to your DNS$/,
      ),
    ]);
  });

  test("no PTR record, or one naming another host, is a warning with the record to add; never a refusal (pkg/csr/csr.go validateNodeName falls back to the hostname)", () => {
    const missing = byohPrerequisites({ ...base, ptrNames: [] });
    expect(missing.problems).toEqual([]);
    expect(missing.warnings).toEqual([
      expect.stringMatching(
        /^DNS gives no PTR record for 10\.0\.0\.42 \(asked by the host win-byoh-1\).*add a PTR record 42\.0\.0\.10\.in-addr\.arpa → win-byoh-1\.<your domain>/,
      ),
    ]);
    expect(hostProblems({ ...base, ptrNames: [] }, first)).toEqual([]);
    // "win-byoh-10" contains "win-byoh-1" but is another host.
    expect(byohPrerequisites({ ...base, ptrNames: ["win-byoh-10.corp.example"] }).warnings).toEqual([
      expect.stringMatching(
        /PTR record for 10\.0\.0\.42 names win-byoh-10\.corp\.example, not the host's name win-byoh-1/,
      ),
    ]);
  });

  test("a static address on 2019 without DeviceLessNicDisabled=1 refuses a host WMCO has not joined, naming the fix", () => {
    const stat = { ...on2019, addressDhcp: "Disabled" };
    expect(byohPrerequisites(stat).problems).toEqual([
      expect.stringMatching(
        /^10\.0\.0\.42 is a static address .* win-byoh-1 runs Windows Server 2019: .*DeviceLessNicDisabled is not set; .*New-ItemProperty -Path 'HKLM:\\SYSTEM\\CurrentControlSet\\Services\\hns\\State' -Name DeviceLessNicDisabled -PropertyType DWORD -Value 1/,
      ),
    ]);
    expect(hostProblems(stat, first)).toEqual([expect.stringMatching(/DeviceLessNicDisabled is not set/)]);
    expect(byohPrerequisites({ ...stat, deviceLessNicDisabled: 0 }).problems).toEqual([
      expect.stringMatching(/DeviceLessNicDisabled is 0/),
    ]);
    expect(byohPrerequisites({ ...stat, deviceLessNicDisabled: 1 })).toEqual({ problems: [], warnings: [] });
    // 2025 is not exempt either (only 2022 is).
    expect(byohPrerequisites({ ...stat, osBuild: "26100" }).problems).toEqual([
      expect.stringMatching(/runs Windows Server 2025/),
    ]);
  });

  test("not required on 2022, with DHCP, or when no interface carries the address; a joined host only warns", () => {
    expect(byohPrerequisites({ ...base, addressDhcp: "Disabled" })).toEqual({ problems: [], warnings: [] });
    expect(byohPrerequisites({ ...on2019, addressDhcp: "Enabled" })).toEqual({ problems: [], warnings: [] });
    expect(byohPrerequisites({ ...on2019, addressDhcp: "" })).toEqual({ problems: [], warnings: [] });
    const joined = byohPrerequisites({ ...on2019, addressDhcp: "Disabled", wmcoServices: ["kubelet"] });
    expect(joined.problems).toEqual([]);
    expect(joined.warnings).toEqual([expect.stringMatching(/static address/)]);
  });
});
