/**
 * The entry Pulumi runs (Pulumi.yaml `main`). The program itself is program.ts: compiled in bin/ when `npm run build`
 * compiled exactly the current sources (start-up without transpiling ~100 modules), else from the TypeScript sources.
 */
import { builtModule, projectRoot } from "./lib/project";

// layers-allow: ./program itself, or its compiled copy in bin/ (builtModule, lib/project.ts).
const entry: typeof import("./program") = require(builtModule(projectRoot(__dirname), "program") ?? "./program");
export = entry;
