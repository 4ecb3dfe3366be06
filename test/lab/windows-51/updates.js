// The stand-in's rules for Windows Update and pending restarts (see index.js): what the patch scripts read on a host.

/** @type {{ id: string, area: string, rule: string, source: string, rows: number[] }[]} */
const RULES = [
  {
    id: "updates.pending-file-renames",
    area: "updates",
    rule:
      "PendingFileRenameOperations (HKLM\\SYSTEM\\CurrentControlSet\\Control\\Session Manager) is the queue of " +
      "file moves any program asks for at the next boot (MoveFileEx with MOVEFILE_DELAY_UNTIL_REBOOT), not Windows " +
      "Update's restart state; that is ISystemInformation.RebootRequired (with the CBS RebootPending and WU " +
      "RebootRequired keys), which Ansible's win_updates reads alone to decide a restart.",
    source:
      "Microsoft Learn winbase.h MoveFileExW (MOVEFILE_DELAY_UNTIL_REBOOT: the moves are stored in " +
      "PendingFileRenameOperations); ansible-collections/ansible.windows plugins/modules/win_updates.ps1 " +
      "Install-WindowsUpdate (RebootRequired from Microsoft.Update.SystemInfo only); plugins/modules/win_reboot_info.ps1 " +
      "Test-PendingFileRename (a separate reason)",
    rows: [14],
  },
];

module.exports = { RULES };
