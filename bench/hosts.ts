/**
 * The benchmark's hosts: N real sshd servers on 127.0.0.1 (random ports) whose `powershell` is the lab's stand-in
 * (test/lab/fake-powershell.js), each with its own state file, so every operation runs its real SSH and PowerShell
 * round trips. What a host costs an operation: logins and files written as counted here on ssh2's client, launches and
 * their scripts from the stand-in's log.
 */
import * as fs from "fs";
import { Client, ConnectConfig } from "ssh2";
import { labWindows, LabWindows, launchLog } from "../test/lab/lab-windows";

/** Logins (clients that reached "ready") and files written over SFTP in this process, by `user@host:port`. */
const counted: Record<"logins" | "transfers", Record<string, number>> = { logins: {}, transfers: {} };
const add = (by: Record<string, number>, target: string) => (by[target] = (by[target] ?? 0) + 1);

/**
 * Counts what the providers' SSH layer does, from outside it: every ssh2 client this process connects (the providers
 * require the same ssh2 module) counts its login when it is ready, and each SFTP `writeFile` of its sessions, which is
 * how the providers write a file (providers/ssh/session.ts writeFileAtomic: one writeFile, then a rename).
 */
const connect = Client.prototype.connect;
Client.prototype.connect = function (this: Client, config: ConnectConfig) {
  const target = `${config.username}@${config.host}:${config.port ?? 22}`;
  this.once("ready", () => add(counted.logins, target));
  const sftp = this.sftp;
  this.sftp = (callback) =>
    sftp.call(this, (err, s) => {
      if (s) {
        const writeFile = s.writeFile;
        Reflect.set(s, "writeFile", (...args: unknown[]) => {
          add(counted.transfers, target);
          return Reflect.apply(writeFile, s, args);
        });
      }
      callback(err, s);
    });
  return connect.call(this, config);
};

/** A benchmark host: a lab host with the PowerShell stand-in and its own state file (test/lab/lab-windows.ts). */
export type BenchHost = LabWindows;

export function startHosts(n: number): Promise<BenchHost[]> {
  return Promise.all(Array.from({ length: n }, (_, i) => labWindows(undefined, `bench-${i}`)));
}

export async function stopHosts(hosts: BenchHost[]): Promise<void> {
  await Promise.all(hosts.map((h) => h.stop()));
}

/** Gives every host this simulated Windows state and an empty log. */
export function resetHosts(hosts: BenchHost[], state: (h: BenchHost, i: number) => Record<string, unknown>): void {
  hosts.forEach((h, i) => {
    fs.writeFileSync(h.state, JSON.stringify(state(h, i)));
    fs.rmSync(h.state + ".log", { force: true });
  });
}

/** What one run of an operation cost each host: logins, PowerShell launches and their scripts, files written. */
export interface HostCost {
  logins: number;
  launches: string[][];
  transfers: number;
}

/** Runs `op` and reads what it cost each host (from a clean log). */
export async function withCosts<T>(
  hosts: BenchHost[],
  op: () => Promise<T>,
): Promise<{ result: T; costs: HostCost[] }> {
  for (const h of hosts) fs.rmSync(h.state + ".log", { force: true });
  const target = (h: BenchHost) => `${h.host.user}@${h.host.host}:${h.host.port}`;
  const logins = (h: BenchHost) => counted.logins[target(h)] ?? 0;
  const written = (h: BenchHost) => counted.transfers[target(h)] ?? 0;
  const before = hosts.map((h) => [logins(h), written(h)]);
  const result = await op();
  return {
    result,
    costs: hosts.map((h, i) => ({
      logins: logins(h) - before[i][0],
      launches: launchLog(h.state),
      transfers: written(h) - before[i][1],
    })),
  };
}

/** The most of each count any host needed. */
export function worst(costs: HostCost[]): { logins: number; launches: number; commands: number; transfers: number } {
  return {
    logins: Math.max(...costs.map((c) => c.logins)),
    launches: Math.max(...costs.map((c) => c.launches.length)),
    commands: Math.max(...costs.map((c) => c.launches.flat().length)),
    transfers: Math.max(...costs.map((c) => c.transfers)),
  };
}
