import { spawn } from "child_process";
import * as fs from "fs";
import * as path from "path";
import { freshWindowsState } from "./windows-state";

const STAND_IN = path.join(__dirname, "fake-powershell.js");
const FRAME = "##windows-estate-runner:";

/**
 * Runs one script on the stand-in as the program's operations do: through the PowerShell runner (scripts over
 * standard input, providers/ssh/powershell-runner.ts), so a long script is not held to cmd.exe's limit on an exec
 * command line. Resolves to the script's frame: whether it succeeded, its output and its error text.
 */
export function runScript(script: string, state: string): Promise<{ ok: boolean; output: string; error: string }> {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, [STAND_IN, "-EncodedCommand", Buffer.from(FRAME, "utf16le").toString("base64")], {
      env: { ...process.env, FAKE_WINDOWS_STATE: state },
    });
    let stdout = "";
    p.stdout.on("data", (d: Buffer) => (stdout += d.toString("utf8")));
    p.on("error", reject);
    p.on("close", () => {
      const line = stdout.split(/\r?\n/).find((l) => l.startsWith(FRAME));
      if (!line) return reject(new Error(`the stand-in answered no frame: ${stdout}`));
      resolve(JSON.parse(Buffer.from(line.slice(FRAME.length), "base64").toString("utf8")));
    });
    p.stdin.end(`${Buffer.from(script, "utf16le").toString("base64")}\n\n`);
  });
}

/** The parts of a stand-in host's state these tests read. */
export interface HostState {
  scm?: Record<string, { imagePath?: string }>;
  kubeletFlags?: string[];
  versions?: Record<string, string>;
  joined?: boolean;
  [k: string]: unknown;
}

/** A fresh host under `dir` with a C: drive of its own; `over` is merged into its state. */
export function newHost(
  dir: string,
  name: string,
  over: Record<string, unknown> = {},
): { state: string; drive: (p: string) => string; read: () => HostState } {
  const root = fs.mkdtempSync(path.join(dir, `${name}-`));
  fs.mkdirSync(path.join(root, "drives", "C:"), { recursive: true });
  const state = path.join(root, "state.json");
  fs.writeFileSync(
    state,
    JSON.stringify({ ...freshWindowsState(name), driveRoot: path.join(root, "drives"), ...over }),
  );
  return {
    state,
    drive: (p) => path.join(root, "drives", "C:", ...p.replace(/^C:\\/, "").split("\\")),
    read: () => JSON.parse(fs.readFileSync(state, "utf8")),
  };
}
