import type * as pulumi from "@pulumi/pulumi";
import { isUsablePin } from "../ssh/host-key";
import { PowerShell, withPowerShell } from "../ssh/powershell-runner";
import { Session, withSession } from "../ssh/session";
import { connectionProblems, describeTarget, SshConnection } from "../ssh/types";
import { isUnreachable } from "../../lib/errors";
import { isUnknown } from "../unknown";
import { apiError, connectKube, KubeApi } from "../kube-wait/api";
import { drainNode, DRAIN_RUN_DEFAULTS, patchNode, setCordoned } from "../day2/drain-run";
import { lastHeartbeat, listWindowsNodes, waitForFreshReady } from "../day2/ready";
import { REBOOT_DEFAULTS, restartFrom, whenBack } from "../day2/reboot";
import {
  containerdServiceScript,
  Download,
  featuresScript,
  hostSettingsScript,
  installScript,
  joinScript,
  kubeletServiceScript,
  kubeadmUpgradeScript,
  probeScript,
  resetScript,
  startServicesScript,
  stopServicesScript,
  biosSerialScript,
  proxyScript,
  ProxyEnv,
  HOSTNAME_PLACEHOLDER,
} from "./scripts";
import { DISRUPTIVE_DOWNLOADS, NO_PROXY_ENV, NodeProbe, osMismatch, parseNodeProbe, pendingSteps, Step } from "./steps";
import { acquireLease, HeldSlot, Unleased } from "../day2/leases";
import { joinDay2Lock, LockShare } from "../day2/day2-lock";
import {
  slotHolder,
  slotNames,
  slotNode,
  stackHoldsSlot,
  unleasedUpgrades,
  UPGRADE_SLOT_SECONDS,
} from "./upgrade-slots";
import { identityPatch, Taint, vsphereProviderId } from "./identity";
import { kubeletNodeName, nodeNameError } from "./node-name";
import { convergeFailed, rolloutStopped, upgradeBegan, upgradeEnded } from "./upgrade-run";
import { defined } from "../struct";
import { WINDOWS_TAINT } from "../../facts/kubernetes";
import { KEEP_CORDONED_ANNOTATION, UPGRADING_TO_ANNOTATION } from "../../facts/day2";
import { get, obj, objects, str } from "../../lib/json";

/** A DaemonSet (by namespace and `app` label) whose pods run the download named `binary`. */
export interface NetworkAgent {
  namespace: string;
  app: string;
  binary: string;
}

export interface VanillaNodeInputs {
  connection: SshConnection;
  /** Every binary and archive, pinned with its published checksum. */
  downloads: Download[];
  vxlanPort: number;
  /** containerd's config file on the node (written by NodeFiles; the service is registered with it). */
  containerdConfigPath: string;
  /** Where the join file is written for `kubeadm join` (removed right after). */
  joinConfigPath: string;
  /** The JoinConfiguration text; it holds the bootstrap token, so it is a secret input. */
  joinConfig: string;
  /**
   * How to reach the API for drain, Ready, identity and removal: a kubeconfig's text or path, or "" for the usual
   * loading order (KUBECONFIG, ~/.kube/config, in-cluster). Undefined: those steps are skipped (host-only tests).
   */
  kubeconfig?: string;
  context?: string;
  /** Pause between checks, seconds. Default 5. */
  pollSeconds?: number;
  /** How long a node may take to be Ready after an upgrade (or to register after its join), seconds. Default 600. */
  readyTimeoutSeconds?: number;
  /** The Node's name when the stack sets it (`nodes[].name`); default the host's DNS host name in lower case. */
  nodeName?: string;
  /** The config key that names this node, as the stack writes it (`windows-estate:nodes[<i>].name`), for messages. */
  nameKey?: string;
  /** Machine-wide proxy variables for containerd and the kubelet (and the downloads); default none. */
  proxy?: ProxyEnv;
  /**
   * The DaemonSets that run a downloaded binary on this node (the Windows flanneld and kube-proxy): their pod here is
   * restarted when that binary is upgraded. Default none.
   */
  networkAgents?: NetworkAgent[];
  /**
   * The Windows Server release declared for the host (`nodes[].windowsServer`): a host that runs another build is
   * refused before anything changes on it, and refresh reports it. Undefined (state from before): not checked.
   */
  windowsServer?: string;
  /**
   * The kubelet's `--node-ip`: the address the CNI conf and flanneld use too. A change re-joins the node (replace:
   * drain, reset, join), since its pods, Node addresses and VXLAN endpoint all move. Undefined: the kubelet picks.
   */
  nodeIp?: string;
  /**
   * The host will never answer (`nodes[].forceRemove`): its Node is deleted through the API, nothing is tried over
   * SSH, and deleting the resource afterwards only forgets it. Default false.
   */
  forceRemove?: boolean;
  /**
   * How many nodes an upgrade may disrupt at once (`kubernetes.upgrade`), each holding one of `maxUnavailable` Leases
   * in kube-system, and how long a node waits for one. Default 1 and 60 minutes.
   */
  upgrade?: { maxUnavailable: number; waitMinutes: number };
  /** `<project>/<stack>`: a disruptive upgrade runs under the cluster-wide day-2 lock (providers/day2/day2-lock.ts). */
  lockStack?: string;
  /** What the Node object must carry: the declared labels and taints, and on vSphere the providerID. */
  identity?: { labels: Record<string, string>; taints: Taint[]; providerIdAuto: boolean };
  __provider?: string;
}

export interface VanillaNodeOutputs extends Omit<VanillaNodeInputs, "nodeName">, NodeProbe {
  /** The Node's name: `nodes[].name`, or the DNS host name in lower case, as the kubelet registers it. */
  nodeName: string;
  /** `vsphere://<uuid>` when `providerId: auto` set it. */
  providerId?: string;
  /** Steps the node still needs, with why (set by `read` when it finds drift; empty after a successful `up`). */
  pendingSteps: string[];
  hostKey: string;
  hostKeyFingerprint: string;
  unreachable?: string;
  /** After a forced removal: what stays on the host, which nobody could clean up. */
  leftOnHost?: string;
}

/** What an upgrade is to, recorded on the Node: the versions of the downloads that take it out of service. */
function upgradeTarget(downloads: readonly Download[]): string {
  return downloads
    .filter((d) => DISRUPTIVE_DOWNLOADS.includes(d.name))
    .map((d) => `${d.name}=${d.version}`)
    .join(",");
}

/**
 * How much sooner than now a slot Lease is read as expired when telling which unfinished nodes hold none: its Lease is
 * read again a moment later to take it, and one seen live in the list but expired at that read would count as neither
 * held nor unfinished. Counted as both meanwhile is the safe side (a holder renews at a third of its 300 s).
 */
const LEASE_READ_MARGIN_MS = 30_000;

/** The Leases of kube-system, where the upgrade slots are. */
const LEASES_PATH = "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases";

/** Whether another of this stack's nodes still holds an upgrade slot (unexpired). */
async function stackStillUpgrading(api: KubeApi, stack: string): Promise<boolean> {
  const r = await api.request("GET", LEASES_PATH);
  if (r.status !== 200) return true; // unknown: keep the lock to its expiry rather than free it too early
  return stackHoldsSlot(r.body, stack, Date.now());
}

/** The other nodes out of service for an unfinished upgrade without a slot (upgrade-slots.ts unleasedUpgrades). */
async function unfinishedUpgrades(api: KubeApi, self: string): Promise<Unleased[]> {
  const nodes = await listWindowsNodes(api, "listing Windows nodes for unfinished upgrades");
  const leases = await api.request("GET", LEASES_PATH);
  if (leases.status !== 200) throw apiError(`listing the upgrade slots' Leases (${LEASES_PATH})`, leases);
  return unleasedUpgrades(nodes, leases.body, self, Date.now() + LEASE_READ_MARGIN_MS);
}

const progress = (line: string) => console.error(`vanilla node: ${line}`);

/** The API for drain, Ready, identity and removal; undefined without a kubeconfig (those steps are skipped). */
async function apiOf(i: Pick<VanillaNodeInputs, "kubeconfig" | "context">): Promise<KubeApi | undefined> {
  return i.kubeconfig === undefined ? undefined : connectKube(i, 30_000);
}

/** Deletes the Node; false when it was already gone. */
async function deleteNode(api: KubeApi, name: string): Promise<boolean> {
  const r = await api.request("DELETE", `/api/v1/nodes/${encodeURIComponent(name)}`);
  if (r.status >= 300 && r.status !== 404)
    throw new Error(`node ${name}: deleting its Node failed: the API answered ${r.status}`);
  return r.status !== 404;
}

async function probe(ps: PowerShell, i: VanillaNodeInputs, what = "the probe"): Promise<NodeProbe> {
  const names = i.downloads.map((d) => d.name);
  return parseNodeProbe(await ps.run(what, probeScript(names, i.vxlanPort)));
}

function parentOf(p: string, style: "windows" | "posix"): string {
  const sep = style === "windows" ? "\\" : "/";
  return p.slice(0, p.lastIndexOf(sep));
}

/**
 * Makes the Node carry the declared labels and taints, and the providerID while it is empty. The Node appears once the
 * kubelet registers after the join: waited for within the ready timeout.
 */
async function applyIdentity(
  api: KubeApi,
  node: string,
  want: { labels: Record<string, string>; taints: Taint[]; providerId?: string },
  i: VanillaNodeInputs,
): Promise<void> {
  const path = `/api/v1/nodes/${encodeURIComponent(node)}`;
  const deadline = Date.now() + (i.readyTimeoutSeconds ?? 600) * 1000;
  let current = await api.request("GET", path);
  while (current.status === 404) {
    if (Date.now() > deadline)
      throw new Error(`node ${node} did not register within ${i.readyTimeoutSeconds ?? 600}s after its join`);
    await new Promise((res) => setTimeout(res, (i.pollSeconds ?? 5) * 1000));
    current = await api.request("GET", path);
  }
  const { patch, conflict } = identityPatch(current.body, want);
  if (conflict) throw new Error(`node ${node}: ${conflict}`);
  if (!patch) return;
  const r = await api.request("PATCH", path, patch);
  if (r.status < 200 || r.status >= 300) throw new Error(`labelling node ${node} failed: the API answered ${r.status}`);
  progress(`node ${node}: identity set (${Object.keys(patch).join(", ")})`);
}

/** The downloads the kubelet service holds open while it runs. */
const KUBELET_FILES = ["kubelet", "kube-log-runner"];

/**
 * Deletes the node's pods of the given DaemonSets so they start again with the new binary. Deleting a DaemonSet pod is
 * how its controller is asked to recreate it on the same node (pkg/controller/daemon); drain leaves them in place.
 */
async function restartAgents(api: KubeApi, node: string, agents: NetworkAgent[]): Promise<void> {
  for (const a of agents) {
    const base = `/api/v1/namespaces/${encodeURIComponent(a.namespace)}/pods`;
    const query = `labelSelector=${encodeURIComponent(`app=${a.app}`)}&fieldSelector=${encodeURIComponent(`spec.nodeName=${node}`)}`;
    const list = await api.request("GET", `${base}?${query}`);
    if (list.status !== 200)
      throw new Error(`node ${node}: listing ${a.namespace}/${a.app} pods failed: the API answered ${list.status}`);
    for (const pod of objects(get(list.body, "items"))) {
      const podName = str(get(pod, "metadata", "name"));
      if (!podName) continue;
      const r = await api.request("DELETE", `${base}/${encodeURIComponent(podName)}`);
      if (r.status >= 300 && r.status !== 404)
        throw new Error(`node ${node}: restarting pod ${a.namespace}/${podName} failed: the API answered ${r.status}`);
      progress(`node ${node}: ${a.binary} upgraded, pod ${a.namespace}/${podName} restarted`);
    }
  }
}

/** What the first look at the node found, and how it was reached. */
interface FirstLook {
  probe: NodeProbe;
  hostKey: string;
  fingerprint: string;
  /** The name a joined node registered under, from the last state (undefined: the one the probe gives). */
  nodeName?: string;
}

/**
 * `convergeHost`, telling this run's other nodes when it failed while its node was out of service for an upgrade:
 * they stop taking theirs out (upgrade-run.ts).
 */
async function converge(
  i: VanillaNodeInputs,
  recordedHostKey: string | undefined,
  last?: VanillaNodeOutputs,
): Promise<VanillaNodeOutputs> {
  try {
    return await convergeHost(i, recordedHostKey, last);
  } catch (e) {
    convergeFailed(i.lockStack, describeTarget(i.connection), last?.nodeName ?? i.nodeName);
    throw e;
  }
}

/**
 * Runs what the node still needs, in order, in one connection and one PowerShell process (two when the Containers
 * feature needs a reboot: the reboot ends the first); a joined node being upgraded is cordoned and drained around it.
 */
async function convergeHost(
  i: VanillaNodeInputs,
  recordedHostKey: string | undefined,
  last?: VanillaNodeOutputs,
): Promise<VanillaNodeOutputs> {
  const target = describeTarget(i.connection);
  const api = await apiOf(i);
  const phase1 = await withSession(i.connection, recordedHostKey, (s) =>
    withPowerShell(s, target, async (ps) => {
      const p = await probe(ps, i);
      const first: FirstLook = {
        probe: p,
        hostKey: recordedHostKey ?? s.hostKey,
        fingerprint: s.hostKeyFingerprint,
        // A joined node keeps the name it registered under (one joined before the DNS host name was read may have
        // its NetBIOS name's); a name kubeadm would refuse stops here, before anything is written or joined.
        nodeName: i.nodeName === undefined && p.joined && last?.nodeName ? last.nodeName : undefined,
      };
      if (first.nodeName === undefined) {
        const bad = nodeNameError(target, i.nodeName, p, i.nameKey ?? "nodes[].name");
        if (bad) throw new Error(bad);
      }
      const wrongOs = osMismatch(first.probe, i.windowsServer);
      if (wrongOs)
        throw new Error(
          `${target}: ${wrongOs}; set this node's windowsServer to what it runs (its RuntimeClass and images follow it). Nothing was changed on the host`,
        );
      if (!pendingSteps(first.probe, i.downloads, i.proxy).some((p) => p.step === "features"))
        return { first, done: await theRest(i, first, api, ps, s) };
      const out = await ps.run("installing Containers", featuresScript());
      if (!out.includes("reboot")) return { first, done: await theRest(i, first, api, ps, s) };
      progress(`${target}: the Containers feature needs a reboot`);
      // Restarted from this process; what is left runs in the one that sees the new boot time.
      return { first, rebootedFrom: await restartFrom(ps, registeredName(i, first), { progress }) };
    }),
  );
  const { first } = phase1;
  let done = phase1.done;
  if (phase1.rebootedFrom !== undefined) {
    const pinned: SshConnection = { ...i.connection, hostKey: first.hostKey, trustOnFirstUse: false };
    const node = registeredName(i, first);
    const back = await whenBack(
      pinned,
      first.hostKey,
      node,
      phase1.rebootedFrom,
      { ...REBOOT_DEFAULTS, progress },
      (ps, s) => theRest(i, first, api, ps, s),
    );
    done = back.value;
  }
  if (!done) throw new Error(`${target}: the converge ended without a result`);
  return finish(i, first, api, done);
}

/**
 * Everything after the Containers feature, in the open PowerShell process: drain when upgrading, the steps, the check.
 * What it returns is what the steps leave for the API side (`finish`): the check after them, and what an upgrade must
 * wait for.
 */
async function theRest(i: VanillaNodeInputs, first: FirstLook, api: KubeApi | undefined, ps: PowerShell, s: Session) {
  const target = describeTarget(i.connection);
  const style = i.connection.pathStyle ?? "windows";
  const nodeName = registeredName(i, first);
  const registration = {
    nodeName,
    ...(i.nodeIp ? { nodeIp: i.nodeIp } : {}),
    labels: i.identity?.labels ?? {},
    taints: i.identity?.taints ?? [WINDOWS_TAINT],
  };
  const steps = pendingSteps(first.probe, i.downloads, i.proxy)
    .map((p) => p.step)
    .filter((st) => st !== "features");
  // Windows cannot overwrite a running executable: stop what the new binaries replace, and start it again after.
  const replaced = i.downloads.filter((d) => first.probe.versions[d.name] !== d.version).map((d) => d.name);
  // An upgrade that restarts the kubelet or containerd of a node in service: take a slot (at most maxUnavailable nodes
  // out at once), cordon and drain first, uncordon once it is Ready again. flanneld, kube-proxy and CNI plugins alone
  // drain nothing.
  const disruptive = first.probe.joined && replaced.some((n) => DISRUPTIVE_DOWNLOADS.includes(n));
  // An upgrade an earlier run began (its annotation on the Node) is finished even when its binaries are in place:
  // kubeadm upgrade node and the services again, then Ready and the uncordon.
  const node = api && first.probe.joined ? await api.get(`/api/v1/nodes/${encodeURIComponent(nodeName)}`) : undefined;
  const annotations = obj(get(node, "metadata", "annotations")) ?? {};
  const begun = str(annotations[UPGRADING_TO_ANNOTATION]);
  const upgrading = (disruptive || begun !== undefined) && api !== undefined;
  if (begun !== undefined && !disruptive) {
    progress(`node ${nodeName}: finishing the upgrade to ${begun} an earlier run began`);
    for (const st of ["kubeadm upgrade", "services"] as const) if (!steps.includes(st)) steps.push(st);
  }
  // Cordoned by someone else before the upgrade began: it stays cordoned afterwards.
  const keepCordoned =
    begun !== undefined
      ? annotations[KEEP_CORDONED_ANNOTATION] === "true"
      : get(node, "spec", "unschedulable") === true;
  let heartbeat = "";
  // The upgrade slot held while the node is out of service, released once it is Ready and uncordoned; the day-2 lock,
  // shared by this stack's upgrading nodes, released by the last of them to finish.
  let slot: HeldSlot | undefined;
  let lock: LockShare | undefined;
  if (upgrading && api) {
    const u = i.upgrade ?? { maxUnavailable: 1, waitMinutes: 60 };
    // The day-2 lock first (no other stack's reboot, patching or rollout meanwhile; this stack's nodes share it, and
    // it stays held while any of them is still waiting for a slot), then one of the slots.
    const wait = {
      pollMs: (i.pollSeconds ?? 5) * 1000,
      timeoutMs: u.waitMinutes * 60_000,
      progress: (line: string) => progress(`node ${nodeName}: ${line}`),
    };
    if (i.lockStack) lock = await joinDay2Lock(api, { stack: i.lockStack, job: "vanilla upgrade" }, wait);
    slot = await acquireLease(api, {
      namespace: "kube-system",
      names: slotNames(u.maxUnavailable),
      what: "an upgrade slot",
      holder: slotHolder(i.lockStack, nodeName),
      leaseSeconds: UPGRADE_SLOT_SECONDS,
      stop: (holders) => rolloutStopped(i.lockStack, target, nodeName, holders.map(slotNode)),
      // A node finishing its own begun upgrade adds no node out of service: it never keeps a slot for another (two
      // unfinished nodes would each keep the one free slot for the other, for ever).
      ...(begun === undefined ? { unleased: () => unfinishedUpgrades(api, nodeName) } : {}),
      ...wait,
    });
    upgradeBegan(i.lockStack, target, nodeName);
    progress(`node ${nodeName}: upgrading (${steps.join(", ")}) in slot ${slot.name}; cordon and drain`);
    await patchNode(
      api,
      nodeName,
      {
        metadata: {
          annotations: {
            [UPGRADING_TO_ANNOTATION]: begun ?? upgradeTarget(i.downloads),
            [KEEP_CORDONED_ANNOTATION]: keepCordoned ? "true" : null,
          },
        },
        spec: { unschedulable: true },
      },
      "cordoning",
    );
    if (keepCordoned) progress(`node ${nodeName}: was cordoned before the upgrade; it stays cordoned afterwards`);
    await drainNode(api, nodeName, { ...DRAIN_RUN_DEFAULTS, retryDelayMs: (i.pollSeconds ?? 5) * 1000, progress });
    heartbeat = await lastHeartbeat(api, nodeName);
  }
  const scripts: Record<Exclude<Step, "features" | "join">, string> = {
    "host settings": hostSettingsScript(i.vxlanPort),
    proxy: proxyScript(i.proxy ?? NO_PROXY_ENV),
    binaries: installScript(i.downloads, i.proxy?.HTTPS_PROXY || i.proxy?.HTTP_PROXY || ""),
    "containerd service": containerdServiceScript(i.containerdConfigPath),
    "kubelet service": kubeletServiceScript(registration),
    "kubeadm upgrade": kubeadmUpgradeScript(),
    services: startServicesScript(["containerd", "kubelet"]),
  };
  // The kubelet service runs kubelet.exe through kube-log-runner.exe; flanneld and kube-proxy run sandbox copies
  // (components/vanilla/network-scripts.ts), so their host files are never locked.
  const toStop = [
    ...(replaced.includes("containerd") ? ["kubelet", "containerd"] : []),
    ...(replaced.some((n) => KUBELET_FILES.includes(n)) ? ["kubelet"] : []),
  ].filter((n, k, all) => all.indexOf(n) === k && first.probe.services[n]?.status === "Running");
  if (steps.includes("binaries") && toStop.length > 0 && !steps.includes("services") && first.probe.joined)
    steps.push("services");
  try {
    for (const step of steps) {
      if (step === "binaries" && toStop.length > 0)
        await ps.run(`stopping ${toStop.join(", ")}`, stopServicesScript(toStop));
      progress(`${target}: ${step}`);
      if (step === "join") {
        await s.mkdirp(parentOf(i.joinConfigPath, style));
        // Without `nodes[].name` the join file names the host's own name, known only now (kubeadm needs a DNS-1123
        // name there, never the placeholder the plan shows).
        const joinConfig = i.joinConfig.split(HOSTNAME_PLACEHOLDER).join(nodeName);
        await s.writeFileAtomic(i.joinConfigPath, Buffer.from(joinConfig, "utf8"));
        await ps.run("kubeadm join", joinScript(i.joinConfigPath, registration));
      } else await ps.run(step, scripts[step]);
    }
  } catch (e) {
    // The step's own words name the host; what it left in the cluster, and what the next up does, are said with them
    // (the error keeps its kind: unreachable or not).
    if (upgrading && e instanceof Error)
      e.message = `${e.message}; node ${nodeName} stays cordoned, marked ${UPGRADING_TO_ANNOTATION}: the next up finishes its upgrade`;
    throw e;
  }
  const serial = i.identity?.providerIdAuto && api ? await ps.run("reading the BIOS serial", biosSerialScript()) : "";
  return {
    after: await probe(ps, i, "the check after the steps"),
    serial,
    upgrading,
    heartbeat,
    replaced,
    slot,
    lock,
    keepCordoned,
  };
}

/** The API side after the steps: Ready after an upgrade, uncordon, agent restarts, the Node's identity. */
async function finish(
  i: VanillaNodeInputs,
  first: FirstLook,
  api: KubeApi | undefined,
  done: Awaited<ReturnType<typeof theRest>>,
): Promise<VanillaNodeOutputs> {
  const target = describeTarget(i.connection);
  const nodeName = registeredName(i, first);
  const { after, serial, upgrading, heartbeat, replaced, slot, lock } = done;
  if (upgrading && api) {
    await waitForFreshReady(api, nodeName, heartbeat, {
      timeoutMs: (i.readyTimeoutSeconds ?? 600) * 1000,
      pollMs: (i.pollSeconds ?? 5) * 1000,
      after: "the upgrade",
    }).catch((e: Error) => {
      throw new Error(`node ${nodeName}: ${e.message}`);
    });
    await patchNode(
      api,
      nodeName,
      {
        metadata: { annotations: { [UPGRADING_TO_ANNOTATION]: null, [KEEP_CORDONED_ANNOTATION]: null } },
        ...(done.keepCordoned ? {} : { spec: { unschedulable: false } }),
      },
      "uncordoning",
    );
    await slot?.release();
    upgradeEnded(i.lockStack, target);
    // Released by the last of this stack's upgrading nodes; the others leave it to them (or to expiry).
    const stack = i.lockStack;
    if (lock && stack) await lock.leave(() => stackStillUpgrading(api, stack));
    progress(`node ${nodeName}: upgraded, ${done.keepCordoned ? "left cordoned as it was" : "uncordoned"}`);
  }
  // A new flanneld or kube-proxy runs once its pod on this node restarts (the DaemonSet recreates it at once).
  const restart = (i.networkAgents ?? []).filter((a) => replaced.includes(a.binary) && first.probe.joined);
  if (restart.length > 0 && api) await restartAgents(api, nodeName, restart);
  let providerId: string | undefined;
  if (i.identity && api) {
    if (i.identity.providerIdAuto) {
      providerId = vsphereProviderId(serial.replace(/^\uFEFF/, ""));
      if (!providerId)
        throw new Error(
          `${target}: providerId is auto, but the BIOS serial ${JSON.stringify(serial.trim().slice(0, 60))} is not a vSphere VM's (VMware-…); set providerId: none`,
        );
    }
    await applyIdentity(api, nodeName, { ...i.identity, providerId }, i);
  }
  const left = pendingSteps(after, i.downloads, i.proxy);
  if (left.length > 0) throw new Error(`${target} still needs: ${left.map((l) => `${l.step} (${l.why})`).join("; ")}`);
  return {
    ...i,
    ...after,
    nodeName,
    ...(providerId ? { providerId } : {}),
    pendingSteps: [],
    hostKey: first.hostKey,
    hostKeyFingerprint: first.fingerprint,
  };
}

/**
 * A Windows node of a vanilla cluster, converged over SSH: Containers feature, firewall, pinned binaries with their
 * checksums verified, containerd and kubelet services, `kubeadm join`. `read` probes the host and reports the steps
 * that drifted (`pendingSteps`); `up` runs exactly those. Delete drains the node, resets it and removes the Node.
 */
export const vanillaNodeProvider: pulumi.dynamic.ResourceProvider = {
  async check(_olds: VanillaNodeInputs, news: VanillaNodeInputs) {
    const failures: pulumi.dynamic.CheckFailure[] = [];
    if (!isUnknown(news.connection))
      for (const reason of connectionProblems(news.connection, isUsablePin, isUnknown))
        failures.push({ property: "connection", reason });
    return { inputs: news, failures };
  },
  async diff(_id: string, olds: VanillaNodeOutputs, news: VanillaNodeInputs) {
    // A host that is gone is only ever removed through the API, never replaced or converged.
    if (news.forceRemove) return { changes: olds.forceRemove !== true, replaces: [], deleteBeforeReplace: true };
    const host = (c: SshConnection | undefined) => `${c?.host}:${c?.port ?? 22}`;
    const replaces = [
      ...(host(olds.connection) !== host(news.connection) ? ["connection"] : []),
      // Recorded from this release on: state from before has none, and its kubelet takes the flag at its next upgrade.
      ...(olds.nodeIp !== undefined && olds.nodeIp !== news.nodeIp ? ["nodeIp"] : []),
    ];
    const changed =
      JSON.stringify(olds.downloads) !== JSON.stringify(news.downloads) ||
      // A rotated bootstrap token matters only to a node that has not joined yet.
      (olds.joinConfig !== news.joinConfig && !olds.joined) ||
      olds.containerdConfigPath !== news.containerdConfigPath ||
      olds.vxlanPort !== news.vxlanPort ||
      // Recorded from this release on; state from before has none and needs no update for it.
      (olds.windowsServer !== undefined && olds.windowsServer !== news.windowsServer) ||
      JSON.stringify(olds.connection) !== JSON.stringify(news.connection) ||
      olds.kubeconfig !== news.kubeconfig ||
      JSON.stringify(olds.identity) !== JSON.stringify(news.identity) ||
      JSON.stringify(olds.proxy) !== JSON.stringify(news.proxy) ||
      JSON.stringify(olds.networkAgents) !== JSON.stringify(news.networkAgents) ||
      olds.__provider !== news.__provider;
    // Drift found by refresh (or a host refresh could not reach) makes the next up converge it.
    const drift = (olds.pendingSteps ?? []).length > 0 || olds.unreachable !== undefined;
    return { changes: replaces.length > 0 || changed || drift, replaces, deleteBeforeReplace: true };
  },
  async create(inputs: VanillaNodeInputs) {
    const outs = inputs.forceRemove ? await removeWithoutHost(inputs) : await converge(inputs, undefined);
    return { id: describeTarget(inputs.connection), outs: defined(outs) };
  },
  async read(id: string, props?: VanillaNodeOutputs) {
    if (!props) return { id, props: {} };
    if (props.forceRemove) return { id, props };
    const { unreachable: _was, ...last } = props;
    try {
      const conn = { ...props.connection, deadlineSeconds: Math.min(props.connection.deadlineSeconds ?? 120, 30) };
      // A probe only reads: safe to run again if the relay's session is lost under it.
      const p = await withSession(
        conn,
        props.hostKey,
        (s) => withPowerShell(s, describeTarget(props.connection), (ps) => probe(ps, props)),
        { retriesOnRelayLoss: 2 },
      );
      const wrongOs = osMismatch(p, props.windowsServer);
      const pending = [
        ...(wrongOs ? [`os: ${wrongOs}`] : []),
        ...pendingSteps(p, props.downloads, props.proxy).map((x) => `${x.step}: ${x.why}`),
      ];
      // The Node's labels, taints and providerID, when the API can be asked.
      if (props.identity && props.kubeconfig !== undefined && p.joined) {
        const api = await connectKube(props, 30_000);
        const node = await api.get(`/api/v1/nodes/${encodeURIComponent(props.nodeName)}`);
        const want = { ...props.identity, ...(props.providerId ? { providerId: props.providerId } : {}) };
        const d = node ? identityPatch(node, want) : { conflict: "the Node object is gone" };
        if (d.conflict || d.patch)
          pending.push(`identity: ${d.conflict ?? `Node differs (${Object.keys(d.patch ?? {}).join(", ")})`}`);
      }
      return { id, props: defined({ ...last, ...p, pendingSteps: pending }) };
    } catch (e) {
      if (!isUnreachable(e)) throw e;
      console.error(`warning: ${describeTarget(props.connection)} is unreachable; refresh kept its last known state`);
      return { id, props: defined({ ...last, unreachable: e.message.slice(0, 300) }) };
    }
  },
  async update(_id: string, olds: VanillaNodeOutputs, news: VanillaNodeInputs) {
    return {
      outs: defined(news.forceRemove ? await removeWithoutHost(news, olds) : await converge(news, olds.hostKey, olds)),
    };
  },
  async delete(_id: string, props: VanillaNodeOutputs) {
    if (props.forceRemove) return;
    const name = props.nodeName;
    const target = describeTarget(props.connection);
    const api = await apiOf(props);
    // The host first: one that does not answer stops the removal before its Node is cordoned or drained.
    await withSession(props.connection, props.hostKey, (s) =>
      withPowerShell(s, target, async (ps) => {
        if (api && name) {
          await setCordoned(api, name, true);
          await drainNode(api, name, {
            ...DRAIN_RUN_DEFAULTS,
            retryDelayMs: (props.pollSeconds ?? 5) * 1000,
            progress,
          });
        }
        await ps.run("kubeadm reset", resetScript());
      }),
    ).catch((e: Error) => {
      if (!isUnreachable(e)) throw e;
      throw new Error(
        `${e.message}; nothing was changed. If this host will never answer again, keep (or put back) its entry in windows-estate:nodes with forceRemove: true and run up: its Node is deleted through the API alone. Then delete the entry`,
      );
    });
    if (api && name) await deleteNode(api, name);
  },
};

/**
 * What a forced removal leaves on the host. Its kubelet keeps a client certificate the cluster signed (valid for
 * kube-controller-manager's --cluster-signing-duration, a year by default), with which it registers its Node again if the
 * host ever starts: it must be wiped or reimaged before it reconnects.
 */
export const LEFT_ON_HOST =
  "the kubelet and containerd services, C:\\k, C:\\var\\lib\\kubelet and C:\\etc\\kubernetes with the kubelet's client certificate, which stays valid (a year by default) and re-registers the Node if the host ever starts again: wipe or reimage it before it reconnects";

/**
 * Removes a node whose host will never answer, through the API only: its Node is deleted (no drain: its pods are
 * already lost, and once the Node is gone kube-controller-manager's pod garbage collector deletes them,
 * pkg/controller/podgc `gcOrphaned`, so their controllers recreate them elsewhere).
 */
async function removeWithoutHost(i: VanillaNodeInputs, last?: VanillaNodeOutputs): Promise<VanillaNodeOutputs> {
  const name = i.nodeName ?? last?.nodeName ?? "";
  const api = name ? await apiOf(i) : undefined;
  if (api) {
    const deleted = await deleteNode(api, name);
    progress(
      `node ${name}: ${deleted ? "Node deleted" : "no Node to delete"} without its host (forceRemove); left on ${describeTarget(i.connection)}: ${LEFT_ON_HOST}`,
    );
  } else if (!name)
    progress(
      `${describeTarget(i.connection)}: forceRemove: never joined under a known name, nothing to delete in the API`,
    );
  // Never probed (it never answered): the probe's own defaults for nothing found.
  const probe: NodeProbe = last ?? parseNodeProbe("{}");
  return {
    ...probe,
    ...i,
    nodeName: name,
    pendingSteps: [],
    hostKey: last?.hostKey ?? "",
    hostKeyFingerprint: last?.hostKeyFingerprint ?? "",
    forceRemove: true,
    leftOnHost: LEFT_ON_HOST,
  };
}

/**
 * The Node's name: `nodes[].name` when the stack sets it (the kubelet registers it through --hostname-override), else
 * the one a joined node registered under, else the host's DNS host name in lower case, as the kubelet registers by
 * default (never `$env:COMPUTERNAME`, the NetBIOS name: node-name.ts). Lower case either way, as kubeadm and the
 * kubelet make it.
 */
function registeredName(i: Pick<VanillaNodeInputs, "nodeName">, first: FirstLook): string {
  return i.nodeName === undefined && first.nodeName
    ? first.nodeName
    : kubeletNodeName(i.nodeName, first.probe.dnsHostname);
}
