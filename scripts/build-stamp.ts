/**
 * The last step of `npm run build`: records the hash of the sources tsc just compiled into bin/ (lib/project.ts), so
 * the program and the dynamic providers run from bin/ only while it matches the sources.
 */
import * as fs from "fs";
import * as path from "path";
import {
  BUILD_STAMP,
  PROGRAM_SOURCES,
  projectRoot,
  PROVIDER_SOURCES,
  PROVIDER_STAMP,
  sourceHash,
} from "../lib/project";

const root = projectRoot(__dirname);
// Non-TypeScript files the program reads next to its modules.
for (const asset of ["components/node-access/relay-proxy.js"]) {
  fs.mkdirSync(path.dirname(path.join(root, "bin", asset)), { recursive: true });
  fs.copyFileSync(path.join(root, asset), path.join(root, "bin", asset));
}
fs.writeFileSync(path.join(root, PROVIDER_STAMP), sourceHash(root, PROVIDER_SOURCES) + "\n");
fs.writeFileSync(path.join(root, BUILD_STAMP), sourceHash(root, PROGRAM_SOURCES) + "\n");
console.log(`bin/ is current for these sources (${BUILD_STAMP})`);
