/**
 * Day-2 facts in one place: the node relay the program declares for `nodeAccess.via: cluster`, the annotations it
 * keeps its own progress in, and what WMCO records on Windows Nodes that day-2 operations read.
 */

/**
 * The relay Deployment (and its pods' `app.kubernetes.io/name` label), in the WMCO namespace on OpenShift and in
 * `RELAY_VANILLA_NAMESPACE` on a vanilla cluster.
 */
export const RELAY_NAME = "windows-estate-node-relay";
/** Selector of the relay pods, as the SSH layer looks them up. */
export const RELAY_SELECTOR = `app.kubernetes.io/name=${RELAY_NAME}`;
/** The port the relay listens on, on the pod's loopback only (a port-forward reaches it; other pods cannot). */
export const RELAY_PORT = 2222;
/**
 * Default relay image: Red Hat's freely redistributable UBI Node.js runtime (the relay is a small Node.js program
 * mounted from a ConfigMap). Mirrored or disconnected clusters set `nodeAccess.bastionImage`.
 */
export const RELAY_IMAGE = "registry.access.redhat.com/ubi9/nodejs-22-minimal:latest";
/** The only port the relay opens on a node: WMCO's own SSH port (pkg/windows/connectivity.go `sshPort`). */
export const RELAY_ALLOWED_PORTS = [22];

/**
 * The relay's own namespace on a vanilla cluster (declared by the program, Pod Security `restricted` enforced). Not
 * kube-system: a port-forward grant there reaches its hostNetwork pods (static control-plane pods, kube-proxy), that
 * is the node's loopback. On OpenShift the relay runs in WMCO's namespace.
 */
export const RELAY_VANILLA_NAMESPACE = "windows-estate-node-relay";

/**
 * The user and group the relay runs as where the platform assigns none (vanilla clusters): the default image's own
 * user (sclorg/s2i-nodejs-container 22-minimal/Dockerfile.rhel9 `USER 1001`, which owns the image's app root). Pod
 * Security `restricted` requires a non-root user (runAsNonRoot), and the kubelet can only check a numeric one, so it
 * is set here rather than taken from the image. OpenShift's restricted-v2 SCC assigns a UID from the namespace's
 * `openshift.io/sa.scc.uid-range` (MustRunAsRange) and refuses others: left unset there.
 */
export const RELAY_RUN_AS = 1001;

/** Relay pods: two, so a drain or a node failure leaves one serving (one on a cluster with one Linux node for it). */
export const RELAY_REPLICAS = 2;

/**
 * How long a relay pod may take to stop (`terminationGracePeriodSeconds`): the longest remote command, the SSH
 * layer's per-command timeout (providers/ssh/types.ts `DEFAULTS.commandTimeoutSeconds`, 300 s), plus a minute, so a
 * command in flight through a pod that is drained or rolled finishes before the kubelet kills it.
 */
export const RELAY_TERMINATION_GRACE_SECONDS = 360;
/**
 * The relay's own deadline after SIGTERM: it closes the tunnels still open then (naming each in its log) and exits,
 * ten seconds before the kubelet's SIGKILL at the grace period.
 */
export const RELAY_DRAIN_SECONDS = RELAY_TERMINATION_GRACE_SECONDS - 10;

/**
 * The readiness probe: an exec probe (the relay listens on the pod's loopback only, and the kubelet's tcpSocket and
 * httpGet probes dial the pod IP from the node, or a `host` given, which 127.0.0.1 would make the node's own loopback:
 * kubernetes pkg/kubelet/prober/prober.go `runProbe`), which starts a `node` process each time: on a busy node with
 * the relay's small CPU request that takes longer than the kubelet's default 1 s timeout. 5 s per try and 3 failures
 * in a row (30 s) before the pod counts as not ready.
 */
export const RELAY_READINESS = { periodSeconds: 10, timeoutSeconds: 5, failureThreshold: 3 } as const;

/**
 * DNS the relay may ask (a node given by name is resolved in the pod): port 53, and on OpenShift also 5353, where
 * the cluster DNS pods listen behind the `dns-default` Service's port 53 (openshift/cluster-dns-operator
 * assets/dns/daemonset.yaml `containerPort: 5353`), and a policy sees the DNS pod's own port behind the Service.
 */
export const RELAY_DNS_PORTS = { kubernetes: [53], openshift: [53, 5353] } as const;

/** Windows Nodes: `kubernetes.io/os=windows` (k8s.io/api core/v1 `LabelOSStable`), as WMCO selects them. */
export const WINDOWS_NODE_SELECTOR = "kubernetes.io/os=windows";

/** The list of the Windows Nodes (WINDOWS_NODE_SELECTOR). */
export const WINDOWS_NODES_PATH = `/api/v1/nodes?labelSelector=${encodeURIComponent(WINDOWS_NODE_SELECTOR)}`;

/**
 * One page of the Linux Nodes: its items plus `metadata.remainingItemCount` is the count, and their taints say where
 * the node relay can run (components/node-access/placement.ts); one page is plenty to tell one from two.
 */
export const LINUX_NODES_PAGE_PATH = `/api/v1/nodes?limit=500&labelSelector=${encodeURIComponent("kubernetes.io/os=linux")}`;

/**
 * WMCO's host-key pin on the Node (pkg/windows/hostkey.go `SSHHostKeyAnnotation`, `SSHHostKeyTypeAnnotation`): the
 * base64 SSH wire-format key and its algorithm. Set by WMCO from release-4.20 on (trust on first use).
 */
export const WMCO_HOST_KEY_ANNOTATION = "windowsmachineconfig.openshift.io/ssh-host-key";
export const WMCO_HOST_KEY_TYPE_ANNOTATION = "windowsmachineconfig.openshift.io/ssh-host-key-type";
/** WMCO's hash of the public key a node was configured with (pkg/nodeconfig/nodeconfig.go `PubKeyHashAnnotation`). */
export const WMCO_PUB_KEY_HASH_ANNOTATION = "windowsmachineconfig.openshift.io/pub-key-hash";
/** WMCO reboots a node carrying this, with any value (pkg/metadata `RebootAnnotation`). */
export const WMCO_REBOOT_ANNOTATION = "windowsmachineconfig.openshift.io/reboot-required";
/** Set on a node WMCO is upgrading (pkg/metadata/metadata.go `UpgradingLabel`). */
export const WMCO_UPGRADING_LABEL = "windowsmachineconfig.openshift.io/upgrading";
/** The Node annotation naming its Machine (`<namespace>/<name>`), set by the machine-api node link controller. */
export const MACHINE_ANNOTATION = "machine.openshift.io/machine";
/** The Machine label naming its MachineSet: every Windows MachineSet's template carries it (WMCO docs, our builder). */
export const MACHINESET_LABEL = "machine.openshift.io/cluster-api-machineset";
/**
 * The Machine annotations the MachineSet controller deletes first on a scale-down, under every `deletePolicy`
 * (openshift/machine-api-operator pkg/controller/machineset/delete_policy.go `DeleteNodeAnnotation`, and the older
 * `oldDeleteNodeAnnotation` it still honours). Any non-empty value counts; OpenShift's docs write `"true"`.
 */
export const DELETE_MACHINE_ANNOTATION = "machine.openshift.io/delete-machine";
export const OLD_DELETE_MACHINE_ANNOTATION = "machine.openshift.io/cluster-api-delete-machine";

/** Our own progress records on Nodes (the kured pattern: progress where operators can see it). */
export const REBOOTED_FOR_ANNOTATION = "windows-estate.io/rebooted-for";
export const REBOOTING_FOR_ANNOTATION = "windows-estate.io/rebooting-for";
/**
 * The day-2 lock: one Lease every disruptive job of any stack holds while it works (as kured's one lock,
 * pkg/daemonsetlock), and how long it outlives a holder that stopped renewing.
 */
export const DAY2_LOCK = {
  namespace: "kube-system",
  name: "windows-estate-day2",
  leaseSeconds: 300,
  /** How long a job waits for another stack's to finish before it gives up, naming the holder. */
  waitSeconds: 3600,
} as const;

/**
 * Set on a vanilla Node before its upgrade takes it out of service (the versions it is upgraded to), removed once it
 * is back: a run that failed in between is finished by the next `up` (kubeadm upgrade node, services, Ready, uncordon).
 */
export const UPGRADING_TO_ANNOTATION = "windows-estate.io/upgrading-to";

/** Set when the node was already cordoned by someone else before our reboot: it is left cordoned afterwards. */
export const KEEP_CORDONED_ANNOTATION = "windows-estate.io/was-unschedulable";

/**
 * The user WMCO logs in as on MachineSet nodes: `capi` on Azure, else `Administrator`
 * (controllers/windowsmachine_controller.go `getDefaultUsername`). BYOH nodes use their `windows-instances` entry.
 */
export function machineSetNodeUser(platform: string): string {
  return platform === "Azure" ? "capi" : "Administrator";
}

/**
 * A MachineHealthCheck carrying this annotation (any value) remediates nothing (OCP "Pausing a MachineHealthCheck
 * resource"; ARO-RP's MHC controller `MHCPausedAnnotation`). A rolling reboot pauses the checks that select its
 * nodes' Machines, so a node that is NotReady while it restarts is not deleted (the sample MHC remediates after 300s).
 */
export const MHC_PAUSED_ANNOTATION = "cluster.x-k8s.io/paused";
/** Our mark on a MachineHealthCheck we paused (with the token's digest), so we only ever unpause our own pauses. */
export const PAUSED_FOR_ROLLOUT_ANNOTATION = "windows-estate.io/paused-for-rollout";

/** Our progress records for patching, like the reboot's: the value is a digest of the patch policy. */
export const PATCHED_FOR_ANNOTATION = "windows-estate.io/patched-for";
export const PATCHING_FOR_ANNOTATION = "windows-estate.io/patching-for";

/**
 * WMCO's record of the version that configured a node, and the version it means to configure it with
 * (pkg/metadata/metadata.go `VersionAnnotation`, `DesiredVersionAnnotation`): equal once WMCO is done with the node.
 */
export const WMCO_VERSION_ANNOTATION = "windowsmachineconfig.openshift.io/version";
export const WMCO_DESIRED_VERSION_ANNOTATION = "windowsmachineconfig.openshift.io/desired-version";
