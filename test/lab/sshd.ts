import { ChildProcess, execFileSync, spawn } from "child_process";
import { generateKeyPairSync } from "crypto";
import * as fs from "fs";
import * as net from "net";
import * as os from "os";
import * as path from "path";

/** One real OpenSSH server on 127.0.0.1, with its own host key, trusting one generated user key. */
export interface LabHost {
  /** A loopback address (127.0.0.1 unless the test asks for another in 127.0.0.0/8). */
  host: string;
  port: number;
  user: string;
  /** The user's private key (OpenSSH format), as a connection would carry it. */
  privateKey: string;
  /** The host's public key line and fingerprint, as a pin would hold them. */
  hostKeyLine: string;
  hostKeyFingerprint: string;
  /** A scratch directory on this "host" for files the tests write. */
  root: string;
  /** The file sshd reads authorized keys from (one line per key). */
  authorizedKeysFile: string;
  /** The user key's public line (`ssh-ed25519 AAAA…`), as it is authorized. */
  publicKey: string;
  /** Kills every connection this sshd is serving (its child processes), leaving the listener up. */
  killConnections(): void;
  /** Takes the host off the network (sshd stopped, its files kept); `up` brings the same host back. */
  down(): Promise<void>;
  up(): Promise<void>;
  stop(): Promise<void>;
}

const SSHD = ["/usr/sbin/sshd", "/usr/bin/sshd"].find((p) => fs.existsSync(p));
const SFTP = ["/usr/lib/openssh/sftp-server", "/usr/libexec/openssh/sftp-server", "/usr/libexec/sftp-server"].find(
  (p) => fs.existsSync(p),
);

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.listen(0, "127.0.0.1", () => {
      const port = (srv.address() as net.AddressInfo).port;
      srv.close(() => resolve(port));
    });
    srv.on("error", reject);
  });
}

/** Waits until the server sends its SSH banner: readiness by condition, not by time. */
async function waitForBanner(
  port: number,
  proc: ChildProcess,
  log: () => string,
  address = "127.0.0.1",
): Promise<void> {
  const deadline = Date.now() + 15_000;
  while (Date.now() < deadline) {
    if (proc.exitCode !== null) throw new Error(`sshd exited with ${proc.exitCode}: ${log()}`);
    const banner = await new Promise<string>((resolve) => {
      const s = net.connect(port, address);
      s.once("data", (d) => {
        resolve(d.toString());
        s.destroy();
      });
      s.once("error", () => resolve(""));
      s.setTimeout(1000, () => {
        s.destroy();
        resolve("");
      });
    });
    if (banner.startsWith("SSH-2.0")) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`sshd on port ${port} never answered: ${log()}`);
}

let sshKeygenCount = 0;
function keygen(dir: string, type: "ed25519" | "rsa"): { priv: string; pub: string } {
  const file = path.join(dir, `key-${type}-${sshKeygenCount++}`);
  execFileSync("ssh-keygen", [
    "-q",
    "-t",
    type,
    ...(type === "rsa" ? ["-b", "2048"] : []),
    "-N",
    "",
    "-C",
    "lab",
    "-f",
    file,
  ]);
  return { priv: fs.readFileSync(file, "utf8"), pub: fs.readFileSync(`${file}.pub`, "utf8").trim() };
}

/** Starts one lab host. Stop it in afterAll. */
export async function startLabHost(
  opts: {
    user?: string;
    binDir?: string;
    address?: string;
    port?: number;
    /**
     * A folder that holds this host's drives: SFTP's Windows drive paths (`/C:/k/…`) land under it (`<folder>/C:/k/…`)
     * through test/lab/sftp-drive.js, so hosts on one machine never share a `C:` drive.
     */
    driveRoot?: string;
    /** The command sshd runs as the SFTP subsystem instead of OpenSSH's sftp-server (a test's server that stalls). */
    sftpSubsystem?: string;
  } = {},
): Promise<LabHost> {
  const address = opts.address ?? "127.0.0.1";
  if (!SSHD || !SFTP)
    throw new Error(
      "the SSH test lab needs OpenSSH's sshd: run  sudo apt-get install -y openssh-server  (test/lab/ensure-sshd.sh does it as root)",
    );
  fs.mkdirSync("/run/sshd", { recursive: true, mode: 0o755 });
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ssh-lab-"));
  const hostKey = keygen(dir, "ed25519");
  fs.writeFileSync(path.join(dir, "host_key"), hostKey.priv, { mode: 0o600 });
  const userKey = keygen(dir, "ed25519");
  fs.writeFileSync(path.join(dir, "authorized_keys"), userKey.pub + "\n", { mode: 0o600 });
  // A fixed port (22, where WMCO connects) needs root or CAP_NET_BIND_SERVICE and a free address: give each host its own.
  const port = opts.port ?? (await freePort());
  const user = opts.user ?? os.userInfo().username;
  const config = [
    `Port ${port}`,
    `ListenAddress ${address}`,
    `HostKey ${path.join(dir, "host_key")}`,
    `AuthorizedKeysFile ${path.join(dir, "authorized_keys")}`,
    "PubkeyAuthentication yes",
    "PasswordAuthentication no",
    "KbdInteractiveAuthentication no",
    "PermitRootLogin prohibit-password",
    "StrictModes no",
    "UsePAM no",
    "PidFile none",
    "LogLevel ERROR",
    "MaxStartups 200:30:400",
    "MaxSessions 50",
    opts.sftpSubsystem
      ? `Subsystem sftp ${opts.sftpSubsystem}`
      : opts.driveRoot
        ? `Subsystem sftp ${process.execPath} ${path.join(__dirname, "sftp-drive.js")} ${SFTP} ${opts.driveRoot}`
        : `Subsystem sftp ${SFTP}`,
    // Lets a test put stand-in commands (a simulated `powershell`) first on the sessions' PATH.
    ...(opts.binDir ? [`SetEnv PATH=${opts.binDir}:/usr/local/bin:/usr/bin:/bin`] : []),
  ].join("\n");
  fs.writeFileSync(path.join(dir, "sshd_config"), config + "\n");
  let stderr = "";
  const launch = async () => {
    const p = spawn(SSHD, ["-D", "-e", "-f", path.join(dir, "sshd_config")], { stdio: ["ignore", "ignore", "pipe"] });
    p.stderr?.on("data", (d: Buffer) => (stderr = (stderr + d.toString()).slice(-4000)));
    await waitForBanner(port, p, () => stderr, address);
    return p;
  };
  const halt = async (p: ChildProcess) => {
    // Already gone (a simulated host that went down kills its own sshd): nothing to wait for.
    if (p.exitCode === null && p.signalCode === null) {
      const exited = new Promise((r) => p.once("exit", r));
      p.kill("SIGTERM");
      await exited;
    }
    try {
      execFileSync("pkill", ["-KILL", "-P", String(p.pid)]);
    } catch {
      // Nothing left.
    }
  };
  let proc = await launch();
  const root = path.join(dir, "host-files");
  fs.mkdirSync(root);
  const blob = Buffer.from(hostKey.pub.split(" ")[1], "base64");
  const fp = "SHA256:" + require("crypto").createHash("sha256").update(blob).digest("base64").replace(/=+$/, "");
  return {
    host: address,
    port,
    user,
    privateKey: userKey.priv,
    hostKeyLine: hostKey.pub.split(" ").slice(0, 2).join(" "),
    hostKeyFingerprint: fp,
    root,
    authorizedKeysFile: path.join(dir, "authorized_keys"),
    publicKey: userKey.pub.split(" ").slice(0, 2).join(" "),
    killConnections() {
      try {
        execFileSync("pkill", ["-KILL", "-P", String(proc.pid)]);
      } catch {
        // No connection was open.
      }
    },
    async down() {
      await halt(proc);
    },
    async up() {
      proc = await launch();
    },
    async stop() {
      await halt(proc);
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A private key no lab host trusts (PKCS#8 Ed25519, the form `openssl genpkey` writes). */
export function strayKey(): string {
  return generateKeyPairSync("ed25519", {
    privateKeyEncoding: { type: "pkcs8", format: "pem" },
    publicKeyEncoding: { type: "spki", format: "pem" },
  }).privateKey;
}

/** A TCP listener that accepts connections and never says anything: a host that hangs in the handshake. */
export async function silentServer(): Promise<{ port: number; close: () => Promise<void> }> {
  const sockets = new Set<net.Socket>();
  const srv = net.createServer((s) => sockets.add(s));
  await new Promise<void>((r) => srv.listen(0, "127.0.0.1", r));
  return {
    port: (srv.address() as net.AddressInfo).port,
    close: () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy();
        srv.close(() => r());
      }),
  };
}
