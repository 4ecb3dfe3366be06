import { execFileSync } from "child_process";
import * as path from "path";

// Runs once before the suite: the SSH lab's sshd must exist (installed when possible), or the run stops here with
// the command to run; it never skips those tests.
export default function globalSetup(): void {
  execFileSync("bash", [path.join(__dirname, "ensure-sshd.sh")], { stdio: "inherit" });
}
