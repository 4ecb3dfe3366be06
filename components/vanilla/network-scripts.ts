/**
 * The PowerShell the Windows flanneld and kube-proxy HostProcess containers run (network-objects.ts mounts them from a
 * ConfigMap). Both run a copy of the host's binary from the container's sandbox, so VanillaNode can replace the host
 * file while they run (Windows cannot overwrite a running executable) and restart the pod to pick it up. Pure; parsed
 * with tree-sitter in the tests; only a real Windows node proves their effect (docs/testing.md, "What is proven where").
 */
import { psQuote } from "../../providers/ssh/powershell";
import { WINDOWS_NETWORK } from "../../facts/kubernetes";
import { PATHS } from "./node-plan";

/** flannel's subnet file on Windows: written once flanneld holds its lease (flannel pkg/subnet `WriteSubnetFile`). */
const SUBNET_ENV = "C:\\run\\flannel\\subnet.env";

/** The host-local reservation that holds kube-proxy's source VIP (the IDs RKE2 uses in pkg/windows/flannel.go). */
const VIP_RESERVATION = { containerId: "kube-proxy", ifName: "source-vip" } as const;

// Flags are quoted: PowerShell's parser reads a bare `--` token as "end of parameters" (tree-sitter agrees).

/** Lines that copy a host binary into the container's sandbox and set `$exe` to the copy. */
function sandboxCopy(hostPath: string): string[] {
  return [
    `$exe = Join-Path $env:CONTAINER_SANDBOX_MOUNT_POINT ${psQuote(hostPath.split("\\").pop() ?? hostPath)}`,
    `Copy-Item -LiteralPath ${psQuote(hostPath)} -Destination $exe -Force`,
  ];
}

/**
 * flanneld with the Kubernetes subnet manager (the Node's podCIDR is its lease), on the node's IP, reading the
 * net-conf NodeFiles wrote. It finds its Node from `NODE_NAME` (flannel pkg/subnet/kube/kube.go) and reaches the API
 * with the pod's service-account token at the address the DaemonSet sets (a host process cannot reach the Service IP).
 */
export function flanneldScript(): string {
  return [
    "$ErrorActionPreference = 'Stop'",
    ...sandboxCopy(PATHS.flanneld),
    `& $exe '--kube-subnet-mgr' ('--iface=' + $env:NODE_IP) ${psQuote(`--net-config-path=${PATHS.flannelNetConf}`)}`,
    "exit $LASTEXITCODE",
  ].join("\n");
}

/**
 * kube-proxy in kernelspace mode on flannel's HNS network (`KUBE_NETWORK`, read by pkg/proxy/winkernel `getNetworkName`).
 * Its source VIP is an address of this node's pod subnet reserved with the CNI `host-local` plugin under flannel's
 * network name (so pods never get it), cached with the subnet it came from and re-reserved when the subnet changes
 * (vanilla-windows-facts §5, §7: a stale VIP after a re-join breaks Services). Waits for flanneld's subnet first.
 */
export function kubeProxyScript(podNetworkCidr: string): string {
  const cache = WINDOWS_NETWORK.sourceVipCache;
  return [
    "$ErrorActionPreference = 'Stop'",
    `$deadline = (Get-Date).AddMinutes(10)`,
    `while (-not (Test-Path -LiteralPath ${psQuote(SUBNET_ENV)})) {`,
    `  if ((Get-Date) -gt $deadline) { throw ('no ' + ${psQuote(SUBNET_ENV)} + ' after 10 minutes: is flanneld running on this node?') }`,
    "  Start-Sleep -Seconds 5",
    "}",
    `$line = Get-Content -LiteralPath ${psQuote(SUBNET_ENV)} | Where-Object { $_ -like 'FLANNEL_SUBNET=*' } | Select-Object -First 1`,
    "if (-not $line) { throw 'subnet.env has no FLANNEL_SUBNET' }",
    // FLANNEL_SUBNET is the gateway address with the prefix (10.244.1.1/24); host-local wants the network address.
    "$address, $bits = $line.Substring('FLANNEL_SUBNET='.Length).Trim().Split('/')",
    "$b = [System.Net.IPAddress]::Parse($address).GetAddressBytes()",
    "for ($i = 0; $i -lt 4; $i++) {",
    "  $keep = [Math]::Max(0, [Math]::Min(8, [int]$bits - 8 * $i))",
    "  $b[$i] = $b[$i] -band ((0xFF -shl (8 - $keep)) -band 0xFF)",
    "}",
    "$subnet = [System.Net.IPAddress]::new($b).ToString() + '/' + $bits",
    `$cache = ${psQuote(cache)}`,
    "$vip = $null",
    "if (Test-Path -LiteralPath $cache) {",
    "  $c = Get-Content -LiteralPath $cache -Raw | ConvertFrom-Json",
    "  if ($c.subnet -eq $subnet -and $c.network -eq $env:KUBE_NETWORK) { $vip = $c.ip }",
    "}",
    "if (-not $vip) {",
    // No dataDir: host-local's default store is the one flannel's pods use for this network name.
    `  $conf = '{"cniVersion":"1.0.0","name":"' + $env:KUBE_NETWORK + '","ipam":{"type":"host-local","ranges":[[{"subnet":"' + $subnet + '"}]]}}'`,
    `  $env:CNI_CONTAINERID = ${psQuote(VIP_RESERVATION.containerId)}`,
    `  $env:CNI_IFNAME = ${psQuote(VIP_RESERVATION.ifName)}`,
    "  $env:CNI_NETNS = 'kube-proxy'",
    `  $env:CNI_PATH = ${psQuote(PATHS.cniBin)}`,
    `  $hostLocal = ${psQuote(`${PATHS.cniBin}\\host-local.exe`)}`,
    // A reservation left from an earlier subnet is released first; DEL of nothing succeeds (CNI SPEC).
    "  $env:CNI_COMMAND = 'DEL'",
    "  $conf | & $hostLocal | Out-Null",
    "  $env:CNI_COMMAND = 'ADD'",
    "  $out = $conf | & $hostLocal",
    "  if ($LASTEXITCODE -ne 0) { throw ('host-local could not reserve the source VIP: ' + ($out -join ' ')) }",
    "  $vip = ((($out -join '') | ConvertFrom-Json).ips[0].address -split '/')[0]",
    "  New-Item -ItemType Directory -Force -Path (Split-Path -Parent $cache) | Out-Null",
    "  $tmp = $cache + '.tmp'",
    "  @{ ip = $vip; subnet = $subnet; network = $env:KUBE_NETWORK } | ConvertTo-Json -Compress | Set-Content -LiteralPath $tmp -Encoding ascii",
    "  Move-Item -LiteralPath $tmp -Destination $cache -Force",
    "}",
    ...sandboxCopy(`${PATHS.kubeDir}\\kube-proxy.exe`),
    `& $exe '--proxy-mode=kernelspace' ('--hostname-override=' + $env:NODE_NAME) ('--source-vip=' + $vip) ${psQuote(`--cluster-cidr=${podNetworkCidr}`)}`,
    "exit $LASTEXITCODE",
  ].join("\n");
}
