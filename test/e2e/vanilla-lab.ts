import * as fs from "fs";
import * as path from "path";
import type { LabInfo } from "../../lab/record";
import { DEFAULT_CONTAINERD, FLANNEL_CNI_PLUGIN_VERSION, FLANNEL_VERSION } from "../../facts/kubernetes";
import { ArtifactServer, releaseArtifacts, startArtifactServer } from "../helpers/artifact-server";
import { LabWindows, labWindows } from "../lab/lab-windows";
import { stopLab } from "./lab";
import { exampleConfig, labProject, Stack } from "./project";

/**
 * The setup of the vanilla (kubeadm) suites that join Windows hosts through the real CLI: a `--platform none` lab (the
 * real API server, controller manager and scheduler, no players unless asked), the HTTPS mirror the hosts download from, one loopback sshd
 * host per address whose `powershell` is the Windows stand-in (with a C: drive of its own and the mirror's CA in its
 * certificate store), and a stack of the kubeadm example pointed at them, with what discovery finds left out.
 */
export interface VanillaLab {
  lab: LabInfo;
  stack: Stack;
  /** The stack's config as first written; `useConfig` writes variations of it. */
  config: Record<string, unknown>;
  mirror: ArtifactServer;
  served: ReturnType<typeof releaseArtifacts>;
  hosts: LabWindows[];
  /** Writes the config with `kubernetes` and `cluster` entries replaced by `over` and `cluster`. */
  useConfig(over: Record<string, unknown>, cluster?: Record<string, unknown>): void;
  stop(): Promise<void>;
}

export interface VanillaLabOptions {
  /** The lab's name (`npm run lab -- start --name`). */
  lab: string;
  stack: string;
  /** One host per address (each on its own loopback address, port 22), with its hostname. */
  hosts: { address: string; hostname: string }[];
  /** The Kubernetes versions the mirror serves (each with its own binaries and published sums). */
  kubernetes: readonly string[];
  /**
   * The `windows-estate:nodes` entries, from each host's base entry (address, user, host key, bootstrap key). Default:
   * the base entries.
   */
  nodes?: (base: Record<string, unknown>[]) => Record<string, unknown>[];
  /** More of each simulated host's state (test/lab/windows-state.ts), e.g. how often its kubelet renews its Lease. */
  hostState?: Record<string, unknown>;
  /**
   * `npm run lab -- start` options for the lab beyond `--platform none`: default `--no-players` (a bare kubeadm
   * cluster); `--players linux-nodes` adds the Linux nodes a relay pod runs on.
   */
  labArgs?: string[];
}

export async function startVanillaLab(o: VanillaLabOptions): Promise<VanillaLab> {
  const hosts: LabWindows[] = [];
  let mirror: ArtifactServer | undefined;
  try {
    const { lab, dir } = await labProject("none", o.lab, o.labArgs ?? ["--no-players"]);
    const served = releaseArtifacts({ kubernetes: o.kubernetes, containerd: DEFAULT_CONTAINERD });
    mirror = await startArtifactServer(served.files);
    for (const [i, h] of o.hosts.entries()) {
      const w = await labWindows(
        h.address,
        h.hostname,
        // The mirror's CA is in the host's certificate store, as a disconnected site's would be.
        { trustedCaFiles: [mirror.caFile], ...o.hostState },
        { drives: true },
      );
      fs.writeFileSync(path.join(dir, ".dev", `node-${i}`), w.host.privateKey, { mode: 0o600 });
      hosts.push(w);
    }
    const config = exampleConfig(dir, "stacks/examples/Pulumi.kubeadm.yaml");
    delete (config["windows-estate:cluster"] as Record<string, unknown>).render;
    const k = config["windows-estate:kubernetes"] as Record<string, unknown>;
    config["windows-estate:kubernetes"] = {
      ...k,
      // Discovered from the cluster: version, networks, the API endpoint and the CA pin.
      version: undefined,
      podNetworkCidr: undefined,
      serviceCidr: undefined,
      dnsServiceIp: undefined,
      apiServerEndpoint: undefined,
      artifacts: { baseUrl: mirror.baseUrl },
      // flannel publishes no checksums, so its executables are pinned (facts/kubernetes.ts); the mirror serves builds
      // of its own, whose digests the stack names as a site mirroring another build would.
      flannel: {
        vni: 4096,
        port: 4789,
        version: FLANNEL_VERSION,
        flanneldSha256: served.digests.flanneld,
        cniVersion: FLANNEL_CNI_PLUGIN_VERSION,
        cniSha256: served.digests.flannelCni,
      },
    };
    const base = o.hosts.map((h, i) => ({
      address: h.address,
      username: hosts[i].host.user,
      hostKey: hosts[i].host.hostKeyFingerprint,
      bootstrap: { privateKeyPath: `.dev/node-${i}` },
    }));
    config["windows-estate:nodes"] = o.nodes ? o.nodes(base) : base;
    const stack = new Stack(dir, o.stack, lab).init(JSON.parse(JSON.stringify(config)));
    const server = mirror;
    return {
      lab,
      stack,
      config,
      mirror,
      served,
      hosts,
      useConfig(over, cluster = {}) {
        const kube = config["windows-estate:kubernetes"] as Record<string, unknown>;
        const c = config["windows-estate:cluster"] as Record<string, unknown>;
        stack.writeConfig(
          JSON.parse(
            JSON.stringify({
              ...config,
              "windows-estate:cluster": { ...c, ...cluster },
              "windows-estate:kubernetes": { ...kube, ...over },
            }),
          ),
        );
      },
      async stop() {
        stopLab(o.lab);
        await server.close();
        await Promise.all(hosts.map((h) => h.stop()));
      },
    };
  } catch (e) {
    // Whatever started is stopped, so a failed setup leaves no lab behind.
    stopLab(o.lab);
    await mirror?.close();
    await Promise.all(hosts.map((h) => h.stop()));
    throw e;
  }
}
