/**
 * The players: what cannot run here (WMCO, the cloud actuator of the Machine API's machines, the kubelets of Windows
 * nodes and of the cluster's Linux nodes), played against a real API server.
 *
 *   node -r ts-node/register/transpile-only lab/players/main.ts --kubeconfig <file> [--ready-file <path>]
 *     [--only wmco,machine-actuator,kubelet,linux-nodes] [--deconfigure-delay-ms 2000]
 *     [--node-status-report-seconds 300] [--lease-duration-seconds 40] [--resolve name=ip,...]
 *     [--cluster openshift|kubeadm --kubelet-serving-cert <crt> --kubelet-serving-key <key> --kubelet-client-ca <ca>]
 *
 * Writes the ready file (empty, atomically) once every watch is established, logs one line per action, and exits 0
 * on SIGTERM/SIGINT after stopping its watches. API errors are logged with the object and retried with backoff.
 */
import { parseArgs } from "util";
import { writeAtomically } from "../cache";
import { errText, Kube, Player, say } from "./kube";
import { Kubelets } from "./kubelet";
import { LinuxCluster, LinuxKubelets } from "./linux-kubelet";
import { MachineActuatorPlayer } from "./machine-actuator";
import { WmcoPlayer } from "./wmco";

const ALL = ["wmco", "machine-actuator", "kubelet", "linux-nodes"] as const;

function options() {
  const { values } = parseArgs({
    options: {
      kubeconfig: { type: "string" },
      "ready-file": { type: "string" },
      only: { type: "string" },
      "deconfigure-delay-ms": { type: "string", default: "2000" },
      "node-status-report-seconds": { type: "string", default: "300" },
      "lease-duration-seconds": { type: "string", default: "40" },
      resolve: { type: "string", multiple: true, default: [] },
      cluster: { type: "string", default: "openshift" },
      "kubelet-serving-cert": { type: "string" },
      "kubelet-serving-key": { type: "string" },
      "kubelet-client-ca": { type: "string" },
    },
    strict: true,
  });
  if (!values.kubeconfig) throw new Error("--kubeconfig <file> is required");
  const only = values.only ? values.only.split(",").map((s) => s.trim()) : [...ALL];
  const unknown = only.filter((p) => !(ALL as readonly string[]).includes(p));
  if (unknown.length) throw new Error(`--only: unknown player(s) ${unknown.join(", ")} (known: ${ALL.join(", ")})`);
  const num = (name: string, v: string | undefined) => {
    const n = Number(v);
    if (!Number.isFinite(n) || n < 0) throw new Error(`--${name} must be a non-negative number`);
    return n;
  };
  const hosts = new Map<string, string>();
  for (const pair of values.resolve.flatMap((r) => r.split(","))) {
    const [name, ip] = pair.split("=");
    if (!name || !ip) throw new Error(`--resolve expects name=ip, got ${pair}`);
    hosts.set(name.toLowerCase(), ip);
  }
  const cluster = values.cluster;
  const isCluster = (c: string | undefined): c is LinuxCluster => c === "openshift" || c === "kubeadm";
  if (!isCluster(cluster)) throw new Error("--cluster must be openshift or kubeadm");
  const tls = {
    servingCert: values["kubelet-serving-cert"] ?? "",
    servingKey: values["kubelet-serving-key"] ?? "",
    clientCa: values["kubelet-client-ca"] ?? "",
  };
  if (only.includes("linux-nodes") && (!tls.servingCert || !tls.servingKey || !tls.clientCa))
    throw new Error("linux-nodes needs --kubelet-serving-cert, --kubelet-serving-key and --kubelet-client-ca");
  return {
    cluster,
    tls,
    kubeconfig: values.kubeconfig,
    readyFile: values["ready-file"],
    only: new Set(only),
    deconfigureDelayMs: num("deconfigure-delay-ms", values["deconfigure-delay-ms"]),
    statusReportSeconds: num("node-status-report-seconds", values["node-status-report-seconds"]),
    leaseDurationSeconds: num("lease-duration-seconds", values["lease-duration-seconds"]),
    hosts,
  };
}

async function main(): Promise<void> {
  const o = options();
  const kube = Kube.connect(o.kubeconfig);
  // The kubelets are a library for WMCO (a configured host's kubelet registers its Node) and, when selected, the
  // player that renews leases and posts heartbeats.
  const kubelets = new Kubelets(kube, {
    leaseDurationSeconds: o.leaseDurationSeconds,
    statusReportSeconds: o.statusReportSeconds,
    heartbeats: o.only.has("kubelet"),
  });
  const players: Player[] = [];
  if (o.only.has("kubelet")) players.push(kubelets);
  if (o.only.has("linux-nodes"))
    players.push(
      new LinuxKubelets(kube, {
        cluster: o.cluster,
        ...o.tls,
        leaseDurationSeconds: o.leaseDurationSeconds,
        statusReportSeconds: o.statusReportSeconds,
      }),
    );
  if (o.only.has("machine-actuator")) players.push(new MachineActuatorPlayer(kube));
  if (o.only.has("wmco"))
    players.push(new WmcoPlayer(kube, kubelets, { deconfigureDelayMs: o.deconfigureDelayMs, hosts: o.hosts }));

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    say("players", `${signal}: stopping`);
    for (const p of players) p.stop();
    process.exit(0);
  };
  process.on("SIGTERM", () => stop("SIGTERM"));
  process.on("SIGINT", () => stop("SIGINT"));

  await Promise.all(
    players.map(async (p) => {
      for (let attempt = 1; ; attempt++) {
        try {
          await p.start();
          break;
        } catch (e) {
          const delay = Math.min(30, 2 ** attempt);
          say(p.name, `could not start (${errText(e)}); retrying in ${delay}s`);
          await new Promise((r) => setTimeout(r, delay * 1000));
        }
      }
      say(p.name, "watches established");
    }),
  );
  if (o.readyFile) writeAtomically(o.readyFile, "");
  say("players", `ready (${players.map((p) => p.name).join(", ")})`);
}

process.on("unhandledRejection", (e) => say("players", `unhandled: ${errText(e)}`));
main().catch((e: unknown) => {
  process.stderr.write(`players: ${errText(e)}\n`);
  process.exit(1);
});
