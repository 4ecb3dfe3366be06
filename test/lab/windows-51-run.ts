import { spawn } from "child_process";
import * as fs from "fs";
import * as path from "path";
import { readableStderr } from "../../providers/ssh/clixml";
import { freshWindowsState } from "./windows-state";

const STAND_IN = path.join(__dirname, "fake-powershell.js");
const FRAME = "##windows-estate-runner:";
const encoded = (text: string) => Buffer.from(text, "utf16le").toString("base64");

/**
 * How long one stand-in run may take: under jest's 60 s (jest.config.js testTimeout), so that a run that hangs fails
 * naming its script, its process killed, rather than as a test timeout with the process left behind.
 */
export const STAND_IN_TIMEOUT_MS = 45_000;

/** A script's first line, to name it. */
const firstLine = (script: string) => script.trim().split(/\r?\n/)[0].slice(0, 120);

/**
 * Starts the stand-in as `powershell -EncodedCommand <command>` on the host at `state`, `input` on its stdin; `what`
 * names the run if it outlives `timeoutMs` (then it is killed, and the error given once it is gone).
 */
export function standIn(
  command: string,
  state: string,
  input = "",
  what = firstLine(command),
  timeoutMs = STAND_IN_TIMEOUT_MS,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, [STAND_IN, "-EncodedCommand", encoded(command)], {
      env: { ...process.env, FAKE_WINDOWS_STATE: state },
    });
    let stdout = "";
    let stderr = "";
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      p.kill("SIGKILL");
    }, timeoutMs);
    p.stdout.on("data", (d: Buffer) => (stdout += d.toString("utf8")));
    p.stderr.on("data", (d: Buffer) => (stderr += d.toString("utf8")));
    p.on("error", (e) => (clearTimeout(timer), reject(e)));
    p.on("close", (code) => {
      clearTimeout(timer);
      if (!timedOut) return resolve({ code, stdout, stderr });
      reject(
        new Error(`the stand-in (pid ${p.pid}) ran \`${what}\` over ${timeoutMs} ms and was killed; stderr: ${stderr}`),
      );
    });
    p.stdin.end(input);
  });
}

/**
 * Runs one script on the stand-in as the program's operations do: through the PowerShell runner (scripts over
 * standard input, providers/ssh/powershell-runner.ts), so a long script is not held to cmd.exe's limit on an exec
 * command line. Resolves to the script's frame: whether it succeeded, its output and its error text.
 */
export async function runScript(
  script: string,
  state: string,
): Promise<{ ok: boolean; output: string; error: string }> {
  const { stdout } = await standIn(FRAME, state, `${encoded(script)}\n\n`, firstLine(script));
  const line = stdout.split(/\r?\n/).find((l) => l.startsWith(FRAME));
  if (!line) throw new Error(`the stand-in answered no frame: ${stdout}`);
  return JSON.parse(Buffer.from(line.slice(FRAME.length), "base64").toString("utf8"));
}

/**
 * Runs one script as `powershell -EncodedCommand <script>` (as EC2Launch and the Custom Script Extension start first
 * boot): its exit code, output, and error output read as the program reads it (5.1 writes a redirected stderr as
 * CLIXML, transport.stderr-clixml).
 */
export async function runEncoded(
  script: string,
  state: string,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const r = await standIn(script, state);
  return { ...r, stderr: readableStderr(r.stderr) };
}

/** A stand-in host's state (the stand-in's JSON): any shape, checked by the assertions that read it. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the stand-in's state of many fields, asserted by field
export type HostState = Record<string, any>;

/** A stand-in host for the tests that start the stand-in themselves (no sshd). */
export interface StandInHost {
  /** Its state file (FAKE_WINDOWS_STATE). */
  state: string;
  /** Where a Windows path of its C: drive is on this machine. */
  drive: (p: string) => string;
  /** Writes a file at a Windows path of its C: drive, as the program's SFTP upload would. */
  write: (p: string, text: string) => void;
  read: () => HostState;
  /** Changes its state in place. */
  change: (f: (s: HostState) => void) => void;
}

/** A fresh host under `dir` with a C: drive of its own; `over` is merged into its state. */
export function newHost(dir: string, name: string, over: Record<string, unknown> = {}): StandInHost {
  const root = fs.mkdtempSync(path.join(dir, `${name}-`));
  fs.mkdirSync(path.join(root, "drives", "C:"), { recursive: true });
  const state = path.join(root, "state.json");
  fs.writeFileSync(
    state,
    JSON.stringify({ ...freshWindowsState(name), driveRoot: path.join(root, "drives"), ...over }),
  );
  const read = (): HostState => JSON.parse(fs.readFileSync(state, "utf8"));
  const drive = (p: string) => path.join(root, "drives", "C:", ...p.replace(/^C:\\/, "").split("\\"));
  return {
    state,
    drive,
    write: (p, text) => {
      fs.mkdirSync(path.dirname(drive(p)), { recursive: true });
      fs.writeFileSync(drive(p), text);
    },
    read,
    change: (f) => {
      const s = read();
      f(s);
      fs.writeFileSync(state, JSON.stringify(s));
    },
  };
}
