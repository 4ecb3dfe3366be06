import * as fs from "fs";
import type { LabInfo } from "../../lab/record";
import type { LabWindows } from "../lab/lab-windows";
import { labApi } from "./lab";
import { byohEntry, labStack, Stack, stopByohLab } from "./project";

// WMCO's BYOH prerequisites through the real CLI (issue 30, item 6): docs/byoh-instance-pre-requisites.md (release-4.18
// to master) asks for a PTR record for the host's address that resolves to its hostname, and, on a static IP on any
// Windows Server but 2022, `DeviceLessNicDisabled` = 1 under HKLM:\SYSTEM\CurrentControlSet\Services\hns\State. The
// hosts are loopback sshd servers whose `powershell` is the Windows stand-in (test/lab/fake-powershell.js); what DNS and
// the registry answer is set in its state (`ptrNames`, `addressDhcp`, `deviceLessNicDisabled`). Only a Windows host
// proves the probe's PowerShell against real DNS, interfaces and registry. The static host runs Windows Server 2025: the
// lab's OLM installs WMCO 11.0.0 (lab/catalog.ts, the channel head on Kubernetes 1.36), which refuses 2019.

const LAB = "e2e-byoh-prereq";
const NS = "openshift-windows-machine-config-operator";
const STATIC_2025 = "127.0.0.91";
const NO_PTR = "127.0.0.92";
let lab: LabInfo;
let stack: Stack;
let config: Record<string, unknown>;
const hosts: LabWindows[] = [];

const entry = (i: number, windowsServer: string) => ({
  ...byohEntry(hosts[i], i),
  windowsServer,
  sshDeadlineSeconds: 8,
});
const instances = async () =>
  (
    (await labApi(lab).get(`/api/v1/namespaces/${NS}/configmaps/windows-instances`)) as {
      data?: Record<string, string>;
    }
  ).data ?? {};
const setState = (h: LabWindows, over: Record<string, unknown>) =>
  fs.writeFileSync(h.state, JSON.stringify({ ...JSON.parse(fs.readFileSync(h.state, "utf8")), ...over }));

beforeAll(async () => {
  const states = [
    // Windows Server 2025 (build 26100) on a static address, the registry value not set.
    { osBuild: "26100", updateRevision: 4349, productName: "Windows Server 2025 Datacenter", addressDhcp: "Disabled" },
    // Windows Server 2022 whose DNS has no PTR record for its address.
    { ptrNames: [] },
  ];
  ({ lab, stack, config } = await labStack("azure", LAB, {
    file: "Pulumi.dev.yaml",
    byoh: { addresses: [STATIC_2025, NO_PTR], prefix: "win-prereq", hosts, states },
  }));
}, 900_000);
afterAll(() => stopByohLab(LAB, hosts));

test("a missing PTR record is a warning naming the record to add; the host is prepared and listed", async () => {
  config["windows-estate:byoh"] = [entry(1, "2022")];
  stack.writeConfig(config);
  const r = stack.pulumi(["up", "--yes", "--skip-preview"]);
  expect(r.status).toBe(0);
  expect(r.stdout).toContain(
    `BYOH prerequisite: DNS gives no PTR record for ${NO_PTR} (asked by the host win-prereq-1)`,
  );
  expect(r.stdout).toContain("add a PTR record 92.0.0.127.in-addr.arpa → win-prereq-1.<your domain>");
  expect(Object.keys(await instances())).toEqual([NO_PTR]);
});

test("a static 2025 address without DeviceLessNicDisabled is refused before windows-instances lists it; once set, it joins the list", async () => {
  config["windows-estate:byoh"] = [entry(1, "2022"), entry(0, "2025")];
  stack.writeConfig(config);
  const r = stack.pulumi(["up", "--yes", "--skip-preview"]);
  expect(r.status).not.toBe(0);
  expect(r.stdout).toMatch(
    new RegExp(
      `${STATIC_2025.replace(/\./g, "\\.")} is a static address \\(DHCP is off on its interface\\) and win-prereq-0 runs Windows Server 2025: .*DeviceLessNicDisabled is not set; set it in an elevated PowerShell on the host: New-ItemProperty -Path 'HKLM:\\\\SYSTEM\\\\CurrentControlSet\\\\Services\\\\hns\\\\State' -Name DeviceLessNicDisabled -PropertyType DWORD -Value 1 -Force`,
    ),
  );
  expect(r.stdout).toContain("Nothing was changed.");
  // Refused before any change to the host, and WMCO was never told about it.
  expect(fs.readFileSync(hosts[0].state + ".log", "utf8")).not.toContain("Write-Output 'prepared'");
  expect(Object.keys(await instances())).toEqual([NO_PTR]);

  // The fix the message names, as the host's registry would then answer.
  setState(hosts[0], { deviceLessNicDisabled: 1 });
  const again = stack.pulumi(["up", "--yes", "--skip-preview"]);
  expect(again.stdout + again.stderr).not.toContain("DeviceLessNicDisabled");
  expect(again.status).toBe(0);
  expect(Object.keys(await instances()).sort()).toEqual([STATIC_2025, NO_PTR].sort());
});
