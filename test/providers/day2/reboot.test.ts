import * as fs from "fs";
import { rebootHost } from "../../../providers/day2/reboot";
import { bootTimeScript, rebootScript } from "../../../providers/day2/scripts";
import { launchLog, transportLog, standInBin } from "../../lab/lab-windows";
import { sshCounters } from "../../../providers/ssh/limits";
import { LabHost, startLabHost } from "../../lab/sshd";
import { labConnection } from "../../helpers/lab-host";
import { freshWindowsState } from "../../lab/windows-state";

const win = require("../../lab/windows-51");

// The reboot against a real sshd whose `powershell` is the lab's stand-in: Restart-Computer gives the host a new boot
// time; with `neverReturns` it takes the host's sshd down for good. What only Windows proves: a real restart.
const { dir: bin, state } = standInBin("fake-reboot-");

let h: LabHost;
beforeEach(async () => {
  h = await startLabHost({ binDir: bin });
});
afterEach(() => h.stop());
afterAll(() => fs.rmSync(bin, { recursive: true, force: true }));

const conn = () => labConnection(h, { deadlineSeconds: 5 });
const opts = { upTimeoutMs: 3_000, pollMs: 50, attemptSeconds: 1 };

test("reboots: the boot time changes and the script that ran is Restart-Computer -Force", async () => {
  fs.writeFileSync(state, JSON.stringify({ ...freshWindowsState(), bootTime: "2026-11-01T00:00:00.0000000Z" }));
  const lines: string[] = [];
  const logins = sshCounters().logins;
  const r = await rebootHost(conn(), h.hostKeyFingerprint, "win-1", { ...opts, progress: (l) => lines.push(l) });
  expect(r.before).toBe("2026-11-01T00:00:00.0000000Z");
  expect(r.after).not.toBe(r.before);
  // Two PowerShell launches and two logins, the least a reboot allows: boot time and restart in one process (it ends
  // with Windows), the new boot time in the next (issue 17's round-trip guard).
  expect(launchLog(state)).toEqual([[bootTimeScript(), rebootScript()], [bootTimeScript()]]);
  expect(sshCounters().logins - logins).toBe(2);
  expect(lines).toEqual([`node win-1: restarting (booted ${r.before})`, `node win-1: back (booted ${r.after})`]);
});

test.each([
  ["the connection drops before Restart-Computer answers", false, "restart: no answer"],
  ["Restart-Computer answers before Windows goes down", true, "restart: answered"],
])("reboots whichever comes first (WMCO RebootAndReinitialize tolerates both): %s", async (_n, answers, seen) => {
  expect(win.rule("transport.restart-answer").rows).toEqual([13]);
  fs.rmSync(state + ".transport.log", { force: true });
  fs.writeFileSync(
    state,
    JSON.stringify({ ...freshWindowsState(), bootTime: "2026-11-01T00:00:00.0000000Z", restartAnswers: answers }),
  );
  const r = await rebootHost(conn(), h.hostKeyFingerprint, "win-1", opts);
  expect(r.after).not.toBe(r.before);
  expect(transportLog(state)[0]).toBe(seen);
});

test("a node that never comes back stops at the deadline, named, left cordoned", async () => {
  fs.writeFileSync(
    state,
    JSON.stringify({ ...freshWindowsState(), bootTime: "2026-11-01T00:00:00.0000000Z", neverReturns: true }),
  );
  // The deadline is the point, not its length: one second of waiting instead of the others' three.
  await expect(rebootHost(conn(), h.hostKeyFingerprint, "win-1", { ...opts, upTimeoutMs: 1_000 })).rejects.toThrow(
    /node win-1 did not come back within 1s after Restart-Computer \(last: .*\); it stays cordoned/,
  );
});

test("a host that answers with another host key is refused at once, never retried into acceptance", async () => {
  fs.writeFileSync(state, JSON.stringify({ ...freshWindowsState(), bootTime: "2026-11-01T00:00:00.0000000Z" }));
  const other = await startLabHost({ binDir: bin });
  try {
    // Pinned to another host's key: the first connection is refused as a mismatch, with no retries. At once is
    // final (session.ts connectWithin ends at a final error; a retried one ends "gave up after N attempts", not final).
    await expect(
      rebootHost({ ...conn(), hostKey: other.hostKeyFingerprint }, other.hostKeyFingerprint, "win-1", opts),
    ).rejects.toMatchObject({ final: true, message: expect.stringMatching(/host key mismatch/) });
  } finally {
    await other.stop();
  }
});
