// What the dynamic-provider host loads to run a dynamic resource's provider: the few lines each resource carries in
// its `__provider` (providers/thin.ts) find the project and require this file, which loads the real provider
// (providers/registry.ts) and calls it. It is plain JavaScript, not TypeScript, so the host loads it without ts-node,
// and it is a file rather than code in the stand-in because Pulumi serializes a closure with everything it reaches
// (sdk/nodejs/runtime/closure/createClosure.ts captures each free variable's value, functions as their source): the
// loading code and lib/project.ts's functions it used were 6-8 KB in every resource's state, twice (inputs and
// outputs), and the engine rewrites the whole state after every step (pkg/backend/snapshot.go saveSnapshot).
//
// Its path (`providers/host-loader.js`) and exports never change: state written by any later version names them.
"use strict";
const fs = require("fs");
const path = require("path");

/** The project, or the package installed from its tarball (package.json `files` includes this file). */
const root = path.dirname(__dirname);
/** The providers loaded in this host, by type: loaded once for the life of the host. */
const loaded = new Map();

/**
 * bin/providers/registry.js when `npm run build` compiled exactly the current sources or the package was installed
 * from its tarball, else undefined (run the TypeScript sources): lib/project.ts `builtModule`, as compiled. Without
 * bin/lib/project.js nothing was built, so there is nothing to choose.
 */
function builtRegistry() {
  const project = path.join(root, "bin", "lib", "project.js");
  // layers-allow: lib/project.js as built into the project found at run time.
  return fs.existsSync(project) ? require(project).builtModule(root, "providers/registry") : undefined;
}

/**
 * The provider registered as `type`, from bin/ (builtRegistry) or else from the TypeScript sources through ts-node
 * with tsconfig.pulumi.json, as Pulumi's language host runs the program. Errors name what is missing and the fix.
 */
function load(type) {
  const cached = loaded.get(type);
  if (cached) return cached;
  const built = builtRegistry();
  if (!built && !fs.existsSync(path.join(root, "providers", "registry.ts")))
    throw new Error(
      `the windows-estate provider code was not found in ${root}: run pulumi from the project directory, or set WINDOWS_ESTATE_ROOT to it`,
    );
  if (!built && !require.extensions[".ts"])
    // layers-allow: the ts-node package as the project root resolves it, not a module of ours.
    require(require.resolve("ts-node", { paths: [root] })).register({
      transpileOnly: true,
      project: path.join(root, "tsconfig.pulumi.json"),
    });
  // layers-allow: ./registry, compiled or not, in the project found at run time.
  const provider = require(built || path.join(root, "providers", "registry")).providerFor(type);
  loaded.set(type, provider);
  return provider;
}

/**
 * Method `method` of the provider registered as `type`, applied to `args` as the host passed them. A method the
 * registry promised but the provider lacks is an error naming both.
 */
async function call(type, method, args) {
  const provider = load(type);
  const f = provider[method];
  if (typeof f !== "function") throw new Error(`the ${type} provider has no ${method}`);
  const r = await f.apply(provider, args);
  if (method !== "check") return r;
  // The engine prints the value of a failure's property with the message, secrets in plaintext (pulumi
  // pkg/resource/deploy/step_generator.go `issueCheckFailures`: `inputs[failure.Property]` formatted with %v, a
  // Secret's element included); a connection holds keys and passwords. So no failure names a property: the reason
  // names it instead. Found through the real CLI (test/e2e/plan.e2e.ts).
  return {
    ...r,
    failures: (r.failures || []).map((f) => ({
      property: "",
      reason: f.property ? `${f.property}: ${f.reason}` : f.reason,
    })),
  };
}

module.exports = { call };
