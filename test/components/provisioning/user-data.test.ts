import {
  AZURE_RUN_CUSTOM_DATA,
  awsUserData,
  firstBootScript,
  FirstBoot,
} from "../../../components/provisioning/user-data";
import { powershellErrors } from "../../helpers/powershell-parser";

const KEY = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIE4xampleKeyOnlyForTheseTestsAAAAAAAAAAAAAAAA wmco";
const base: FirstBoot = { cloud: "aws", publicKey: KEY, hostname: "winbyoh-1", tcpPorts: [10250, 9182], udpPorts: [] };

test.each([
  ["AWS", firstBootScript(base)],
  ["Azure", firstBootScript({ ...base, cloud: "azure", neverExpiringAdmin: "capi" })],
  ["vanilla node", firstBootScript({ ...base, udpPorts: [4789] })],
  ["a key with a quote", firstBootScript({ ...base, publicKey: "ssh-ed25519 AAAA o'brien" })],
])("the first-boot script (%s) parses as PowerShell without errors", async (_n, script) => {
  expect(await powershellErrors(script)).toEqual([]);
});

test("OpenSSH is installed if missing, Automatic and started; the key is the only line of the admin key file, ACL'd before it takes its name", () => {
  const s = firstBootScript(base);
  expect(s).toContain("Add-WindowsCapability -Online -Name OpenSSH.Server~~~~0.0.1.0");
  expect(s).toContain("Set-Service -Name sshd -StartupType Automatic");
  expect(s).toContain(`Set-Content -LiteralPath $tmp -Value '${KEY}' -Encoding ascii`);
  // Win32-OpenSSH ignores administrators_authorized_keys unless only Administrators (S-1-5-32-544) and SYSTEM
  // (S-1-5-18) can access it; a rename keeps the file's own ACL.
  const lines = s.split("\n");
  const icacls = lines.indexOf(
    "icacls.exe $tmp /inheritance:r /grant '*S-1-5-32-544:F' /grant '*S-1-5-18:F' | Out-Null",
  );
  expect(icacls).toBeGreaterThan(0);
  expect(lines.indexOf("Move-Item -LiteralPath $tmp -Destination $keyFile -Force")).toBeGreaterThan(icacls);
});

test("firewall: 22, 10250 and 9182 always (WMCO prerequisites); VXLAN only when asked", () => {
  const ports = (s: string) => [...s.matchAll(/-Protocol (TCP|UDP) -LocalPort (\d+)/g)].map((m) => `${m[1]} ${m[2]}`);
  expect(ports(firstBootScript(base))).toEqual(["TCP 22", "TCP 10250", "TCP 9182"]);
  expect(ports(firstBootScript({ ...base, udpPorts: [4789] }))).toEqual([
    "TCP 22",
    "TCP 10250",
    "TCP 9182",
    "UDP 4789",
  ]);
});

test("the lower-case hostname comes first, before anything of SSH, and its restart ends the run; Azure's admin password never expires", () => {
  const s = firstBootScript({ ...base, cloud: "azure", neverExpiringAdmin: "capi" });
  const lines = s.split("\n");
  const rename = lines.indexOf("if ([System.Net.Dns]::GetHostName() -cne 'winbyoh-1') {");
  expect(lines.slice(rename, rename + 4)).toEqual([
    "if ([System.Net.Dns]::GetHostName() -cne 'winbyoh-1') {",
    "  Rename-Computer -NewName 'winbyoh-1' -Force -Restart",
    "  exit 0",
    "}",
  ]);
  for (const ssh of ["Add-WindowsCapability", "Start-Service -Name sshd", "Set-Content -LiteralPath $tmp"])
    expect(lines.findIndex((l) => l.includes(ssh))).toBeGreaterThan(rename);
  expect(s).toContain("Set-LocalUser -Name 'capi' -PasswordNeverExpires $true");
  expect(firstBootScript(base)).not.toContain("PasswordNeverExpires");
});

test("AWS user data persists (runs at every boot) so that the run after the rename's restart finishes first boot", () => {
  // AWS, "Run commands on your Windows instance at launch": "To run user data scripts every time you reboot or start
  // the instance, add <persist>true</persist> to the user data"; WMCO's own user data has it (pkg/secrets processTags).
  expect(awsUserData(base).endsWith("</powershell>\n<persist>true</persist>\n")).toBe(true);
  // WMCO's persistent metadata routes (pkg/secrets/secrets.go appendAwsUserDataConfig), on AWS only.
  expect(firstBootScript(base)).toContain("& $ec2launch run-task add-routes --persistent | Out-Null");
  expect(firstBootScript({ ...base, cloud: "azure" })).not.toContain("add-routes");
});

test("no secret in user data: only the public key; EC2 gets it in <powershell> tags; Azure runs the custom data file", () => {
  const u = awsUserData(base);
  expect(u.startsWith("<powershell>\n")).toBe(true);
  expect(u).toContain("\n</powershell>\n");
  // The only "password" words are sshd's setting that turns password logins off.
  expect(u).not.toMatch(/PRIVATE KEY|ConvertTo-SecureString|-Password\b/i);
  expect(u.match(/password/gi)).toEqual(["Password"]);
  expect(AZURE_RUN_CUSTOM_DATA).toContain("C:\\AzureData\\CustomData.bin");
});
