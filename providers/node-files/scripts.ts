import { psQuote, shQuote } from "../ssh/powershell";

/**
 * Host-side scripts of the NodeFiles provider. Checksums are computed on the host, so `read` costs one command
 * and no file transfer, whatever the file sizes.
 */

/** Prints `{"<relative path with />": "<sha256 hex>", …}` for every file under `dir`, or `{}` when it is absent. */
export function checksumScript(dir: string, style: "windows" | "posix"): string {
  if (style === "posix") {
    return `d=${shQuote(dir)}; [ -d "$d" ] || { echo '{}'; exit 0; }; cd "$d" && find . -type f -print0 | xargs -0 -r sha256sum`;
  }
  return [
    "$ErrorActionPreference = 'Stop'",
    `$root = ${psQuote(dir)}`,
    "if (-not (Test-Path -LiteralPath $root -PathType Container)) { Write-Output '{}'; exit 0 }",
    "$base = (Resolve-Path -LiteralPath $root).ProviderPath.TrimEnd('\\')",
    "$sums = @{}",
    "foreach ($f in Get-ChildItem -LiteralPath $base -Recurse -File -Force) {",
    "  $rel = $f.FullName.Substring($base.Length).TrimStart('\\').Replace('\\', '/')",
    "  $sums[$rel] = (Get-FileHash -LiteralPath $f.FullName -Algorithm SHA256).Hash.ToLowerInvariant()",
    "}",
    "ConvertTo-Json -InputObject $sums -Compress",
  ].join("\n");
}

/** Parses what `checksumScript` printed into relative path → sha256. */
export function parseChecksums(output: string, style: "windows" | "posix"): Record<string, string> {
  const text = output.trim();
  if (style === "windows" || text === "{}" || text.startsWith("{")) {
    const parsed: unknown = JSON.parse(text === "" ? "{}" : text);
    if (typeof parsed !== "object" || parsed === null)
      throw new Error(`the checksum listing is not a JSON object: ${text.slice(0, 100)}`);
    return Object.fromEntries(Object.entries(parsed).map(([k, v]) => [k, String(v).toLowerCase()]));
  }
  const out: Record<string, string> = {};
  for (const line of text.split("\n")) {
    const m = /^([0-9a-f]{64}) [ *]\.\/(.+)$/.exec(line);
    if (m) out[m[2]] = m[1];
  }
  return out;
}

/** Removes `dir` and everything in it; succeeds when it is already gone. */
export function removeDirScript(dir: string, style: "windows" | "posix"): string {
  if (style === "posix") return `rm -rf -- ${shQuote(dir)}`;
  return [
    "$ErrorActionPreference = 'Stop'",
    `$root = ${psQuote(dir)}`,
    "if (Test-Path -LiteralPath $root) { Remove-Item -LiteralPath $root -Recurse -Force }",
  ].join("\n");
}

/** Removes empty directories left under `dir` after files were removed (never `dir` itself). */
export function pruneEmptyDirsScript(dir: string, style: "windows" | "posix"): string {
  if (style === "posix") return `d=${shQuote(dir)}; [ -d "$d" ] && find "$d" -mindepth 1 -type d -empty -delete; true`;
  return [
    `$root = ${psQuote(dir)}`,
    "if (Test-Path -LiteralPath $root) {",
    "  Get-ChildItem -LiteralPath $root -Recurse -Directory -Force | Sort-Object { $_.FullName.Length } -Descending |",
    "    Where-Object { -not (Get-ChildItem -LiteralPath $_.FullName -Force) } | Remove-Item -Force",
    "}",
  ].join("\n");
}
