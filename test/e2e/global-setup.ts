import { execFileSync, spawnSync } from "child_process";
import * as path from "path";
import ensureSshd from "../lab/global-setup";
import { builtOnce, startRun } from "./project";

/**
 * Makes sure sshd is there and builds the lab before any suite runs (seconds when the cache has it, the cold build otherwise), so a suite's own
 * time is its own. A failed build stops the run with the lab's one-line reason.
 */
export default function globalSetup(): void {
  // The BYOH and vanilla hosts are loopback OpenSSH servers (test/lab/sshd.ts), as in `npm test`.
  ensureSshd();
  // actionlint checks the workflows' scripts with shellcheck (actionlint.e2e.ts).
  execFileSync("bash", [path.join(__dirname, "..", "lab", "ensure-shellcheck.sh")], { stdio: "inherit" });
  const root = path.resolve(__dirname, "..", "..");
  const r = spawnSync(process.execPath, ["-r", "ts-node/register/transpile-only", "lab/cli.ts", "build"], {
    cwd: root,
    stdio: ["ignore", "inherit", "inherit"],
    timeout: 60 * 60_000,
  });
  if (r.status !== 0) throw new Error("`npm run lab -- build` failed: the e2e suite needs the lab's programs");
  // One folder for the run's project copies, and the project built once for every suite's copy (project.ts
  // RUN_DIR, BUILT_COPY); the workers inherit the environment.
  startRun();
  builtOnce();
}
