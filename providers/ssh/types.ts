/**
 * How to reach a host over SSH; shaped like `@pulumi/command`'s `connection`, plus host-key pinning and timeouts
 * (customTimeouts never reach dynamic providers, so every wait is bounded here).
 */
export interface SshConnection {
  /** Address or DNS name of the host. */
  host: string;
  /** SSH port. Default 22. */
  port?: number;
  /** User to log in as (`Administrator`, or `capi` on Azure). */
  user: string;
  /** Private key (PEM or OpenSSH) to authenticate with. Pass it as a secret. */
  privateKey?: string;
  /** Password to authenticate with (bootstrap only). Pass it as a secret. */
  password?: string;
  /**
   * The host's key: an OpenSSH public-key line (`ssh-ed25519 AAAA…`) or a `SHA256:` fingerprint. A mismatch fails
   * before anything is written. Required unless `trustOnFirstUse`.
   */
  hostKey?: string;
  /** Accept the key seen at first contact, record it in state, and enforce it from then on. Default false. */
  trustOnFirstUse?: boolean;
  /** A jump host (bastion) to reach `host` through, with the same fields. */
  proxy?: SshConnection;
  /** Reach `host` through the cluster instead: a port-forward to the relay pod, then on to `host:port`. */
  cluster?: ClusterTunnel;
  /** Per-attempt connect and handshake timeout, seconds. Default 15. */
  connectTimeoutSeconds?: number;
  /** How long connecting may keep retrying (with backoff), seconds. Default 120. */
  deadlineSeconds?: number;
  /** Per-command timeout, seconds. Default 300. */
  commandTimeoutSeconds?: number;
  /**
   * While connecting keeps failing, how often to say so (the host, the time waited of the deadline, the last
   * error), seconds. Default 60: a new VM's first boot (rename, restart, OpenSSH from Windows Update) takes minutes.
   */
  progressSeconds?: number;
  /**
   * `windows` (default): paths like `C:\k\…`, commands through PowerShell. `posix`: paths like `/srv/…`, commands
   * through sh; used by the test lab's Linux sshd.
   */
  pathStyle?: "windows" | "posix";
}

/**
 * Through the cluster: the Kubernetes API port-forwards one stream to a relay pod, which opens a TCP connection to
 * the node (HTTP CONNECT, port 22 only). The SSH session runs end to end from the program over that stream, so the
 * host key is verified against the node itself and the private key never leaves the program.
 */
export interface ClusterTunnel {
  /** Kubeconfig content or path; undefined: KUBECONFIG, ~/.kube/config. Pass it as a secret. */
  kubeconfig?: string;
  context?: string;
  /** Namespace of the relay pods. */
  namespace: string;
  /** Label selector of the relay pods (`app.kubernetes.io/name=windows-estate-node-relay`). */
  selector: string;
  /** The port the relay listens on inside its pod. */
  port: number;
  /**
   * Timeout of each API step (finding the pod, opening the port-forward), seconds; also the relay's own wait for the
   * node's TCP connection (its RELAY_CONNECT_TIMEOUT_MS; both come from `nodeAccess.connectTimeoutSeconds`). The wait
   * for the relay's CONNECT answer is this plus 5 s, so that the relay's 504, which says why, arrives first.
   * Default 15, the relay program's default.
   */
  timeoutSeconds?: number;
}

export const DEFAULTS = {
  port: 22,
  connectTimeoutSeconds: 15,
  deadlineSeconds: 120,
  commandTimeoutSeconds: 300,
  progressSeconds: 60,
} as const;

/** Where a connection goes, for messages: never includes credentials. */
export function describeTarget(c: Pick<SshConnection, "host" | "port" | "user">): string {
  return `${c.user}@${c.host}:${c.port ?? DEFAULTS.port}`;
}

/**
 * What a connection needs before anything dials, each problem named by property and never quoting a credential:
 * host, user, a credential, and a way to verify the host key. Shared by every provider's `check`.
 */
export function connectionProblems(
  c: SshConnection | undefined,
  isPin: (key: string) => boolean,
  unknown: (v: unknown) => boolean,
): string[] {
  const out: string[] = [];
  if (!c || typeof c.host !== "string" || c.host === "") out.push("connection.host is required");
  if (c && (typeof c.user !== "string" || c.user === "")) out.push("connection.user is required");
  if (c && !c.privateKey && !c.password)
    out.push("connection needs a privateKey or a password (the bootstrap credential)");
  if (c && !c.hostKey && !c.trustOnFirstUse)
    out.push("connection.hostKey is required (or trustOnFirstUse: true): host keys are always verified");
  if (c?.hostKey && !unknown(c.hostKey) && !isPin(c.hostKey))
    out.push("connection.hostKey must be an OpenSSH public-key line or a SHA256: fingerprint");
  return out;
}
