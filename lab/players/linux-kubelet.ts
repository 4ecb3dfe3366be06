/**
 * The kubelets of the cluster's Linux nodes, played: what a pod the lab's real scheduler placed on a Linux node needs
 * to run, be Ready and be port-forwarded to through the real API server.
 *
 * Nodes (kubernetes pkg/kubelet/kubelet_node_status.go `initialNode`, `registerWithAPIServer`; nodestatus/setters.go
 * `NodeAddress`, `DaemonEndpoints`, `MachineInfo`, `ReadyCondition`): on OpenShift three control-plane nodes
 * (`node-role.kubernetes.io/master` and `…/control-plane`, tainted `node-role.kubernetes.io/master:NoSchedule`, as the
 * installer's masters are) and two workers; on a kubeadm cluster one control-plane node (kubeadm's label and
 * `node-role.kubernetes.io/control-plane:NoSchedule` taint, cmd/kubeadm/app/phases/markcontrolplane) and two workers.
 * Each has the InternalIP 127.0.0.1 and `daemonEndpoints.kubeletEndpoint.Port` set to its own HTTPS server
 * (lab/players/kubelet-server.ts), so the API server's port-forward reaches it; Lease and Ready heartbeats as the
 * Windows kubelets' (lab/players/kubelet.ts `NodeHeartbeats`).
 *
 * Pods bound to these nodes (pkg/kubelet/kubelet.go `SyncPod`, `SyncTerminatingPod`; pod_workers.go):
 * - **A program it can run: the node relay** (components/node-access: a container whose command is `node <file>` with
 *   the file on a ConfigMap volume). The ConfigMap's keys are written to a folder of the pod (emptyDir volumes are
 *   folders too; any other volume type stops the container with CreateContainerConfigError naming it), the path in the
 *   command is rewritten to it, and the program runs as a local process under this Node.js with the container's
 *   environment (`value`, `fieldRef` to the pod's metadata, node and host IP, `configMapKeyRef`; pkg/kubelet/
 *   kubelet_pods.go `makeEnvironmentVariables`), plus HOSTNAME the pod's name. **One difference a test must know:** each
 *   pod's process listens on 127.0.0.1 like every other, so the port it would have on its own loopback, its
 *   `RELAY_PORT` (2222, relay-proxy.js's default when unset), is replaced by a free port of this machine, and the pod →
 *   (2222 → local port) mapping is what the port-forward dials. Its output goes to the players' log, one line each,
 *   as `linux-kubelet: <namespace>/<pod> <container>: <line>` (the relay's `relay: <host>:22 open`).
 *   Readiness: the relay's exec probe connects to its port on the pod's loopback; played as that connection from here,
 *   tried every 200 ms until it first succeeds (the kubelet probes every periodSeconds; the pod is Ready sooner here),
 *   then every periodSeconds, not Ready after failureThreshold failures (pkg/kubelet/prober/worker.go). A process that
 *   exits is restarted (restartPolicy Always) after the kubelet's back-off, 10 s doubling to 300 s (kubelet.go
 *   `backOffPeriod`, config/v1beta1 `MaxContainerBackOff`), its restartCount counted.
 * - **Any other pod** (OLM's operator pod of WMCO, whose behaviour is lab/players/wmco*.ts; a DaemonSet's pods) is
 *   reported Running and Ready with its containers running, and nothing runs for it: their images are not here.
 *   Init containers are reported completed.
 * - Status (pkg/kubelet/status/status_manager.go): phase, hostIP, startTime, the conditions PodReadyToStartContainers,
 *   Initialized, ContainersReady and Ready (PodScheduled is the scheduler's), containerStatuses.
 * - Deletion (kuberuntime/kuberuntime_container.go `killContainer`): SIGTERM, SIGKILL once the pod's deletion grace
 *   period has passed (at least 2 s, kuberuntime_manager.go `minimumGracePeriodInSeconds`), then the pod object is
 *   removed with grace period 0 (status_manager.go `canBeDeleted`). A pod deleted with grace 0 (its object already
 *   gone) is killed the same way.
 *
 * Not played: images (the relay runs under this machine's Node.js, not the image's), security contexts (the process
 * runs as the players' user; runAsUser, runAsNonRoot and read-only root filesystems are not enforced), resource limits,
 * network namespaces and NetworkPolicies (the relay reaches what this machine reaches), pod IPs, liveness and startup
 * probes, lifecycle hooks, events, node pressure and eviction.
 */
import { ChildProcess, spawn } from "child_process";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { get, JsonObject, obj, objects, str, stringMap, strings } from "../../lib/json";
import { errText, isNotFound, Kube, metaOf, now, resourcePath, say } from "./kube";
import { Informer } from "./informer";
import { KubeletOptions, KubeletPlayer } from "./kubelet";
import { ForwardTarget, KubeletServer } from "./kubelet-server";
import { connects, freePort } from "../processes";
import { crioFor, OPENSHIFT_MINOR } from "../seed/openshift";

export const PLAYER = "linux-kubelet";

export type LinuxCluster = "openshift" | "kubeadm";

export interface LinuxKubeletOptions extends Pick<KubeletOptions, "leaseDurationSeconds" | "statusReportSeconds"> {
  cluster: LinuxCluster;
  /** The kubelets' serving certificate and key (127.0.0.1) and the CA client certificates must chain to. */
  servingCert: string;
  servingKey: string;
  clientCa: string;
}

interface LinuxNode {
  name: string;
  labels: Record<string, string>;
  taints: JsonObject[];
}

/** The Linux nodes of each kind of cluster. */
export function linuxNodes(cluster: LinuxCluster): LinuxNode[] {
  const worker = (i: number): LinuxNode => ({
    name: `lab-worker-${i}`,
    labels: cluster === "openshift" ? { "node-role.kubernetes.io/worker": "" } : {},
    taints: [],
  });
  if (cluster === "kubeadm")
    return [
      {
        name: "lab-control-plane",
        labels: {
          "node-role.kubernetes.io/control-plane": "",
          "node.kubernetes.io/exclude-from-external-load-balancers": "",
        },
        taints: [{ key: "node-role.kubernetes.io/control-plane", effect: "NoSchedule" }],
      },
      worker(0),
      worker(1),
    ];
  return [
    ...[0, 1, 2].map((i) => ({
      name: `lab-master-${i}`,
      labels: { "node-role.kubernetes.io/master": "", "node-role.kubernetes.io/control-plane": "" },
      taints: [{ key: "node-role.kubernetes.io/master", effect: "NoSchedule" }],
    })),
    worker(0),
    worker(1),
  ];
}

/** A container the lab runs as a local process: `node <file>` with the file on a ConfigMap volume. */
function programOf(c: JsonObject, spec: JsonObject): { argv: string[] } | undefined {
  const argv = [...strings(c.command), ...strings(c.args)];
  if (argv.length < 2 || path.posix.basename(argv[0]) !== "node") return undefined;
  const mount = objects(c.volumeMounts).find((m) => argv[1].startsWith(`${String(m.mountPath).replace(/\/$/, "")}/`));
  const volume = objects(spec.volumes).find((v) => v.name === mount?.name);
  return volume?.configMap ? { argv } : undefined;
}

/** Why a container cannot start yet (kubelet's waiting reasons) or at all. */
class Waiting extends Error {
  constructor(
    readonly reason: string,
    message: string,
  ) {
    super(message);
  }
}

interface ContainerRun {
  name: string;
  image: string;
  /** Played as running, nothing runs. */
  played: boolean;
  process?: ChildProcess;
  /** The port the pod listens on → the local port its process was given. */
  ports: Map<number, number>;
  startedAt?: string;
  ready: boolean;
  restartCount: number;
  waiting?: { reason: string; message: string };
  lastTerminated?: JsonObject;
  timers: NodeJS.Timeout[];
  probeFailures: number;
}

interface PodRun {
  uid: string;
  namespace: string;
  name: string;
  node: string;
  pod: JsonObject;
  dir: string;
  startedAt: string;
  containers: ContainerRun[];
  transitions: Map<string, { status: string; at: string }>;
  stopping?: Promise<void>;
  /** Status writes, one after the other. */
  writes: Promise<void>;
}

/**
 * The RHEL release RHCOS is built on, by OpenShift minor: since 4.19 RHCOS names itself by it (`9.6.20251015-1 (Plow)`
 * on 4.20); OpenShift 5.0's default node image is built on RHEL 9.8 (openshift/release
 * ci-operator/config/openshift/os/openshift-os-master.yaml: `OPENSHIFT_VERSION 5.0`, `rhel-9.8-*` repositories for
 * `ose-rhel-coreos-9`; a RHEL 10.2 image is built beside it).
 */
const RHCOS_RHEL: Readonly<Record<string, string>> = { "4.20": "9.6", "5.0": "9.8" };

/**
 * The RHCOS the lab's OpenShift (OPENSHIFT_VERSION) nodes report. The build date and the kernel's build number are
 * illustrative: nothing reads them; an OpenShift minor missing above reports no release rather than a wrong one.
 */
function rhcos(): { osImage: string; kernelVersion: string } {
  const rhel = RHCOS_RHEL[OPENSHIFT_MINOR];
  if (!rhel) return { osImage: "Red Hat Enterprise Linux CoreOS", kernelVersion: "5.14.0" };
  return {
    osImage: `Red Hat Enterprise Linux CoreOS ${rhel}.20261101-0 (Plow)`,
    kernelVersion: `5.14.0-611.5.1.el${rhel.replace(".", "_")}.x86_64`,
  };
}

export class LinuxKubelets extends KubeletPlayer<LinuxKubeletOptions> {
  private readonly servers = new Map<string, KubeletServer>();
  private readonly runs = new Map<string, PodRun>();
  private pods?: Informer;

  constructor(kube: Kube, opts: LinuxKubeletOptions) {
    super(PLAYER, kube, opts);
  }

  async start(): Promise<void> {
    await this.readKubeletVersion();
    for (const n of linuxNodes(this.opts.cluster)) {
      let server = this.servers.get(n.name);
      if (!server) {
        server = new KubeletServer({
          player: PLAYER,
          node: n.name,
          kube: this.kube,
          cert: this.opts.servingCert,
          key: this.opts.servingKey,
          clientCa: this.opts.clientCa,
          pod: (namespace, name) => this.target(n.name, namespace, name),
        });
        this.servers.set(n.name, server);
      }
      const port = await server.listen();
      await this.register(n, port);
      this.beats.start(n.name);
    }
    const ours = new Set(linuxNodes(this.opts.cluster).map((n) => n.name));
    this.pods = new Informer(this.kube, PLAYER, resourcePath("v1", "pods"), {}, (verb, pod) => {
      const node = str(get(pod, "spec", "nodeName"));
      if (node && ours.has(node)) this.sync(verb, pod, node);
    });
    this.pods.start();
    await this.pods.ready;
  }

  stop(): void {
    this.pods?.stop();
    this.beats.haltAll();
    for (const s of this.servers.values()) s.close();
    for (const run of this.runs.values())
      for (const c of run.containers) {
        for (const t of c.timers) clearTimeout(t);
        c.process?.kill("SIGKILL");
      }
  }

  /** kubelet_node_status.go `registerWithAPIServer`: the Node, or its addresses and kubelet port when it exists. */
  private async register(n: LinuxNode, port: number): Promise<void> {
    const nodePath = resourcePath("v1", "nodes", undefined, n.name);
    const status = {
      addresses: [
        { type: "InternalIP", address: "127.0.0.1" },
        { type: "Hostname", address: n.name },
      ],
      daemonEndpoints: { kubeletEndpoint: { Port: port } },
    };
    if (await this.kube.get(nodePath)) {
      await this.kube.patch(resourcePath("v1", "nodes", undefined, n.name, "status"), { status });
      say(PLAYER, `Node ${n.name}: kubelet serving on 127.0.0.1:${port}`);
      return;
    }
    const openshift = this.opts.cluster === "openshift";
    await this.createNode(n.name, "linux", {
      labels: n.labels,
      spec: { taints: n.taints },
      status: {
        ...status,
        capacity: { cpu: "4", memory: "16374564Ki", pods: "250", "ephemeral-storage": "125293548Ki" },
        allocatable: { cpu: "3500m", memory: "15223588Ki", pods: "250", "ephemeral-storage": "114396791822" },
        nodeInfo: {
          ...(openshift ? rhcos() : { osImage: "Ubuntu 24.04.3 LTS", kernelVersion: "6.8.0-86-generic" }),
          containerRuntimeVersion: openshift ? `cri-o://${crioFor(this.kubeletVersion)}` : "containerd://2.1.4",
        },
      },
    });
    say(PLAYER, `registered Node ${n.name} (InternalIP=127.0.0.1, kubelet 127.0.0.1:${port})`);
  }

  /** The pod of this node the port-forward asks for (server.go `getPortForward`: `GetPodByName`). */
  private target(node: string, namespace: string, name: string): ForwardTarget | undefined {
    for (const run of this.runs.values())
      if (run.node === node && run.namespace === namespace && run.name === name) {
        const ports = new Map<number, number>();
        for (const c of run.containers) for (const [p, local] of c.ports) ports.set(p, local);
        return { uid: run.uid, ports };
      }
    return undefined;
  }

  private sync(verb: string, pod: JsonObject, node: string): void {
    const m = metaOf(pod);
    const run = this.runs.get(m.uid);
    const phase = str(get(pod, "status", "phase"));
    if (verb === "DELETED") {
      // Deleted with grace 0 (forced): the object is gone at once; the containers are still killed with the minimum.
      if (run && !run.stopping)
        run.stopping = this.kill(run, Number(get(pod, "metadata", "deletionGracePeriodSeconds") ?? 0));
      if (run) void run.stopping?.then(() => this.runs.delete(m.uid));
      return;
    }
    if (m.deleting) {
      if (!run) return void this.remove(pod);
      if (!run.stopping) {
        const grace = Number(
          get(pod, "metadata", "deletionGracePeriodSeconds") ?? get(pod, "spec", "terminationGracePeriodSeconds") ?? 30,
        );
        say(PLAYER, `${m.namespace}/${m.name}: stopping (grace ${grace}s)`);
        run.stopping = this.kill(run, grace).then(() => this.remove(pod));
      }
      return;
    }
    if (run) {
      run.pod = pod;
      return;
    }
    if (phase === "Succeeded" || phase === "Failed") return;
    void this.startPod(pod, node);
  }

  private async startPod(pod: JsonObject, node: string): Promise<void> {
    const m = metaOf(pod);
    const spec = obj(pod.spec) ?? {};
    const run: PodRun = {
      uid: m.uid,
      namespace: m.namespace,
      name: m.name,
      node,
      pod,
      dir: fs.mkdtempSync(path.join(os.tmpdir(), `lab-pod-${m.name.slice(0, 40)}-`)),
      startedAt: now(),
      containers: objects(spec.containers).map((c) => ({
        name: str(c.name) ?? "",
        image: str(c.image) ?? "",
        played: !programOf(c, spec),
        ports: new Map(),
        ready: false,
        restartCount: 0,
        timers: [],
        probeFailures: 0,
      })),
      transitions: new Map(),
      writes: Promise.resolve(),
    };
    this.runs.set(m.uid, run);
    for (const c of run.containers) {
      if (c.played) {
        c.startedAt = run.startedAt;
        c.ready = true;
        continue;
      }
      await this.startProgram(run, c);
    }
    say(
      PLAYER,
      `${m.namespace}/${m.name} on ${node}: ${run.containers.map((c) => `${c.name} ${c.played ? "reported running (nothing runs)" : c.process ? `runs as pid ${c.process.pid}` : `waiting (${c.waiting?.reason})`}`).join(", ")}`,
    );
    this.postStatus(run);
  }

  /** kubelet_pods.go `makeEnvironmentVariables`, for the sources the lab has. */
  private async envOf(run: PodRun, c: JsonObject): Promise<Record<string, string>> {
    const env: Record<string, string> = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOSTNAME: run.name };
    for (const e of objects(c.env)) {
      const name = str(e.name) ?? "";
      if (typeof e.value === "string") env[name] = e.value;
      else if (get(e, "valueFrom", "fieldRef")) {
        const field = str(get(e, "valueFrom", "fieldRef", "fieldPath")) ?? "";
        const fields: Record<string, string | undefined> = {
          "metadata.name": run.name,
          "metadata.namespace": run.namespace,
          "metadata.uid": run.uid,
          "spec.nodeName": run.node,
          "spec.serviceAccountName": str(get(run.pod, "spec", "serviceAccountName")),
          "status.hostIP": "127.0.0.1",
        };
        const annotation = /^metadata\.annotations\['(.+)'\]$/.exec(field)?.[1];
        const value = annotation !== undefined ? metaOf(run.pod).annotations[annotation] : fields[field];
        if (value === undefined)
          throw new Waiting("CreateContainerConfigError", `lab kubelet: env ${name} from ${field} is not played`);
        env[name] = value;
      } else if (get(e, "valueFrom", "configMapKeyRef")) {
        const ref = obj(get(e, "valueFrom", "configMapKeyRef")) ?? {};
        const cm = await this.kube.get(resourcePath("v1", "configmaps", run.namespace, str(ref.name)));
        const value = stringMap(cm?.data)[str(ref.key) ?? ""];
        if (value === undefined && ref.optional !== true)
          throw new Waiting("CreateContainerConfigError", `configmap "${str(ref.name)}" not found`);
        if (value !== undefined) env[name] = value;
      } else throw new Waiting("CreateContainerConfigError", `lab kubelet: env ${name}: this source is not played`);
    }
    return env;
  }

  /** The pod's volumes a container mounts, as folders of the pod: mountPath → local folder. */
  private async mountsOf(run: PodRun, c: JsonObject): Promise<[string, string][]> {
    const mounts: [string, string][] = [];
    for (const mount of objects(c.volumeMounts)) {
      const v = objects(get(run.pod, "spec", "volumes")).find((x) => x.name === mount.name);
      const dir = path.join(run.dir, "volumes", str(mount.name) ?? "");
      if (v?.configMap && !fs.existsSync(dir)) {
        const ref = obj(v.configMap) ?? {};
        const cm = await this.kube.get(resourcePath("v1", "configmaps", run.namespace, str(ref.name)));
        // kubelet's configmap volume plugin: a missing ConfigMap keeps the container waiting (FailedMount).
        if (!cm && ref.optional !== true)
          throw new Waiting(
            "ContainerCreating",
            `MountVolume.SetUp failed for volume "${str(v.name)}" : configmap "${str(ref.name)}" not found`,
          );
        fs.mkdirSync(dir, { recursive: true });
        const data = stringMap(cm?.data);
        const items = objects(ref.items);
        for (const [key, text] of Object.entries(data)) {
          const item = items.find((i) => i.key === key);
          if (items.length > 0 && !item) continue;
          const file = path.join(dir, str(item?.path) ?? key);
          fs.mkdirSync(path.dirname(file), { recursive: true });
          fs.writeFileSync(file, text);
        }
      } else if (v?.emptyDir) fs.mkdirSync(dir, { recursive: true });
      else if (!v?.configMap)
        throw new Waiting(
          "CreateContainerConfigError",
          `lab kubelet: volume ${str(mount.name)} (${
            Object.keys(v ?? {})
              .filter((k) => k !== "name")
              .join(",") || "undefined"
          }) is not played`,
        );
      mounts.push([String(mount.mountPath).replace(/\/$/, ""), path.join(dir, str(mount.subPath) ?? "")]);
    }
    // Longest mount path first, so /a/b is found before /a.
    return mounts.sort((a, b) => b[0].length - a[0].length);
  }

  private async startProgram(run: PodRun, c: ContainerRun): Promise<void> {
    const spec = objects(get(run.pod, "spec", "containers")).find((x) => x.name === c.name) ?? {};
    let argv: string[];
    let env: Record<string, string>;
    try {
      const mounts = await this.mountsOf(run, spec);
      const local = (p: string) => {
        const hit = mounts.find(([at]) => p === at || p.startsWith(`${at}/`));
        return hit ? hit[1] + p.slice(hit[0].length) : p;
      };
      argv = (programOf(spec, obj(run.pod.spec) ?? {})?.argv ?? []).map(local);
      env = await this.envOf(run, spec);
    } catch (e) {
      const before = c.waiting?.message;
      c.waiting =
        e instanceof Waiting
          ? { reason: e.reason, message: e.message }
          : { reason: "CreateContainerError", message: errText(e) };
      if (c.waiting.message !== before)
        say(PLAYER, `${run.namespace}/${run.name} ${c.name}: ${c.waiting.reason}: ${c.waiting.message}`);
      // kubelet retries a container that could not be created on its next sync.
      c.timers.push(setTimeout(() => void this.startProgram(run, c).then(() => this.postStatus(run)), 2_000));
      return;
    }
    // The relay listens on RELAY_PORT on the pod's own loopback; here on a free port of this machine instead.
    const podPort = Number(env.RELAY_PORT ?? "2222");
    const localPort = await freePort();
    env.RELAY_PORT = String(localPort);
    c.ports.set(podPort, localPort);
    c.waiting = undefined;
    const child = spawn(process.execPath, argv.slice(1), { cwd: run.dir, env, stdio: ["ignore", "pipe", "pipe"] });
    c.process = child;
    c.startedAt = now();
    c.ready = false;
    c.probeFailures = 0;
    const prefix = `${run.namespace}/${run.name} ${c.name}`;
    const lines = (stream: NodeJS.ReadableStream) => {
      let rest = "";
      stream.on("data", (d: Buffer) => {
        const text = rest + d.toString("utf8");
        const parts = text.split("\n");
        rest = parts.pop() ?? "";
        for (const line of parts) say(PLAYER, `${prefix}: ${line}`);
      });
      stream.on("end", () => rest && say(PLAYER, `${prefix}: ${rest}`));
    };
    if (child.stdout) lines(child.stdout);
    if (child.stderr) lines(child.stderr);
    child.on("exit", (code, signal) => {
      if (c.process !== child) return;
      c.process = undefined;
      c.ready = false;
      c.lastTerminated = {
        exitCode: code ?? 128 + (signal ? (os.constants.signals[signal] ?? 9) : 9),
        reason: code === 0 ? "Completed" : "Error",
        startedAt: c.startedAt,
        finishedAt: now(),
        ...(signal ? { signal: os.constants.signals[signal] } : {}),
      };
      for (const t of c.timers) clearTimeout(t);
      c.timers = [];
      if (run.stopping) return;
      // restartPolicy Always: back-off 10 s, doubling, at most 300 s.
      const delay = Math.min(300, 10 * 2 ** c.restartCount) * 1000;
      say(PLAYER, `${prefix}: exited (${code ?? signal}); restarting in ${delay / 1000}s`);
      c.waiting = {
        reason: "CrashLoopBackOff",
        message: `back-off ${delay / 1000}s restarting failed container=${c.name} pod=${run.name}`,
      };
      this.postStatus(run);
      c.timers.push(
        setTimeout(() => {
          c.restartCount++;
          void this.startProgram(run, c).then(() => this.postStatus(run));
        }, delay),
      );
    });
    this.probe(run, c, spec, localPort);
  }

  /** The readiness probe (prober/worker.go), played as a connection to the program's port. */
  private probe(run: PodRun, c: ContainerRun, spec: JsonObject, port: number): void {
    const probe = obj(spec.readinessProbe);
    const period = Number(probe?.periodSeconds ?? 10) * 1000;
    const threshold = Number(probe?.failureThreshold ?? 3);
    const child = c.process;
    const tick = async () => {
      if (c.process !== child || run.stopping) return;
      const ok = await connects(port);
      if (ok) {
        c.probeFailures = 0;
        if (!c.ready) {
          c.ready = true;
          say(
            PLAYER,
            `${run.namespace}/${run.name} ${c.name}: ready (127.0.0.1:${port} for pod port ${[...c.ports.keys()][0]})`,
          );
          this.postStatus(run);
        }
      } else if (c.ready && ++c.probeFailures >= threshold) {
        c.ready = false;
        say(PLAYER, `${run.namespace}/${run.name} ${c.name}: readiness probe failed ${threshold} times`);
        this.postStatus(run);
      }
      c.timers.push(setTimeout(() => void tick(), c.ready || !probe ? period : 200));
    };
    void tick();
  }

  /** SIGTERM to every process of the pod, SIGKILL after the grace period (at least 2 s); the pod's folder removed. */
  private async kill(run: PodRun, graceSeconds: number): Promise<void> {
    const grace = Math.max(2, graceSeconds) * 1000;
    await Promise.all(
      run.containers.map(async (c) => {
        for (const t of c.timers) clearTimeout(t);
        c.timers = [];
        const p = c.process;
        if (!p || p.exitCode !== null || p.signalCode !== null) return;
        const exited = new Promise<void>((resolve) => p.once("exit", () => resolve()));
        p.kill("SIGTERM");
        const timer = setTimeout(() => {
          say(PLAYER, `${run.namespace}/${run.name} ${c.name}: still running after ${grace / 1000}s: SIGKILL`);
          p.kill("SIGKILL");
        }, grace);
        await exited;
        clearTimeout(timer);
      }),
    );
    fs.rmSync(run.dir, { recursive: true, force: true });
    say(PLAYER, `${run.namespace}/${run.name}: containers stopped`);
  }

  /** The pod object removed (`removePod`), and its run forgotten. */
  private async remove(pod: JsonObject): Promise<void> {
    await this.removePod(pod);
    this.runs.delete(metaOf(pod).uid);
  }

  /** The pod's status as the status manager writes it, one write after the other. */
  private postStatus(run: PodRun): void {
    run.writes = run.writes.then(async () => {
      if (run.stopping) return;
      const at = now();
      const since = (type: string, status: string) => {
        const t = run.transitions.get(type);
        if (t && t.status === status) return t.at;
        run.transitions.set(type, { status, at });
        return at;
      };
      const started = run.containers.every((c) => c.startedAt && !c.waiting);
      const unready = run.containers.filter((c) => !c.ready).map((c) => c.name);
      const ready = unready.length === 0 ? "True" : "False";
      const cond = (type: string, status: string, extra: JsonObject = {}) => ({
        type,
        status,
        lastProbeTime: null,
        lastTransitionTime: since(type, status),
        ...extra,
      });
      const notReady =
        ready === "False"
          ? { reason: "ContainersNotReady", message: `containers with unready status: [${unready.join(" ")}]` }
          : {};
      const scheduled = objects(get(run.pod, "status", "conditions")).filter((c) => c.type === "PodScheduled");
      const runtime = this.opts.cluster === "openshift" ? "cri-o" : "containerd";
      const status = {
        phase: started ? "Running" : "Pending",
        hostIP: "127.0.0.1",
        hostIPs: [{ ip: "127.0.0.1" }],
        startTime: run.startedAt,
        conditions: [
          cond("PodReadyToStartContainers", "True"),
          cond("Initialized", "True"),
          cond("Ready", ready, notReady),
          cond("ContainersReady", ready, notReady),
          ...scheduled,
        ],
        initContainerStatuses: objects(get(run.pod, "spec", "initContainers")).map((c) => ({
          name: str(c.name),
          image: str(c.image),
          imageID: "",
          ready: true,
          restartCount: 0,
          started: false,
          state: {
            terminated: { exitCode: 0, reason: "Completed", startedAt: run.startedAt, finishedAt: run.startedAt },
          },
        })),
        containerStatuses: run.containers.map((c) => ({
          name: c.name,
          image: c.image,
          imageID: "",
          containerID: `${runtime}://${Buffer.from(`${run.uid}/${c.name}/${c.restartCount}`).toString("hex").slice(0, 64)}`,
          ready: c.ready,
          started: !c.waiting && c.startedAt !== undefined,
          restartCount: c.restartCount,
          state: c.waiting ? { waiting: c.waiting } : { running: { startedAt: c.startedAt } },
          lastState: c.lastTerminated ? { terminated: c.lastTerminated } : {},
        })),
      };
      try {
        await this.kube.patch(resourcePath("v1", "pods", run.namespace, run.name, "status"), { status });
      } catch (e) {
        if (!isNotFound(e)) say(PLAYER, `posting the status of pod ${run.namespace}/${run.name} failed: ${errText(e)}`);
      }
    });
  }
}
