// The package's `main`, for Pulumi's component provider host (PulumiPlugin.yaml: @pulumi/pulumi cmd/run-plugin
// requires the plugin's folder, so its `main`). In the repository it loads the library compiled by `npm run build`
// when bin/ is current for the sources, else the TypeScript sources through ts-node, transpile only (type checking is
// the build's job), as the program's index.ts does. Installed from the tarball (no sources, no ts-node), Node takes
// `exports` (bin/library/index.js); a tool that reads `main` instead gets the same compiled library.
"use strict";
const fs = require("fs");
const path = require("path");
const root = path.join(__dirname, "..");
if (!fs.existsSync(path.join(root, "lib", "project.ts"))) {
  module.exports = require("../bin/library/index.js");
} else {
  require("ts-node").register({ transpileOnly: true, project: path.join(root, "tsconfig.pulumi.json") });
  const { builtModule } = require("../lib/project.ts");
  // layers-allow: ./index.ts itself, or its compiled copy in bin/ (builtModule, lib/project.ts).
  module.exports = require(builtModule(root, "library/index") ?? "./index.ts");
}
