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
     * Kubernetes API, a port-forward to a relay pod the program declares in the WMCO namespace.
     */
    via: z.enum(["direct", "jumpHost", "cluster"]).default("direct"),
    jumpHost: jumpHost.optional(),
    /** The relay pod's image (`via: cluster`); a Node.js runtime. Default: UBI 9 Node.js 22 minimal. */
    bastionImage: z.string().min(1).optional(),
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

/**
 * `windows-estate:reboot`: a rolling graceful reboot of the Windows nodes, run by `pulumi up` whenever `token`
 * changes (and when the key first appears).
 */
export const rebootSchema = z
  .strictObject({
    /** Any string; changing it asks for a new rolling reboot (e.g. a date or a change ticket). */
    token: z.string().min(1).max(253),
    /** How many nodes may be down at once. Default 1. */
    maxUnavailable: z.number().int().min(1).max(1000).default(1),
    /** Only nodes with all these labels (besides `kubernetes.io/os=windows`). Default: every Windows node. */
    nodeSelector: z.record(z.string(), z.string()).default({}),
    ...drainSettings,
    /** How long one node may take to come back Ready after the restart, seconds. Default 900. */
    readyTimeoutSeconds: z.number().int().min(60).max(86400).default(900),
  })
  .optional();

export type RebootConfig = z.output<typeof rebootSchema>;

/** A 24-hour UTC time, `HH:MM`. */
const utcTime = z.string().regex(/^([01]\d|2[0-3]):[0-5]\d$/, "must be a UTC time HH:MM (24-hour)");

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
    /** How many nodes may be patched at once. Default 1. */
    maxUnavailable: z.number().int().min(1).max(1000).default(1),
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
     * When patching may start, daily, in UTC (`{ start: "22:00", end: "04:00" }` crosses midnight). Outside it,
     * `pulumi up` patches nothing and says when the window opens; a batch is never started after it closes. Default:
     * any time.
     */
    window: z.strictObject({ start: utcTime, end: utcTime }).optional(),
  })
  .optional();

export type PatchingConfig = z.output<typeof patchingSchema>;
