/**
 * The PowerShell a graceful reboot runs on a Windows node (the steps of OCP's "Rebooting a node gracefully" and
 * WMCO's SafeReboot), each one script so each step is one PowerShell launch. Proven here by the tree-sitter parse and
 * the lab's PowerShell stand-in; only a real Windows host proves their effect.
 */
import { z } from "zod";
import { fields } from "../../lib/decode";
import { printedObject } from "../ssh/powershell";

/** The last boot time in UTC (ISO 8601): compared before and after, since early Windows kubelets left `bootID` empty. */
export function bootTimeScript(): string {
  return [
    "$ErrorActionPreference = 'Stop'",
    "(Get-CimInstance -ClassName Win32_OperatingSystem).LastBootUpTime.ToUniversalTime().ToString('o')",
  ].join("\n");
}

/** Reboots at once; the SSH session then closes without an exit status, which counts as success (as in WMCO). */
export function rebootScript(): string {
  return ["$ErrorActionPreference = 'Stop'", "Restart-Computer -Force"].join("\n");
}

/** The instance metadata address on AWS, and the route a graceful reboot can lose (WMCO docs/TROUBLESHOOTING.md). */
export const AWS_METADATA_ADDRESS = "169.254.169.254";

/**
 * On AWS, after a reboot: re-adds the host route to the instance metadata service through the default gateway when it
 * is missing (`route add 169.254.169.254 mask 255.255.255.255 <gateway>`; a /32: OCP's page shows .0 but means /32),
 * then checks the metadata endpoint answers. Prints one JSON object (see `parseMetadataRoute`).
 */
export function awsMetadataRouteScript(): string {
  return [
    "$ErrorActionPreference = 'Stop'",
    `$target = '${AWS_METADATA_ADDRESS}'`,
    "$added = $false",
    "$gateway = (Get-NetRoute -DestinationPrefix '0.0.0.0/0' | Sort-Object -Property RouteMetric | Select-Object -First 1).NextHop",
    "if (-not (Get-NetRoute -DestinationPrefix ($target + '/32') -ErrorAction SilentlyContinue)) {",
    "  route.exe add $target mask 255.255.255.255 $gateway | Out-Null",
    "  if ($LASTEXITCODE -ne 0) { throw ('route add failed with exit code ' + $LASTEXITCODE) }",
    "  $added = $true",
    "}",
    "$instanceId = ''",
    "try {",
    "  $instanceId = (Invoke-WebRequest -UseBasicParsing -TimeoutSec 5 -Uri ('http://' + $target + '/latest/meta-data/instance-id')).Content",
    "} catch { $instanceId = '' }",
    "[pscustomobject]@{ routeAdded = $added; gateway = [string]$gateway; instanceId = [string]$instanceId } | ConvertTo-Json -Compress",
  ].join("\n");
}

const metadataRoute = fields({
  routeAdded: z.boolean().catch(false),
  gateway: z.string().catch(""),
  /** Empty when the metadata endpoint did not answer. */
  instanceId: z.string().catch(""),
});

export function parseMetadataRoute(output: string): z.output<typeof metadataRoute> {
  return metadataRoute.parse(printedObject(output, "the metadata route check"));
}
