// The stand-in's rules for transport (see index.js): what happens to a command between the SSH channel and
// PowerShell on a Windows host, and how Windows PowerShell 5.1 writes its errors back.

/** cmd.exe's limit on one command line, in characters (Microsoft KB830473). */
const CMD_EXE_MAX_COMMAND_LINE = 8191;

/** @type {{ id: string, area: string, rule: string, source: string, rows: number[] }[]} */
const RULES = [
  {
    id: "transport.cmd-line-limit",
    area: "transport",
    rule:
      "Win32-OpenSSH runs an exec request through the default shell, cmd.exe, which refuses a command line longer " +
      `than ${CMD_EXE_MAX_COMMAND_LINE} characters with "The command line is too long." and runs nothing.`,
    source:
      'Microsoft KB830473 "Command prompt (Cmd.exe) command-line string limitation"; ansible/ansible-documentation ' +
      'docs/docsite/rst/os_guide/windows_ssh.rst "Default Shell Configuration" (cmd.exe unless HKLM\\SOFTWARE\\OpenSSH ' +
      "DefaultShell is set)",
    rows: [10],
  },
  {
    id: "transport.stderr-clixml",
    area: "transport",
    rule:
      "powershell.exe started with -EncodedCommand and a redirected stderr writes its error records as CLIXML: a " +
      '"#< CLIXML" line, then <Objs> with one <S S="Error"> string per line of the error, control characters ' +
      "and `_x` escaped as _xHHHH_ (CR LF is _x000D__x000A_).",
    source:
      "PowerShell/PowerShell src/Microsoft.PowerShell.ConsoleHost/host/msh/Serialization.cs WrappedSerializer " +
      "(XmlCliTag); src/System.Management.Automation/engine/serialization.cs InternalSerializer.EncodeString; " +
      "issues PowerShell/PowerShell#5912, #16678",
    rows: [11],
  },
  {
    id: "transport.runner-eof",
    area: "transport",
    rule:
      "Modelled, not measured: an sshd that never passes the channel's EOF on to the process's standard input, so a " +
      "process waiting for the end of its input never ends and only an explicit end-of-work line ends it. Ansible " +
      "supports Win32-OpenSSH 7.9 or later only, and Server 2019 ships 7.7.2.1; Win32-OpenSSH's EOF handling has " +
      "had bugs (issues #563, #1613).",
    source:
      "ansible/ansible-documentation docs/docsite/rst/os_guide/windows_ssh.rst (minimum 7.9.0.0; Server 2019 ships " +
      "7.7.2.1); PowerShell/Win32-OpenSSH#563, #1613",
    rows: [12],
  },
  {
    id: "transport.restart-answer",
    area: "transport",
    rule:
      "Restart-Computer -Force over SSH either returns (its exec ends with exit 0) before Windows goes down, or the " +
      "connection drops first with no exit status; which one happens is a race.",
    source:
      "openshift/windows-machine-config-operator pkg/windows/windows.go RebootAndReinitialize (tolerates " +
      "cmdExitNoStatus, then waits for SSH to become unreachable)",
    rows: [13],
  },
];

/**
 * Why cmd.exe would refuse this command line, or undefined when it runs it (`transport.cmd-line-limit`). The message
 * is cmd.exe's own.
 */
function execCommandLineProblem(commandLine) {
  return commandLine.length > CMD_EXE_MAX_COMMAND_LINE ? "The command line is too long." : undefined;
}

/** serialization.cs InternalSerializer.EncodeString: control characters, surrogates and `_x`/`_X`'s `_`. */
function encodeString(s) {
  let out = "";
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    const underscoreX = c === 0x5f && i + 1 < s.length && (s[i + 1] === "x" || s[i + 1] === "X");
    if (c <= 0x1f || (c >= 0x7f && c <= 0x9f) || (c >= 0xd800 && c <= 0xdfff) || underscoreX)
      out += `_x${c.toString(16).toUpperCase().padStart(4, "0")}_`;
    else out += s[i];
  }
  return out;
}

/** XmlWriter's escaping of element text. */
const xmlText = (s) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

/**
 * How Windows PowerShell 5.1 writes an error to a redirected stderr when started with -EncodedCommand
 * (`transport.stderr-clixml`): the header line, then one `<S S="Error">` per line of the error text, each line with
 * its CR LF.
 */
function clixml(errorText) {
  const lines = errorText.replace(/\r?\n$/, "").split(/\r?\n/);
  const records = lines.map((l) => `<S S="Error">${xmlText(encodeString(l + "\r\n"))}</S>`).join("");
  return `#< CLIXML\r\n<Objs Version="1.1.0.1" xmlns="http://schemas.microsoft.com/powershell/2004/04">${records}</Objs>`;
}

module.exports = { RULES, CMD_EXE_MAX_COMMAND_LINE, execCommandLineProblem, clixml };
