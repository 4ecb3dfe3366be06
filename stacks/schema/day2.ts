import { z } from "zod";
import { drainSettings } from "./drain";

const pin = z.string().min(1);

/** A jump host (bastion) every node session goes through. */
const jumpHost = z.strictObject({
  /** Address or DNS name of the jump host. */
  address: z.string().min(1),
  /** SSH port. Default 22. */
  port: z.number().int().min(1).max(65535).default(22),
  /** User on the jump host. */
  username: z.string().min(1),
  /** The jump host's key: an OpenSSH public-key line or a `SHA256:` fingerprint. Required: host keys are verified. */
  hostKey: pin,
  /** Path to the key the jump host accepts (`~` expanded). Default: the WMCO private key. */
  privateKeyPath: z.string().min(1).optional(),
});

/** A subject allowed to open the port-forward to the relay (a RoleBinding is declared for them). */
const subject = z.strictObject({
  /** Kind of subject, as in a RoleBinding. */
  kind: z.enum(["User", "Group", "ServiceAccount"]),
  /** User, group or ServiceAccount name. */
  name: z.string().min(1),
  /** Namespace of a ServiceAccount. */
  namespace: z.string().min(1).optional(),
});

/**
 * `windows-estate:nodeAccess`: how node operations (reboots, key rotation, BYOH preparation) reach Windows nodes
 * over SSH from where `pulumi up` runs.
 */
export const nodeAccessSchema = z
  .strictObject({
    /**
     * `direct` (default): SSH to the node's address. `jumpHost`: through `jumpHost`. `cluster`: through the
     * Kubernetes API, a port-forward to a relay pod the program declares in the WMCO namespace (on a kubeadm cluster
     * in its own namespace, `windows-estate-node-relay`).
     */
    via: z.enum(["direct", "jumpHost", "cluster"]).default("direct"),
    jumpHost: jumpHost.optional(),
    /**
     * The relay pod's image (`via: cluster`): a Node.js runtime whose `node` runs as any numeric non-root user (on a
     * kubeadm cluster the pod runs as UID and GID 1001, the default image's user; OpenShift assigns one from the
     * namespace's range). Default: UBI 9 Node.js 22 minimal.
     */
    bastionImage: z.string().min(1).optional(),
    /**
     * How many relay pods (`via: cluster`), spread one per Linux node, with a disruption budget keeping one serving.
     * Default: 2, or 1 when discovery finds a single Linux node the relay can be scheduled on (two there would make a
     * drain of that node wait forever on the budget). Set 1 for such a cluster when discovery is off.
     */
    relayReplicas: z.number().int().min(1).max(5).optional(),
    /** Who may use the relay (`via: cluster`): a RoleBinding to the port-forward Role is declared for them. */
    portForwardSubjects: z.array(subject).default([]),
    /**
     * Host keys of nodes WMCO has not pinned (vanilla nodes, WMCO before 4.20), by Node name or address: an OpenSSH
     * public-key line or a `SHA256:` fingerprint. WMCO's own pin on the Node wins when both exist and agree.
     */
    hostKeys: z.record(z.string(), pin).default({}),
    /** Accept and record the key of a node with no pin at first contact. Default false: an unpinned node is an error. */
    trustOnFirstUse: z.boolean().default(false),
    /** Per-attempt connect and handshake timeout, seconds. Default 15. */
    connectTimeoutSeconds: z.number().int().min(1).max(600).default(15),
  })
  .default({ via: "direct", portForwardSubjects: [], hostKeys: {}, trustOnFirstUse: false, connectTimeoutSeconds: 15 });

export type NodeAccessConfig = z.output<typeof nodeAccessSchema>;

/** A 24-hour time of day, `HH:MM`. */
const timeOfDay = z.string().regex(/^([01]\d|2[0-3]):[0-5]\d$/, "must be a time HH:MM (24-hour)");

/**
 * When a disruptive job may start a batch (kured's `--reboot-days`, `--start-time`, `--end-time`, `--time-zone`).
 * Outside it, `pulumi up` starts nothing and says when the window opens; a batch is never started after it closes
 * (one already running finishes). `{ start: "22:00", end: "04:00" }` crosses midnight and belongs to the day it starts.
 */
const maintenanceWindow = z.strictObject({
  /** Opening time, `HH:MM` (24-hour) in `timeZone`. */
  start: timeOfDay,
  /** Closing time, `HH:MM`; earlier than `start`: the window crosses midnight. */
  end: timeOfDay,
  /** Days the window opens on (`Mon` … `Sun`). Default: every day. */
  days: z.array(z.enum(["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"])).min(1).optional(),
  /** IANA time zone of `start` and `end` (`Europe/Berlin`). Default `UTC`. */
  timeZone: z.string().min(1).optional(),
});

/**
 * How many Windows nodes may be out of service at once: a whole number, or a percentage of the cluster's Windows
 * nodes (`"25%"`, rounded down, at least 1), as a Deployment's `maxUnavailable`. Nodes that are already NotReady or
 * cordoned count against it, and one Windows node always keeps serving while there are two or more.
 */
const maxUnavailable = z.union([
  z.number().int().min(1).max(1000),
  z.string().regex(/^([1-9]\d?|100)%$/, "must be a whole number or a percentage such as 25%"),
]);

/**
 * A pod selector that holds a job back while matching pods run (kured's `--blocking-pod-selector`): on the node
 * about to be drained (`scope: node`, that node waits for a later run) or anywhere in the cluster (`scope: cluster`,
 * no batch starts).
 */
const blocker = z.strictObject({
  /** A label selector, as `kubectl get pods -l` takes it (`app=backup,tier!=web`). */
  podSelector: z.string().min(1),
  /** Only pods in this namespace. Default: every namespace. */
  namespace: z.string().min(1).optional(),
  /** `node` (default): pods on the node about to be taken out. `cluster`: pods anywhere. */
  scope: z.enum(["node", "cluster"]).default("node"),
});

/**
 * `windows-estate:reboot`: a rolling graceful reboot of the Windows nodes, run by `pulumi up` whenever `token`
 * changes (and when the key first appears).
 */
export const rebootSchema = z
  .strictObject({
    /** Any string; changing it asks for a new rolling reboot (e.g. a date or a change ticket). */
    token: z.string().min(1).max(253),
    /** How many Windows nodes may be out at once: a number or a percentage (`"25%"`). Default 1. */
    maxUnavailable: maxUnavailable.default(1),
    /** When batches may start. Default: any time. */
    window: maintenanceWindow.optional(),
    /** Pods that hold the reboot back while they run. Default: none. */
    blockers: z.array(blocker).default([]),
    /** Only nodes with all these labels (besides `kubernetes.io/os=windows`). Default: every Windows node. */
    nodeSelector: z.record(z.string(), z.string()).default({}),
    ...drainSettings,
    /** How long one node may take to come back Ready after the restart, seconds. Default 900. */
    readyTimeoutSeconds: z.number().int().min(60).max(86400).default(900),
  })
  .optional();

export type RebootConfig = z.output<typeof rebootSchema>;


/**
 * `windows-estate:patching`: the patch level of the Windows hosts this stack manages (BYOH hosts, vanilla nodes), as
 * code. Each `pulumi up` brings the nodes below the declared update revision up to it, in rolling batches.
 */
export const patchingSchema = z
  .strictObject({
    /**
     * Windows build number → the lowest update revision (UBR) accepted, e.g. `{ "20348": 2700 }` (Windows Server
     * 2022 at 20348.2700 or later). Builds not listed are not patched.
     */
    minimumUpdateRevision: z.record(z.string(), z.number().int().min(0).max(1_000_000)),
    /**
     * Windows Update categories to install, by name as WUA reports it (`Security Updates`, `Critical Updates`, …) or
     * by category ID. Default: every software update the host's update source (Windows Update or WSUS) offers.
     */
    categories: z.array(z.string().min(1)).default([]),
    /** How many Windows nodes may be out at once: a number or a percentage (`"25%"`). Default 1. */
    maxUnavailable: maxUnavailable.default(1),
    /** Pods that hold patching back while they run. Default: none. */
    blockers: z.array(blocker).default([]),
    ...drainSettings,
    /** How long Windows Update may run on one node (search, download, install), minutes. Default 120. */
    installTimeoutMinutes: z.number().int().min(1).max(1440).default(120),
    /**
     * The proxy Windows Update goes through, set as the WUA session's `WebProxy` in the SYSTEM task that searches and
     * installs (a proxy in machine environment variables is not used by WUA). Default: on vanilla stacks
     * `kubernetes.proxy` (`httpsProxy`, else `httpProxy`, and `noProxy`); otherwise none (the host's own WSUS or
     * WinHTTP settings). The URL travels as a secret (it may hold credentials).
     */
    proxy: z
      .strictObject({
        /** `http://proxy.example.com:3128`; `http://user:password@…` sets the WUA proxy's user and password. */
        url: z.string().regex(/^https?:\/\/[^\s/?#]+/, "must be an http:// or https:// proxy URL"),
        /** Host names reached directly (`wsus.example.com`, `*.example.com`), as IWebProxy's BypassList. Default none. */
        bypass: z.array(z.string().min(1)).default([]),
      })
      .optional(),
    /** How long one node may take to be Ready again after its updates, seconds. Default 900. */
    readyTimeoutSeconds: z.number().int().min(60).max(86400).default(900),
    /**
     * When patching may start (`{ start: "22:00", end: "04:00" }` in UTC unless `timeZone` says otherwise). Default:
     * any time.
     */
    window: maintenanceWindow.optional(),
  })
  .optional();

export type PatchingConfig = z.output<typeof patchingSchema>;
