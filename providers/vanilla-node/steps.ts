/**
 * Which converge steps a vanilla Windows node still needs, decided from its probe and the desired versions. Pure:
 * `read` reports the steps as drift (`pendingSteps`), `update` runs exactly those, in order.
 */
import { z } from "zod";
import { fields } from "../../lib/decode";
import { printedObject } from "../ssh/powershell";
import { Download, ProxyEnv } from "./scripts";
import { WINDOWS_BUILDS } from "../../facts/kubernetes";

/** The steps, in the order they run. */
export const STEPS = [
  "features",
  "host settings",
  "proxy",
  "binaries",
  "containerd service",
  "kubelet service",
  "kubeadm upgrade",
  "join",
  "services",
] as const;
export type Step = (typeof STEPS)[number];

/** A probe field that is text: "" when absent (or of another type); a flag: true only when the probe said so. */
const probeText = z.string().catch("");
const probeFlag = z.boolean().catch(false);

/** What the probe reports, as `parseNodeProbe` reads it: a field that is absent or of another type reads as not found. */
const nodeProbe = z
  .object({
    /** `$env:COMPUTERNAME`: the NetBIOS name (upper case, at most 15 characters), for messages only. */
    hostname: probeText,
    /** The DNS host name, the one the kubelet registers by default (node-name.ts). */
    dnsHostname: probeText,
    osBuild: probeText,
    /** The update build revision (UBR); 0 when unknown. */
    osRevision: z.number().catch(0),
    /** `Installed`, `Available`, `InstallPending`, … (Get-WindowsFeature InstallState). */
    containersFeature: probeText,
    /** Download name → the version recorded when it was installed ("" when never). */
    versions: z.record(z.string(), probeText).catch({}),
    services: z
      .record(z.string(), fields({ status: z.string().min(1).catch("Missing"), startType: probeText }))
      .catch({}),
    firewall: fields({ kubelet: probeFlag, vxlan: probeFlag }),
    joined: probeFlag,
    /** The machine-wide proxy variables ("" when unset), read as `machineProxy`. */
    proxy: fields({ HTTP_PROXY: probeText, HTTPS_PROXY: probeText, NO_PROXY: probeText }),
  })
  .transform(({ proxy, ...p }) => ({ ...p, machineProxy: proxy }));
export type NodeProbe = z.output<typeof nodeProbe>;

export function parseNodeProbe(output: string): NodeProbe {
  return nodeProbe.parse(printedObject(output, "the node probe"));
}

/**
 * Why the host is not the Windows Server release the stack declares for it, or undefined when it is. The RuntimeClass
 * and the images the node runs follow the declared release (a container's build must match the host's), so a 2025
 * host declared 2022 would run pods that cannot start; an in-place OS upgrade shows up here at refresh.
 */
export function osMismatch(p: Pick<NodeProbe, "osBuild">, windowsServer: string | undefined): string | undefined {
  const builds: Record<string, string> = WINDOWS_BUILDS;
  const want = windowsServer === undefined ? undefined : builds[windowsServer];
  if (want === undefined || p.osBuild === want) return undefined;
  const is = Object.keys(builds).find((v) => builds[v] === p.osBuild);
  const what = is
    ? `Windows Server ${is}`
    : `a release this stack does not support (${Object.keys(builds).join(", ")})`;
  return `the host runs build ${p.osBuild || "unknown"}, ${what}, not the declared ${windowsServer} (build ${want})`;
}

/**
 * The downloads whose replacement takes the node out of service: the kubelet (and kube-log-runner, which runs it) and
 * containerd restart, so its pods are drained first. flanneld and kube-proxy run in their DaemonSets' pods (restarted
 * one by one), and CNI plugins are run per pod sandbox: replacing those disrupts nothing.
 */
export const DISRUPTIVE_DOWNLOADS: readonly string[] = ["containerd", "kubelet", "kube-log-runner", "kubeadm"];

/** No proxy: every variable unset. */
export const NO_PROXY_ENV: ProxyEnv = { HTTP_PROXY: "", HTTPS_PROXY: "", NO_PROXY: "" };

const running = (p: NodeProbe, s: string) =>
  p.services[s]?.status === "Running" && p.services[s]?.startType === "Automatic";

/**
 * The steps still to run, each with why. A changed version of any download re-runs `binaries` and restarts what uses
 * them (an upgrade); a stopped or manual service re-runs its step; a node that is not joined joins.
 */
export function pendingSteps(
  p: NodeProbe,
  downloads: readonly Download[],
  proxy: ProxyEnv = NO_PROXY_ENV,
): { step: Step; why: string }[] {
  const out: { step: Step; why: string }[] = [];
  if (p.containersFeature !== "Installed")
    out.push({ step: "features", why: `Containers feature is ${p.containersFeature || "unknown"}` });
  if (!p.firewall.kubelet || !p.firewall.vxlan)
    out.push({
      step: "host settings",
      why: `firewall rule missing: ${[!p.firewall.kubelet && "kubelet 10250/TCP", !p.firewall.vxlan && "VXLAN"].filter(Boolean).join(", ")}`,
    });
  const proxyDiff = (["HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY"] as const).filter((k) => p.machineProxy[k] !== proxy[k]);
  if (proxyDiff.length > 0) out.push({ step: "proxy", why: `machine ${proxyDiff.join(", ")} differ` });
  const stale = downloads.filter((d) => p.versions[d.name] !== d.version);
  if (stale.length > 0)
    out.push({
      step: "binaries",
      why: stale.map((d) => `${d.name} ${p.versions[d.name] || "absent"} → ${d.version}`).join(", "),
    });
  const upgraded = (name: string) => stale.some((d) => d.name === name);
  if (!running(p, "containerd") || upgraded("containerd"))
    out.push({
      step: "containerd service",
      why: upgraded("containerd") ? "containerd upgraded" : `containerd is ${serviceState(p, "containerd")}`,
    });
  if (p.services.kubelet?.status === "Missing" || p.services.kubelet?.startType !== "Automatic" || upgraded("kubelet"))
    out.push({
      step: "kubelet service",
      why: upgraded("kubelet") ? "kubelet upgraded" : `kubelet service is ${serviceState(p, "kubelet")}`,
    });
  if (p.joined && upgraded("kubeadm"))
    out.push({
      step: "kubeadm upgrade",
      why: `kubeadm upgraded to ${downloads.find((d) => d.name === "kubeadm")?.version}`,
    });
  if (!p.joined) out.push({ step: "join", why: "the node has not joined (no kubelet.conf)" });
  if (p.joined && (!running(p, "kubelet") || upgraded("kubelet")))
    out.push({ step: "services", why: `kubelet is ${serviceState(p, "kubelet")}` });
  return out;
}

function serviceState(p: NodeProbe, s: string): string {
  const svc = p.services[s];
  if (!svc || svc.status === "Missing") return "not registered";
  return `${svc.status.toLowerCase()} (${svc.startType || "unknown start type"})`;
}
