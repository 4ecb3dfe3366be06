// The package's `main`, for Pulumi's component provider host (PulumiPlugin.yaml: @pulumi/pulumi cmd/run-plugin
// requires the plugin's folder, so its `main`). It loads the library compiled by `npm run build` when bin/ is current
// for the sources, else the TypeScript sources through ts-node, transpile only (type checking is the build's job), as
// the program's index.ts does. Installed from the packed tarball, Node takes `exports` (bin/library/index.js) instead.
"use strict";
const path = require("path");
const root = path.join(__dirname, "..");
require("ts-node").register({ transpileOnly: true, project: path.join(root, "tsconfig.pulumi.json") });
const { builtModule } = require("../lib/project.ts");
module.exports = require(builtModule(root, "library/index") ?? "./index.ts");
