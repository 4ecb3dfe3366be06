import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { newHost, standIn } from "./windows-51-run";

// The helper that starts the Windows stand-in for the tests (test/lab/windows-51-run.ts): a run that outlives its
// time fails naming what it ran, its process gone.
test("a stand-in run over its time is killed, and the error names the script and the process", async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "win51-run-"));
  try {
    // The runner (scripts over stdin, fake-powershell.js) on a host whose SSH server never passes on the end of input:
    // it waits on (30 s), as PowerShell does.
    const host = newHost(dir, "slow", { ignoresEof: true });
    const e: Error = await standIn("##windows-estate-runner:", host.state, "", "the runner", 1500).then(
      () => new Error("answered"),
      (x: Error) => x,
    );
    expect(e.message).toMatch(/^the stand-in \(pid \d+\) ran `the runner` over 1500 ms and was killed/);
    const pid = Number(/pid (\d+)/.exec(e.message)?.[1]);
    expect(() => process.kill(pid, 0)).toThrow(expect.objectContaining({ code: "ESRCH" }));
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
