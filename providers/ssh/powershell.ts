import { obj, parseJson } from "../../lib/json";

/**
 * A PowerShell script as one command line that works whatever the host's default shell is (cmd.exe or
 * PowerShell): `-EncodedCommand` takes base64 of UTF-16LE, so no quoting or escaping can go wrong.
 */
export function powershellCommand(script: string): string {
  const encoded = Buffer.from(script, "utf16le").toString("base64");
  return `powershell -NoProfile -NonInteractive -ExecutionPolicy Bypass -EncodedCommand ${encoded}`;
}

/**
 * The longest command line cmd.exe accepts (Microsoft KB830473, "Command prompt (Cmd.exe) command-line string
 * limitation"). Win32-OpenSSH runs an exec request through its default shell, cmd.exe unless the host sets another,
 * which refuses a longer line and runs nothing.
 */
export const CMD_EXE_MAX_COMMAND_LINE = 8191;

/**
 * Why a command line cannot be sent to a Windows host as one exec request, or undefined when it can. Long scripts go
 * through the PowerShell runner's standard input (powershell-runner.ts), which has no such limit.
 */
export function commandLineProblem(command: string, target: string): string | undefined {
  if (command.length <= CMD_EXE_MAX_COMMAND_LINE) return undefined;
  return (
    `${target}: not run: the command line is ${command.length} characters, more than the ${CMD_EXE_MAX_COMMAND_LINE} ` +
    `cmd.exe (Win32-OpenSSH's default shell) accepts (Microsoft KB830473). This is a bug in windows-estate: a script ` +
    `this long must be sent through the PowerShell runner; please report it`
  );
}

/**
 * A string as a PowerShell single-quoted literal. PowerShell's tokenizer ends such a string at any of five single
 * quotes, the ASCII one and U+2018, U+2019, U+201A, U+201B (PowerShell src/System.Management.Automation/engine/parser/
 * CharTraits.cs `SpecialChars`, `IsSingleQuote`), and reads two of them in a row as the second (tokenizer.cs
 * `ScanStringLiteral`): so each is doubled, or a value such as "Anna’s laptop" would end the string early. Nothing
 * else is special inside single quotes (about_Quoting_Rules).
 */
export function psQuote(s: string): string {
  return `'${s.replace(/['\u2018\u2019\u201a\u201b]/g, "$&$&")}'`;
}

/** A string as a POSIX shell single-quoted literal. */
export function shQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

/**
 * The JSON object a script printed last (`ConvertTo-Json -Compress`), read past a BOM and anything written before it;
 * `what` names the script in the error when there is none.
 */
export function printedObject(output: string, what: string): Record<string, unknown> {
  const text = output.replace(/^\uFEFF/, "").trim();
  const start = text.indexOf("{");
  const raw = start < 0 ? undefined : obj(parseJson(text.slice(start)));
  if (!raw) throw new Error(`${what} printed no JSON: ${JSON.stringify(text.slice(0, 200))}`);
  return raw;
}
