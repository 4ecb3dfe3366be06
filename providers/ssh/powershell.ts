/**
 * A PowerShell script as one command line that works whatever the host's default shell is (cmd.exe or
 * PowerShell): `-EncodedCommand` takes base64 of UTF-16LE, so no quoting or escaping can go wrong.
 */
export function powershellCommand(script: string): string {
  const encoded = Buffer.from(script, "utf16le").toString("base64");
  return `powershell -NoProfile -NonInteractive -ExecutionPolicy Bypass -EncodedCommand ${encoded}`;
}

/** A string as a PowerShell single-quoted literal: only `'` needs escaping (doubled). */
export function psQuote(s: string): string {
  return `'${s.replace(/'/g, "''")}'`;
}

/** A string as a POSIX shell single-quoted literal. */
export function shQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}
