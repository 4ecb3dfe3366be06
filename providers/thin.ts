/**
 * The provider a dynamic resource hands to Pulumi: a few lines that, in the dynamic-provider host, load the real one
 * from this project (providers/registry.ts, through providers/host-loader.js) and call it. Pulumi serializes a dynamic
 * resource's provider into its `__provider` input, once per provider object but sent and stored with every resource,
 * in its inputs and its outputs: the real providers serialize to 15-80 KB each (their whole module graph), which for
 * an estate of 200 BYOH hosts made tens of MB of gRPC traffic per preview, and the engine rewrites the whole state
 * after every step (pulumi pkg/backend/snapshot.go saveSnapshot), so a first `up` grew faster than linearly with it
 * (docs/benchmarks.md, cost curve). This stand-in serializes to under 2 KB.
 *
 * It carries a version of the provider code (a hash of providers/, facts/ and lib/), so `__provider` still changes
 * whenever the code does: the providers' `diff` re-applies what they manage after an upgrade, as before.
 *
 * The host runs in the project directory (the engine starts plugins there; WINDOWS_ESTATE_ROOT overrides it) and loads
 * the providers from bin/ when `npm run build` compiled exactly the current sources, else the TypeScript sources with
 * ts-node, as Pulumi's language host does for the program (lib/project.ts, providers/host-loader.js).
 */
import type * as pulumi from "@pulumi/pulumi";
import * as fs from "fs";
import * as path from "path";
import { isPackaged, projectRoot, PROVIDER_SOURCES, PROVIDER_STAMP, sourceHash } from "../lib/project";
import { PROVIDERS, ProviderMethod } from "./registry";

/** What providers/host-loader.js exports (plain JavaScript, so its type is stated here). */
interface HostLoader {
  call(type: string, method: ProviderMethod, args: unknown[]): Promise<never>;
}

/**
 * The stand-in as Pulumi serializes it: the code version, the type and its methods, and `configure`, which the
 * dynamic-provider host calls once, as soon as it has deserialized the provider and before any method (@pulumi/pulumi
 * cmd/dynamic-provider/index.ts getProvider), and which gives the stand-in the methods the provider has (registry.ts
 * lists them: the host calls only those). `create` configures first, for a host that did not. `configure` never
 * fails: the host keeps a provider whose configure failed and then treats the methods it lacks as absent (a delete as
 * done), so what can fail (the loader not found, or not loading) fails in each method instead.
 *
 * The methods are made in the host, and everything but finding the project is in the loader, because Pulumi serializes
 * a closure with everything it reaches (@pulumi/pulumi runtime/closure/createClosure.ts: free variables by value, each
 * function as its source text in a wrapper of about 170 characters): one function per method made here cost about 230
 * characters each, and a reference to lib/project.ts serialized its functions and constants along (8 KB in all).
 * Comments inside the functions travel too, so they stay out here.
 */
interface StandIn extends pulumi.dynamic.ResourceProvider {
  codeVersion: string;
  type: string;
  methods: readonly ProviderMethod[];
  configure(): Promise<void>;
}

/** A stand-in's `create` until `configure` replaces it (StandIn). */
async function create(this: StandIn, inputs: Record<string, unknown>) {
  await this.configure();
  return this.create(inputs);
}

/**
 * Runs in the dynamic-provider host: finds the project and gives the stand-in the provider's methods, each calling
 * providers/host-loader.js `call` (which loads the provider from bin/ when built, else through ts-node, once for the
 * life of the host). The project is `WINDOWS_ESTATE_ROOT`, else the package the program's folder resolves
 * (`windows-estate` in its node_modules: a library user's program), else the project the folder is in (this program):
 * the nearest folder up with a package.json, as lib/project.ts `projectRoot` finds it, written out here (see StandIn).
 * Nothing of the path is stored, so a state moves between checkouts and machines without a change.
 */
async function configure(this: StandIn) {
  const path: typeof import("path") = require("path");
  const fs: typeof import("fs") = require("fs");
  const env = process.env.WINDOWS_ESTATE_ROOT;
  let dir = env || process.cwd();
  try {
    if (!env) dir = path.dirname(require.resolve("windows-estate/package.json", { paths: [dir] }));
  } catch {
    // not installed there
  }
  const from = dir;
  while (!fs.existsSync(path.join(dir, "package.json")) && dir !== path.dirname(dir)) dir = path.dirname(dir);
  const file = path.join(dir, "providers", "host-loader.js");
  const loader = (): HostLoader => {
    if (!fs.existsSync(file))
      throw new Error(
        `the windows-estate provider code was not found from ${from}: run pulumi from the project directory, or set WINDOWS_ESTATE_ROOT to it`,
      );
    return require(file); // layers-allow: the loader
  };
  for (const m of this.methods) Reflect.set(this, m, async (...args: unknown[]) => loader().call(this.type, m, args));
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
  const p: StandIn = { codeVersion: codeVersion(), type, methods: entry.methods, create, configure };
  made.set(type, p);
  return p;
}
