/**
 * WMCO's prerequisites for a bring-your-own Windows host that the host itself can show
 * (openshift/windows-machine-config-operator docs/byoh-instance-pre-requisites.md, the same text on release-4.18 to
 * master).
 */

/**
 * A host with a static IP that does not run Windows Server 2022 must have deviceless NICs disabled: this DWORD set to
 * 1. The docs give the `New-ItemProperty` command and name no reboot.
 */
export const BYOH_DEVICELESS_NIC = {
  key: "HKLM:\\SYSTEM\\CurrentControlSet\\Services\\hns\\State",
  name: "DeviceLessNicDisabled",
  value: 1,
  /** The Windows Server version the docs exempt. */
  exempt: "2022",
} as const;
