/**
 * `npm run lab -- apiserver stop|start`: a fault the e2e suite needs from the real piece, the cluster's API server
 * going away mid-`pulumi up` and coming back. `stop` ends the running kube-apiserver (etcd, the controller manager
 * and the players stay up and reconnect, as they do in a cluster); `start` starts it again with the command line
 * `start` recorded, on the same port, and waits until it answers /readyz.
 */
import * as path from "path";
import { LabError } from "./errors";
import { labClient } from "./kube";
import { alive, endGroup, ours, startDetached, waitFor } from "./processes";
import { LabInfo, LabRecord, readRecord, writeRecord } from "./record";

const NAME = "kube-apiserver";

function recordOf(name: string): LabRecord & { info: LabInfo } {
  const r = readRecord(name);
  if (!r?.info) throw new LabError(`no lab named "${name}" is running (start one with \`npm run lab -- start\`)`);
  return { ...r, info: r.info };
}

function apiserverOf(r: LabRecord) {
  const p = r.processes.find((x) => x.name === NAME);
  if (!p?.command || !p.args)
    throw new LabError(`lab "${r.name}" did not record how its API server was started: restart the lab`);
  return { process: p, command: p.command, args: p.args };
}

export async function stopApiserver(name: string, log: (line: string) => void): Promise<void> {
  const r = recordOf(name);
  const p = apiserverOf(r).process;
  if (!ours(p) || !alive(p.pid)) throw new LabError(`the API server of lab "${name}" is not running`);
  await endGroup(p);
  log(`lab "${name}": kube-apiserver (${p.pid}) stopped; \`npm run lab -- apiserver start --name ${name}\` starts it`);
}

export async function startApiserver(name: string, log: (line: string) => void): Promise<void> {
  const r = recordOf(name);
  const { process: old, command, args } = apiserverOf(r);
  if (ours(old) && alive(old.pid)) throw new LabError(`the API server of lab "${name}" is already running`);
  const next = startDetached(NAME, command, args, old.log);
  r.processes = r.processes.map((x) => (x === old ? next : x));
  writeRecord(r);
  const pki = path.join(r.runDir, "pki");
  const client = labClient(r.info.apiserver, {
    caCert: path.join(pki, "ca.crt"),
    adminCert: path.join(pki, "admin.crt"),
    adminKey: path.join(pki, "admin.key"),
  });
  await waitFor(next, "ready", async () => (await client.request("GET", "/readyz")).status === 200, 120_000);
  log(`lab "${name}": kube-apiserver (${next.pid}) started again on ${r.info.apiserver}`);
}
