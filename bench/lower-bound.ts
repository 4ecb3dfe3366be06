/**
 * The lower bound for a node operation: the same remote work as ours, with nothing else. For each host, in parallel,
 * a bare ssh2 client replays what our operation cost that host (read from the stand-in's log): the same logins (host
 * key checked), and in each the same scripts, one after the other, in one PowerShell process speaking the runner's
 * protocol; files written over SFTP as a temp file and a rename. No retries, semaphore, parsing or decisions: what is
 * left between ours and this is our own overhead.
 */
import { createHash } from "crypto";
import { Client, ClientChannel } from "ssh2";
import { RUNNER_FRAME, runnerLine, runnerScript } from "../providers/ssh/powershell-runner";
import { powershellCommand } from "../providers/ssh/powershell";
import { LabHost } from "../test/lab/sshd";
import { HostCost } from "./hosts";

function connect(h: LabHost): Promise<Client> {
  return new Promise((resolve, reject) => {
    const c = new Client();
    c.once("ready", () => resolve(c));
    c.once("error", reject);
    c.connect({
      host: h.host,
      port: h.port,
      username: h.user,
      privateKey: h.privateKey,
      hostVerifier: (key: Buffer) =>
        "SHA256:" + createHash("sha256").update(key).digest("base64").replace(/=+$/, "") === h.hostKeyFingerprint,
    });
  });
}

/** Runs the scripts in one remote PowerShell runner, each answered before the next is sent. */
function runScripts(c: Client, scripts: string[]): Promise<void> {
  return new Promise((resolve, reject) =>
    c.exec(powershellCommand(runnerScript()), (err, stream: ClientChannel) => {
      if (err) return reject(err);
      let buffered = "";
      let next = 0;
      const send = () => {
        if (next < scripts.length) stream.write(runnerLine(scripts[next++]));
        else stream.end();
      };
      stream.on("data", (d: Buffer) => {
        buffered += d.toString("utf8");
        const lines = buffered.split("\n");
        buffered = lines.pop() ?? "";
        for (const l of lines) if (l.startsWith(RUNNER_FRAME)) send();
      });
      stream.stderr.on("data", () => undefined);
      stream.on("close", () => (next === scripts.length ? resolve() : reject(new Error("the runner ended early"))));
      send();
    }),
  );
}

function writeFile(c: Client, file: string, data: Buffer): Promise<void> {
  return new Promise((resolve, reject) =>
    c.sftp((err, sftp) => {
      if (err) return reject(err);
      const tmp = `${file}.tmp-lower-bound`;
      sftp.writeFile(tmp, data, (e1) => {
        if (e1) return reject(e1);
        sftp.ext_openssh_rename(tmp, file, (e2) => (e2 ? reject(e2) : resolve()));
      });
    }),
  );
}

/** One host's replay; `files` are written in the connection of the last launch (before its scripts). */
async function replayHost(h: LabHost, cost: HostCost, files: { path: string; data: Buffer }[]): Promise<void> {
  for (let i = 0; i < Math.max(cost.logins, cost.launches.length); i++) {
    const c = await connect(h);
    try {
      if (i === cost.launches.length - 1) for (const f of files) await writeFile(c, f.path, f.data);
      if (i < cost.launches.length) await runScripts(c, cost.launches[i]);
    } finally {
      c.end();
    }
  }
}

export async function replay(
  hosts: LabHost[],
  costs: HostCost[],
  files: (i: number) => { path: string; data: Buffer }[] = () => [],
): Promise<void> {
  await Promise.all(hosts.map((h, i) => replayHost(h, costs[i], files(i))));
}
