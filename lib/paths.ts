import * as os from "os";
import * as path from "path";

/** `~` and `~/…` in a configured path mean the user's home directory, as in a shell. */
export function expandHome(p: string): string {
  return p === "~" || p.startsWith("~/") ? path.join(os.homedir(), p.slice(1)) : p;
}
