/**
 * One PowerShell process per operation. Starting PowerShell is the dominant cost of a remote step on a real Windows
 * host (hundreds of milliseconds to seconds, more than the SSH round trip), so an operation's steps (probe, change,
 * check) run in one process: the runner reads each script from standard input, runs it, and answers with one framed
 * line. The decisions between steps stay in TypeScript; only the process is shared.
 *
 * Reading work from standard input over Win32-OpenSSH is what Ansible's PowerShell pipelining relies on
 * (ansible/ansible lib/ansible/executor/powershell/bootstrap_wrapper.ps1 reads its exec wrapper from stdin). The
 * console host reads standard input itself only for a command that uses `$input` (PowerShell/PowerShell
 * ConsoleHost.cs: `AstSearcher.IsUsingDollarInput` sets `ReadInputObjects`, Executor.cs then feeds stdin lines into
 * the pipeline), so the runner never names `$input` and reads `[Console]::In` line by line, without a competing
 * reader. The lab's PowerShell stand-in speaks the same protocol; only a real Windows host proves PowerShell's side.
 */
import { unreachableError } from "../../lib/errors";
import { get, str } from "../../lib/json";
import { readableStderr } from "./clixml";
import { powershellCommand } from "./powershell";
import { RemoteProcess, Session } from "./session";

/** Marks the runner's answer lines; anything else the process prints belongs to the step that printed it. */
export const RUNNER_FRAME = "##windows-estate-runner:";

/**
 * The runner: for each base64 (UTF-16LE) line on standard input, runs it as a script block and prints one frame:
 * `RUNNER_FRAME` + base64 (UTF-8) of `{ ok, output, error }`, base64 so that no console encoding can mangle it. An
 * empty line or the end of input ends it. A script that throws is answered with `ok: false` and its message; the
 * runner goes on. Progress records are silenced (they would reach the SSH channel as CLIXML).
 */
export function runnerScript(): string {
  return [
    "$ErrorActionPreference = 'Stop'",
    "$ProgressPreference = 'SilentlyContinue'",
    "while ($true) {",
    "  $line = [Console]::In.ReadLine()",
    "  if ([string]::IsNullOrEmpty($line)) { break }",
    "  $answer = [ordered]@{ ok = $true; output = ''; error = '' }",
    "  try {",
    "    $text = [System.Text.Encoding]::Unicode.GetString([System.Convert]::FromBase64String($line))",
    "    $answer.output = [string](& ([scriptblock]::Create($text)) | Out-String -Width 16384)",
    "  } catch {",
    "    $answer.ok = $false",
    "    $answer.error = [string]$_.Exception.Message",
    "  }",
    "  $json = [pscustomobject]$answer | ConvertTo-Json -Compress",
    `  [Console]::Out.WriteLine('${RUNNER_FRAME}' + [System.Convert]::ToBase64String([System.Text.Encoding]::UTF8.GetBytes($json)))`,
    "  [Console]::Out.Flush()",
    "}",
  ].join("\n");
}

/** One script's line for the runner. */
export function runnerLine(script: string): string {
  return Buffer.from(script, "utf16le").toString("base64") + "\n";
}

/** Parses a frame's payload; undefined when the line is not a frame. */
export function parseFrame(line: string): { ok: boolean; output: string; error: string } | undefined {
  if (!line.startsWith(RUNNER_FRAME)) return undefined;
  let raw: unknown;
  try {
    raw = JSON.parse(Buffer.from(line.slice(RUNNER_FRAME.length), "base64").toString("utf8"));
  } catch {
    return { ok: false, output: "", error: "the runner's answer could not be read" };
  }
  return { ok: get(raw, "ok") === true, output: str(get(raw, "output")) ?? "", error: str(get(raw, "error")) ?? "" };
}

/** Runs scripts in the operation's PowerShell process. */
export interface PowerShell {
  /**
   * Runs one script and returns what it printed. A script that fails throws `<target>: <what> failed: <message>`; a
   * connection lost meanwhile is an unreachable error from the SSH layer (a reboot looks like that, too).
   */
  run(what: string, script: string): Promise<string>;
}

/** Waits for the frame answering the script just sent; throws only when the process or connection fails. */
async function answer(p: RemoteProcess, target: string, what: string): Promise<{ ok: boolean; text: string }> {
  const stray: string[] = [];
  for (;;) {
    const line = await p.nextLine(`${what} (PowerShell)`);
    if (line === undefined) {
      // Flagged unreachable: the usual cause is the host going down under it (a restart expects exactly this).
      const err = readableStderr(p.takeStderr()).trim();
      throw unreachableError(
        `${target}: ${what} failed: PowerShell ended before answering${err ? `: ${err.slice(-300)}` : ""}`,
      );
    }
    const frame = parseFrame(line);
    if (!frame) {
      stray.push(line);
      continue;
    }
    const err = readableStderr(p.takeStderr()).trim();
    if (!frame.ok) return { ok: false, text: `${frame.error.trim()}${err ? ` (${err.slice(-300)})` : ""}` };
    return { ok: true, text: [...stray, frame.output].join("\n") };
  }
}

/**
 * Starts the runner on the session's host, gives `fn` a `PowerShell` to run scripts in, and ends the process
 * afterwards (also when `fn` fails). `target` names the host in errors.
 */
export async function withPowerShell<T>(s: Session, target: string, fn: (ps: PowerShell) => Promise<T>): Promise<T> {
  const p = await s.start(powershellCommand(runnerScript()));
  let broken = false;
  const ps: PowerShell = {
    async run(what, script) {
      if (broken) throw new Error(`${target}: ${what} not run: the PowerShell process had already failed`);
      p.write(runnerLine(script));
      // A failed script is answered and the runner goes on; a process that ended, timed out or lost its connection
      // is not reusable.
      const a = await answer(p, target, what).catch((e: unknown) => {
        broken = true;
        throw e;
      });
      if (!a.ok) throw new Error(`${target}: ${what} failed: ${a.text}`);
      return a.text;
    },
  };
  try {
    return await fn(ps);
  } finally {
    if (!broken) {
      // The empty line ends the runner by itself, whether or not the server passes the channel's EOF on to
      // PowerShell's standard input: Server 2019 ships Win32-OpenSSH 7.7.2.1, older than the 7.9 Ansible supports
      // (ansible-documentation os_guide/windows_ssh.rst), and EOF handling there has had bugs (PowerShell/Win32-OpenSSH
      // #563, #1613). Without it, a runner that never sees EOF waits until the command timeout.
      p.write("\n");
      await p.end().catch(() => undefined);
    }
  }
}
