import { randomBytes } from "crypto";
import { spawnSync } from "child_process";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { programPath, writeAtomically } from "./cache";
import { adminKubeconfig, makePki } from "./certs";
import { labCatalogs } from "./catalog";
import { collectedCrds } from "./crds";
import { LabError } from "./errors";
import { get, str } from "../lib/json";
import { startMachineApi } from "./machine-api";
import { checkGo } from "./go";
import { createAll, labClient, waitEstablished, waitServed } from "./kube";
import { startOlm } from "./olm";
import {
  allParts,
  bootId,
  checkPortFree,
  freePort,
  localStatus,
  startDetached,
  Started,
  startTimeOf,
  waitFor,
} from "./processes";
import { PROGRAMS, programNamed, KUBERNETES_VERSION } from "./programs";
import { LabInfo, LabRecord, readRecord, running, starting, writeRecord } from "./record";
import { KUBEADM_NETWORKS, kubeadmSeed } from "./seed/kubeadm";
import { OPENSHIFT_VERSION, openshiftSeed, OpenShiftPlatform, PLATFORMS } from "./seed/openshift";
import { teardown } from "./stop";

export type LabPlatform = OpenShiftPlatform | "none";

/** The players `start` can run (lab/players/main.ts `--only`). */
export const PLAYER_NAMES = ["wmco", "machine-actuator", "kubelet", "linux-nodes"] as const;
export type PlayerName = (typeof PLAYER_NAMES)[number];

export interface StartOptions {
  name: string;
  platform: LabPlatform;
  /**
   * Which players run: all of them (undefined), none (a bare cluster with the seed only), or these. `linux-nodes`
   * alone gives a kubeadm lab the Linux nodes a relay pod runs on, with nothing of OpenShift played.
   */
  players?: readonly PlayerName[];
  apiserverPort?: number;
  infrastructureName?: string;
  /**
   * The played kubelets' nodeStatusReportFrequency (kubelet default 5 min): how often a Ready heartbeat is posted
   * when nothing changed. The played kubelet does not go down with a rebooted host, so a rollout waiting for a fresh
   * heartbeat after a reboot waits up to this long.
   */
  nodeStatusReportSeconds?: number;
}

const PROJECT_DIR = path.resolve(__dirname, "..");

/** The caller's PATH without what `npm run` put in front of it (node_modules/.bin folders, node-gyp's). */
function userPath(): string[] {
  return (process.env.PATH ?? "").split(":").filter((p) => p && !/node_modules\/\.bin$|node-gyp-bin$/.test(p));
}

/** The built binaries and CRDs for the current sources, or a clear stop naming the command that builds them. */
function builtLab(goVersion: string): { bins: Map<string, string>; crdDir: string } {
  const bins = new Map<string, string>();
  const missing: string[] = [];
  for (const p of PROGRAMS.filter((x) => !x.standalone)) {
    const file = programPath(p, goVersion);
    if (fs.existsSync(file)) bins.set(p.name, file);
    else missing.push(p.name);
  }
  const crdDir = collectedCrds();
  if (!crdDir) missing.push("CRDs");
  if (missing.length > 0 || !crdDir)
    throw new LabError(
      `the lab is not built for the current sources (missing: ${missing.join(", ")}): run \`npm run lab -- build\` first`,
    );
  return { bins, crdDir };
}

/**
 * `npm run lab -- start`: etcd, kube-apiserver and kube-controller-manager on 127.0.0.1 with free ports, fresh
 * certificates and a temporary folder; the real CRDs; the cluster seeded as the platform presents itself; the
 * players of what cannot run here. Anything that fails ends what was started and removes the folder.
 */
export async function start(opts: StartOptions, log: (line: string) => void): Promise<LabInfo> {
  const existing = readRecord(opts.name);
  if (existing) {
    if (running(existing).length > 0 || starting(existing))
      throw new LabError(
        `a lab named "${opts.name}" is already running (started ${existing.startedAt}, ${existing.runDir}): ` +
          "stop it with `npm run lab -- stop`, or start another beside it with --name",
      );
    await teardown(existing); // left over from a lab whose processes are gone (a reboot): clean it up first
  }
  const goVersion = checkGo();
  const { bins, crdDir } = builtLab(goVersion);
  const bin = (n: string) => bins.get(programNamed(n).name) ?? "";
  if (opts.apiserverPort !== undefined) await checkPortFree(opts.apiserverPort, "the API server", "--apiserver-port");

  const runDir = fs.mkdtempSync(path.join(os.tmpdir(), `windows-estate-lab-${opts.name}-`));
  const record: LabRecord = {
    name: opts.name,
    platform: opts.platform,
    startedAt: new Date().toISOString(),
    runDir,
    starter: { pid: process.pid, startTime: startTimeOf(process.pid) ?? "", bootId: bootId() },
    processes: [],
  };
  writeRecord(record);
  // Ctrl-C or a kill while starting: end what was started (the programs run detached and would outlive us).
  const interrupted = (signal: NodeJS.Signals) => {
    void teardown(record).finally(() => process.exit(signal === "SIGINT" ? 130 : 143));
  };
  process.once("SIGINT", interrupted);
  process.once("SIGTERM", interrupted);
  const started = (p: Started) => {
    record.processes.push(p);
    writeRecord(record);
    return p;
  };
  try {
    const openshift = opts.platform !== "none";
    const serviceRange = openshift ? "172.30.0.0/16" : KUBEADM_NETWORKS.serviceSubnet;
    const serviceIp = openshift ? "172.30.0.1" : "10.96.0.1";
    log(`making certificates in ${runDir}/pki`);
    const pki = makePki(path.join(runDir, "pki"), serviceIp);
    const [etcdPort, peerPort, apiPort] = [
      await freePort(),
      await freePort(),
      opts.apiserverPort ?? (await freePort()),
    ];
    const logs = path.join(runDir, "logs");
    fs.mkdirSync(logs);

    log(`starting etcd on 127.0.0.1:${etcdPort}`);
    // TLS with client certificates on both ports: any local user can reach 127.0.0.1, and etcd holds every Secret.
    const etcdUrl = `https://127.0.0.1:${etcdPort}`;
    const peerUrl = `https://127.0.0.1:${peerPort}`;
    const etcdApi = labClient(etcdUrl, { caCert: pki.caCert, adminCert: pki.etcdCert, adminKey: pki.etcdKey });
    const etcd = started(
      startDetached(
        "etcd",
        bin("etcd"),
        [
          "--name=lab",
          `--data-dir=${path.join(runDir, "etcd")}`,
          `--listen-client-urls=${etcdUrl}`,
          `--advertise-client-urls=${etcdUrl}`,
          `--listen-peer-urls=${peerUrl}`,
          `--initial-advertise-peer-urls=${peerUrl}`,
          `--initial-cluster=lab=${peerUrl}`,
          `--cert-file=${pki.etcdCert}`,
          `--key-file=${pki.etcdKey}`,
          `--trusted-ca-file=${pki.caCert}`,
          "--client-cert-auth=true",
          `--peer-cert-file=${pki.etcdCert}`,
          `--peer-key-file=${pki.etcdKey}`,
          `--peer-trusted-ca-file=${pki.caCert}`,
          "--peer-client-cert-auth=true",
          // A throwaway cluster: no fsync, so tests do not wait on the disk.
          "--unsafe-no-fsync=true",
          "--log-level=warn",
        ],
        path.join(logs, "etcd.log"),
      ),
    );
    await waitFor(
      etcd,
      "healthy",
      async () => {
        const r = await etcdApi.request("GET", "/health");
        return r.status === 200 && get(r.body, "health") === "true";
      },
      60_000,
    );

    // What the API server audits (k8s.io/apiserver pkg/apis/audit Policy): port-forwards and deletions, at Metadata
    // level (who, what, when, the answer), so a test can read whose port-forward went through and in which order
    // objects went away; nothing else, to keep the log small.
    const auditPolicy = path.join(runDir, "audit-policy.yaml");
    fs.writeFileSync(
      auditPolicy,
      [
        "apiVersion: audit.k8s.io/v1",
        "kind: Policy",
        "omitStages: [RequestReceived]",
        "rules:",
        "- level: Metadata",
        '  resources: [{ group: "", resources: ["pods/portforward"] }]',
        "- level: Metadata",
        "  verbs: [delete, deletecollection]",
        "- level: None",
        "",
      ].join("\n"),
    );
    log(`starting kube-apiserver ${KUBERNETES_VERSION} on 127.0.0.1:${apiPort}`);
    const apiserver = started(
      startDetached(
        "kube-apiserver",
        bin("kube-apiserver"),
        [
          `--etcd-servers=${etcdUrl}`,
          `--etcd-cafile=${pki.caCert}`,
          `--etcd-certfile=${pki.etcdCert}`,
          `--etcd-keyfile=${pki.etcdKey}`,
          "--bind-address=127.0.0.1",
          "--advertise-address=127.0.0.1",
          `--secure-port=${apiPort}`,
          `--cert-dir=${path.join(runDir, "pki")}`,
          `--tls-cert-file=${pki.serverCert}`,
          `--tls-private-key-file=${pki.serverKey}`,
          `--client-ca-file=${pki.caCert}`,
          "--service-account-issuer=https://kubernetes.default.svc.cluster.local",
          `--service-account-key-file=${pki.serviceAccountPub}`,
          `--service-account-signing-key-file=${pki.serviceAccountKey}`,
          `--service-cluster-ip-range=${serviceRange}`,
          // As kubeadm runs it (cmd/kubeadm/app/phases/controlplane/manifests.go getAPIServerCommand): Node and
          // RBAC authorization, NodeRestriction, bootstrap tokens, privileged (HostProcess) pods allowed.
          "--authorization-mode=Node,RBAC",
          "--enable-admission-plugins=NodeRestriction",
          "--enable-bootstrap-token-auth=true",
          "--allow-privileged=true",
          "--profiling=false",
          // Its connections to kubelets (port-forward, exec, logs), as kubeadm configures them: its kubelet client
          // certificate, the kubelets' serving certificates checked against the cluster CA, and the node address
          // types it dials in kubeadm's order (manifests.go). The played Linux kubelets serve port-forwards
          // (lab/players/linux-kubelet.ts).
          `--kubelet-client-certificate=${pki.kubeletClientCert}`,
          `--kubelet-client-key=${pki.kubeletClientKey}`,
          `--kubelet-certificate-authority=${pki.caCert}`,
          "--kubelet-preferred-address-types=InternalIP,ExternalIP,Hostname",
          `--audit-policy-file=${auditPolicy}`,
          `--audit-log-path=${path.join(logs, "audit.log")}`,
        ],
        path.join(logs, "kube-apiserver.log"),
      ),
    );
    const server = `https://127.0.0.1:${apiPort}`;
    const client = labClient(server, pki);
    await waitFor(apiserver, "ready", async () => (await client.request("GET", "/readyz")).status === 200, 120_000);

    const kubeconfig = path.join(runDir, "kubeconfig");
    writeAtomically(kubeconfig, adminKubeconfig(pki, server, `lab-${opts.name}`), 0o600);

    // kubeadm's binding of the API server's kubelet client to the kubelet API (cmd/kubeadm/app/phases/bootstraptoken/
    // node/tlsbootstrap.go AllowAPIServerToAccessKubeletAPI): what a kubelet's SubjectAccessReview for it allows.
    await createAll(client, [
      {
        apiVersion: "rbac.authorization.k8s.io/v1",
        kind: "ClusterRoleBinding",
        metadata: { name: "kubeadm:apiserver-kubelet-client" },
        roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: "system:kubelet-api-admin" },
        subjects: [{ kind: "User", name: "kube-apiserver-kubelet-client", apiGroup: "rbac.authorization.k8s.io" }],
      },
    ]);

    log(
      "starting kube-controller-manager (garbage collectors, namespace, disruption, service accounts, bootstrap tokens, CSR approval and signing, DaemonSets, Deployments, ReplicaSets)",
    );
    const controllerManager = started(
      startDetached(
        "kube-controller-manager",
        bin("kube-controller-manager"),
        [
          `--kubeconfig=${kubeconfig}`,
          "--leader-elect=false",
          "--secure-port=0",
          // Without the garbage collector pulumi-kubernetes' foreground deletes never finish; disruption sets
          // PodDisruptionBudget status for evictions; the token controllers serve kubeadm-style joins, and the CSR
          // controllers complete them: csrapproving approves a kubelet's client CSR after a SubjectAccessReview
          // (pkg/controller/certificates/approver/sarapprove.go), csrsigning signs it with the cluster CA, as kubeadm
          // runs it (cmd/kubeadm/app/phases/controlplane/manifests.go getControllerManagerCommand:
          // --cluster-signing-cert-file/--cluster-signing-key-file). The DaemonSet controller sets the status
          // pulumi-kubernetes awaits for a DaemonSet (or a DaemonSet patch) and makes the pods of joined nodes. The
          // deployment and replicaset controllers roll Deployments out (the node relay's, OLM's operator Deployment)
          // into pods the scheduler places and the played Linux kubelets run or report. The pod garbage collector
          // removes pods bound to a Node that is gone (pkg/controller/podgc gc_controller.go `gcOrphaned`, after 40 s):
          // a removed kubeadm node's DaemonSet pods, which no kubelet finishes any more.
          "--controllers=garbagecollector,namespace,serviceaccount-token,serviceaccount,disruption,bootstrapsigner,tokencleaner,csrapproving,csrsigning,daemonset,deployment,replicaset,podgc",
          `--cluster-signing-cert-file=${pki.caCert}`,
          `--cluster-signing-key-file=${pki.caKey}`,
          `--service-account-private-key-file=${pki.serviceAccountKey}`,
          `--root-ca-file=${pki.caCert}`,
          "--use-service-account-credentials=true",
        ],
        path.join(logs, "kube-controller-manager.log"),
      ),
    );
    // Its service-account controller makes `default` in every namespace: seen, the controllers run.
    await waitFor(
      controllerManager,
      "running",
      async () => (await client.request("GET", "/api/v1/namespaces/default/serviceaccounts/default")).status === 200,
      120_000,
    );

    const schedulerPort = await freePort();
    log(`starting kube-scheduler ${KUBERNETES_VERSION} (health on 127.0.0.1:${schedulerPort})`);
    // As kubeadm runs it (manifests.go getSchedulerCommand: its kubeconfig for the API, authentication and
    // authorization, on 127.0.0.1), without leader election: it binds every pod without a node to one that fits
    // (nodeSelector, affinity, taints, resources, host ports).
    const scheduler = started(
      startDetached(
        "kube-scheduler",
        bin("kube-scheduler"),
        [
          `--kubeconfig=${kubeconfig}`,
          `--authentication-kubeconfig=${kubeconfig}`,
          `--authorization-kubeconfig=${kubeconfig}`,
          "--bind-address=127.0.0.1",
          `--secure-port=${schedulerPort}`,
          `--cert-dir=${path.join(runDir, "pki", "kube-scheduler")}`,
          "--leader-elect=false",
        ],
        path.join(logs, "kube-scheduler.log"),
      ),
    );
    // /readyz, as kubeadm's probe reads it (HTTPS with the scheduler's own self-signed certificate, unverified, as
    // kubelet probes are): ready once its informers have synced.
    await waitFor(scheduler, "ready", async () => (await localStatus(schedulerPort, "/readyz", true)) === 200, 60_000);

    const crdFiles = fs
      .readdirSync(crdDir)
      .filter((f) => f.endsWith(".yaml"))
      .sort();
    log(`installing ${crdFiles.length} CRDs from OLM and openshift/api`);
    const { parse } = await import("yaml");
    const crds = crdFiles.map((f) => parse(fs.readFileSync(path.join(crdDir, f), "utf8")) as Record<string, unknown>);
    await createAll(client, crds);
    await waitEstablished(
      client,
      crds.map((c) => (c.metadata as { name: string }).name),
    );
    await waitServed(client, crds);

    if (openshift) {
      const p = opts.platform as OpenShiftPlatform;
      log(`seeding OpenShift ${OPENSHIFT_VERSION} on ${PLATFORMS[p].type}`);
      await createAll(client, openshiftSeed(p, opts.infrastructureName));
      // machine-api and OLM (with its catalogs) are part of the cluster, not players: an OpenShift lab runs them
      // whatever plays. Neither waits on the other, so they start side by side; a failure of either is logged when it
      // happens, and both are settled before it is thrown, so that every process either started is in the record
      // that teardown stops.
      await allParts(
        {
          "machine-api": startMachineApi({
            platform: p,
            infrastructureName: opts.infrastructureName,
            bin: bin("machineset"),
            runDir,
            kubeconfig,
            pki,
            client,
            started,
            log,
          }),
          OLM: startOlm({
            client,
            kubeconfig,
            runDir,
            logs,
            bins: { olm: bin("olm"), catalog: bin("catalog"), opm: bin("opm") },
            tls: { cert: pki.serverCert, key: pki.serverKey },
            catalogs: labCatalogs(KUBERNETES_VERSION),
            started,
            log,
          }),
        },
        log,
      );
    } else {
      log("seeding a kubeadm cluster with flannel");
      await createAll(
        client,
        kubeadmSeed({ kubernetesVersion: KUBERNETES_VERSION, server, caPem: fs.readFileSync(pki.caCert, "utf8") }),
      );
    }

    const players = opts.players ?? PLAYER_NAMES;
    if (players.length > 0) {
      const ready = path.join(runDir, "players.ready");
      log(`starting the players (${players.join(", ")})`);
      const playersProcess = started(
        startDetached(
          "players",
          process.execPath,
          [
            "-r",
            "ts-node/register/transpile-only",
            path.join(__dirname, "players", "main.ts"),
            "--kubeconfig",
            kubeconfig,
            "--ready-file",
            ready,
            "--only",
            players.join(","),
            "--cluster",
            openshift ? "openshift" : "kubeadm",
            "--kubelet-serving-cert",
            pki.kubeletServingCert,
            "--kubelet-serving-key",
            pki.kubeletServingKey,
            "--kubelet-client-ca",
            pki.caCert,
            ...(opts.nodeStatusReportSeconds === undefined
              ? []
              : ["--node-status-report-seconds", String(opts.nodeStatusReportSeconds)]),
          ],
          path.join(logs, "players.log"),
          { ...process.env, TS_NODE_PROJECT: path.join(PROJECT_DIR, "tsconfig.json") },
        ),
      );
      await waitFor(playersProcess, "ready", async () => fs.existsSync(ready), 60_000);
    }

    const version = str(get((await client.request("GET", "/version")).body, "gitVersion")) ?? "";
    const binDir = path.join(runDir, "bin");
    fs.mkdirSync(binDir);
    for (const [name, file] of bins) fs.symlinkSync(file, path.join(binDir, name));
    const pv = spawnSync(path.join(binDir, "pulumi"), ["version"], {
      encoding: "utf8",
      timeout: 30_000,
      env: { ...process.env, PULUMI_SKIP_UPDATE_CHECK: "true" },
    });
    if (pv.status !== 0 || !pv.stdout.trim())
      throw new LabError(
        `the built pulumi does not run (\`pulumi version\`: ${(pv.stderr || pv.error?.message || "").trim()})`,
      );
    const env: Record<string, string> = {
      // The built programs first; @pulumi/pulumi's folder holds pulumi-resource-pulumi-nodejs (dynamic providers)
      // and pulumi-analyzer-policy-nodejs, which a Pulumi installation ships beside the CLI.
      PATH: [binDir, path.join(PROJECT_DIR, "node_modules", "@pulumi", "pulumi"), ...userPath()].join(":"),
      KUBECONFIG: kubeconfig,
      PULUMI_HOME: path.join(runDir, "pulumi-home"),
      PULUMI_BACKEND_URL: `file://${path.join(runDir, "state")}`,
      PULUMI_CONFIG_PASSPHRASE: randomBytes(12).toString("hex"),
      PULUMI_SKIP_UPDATE_CHECK: "true",
      PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true",
    };
    fs.mkdirSync(env.PULUMI_HOME);
    fs.mkdirSync(path.join(runDir, "state"));
    const info: LabInfo = { kubeconfig, apiserver: server, version, pulumi: pv.stdout.trim(), env };
    record.info = info;
    writeRecord(record);
    return info;
  } catch (e) {
    // The first failure is the one to report; a failing teardown only adds to it.
    await teardown(record).catch((t: unknown) => log(`cleaning up after the failure also failed: ${String(t)}`));
    throw e;
  } finally {
    process.removeListener("SIGINT", interrupted);
    process.removeListener("SIGTERM", interrupted);
  }
}
