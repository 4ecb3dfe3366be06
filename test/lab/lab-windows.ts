import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { LabHost, startLabHost } from "./sshd";
import { freshWindowsState } from "./windows-state";

const FAKE_PS = path.join(__dirname, "fake-powershell.js");
/** What the stand-in loads beside itself when a script downloads or joins a real cluster. */
const FAKE_NETWORK = path.join(__dirname, "fake-windows-network.js");
/** What the stand-in loads beside itself for Ansible's PowerShell module transport (the benchmark's baseline). */
const ANSIBLE_TRANSPORT = path.join(__dirname, "ansible-windows.js");
/** The Windows PowerShell 5.1 rules the stand-in applies (one module per area). */
const RULES_DIR = path.join(__dirname, "windows-51");

/**
 * A new folder holding the stand-in as `powershell`, with what it loads beside itself, for a lab host's `binDir`
 * (test/lab/sshd.ts startLabHost); `state` is the state file the stand-in answers from when no FAKE_WINDOWS_STATE
 * names another.
 */
export function standInBin(prefix = "lab-win-"): { dir: string; state: string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  fs.copyFileSync(FAKE_PS, path.join(dir, "powershell"));
  fs.chmodSync(path.join(dir, "powershell"), 0o755);
  fs.copyFileSync(FAKE_NETWORK, path.join(dir, "fake-windows-network.js"));
  fs.copyFileSync(ANSIBLE_TRANSPORT, path.join(dir, "ansible-windows.js"));
  // Windows finds commands whatever their case (Ansible starts `PowerShell`), and Ansible runs `chcp.com 65001 >nul 2>&1`
  // before each command (ssh.py exec_command): this host's `powershell` under both names, and a chcp.com that sets
  // nothing. cmd.exe's `nul` is the null device; the shell standing in for cmd.exe makes it a file in the home
  // directory, which chcp.com removes when it is its own output.
  fs.symlinkSync("powershell", path.join(dir, "PowerShell"));
  fs.writeFileSync(
    path.join(dir, "chcp.com"),
    '#!/bin/sh\nout=$(readlink /proc/$$/fd/1)\n[ "$out" = "$PWD/nul" ] && rm -f "$out"\necho "Active code page: $1"\n',
    { mode: 0o755 },
  );
  fs.cpSync(RULES_DIR, path.join(dir, "windows-51"), { recursive: true });
  return { dir, state: path.join(dir, "state.json") };
}

/** A lab host whose `powershell` is the simulated Windows of fake-powershell.js, with its own state file. */
export interface LabWindows {
  host: LabHost;
  /** The simulated Windows state (JSON) the stand-in answers from; its `.log` beside it lists every script run. */
  state: string;
  dir: string;
  /** With `drives`: where a Windows path of this host is on this machine (`C:\k\x` → `<dir>/drives/C:/k/x`). */
  file(windowsPath: string): string;
  stop(): Promise<void>;
}

/**
 * Starts one on `address`:22. Port 22: WMCO always connects there (pkg/windows/connectivity.go), so node
 * operations allow nothing else. Each lab host gets its own loopback address for it; binding 22 needs root (as CI
 * runs) or CAP_NET_BIND_SERVICE. `state` is merged over a fresh Windows Server 2022 host. Without an address: a free
 * port on 127.0.0.1 (for what does not go through WMCO's port rule, such as the benchmark). With `drives`, the host
 * has a C: drive of its own (`<dir>/drives/C:`): what the program writes there over SFTP (`C:\k\…`, which
 * Win32-OpenSSH takes as `/C:/k/…`) and what the stand-in reads and writes (the join file, NodeFiles' directories,
 * downloads, kubeadm's and the kubelet's files) are real files there.
 */
export async function labWindows(
  address: string | undefined,
  hostname: string,
  state: Record<string, unknown> = {},
  opts: { drives?: boolean } = {},
): Promise<LabWindows> {
  const { dir, state: file } = standInBin();
  const driveRoot = opts.drives ? path.join(dir, "drives") : undefined;
  if (driveRoot) fs.mkdirSync(path.join(driveRoot, "C:"), { recursive: true });
  const at = address ? { address, port: 22 } : {};
  const host = await startLabHost({ binDir: dir, ...at, ...(driveRoot ? { driveRoot } : {}) });
  fs.writeFileSync(
    file,
    JSON.stringify({ ...freshWindowsState(hostname), ...(driveRoot ? { driveRoot } : {}), ...state }),
  );
  return {
    host,
    state: file,
    dir,
    file: (p) => {
      const m = /^([A-Za-z]):\\(.*)$/.exec(p);
      if (!m || !driveRoot) throw new Error(`${p}: not a drive path of a host with drives`);
      return path.join(driveRoot, `${m[1]}:`, ...m[2].split("\\").filter(Boolean));
    },
    async stop() {
      await host.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * A lab host as a BYOH host starts: it trusts only its own user key, and its simulated key list is sshd's own
 * authorized_keys file, so a key the program authorizes is one sshd then accepts.
 */
export function trustingOwnKey(w: LabWindows): LabWindows {
  const state = JSON.parse(fs.readFileSync(w.state, "utf8"));
  fs.writeFileSync(
    w.state,
    JSON.stringify({ ...state, authorizedKeys: [w.host.publicKey], authorizedKeysFile: w.host.authorizedKeysFile }),
  );
  return w;
}

/**
 * The PowerShell launches a simulated host saw, in order, each with the scripts it ran (split from the stand-in's log
 * at `stateFile`.log: a `#launch` line per process start, each script followed by `#---`).
 */
export function launchLog(stateFile: string): string[][] {
  const log = stateFile + ".log";
  if (!fs.existsSync(log)) return [];
  return fs
    .readFileSync(log, "utf8")
    .split(/^#launch\n/m)
    .filter((l) => l !== "")
    .map((l) => l.split("\n#---\n").filter((s) => s.trim() !== ""));
}

/**
 * What the stand-in at `stateFile` recorded of its transport (`<state>.transport.log`): restarts answered or not,
 * refusals by cmd.exe, how each runner ended.
 */
export function transportLog(stateFile: string): string[] {
  const log = stateFile + ".transport.log";
  return fs.existsSync(log) ? fs.readFileSync(log, "utf8").trim().split("\n") : [];
}

/** The scripts the simulated host ran, in order, whichever launch ran them. */
export function scriptsRun(w: LabWindows): string[] {
  return launchLog(w.state).flat();
}
