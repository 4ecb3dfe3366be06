import { execFile } from "child_process";
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

/**
 * Runs provider methods the way Pulumi's dynamic-provider host does, in a separate plain `node` process started in
 * the project directory: `require-from-string` on the serialized text, `.handler()`, then the calls in order (one
 * provider instance for all of them, as the host caches it). Plain Node also loads ESM-only packages the provider
 * requires (such as @kubernetes/client-node), which jest's module system cannot.
 */
export async function runInHost(providerText: string, calls: HostCall[], timeoutMs = 60_000): Promise<HostResult[]> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "dyn-host-"));
  const textFile = path.join(dir, "provider.js");
  const callsFile = path.join(dir, "calls.json");
  fs.writeFileSync(textFile, providerText);
  fs.writeFileSync(callsFile, JSON.stringify(calls));
  const runner = `
    const fs = require("fs");
    const requireFromString = require("require-from-string");
    const provider = requireFromString(fs.readFileSync(${JSON.stringify(textFile)}, "utf8")).handler();
    (async () => {
      const out = [];
      for (const c of JSON.parse(fs.readFileSync(${JSON.stringify(callsFile)}, "utf8"))) {
        try { out.push({ ok: true, value: await provider[c.method](...c.args) }); }
        catch (e) { out.push({ ok: false, message: String(e && e.message || e) }); }
      }
      process.stdout.write(JSON.stringify(out));
    })();`;
  try {
    const stdout = await new Promise<string>((resolve, reject) => {
      execFile(
        process.execPath,
        ["-e", runner],
        { cwd: PROJECT_DIR, timeout: timeoutMs, maxBuffer: 64 << 20 },
        (err, out, errText) => {
          if (err) reject(new Error(`dynamic-provider host failed: ${err.message}\n${errText}`));
          else resolve(out);
        },
      );
    });
    return JSON.parse(stdout) as HostResult[];
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
