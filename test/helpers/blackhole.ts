import { ChildProcess, spawn } from "child_process";
import * as net from "net";

/**
 * A TCP port on 127.0.0.1 where a connection attempt hangs, as toward a host that drops packets: a listener in a child
 * process whose event loop is blocked (it never accepts), with its accept queue filled. Linux then drops every further
 * SYN (net/ipv4/tcp_input.c `tcp_conn_request`: `sk_acceptq_is_full` → drop) and the connecting side retransmits
 * for about two minutes, which is what a firewalled node or a wrong address gives a relay or a jump host.
 */
export interface Blackhole {
  host: string;
  port: number;
  close(): Promise<void>;
}

export async function blackhole(): Promise<Blackhole> {
  // Backlog 1: the queue is full with two established connections nobody accepts.
  const code = `
    const s = require("net").createServer();
    s.listen({ port: 0, host: "127.0.0.1", backlog: 1 }, () => {
      process.stdout.write(s.address().port + "\\n");
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0);
    });`;
  const child: ChildProcess = spawn(process.execPath, ["-e", code], { stdio: ["ignore", "pipe", "inherit"] });
  const port = await new Promise<number>((resolve, reject) => {
    child.stdout?.once("data", (d: Buffer) => resolve(Number(d.toString().trim())));
    child.once("exit", (c) => reject(new Error(`the blackhole listener exited (${c})`)));
  });
  const fillers: net.Socket[] = [];
  for (let i = 0; i < 2; i++) {
    const s = net.connect(port, "127.0.0.1");
    fillers.push(s);
    await new Promise<void>((resolve, reject) => s.once("connect", resolve).once("error", reject));
  }
  return {
    host: "127.0.0.1",
    port,
    async close() {
      for (const s of fillers) s.destroy();
      const exited = new Promise((r) => child.once("exit", r));
      child.kill("SIGKILL");
      await exited;
    },
  };
}
