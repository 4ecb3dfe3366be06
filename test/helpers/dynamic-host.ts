import { spawn } from "child_process";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import * as pulumi from "@pulumi/pulumi";

const PROJECT_DIR = path.resolve(__dirname, "..", "..");

/**
 * Declares a dynamic resource under Pulumi's mock runtime and returns the `__provider` text the SDK serialized for
 * it: exactly what the engine stores in state and hands to the dynamic-provider host.
 */
export async function serializedProviderOf(
  declare: () => pulumi.Resource,
): Promise<{ text: string; inputs: Record<string, unknown> }> {
  let captured: Record<string, unknown> | undefined;
  await pulumi.runtime.setMocks(
    {
      newResource(args) {
        if (args.type.startsWith("pulumi-nodejs:dynamic")) captured = args.inputs as Record<string, unknown>;
        return { id: `${args.name}-id`, state: args.inputs };
      },
      call: () => ({}),
    },
    "windows-estate",
    "test",
    true,
  );
  const res = declare();
  await new Promise<void>((resolve) => res.urn.apply(() => resolve()));
  if (!captured || typeof captured.__provider !== "string") throw new Error("no dynamic resource was registered");
  return { text: captured.__provider, inputs: captured };
}

export interface HostCall {
  method: "create" | "read" | "diff" | "update" | "delete" | "check";
  args: unknown[];
}

export type HostResult = { ok: true; value: unknown } | { ok: false; message: string };

/** One dynamic-provider host process: `call` runs provider methods in it, in order, as often as the test needs. */
export interface HostSession {
  call(calls: HostCall[]): Promise<HostResult[]>;
  close(): Promise<void>;
}

/**
 * Starts a process that runs provider methods the way Pulumi's dynamic-provider host does, a separate plain `node`
 * process in the project directory: `require-from-string` on the serialized text, `.handler()`, its `configure` when it
 * has one (cmd/dynamic-provider/index.ts getProvider: once, before any method; an error fails every call), then each batch of
 * calls the test sends, in order (one provider instance for all of them, as the host caches it). Plain Node also loads
 * ESM-only packages the provider requires (such as @kubernetes/client-node), which jest's module system cannot.
 * Starting one costs seconds (tens of seconds on a loaded machine): a test that makes several calls with steps of its
 * own between them keeps one session, and no timer here bounds it (the test's own limit is the hang guard).
 */
export async function hostSession(providerText: string): Promise<HostSession> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "dyn-host-"));
  const textFile = path.join(dir, "provider.js");
  fs.writeFileSync(textFile, providerText);
  const runner = `
    const fs = require("fs");
    const requireFromString = require("require-from-string");
    const provider = requireFromString(fs.readFileSync(${JSON.stringify(textFile)}, "utf8")).handler();
    const configured = provider.configure ? provider.configure({ config: {} }) : Promise.resolve();
    process.on("message", async (calls) => {
      const out = [];
      try { await configured; }
      catch (e) { process.send(calls.map(() => ({ ok: false, message: String(e && e.message || e) }))); return; }
      for (const c of calls) {
        try { out.push({ ok: true, value: await provider[c.method](...c.args) }); }
        catch (e) { out.push({ ok: false, message: String(e && e.message || e) }); }
      }
      process.send(out);
    });`;
  const child = spawn(process.execPath, ["-e", runner], {
    cwd: PROJECT_DIR,
    stdio: ["ignore", "ignore", "pipe", "ipc"],
  });
  let errText = "";
  child.stderr?.on("data", (d: Buffer) => (errText += d.toString()));
  const exited = new Promise<string>((resolve) =>
    child.once("exit", (code, signal) => resolve(`dynamic-provider host exited (${code ?? signal})\n${errText}`)),
  );
  return {
    call: (calls) =>
      new Promise<HostResult[]>((resolve, reject) => {
        child.once("message", (out) => resolve(out as HostResult[]));
        void exited.then((why) => reject(new Error(why)));
        child.send(calls);
      }),
    async close() {
      if (child.exitCode === null && child.signalCode === null) child.kill();
      await exited;
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Runs provider methods in a host process of their own (`hostSession`), started for them and ended after. */
export async function runInHost(providerText: string, calls: HostCall[]): Promise<HostResult[]> {
  const host = await hostSession(providerText);
  try {
    return await host.call(calls);
  } finally {
    await host.close();
  }
}
