import { AZURE_RUN_CUSTOM_DATA, awsUserData, firstBootScript } from "../../../components/provisioning/user-data";
import { powershellErrors } from "../../helpers/powershell-parser";

const KEY = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIE4xampleKeyOnlyForTheseTestsAAAAAAAAAAAAAAAA wmco";
const base = { publicKey: KEY, hostname: "winbyoh-1", tcpPorts: [10250, 9182], udpPorts: [] };

test.each([
  ["AWS", firstBootScript(base)],
  ["Azure", firstBootScript({ ...base, neverExpiringAdmin: "capi" })],
  ["vanilla node", firstBootScript({ ...base, udpPorts: [4789] })],
  ["a key with a quote", firstBootScript({ ...base, publicKey: "ssh-ed25519 AAAA o'brien" })],
])("the first-boot script (%s) parses as PowerShell without errors", async (_n, script) => {
  expect(await powershellErrors(script)).toEqual([]);
});

test("OpenSSH is installed if missing, Automatic and started; the key is the only line of the admin key file, ACL'd", () => {
  const s = firstBootScript(base);
  expect(s).toContain("Add-WindowsCapability -Online -Name OpenSSH.Server~~~~0.0.1.0");
  expect(s).toContain("Set-Service -Name sshd -StartupType Automatic");
  expect(s).toContain(`Set-Content -LiteralPath $keys -Value '${KEY}' -Encoding ascii`);
  // Win32-OpenSSH ignores administrators_authorized_keys unless only Administrators (S-1-5-32-544) and SYSTEM
  // (S-1-5-18) can access it.
  expect(s).toContain("icacls.exe $keys /inheritance:r /grant '*S-1-5-32-544:F' /grant '*S-1-5-18:F'");
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

test("the lower-case hostname is set last (its restart ends the script); Azure's admin password never expires", () => {
  const s = firstBootScript({ ...base, neverExpiringAdmin: "capi" });
  const lines = s.split("\n");
  expect(lines[lines.length - 1]).toBe(
    "if ([System.Net.Dns]::GetHostName() -cne 'winbyoh-1') { Rename-Computer -NewName 'winbyoh-1' -Force -Restart }",
  );
  expect(s).toContain("Set-LocalUser -Name 'capi' -PasswordNeverExpires $true");
  expect(firstBootScript(base)).not.toContain("PasswordNeverExpires");
});

test("no secret in user data: only the public key; EC2 gets it in <powershell> tags; Azure runs the custom data file", () => {
  const u = awsUserData(base);
  expect(u.startsWith("<powershell>\n")).toBe(true);
  expect(u.trimEnd().endsWith("</powershell>")).toBe(true);
  expect(u).not.toMatch(/PRIVATE KEY|password/i);
  expect(AZURE_RUN_CUSTOM_DATA).toContain("C:\\AzureData\\CustomData.bin");
});
