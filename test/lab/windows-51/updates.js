// The stand-in's rules for Windows Update and pending restarts (see index.js): what the patch scripts read on a host.

/** @type {{ id: string, area: string, rule: string, source: string, rows: number[] }[]} */
const RULES = [
  {
    id: "updates.pending-file-renames",
    area: "updates",
    rule:
      "PendingFileRenameOperations (HKLM\\SYSTEM\\CurrentControlSet\\Control\\Session Manager) stays set on many " +
      "hosts (antivirus, drivers, installers queue renames for the next boot); Windows Update's own restart state " +
      "(ISystemInformation.RebootRequired, the CBS RebootPending and WU RebootRequired keys) does not include it.",
    source:
      "ansible-collections/ansible.windows plugins/modules/win_updates.ps1 Install-WindowsUpdate (RebootRequired " +
      "from Microsoft.Update.SystemInfo only); plugins/modules/win_reboot_info.ps1 Test-PendingFileRename (a " +
      "separate reason)",
    rows: [14],
  },
];

module.exports = { RULES };
