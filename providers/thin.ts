/**
 * The provider a dynamic resource hands to Pulumi: a few lines that, in the dynamic-provider host, load the real one
 * from this project (providers/registry.ts) and call it. Pulumi serializes a dynamic resource's provider into its
 * `__provider` input, once per provider object but sent and stored with every resource: the real providers serialize
 * to 15-80 KB each (their whole module graph), which for an estate of 200 BYOH hosts made tens of MB of gRPC traffic
 * per preview. This stand-in serializes to about 6 KB.
 *
 * It carries a version of the provider code (a hash of providers/, facts/ and lib/), so `__provider` still changes
 * whenever the code does: the providers' `diff` re-applies what they manage after an upgrade, as before.
 *
 * The host runs in the project directory (the engine starts plugins there; WINDOWS_ESTATE_ROOT overrides it) and loads
 * the providers from bin/ when `npm run build` compiled exactly the current sources, else the TypeScript sources with
 * ts-node, as Pulumi's language host does for the program (lib/project.ts).
 */
import type * as pulumi from "@pulumi/pulumi";
import * as fs from "fs";
import * as path from "path";
import { builtModule, isPackaged, projectRoot, PROVIDER_SOURCES, PROVIDER_STAMP, sourceHash } from "../lib/project";
import { PROVIDERS, ProviderMethod } from "./registry";

/**
 * Runs in the dynamic-provider host (serialized with the stand-in): finds the project, registers ts-node once, and
 * returns the provider for `type`, cached for the life of the host. Errors name what is missing and the fix. The
 * code is found from `WINDOWS_ESTATE_ROOT`, else the package the program's folder resolves (`windows-estate` in its
 * node_modules: a library user's program), else the project the folder is in (this program). Nothing of the path is
 * stored, so a state moves between checkouts and machines without a change. The code is compiled JavaScript when `npm run build` compiled exactly these sources or the package was installed from
 * its tarball (lib/project.ts builtModule), else the TypeScript sources through ts-node. (Comments inside travel with
 * every resource's `__provider`, so they stay out here.)
 */
function loadProvider(type: string): pulumi.dynamic.ResourceProvider {
  const key = Symbol.for("windows-estate.providers");
  const cache: Record<string, pulumi.dynamic.ResourceProvider> = Reflect.get(globalThis, key) ?? {};
  Reflect.set(globalThis, key, cache);
  const cached = cache[type];
  if (cached) return cached;
  const nodePath: typeof import("path") = require("path");
  const nodeFs: typeof import("fs") = require("fs");
  let start = process.env.WINDOWS_ESTATE_ROOT || process.cwd();
  try {
    if (!process.env.WINDOWS_ESTATE_ROOT)
      start = nodePath.dirname(require.resolve("windows-estate/package.json", { paths: [start] }));
  } catch {
    /* none */
  }
  let root = "";
  try {
    root = projectRoot(start);
  } catch {
    /* reported below */
  }
  const built = root ? builtModule(root, "providers/registry") : undefined;
  if (!root || (!built && !nodeFs.existsSync(nodePath.join(root, "providers", "registry.ts"))))
    throw new Error(
      `the windows-estate provider code was not found from ${start}: run pulumi from the project directory, or set WINDOWS_ESTATE_ROOT to it`,
    );
  if (!built && !require.extensions[".ts"]) {
    // layers-allow: the ts-node package as the project root resolves it, not a module of ours.
    const tsNode: typeof import("ts-node") = require(require.resolve("ts-node", { paths: [root] }));
    tsNode.register({ transpileOnly: true, project: nodePath.join(root, "tsconfig.pulumi.json") });
  }
  // layers-allow: ./registry itself, compiled or not, found from the project root (the plugin runs from anywhere).
  const registry: typeof import("./registry") = require(built ?? nodePath.join(root, "providers", "registry"));
  const provider = registry.providerFor(type);
  cache[type] = provider;
  return provider;
}

/** A method the registry promised but the provider lacks is an error naming both. */
function need<T>(f: T, type: string, m: string): NonNullable<T> {
  if (!f) throw new Error(`the ${type} provider has no ${m}`);
  return f;
}

/** Method `m` of the provider registered as `type`, called as loaded in the host. */
function forward<M extends "diff" | "read" | "update" | "delete">(type: string, m: M) {
  type Method = NonNullable<pulumi.dynamic.ResourceProvider[M]>;
  return (...args: Parameters<Method>): ReturnType<Method> => {
    const q = loadProvider(type);
    const f: (...a: never[]) => unknown = need(q[m], type, m);
    return Reflect.apply(f, q, args);
  };
}

let version: string | undefined;

/** A hash of the provider code (providers/, facts/ and lib/ sources): changes whenever the providers may behave differently. */
export function codeVersion(): string {
  const root = projectRoot(__dirname);
  // Installed from the tarball there are no sources to hash: the build wrote their hash (scripts/build-stamp.ts).
  version ??= (
    isPackaged(root)
      ? fs.readFileSync(path.join(root, PROVIDER_STAMP), "utf8").trim()
      : sourceHash(root, PROVIDER_SOURCES)
  ).slice(0, 16);
  return version;
}

const made = new Map<string, pulumi.dynamic.ResourceProvider>();

/** The serializable stand-in for the provider registered as `type` (one object per type, so Pulumi serializes it once). */
export function thinProvider(type: string): pulumi.dynamic.ResourceProvider {
  const existing = made.get(type);
  if (existing) return existing;
  const entry = Object.prototype.hasOwnProperty.call(PROVIDERS, type) ? PROVIDERS[type] : undefined;
  if (!entry) throw new Error(`providers/registry.ts has no provider named ${JSON.stringify(type)}`);
  const has = (m: ProviderMethod) => entry.methods.includes(m);
  const p: pulumi.dynamic.ResourceProvider & { codeVersion: string } = {
    codeVersion: codeVersion(),
    create: (inputs) => loadProvider(type).create(inputs),
  };
  if (has("check"))
    p.check = async (olds, news) => {
      const q = loadProvider(type);
      const r = await need(q.check, type, "check").call(q, olds, news);
      // The engine prints the value of a failure's property with the message, secrets in plaintext (pulumi
      // pkg/resource/deploy/step_generator.go `issueCheckFailures`: `inputs[failure.Property]` formatted with %v, a
      // Secret's element included); a connection holds keys and passwords. So no failure names a property: the
      // reason names it instead. Found through the real CLI (test/e2e/plan.e2e.ts).
      return {
        ...r,
        failures: (r.failures ?? []).map((f) => ({
          property: "",
          reason: f.property ? `${f.property}: ${f.reason}` : f.reason,
        })),
      };
    };
  if (has("diff")) p.diff = forward(type, "diff");
  if (has("read")) p.read = forward(type, "read");
  if (has("update")) p.update = forward(type, "update");
  if (has("delete")) p.delete = forward(type, "delete");
  made.set(type, p);
  return p;
}
