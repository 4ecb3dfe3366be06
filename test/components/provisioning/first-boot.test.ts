import { spawn } from "child_process";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import {
  CAPABILITY_ATTEMPTS,
  CAPABILITY_WAIT_SECONDS,
  FIRST_BOOT_FAILED_CONSOLE_MARKER,
  firstBootScript,
} from "../../../components/provisioning/user-data";
import { freshWindowsState } from "../../lab/windows-state";

// Audit row 4 (issue 31): first boot installs OpenSSH from Windows Update, and the network is often not there yet.
// The first-boot script runs through the lab's PowerShell stand-in as a host runs it (`-EncodedCommand`); the host
// fails its first `capabilityFailures` installs, and the stand-in tries as often as the script's own retry says.

const STAND_IN = path.join(__dirname, "..", "..", "lab", "fake-powershell.js");
const KEY = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIE4xampleKeyOnlyForTheseTestsAAAAAAAAAAAAAAAA wmco";
const script = firstBootScript({ publicKey: KEY, hostname: "winbyoh-1", tcpPorts: [10250, 9182], udpPorts: [] });
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "first-boot-"));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

function run(state: string, text = script): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, [STAND_IN, "-EncodedCommand", Buffer.from(text, "utf16le").toString("base64")], {
      env: { ...process.env, FAKE_WINDOWS_STATE: state },
    });
    let stderr = "";
    p.stderr.on("data", (d: Buffer) => (stderr += d.toString("utf8")));
    p.on("error", reject);
    p.on("close", (code) => resolve({ code, stderr }));
  });
}
/** A freshly launched VM without OpenSSH whose Windows Update fails the first `failures` installs. */
function vm(name: string, failures: number): string {
  const state = path.join(dir, `${name}.json`);
  const { authorizedKeys: _none, ...fresh } = freshWindowsState("EC2AMAZ-1A2B3C");
  fs.writeFileSync(state, JSON.stringify({ ...fresh, authorizedKeys: [], capabilityFailures: failures }));
  return state;
}
const read = (state: string) => JSON.parse(fs.readFileSync(state, "utf8"));

// WMCO's own user data (release-4.22 pkg/secrets/secrets.go generateUserDataWithPubKey) loops `while (-not $success
// -and $attempt -lt 10)` with `Start-Sleep -Seconds 5` after a failure: a VM whose Windows Update answers by the tenth
// try gets OpenSSH there, and so must it here. The numbers are WMCO's, not this program's constants.
test("as patient as WMCO: Windows Update answering at the 10th try (9 failures, 5 s apart) still installs OpenSSH", async () => {
  const state = vm("wmco", 9);
  expect(await run(state)).toMatchObject({ code: 0 });
  expect(read(state)).toMatchObject({ capabilityAttempts: 10, capabilityWaitSeconds: 9 * 5, sshdInstalled: true });
});

// The stand-in runs the script's own loop (fake-powershell.js firstBootInstall), so the retry is the script's: these
// are the reviewer's mutations, each of which must break first boot.
test("without the try/catch around Add-WindowsCapability the first failure ends first boot (no retry)", async () => {
  const bare = script.replace(/^ {2}try \{ (Add-WindowsCapability [^}]*) \}\n {2}catch \{[^\n]*\}$/m, "  $1");
  expect(bare).not.toBe(script);
  const state = vm("bare", 1);
  const r = await run(state, bare);
  expect(r.code).toBe(1);
  expect(r.stderr).toContain("The remote procedure call failed.");
  expect(read(state)).toMatchObject({ capabilityAttempts: 1, authorizedKeys: [] });
  expect(read(state).sshdInstalled).toBeUndefined();
  // The script as it is, on the same kind of host, retries and finishes.
  const fixed = vm("fixed", 1);
  expect((await run(fixed)).code).toBe(0);
});

test("an install that returns without error but leaves no sshd service yet is retried after the same wait, not at once", async () => {
  const state = vm("no-service", 0);
  fs.writeFileSync(state, JSON.stringify({ ...read(state), capabilityNoService: 1 }));
  expect(await run(state)).toMatchObject({ code: 0 });
  expect(read(state)).toMatchObject({
    capabilityAttempts: 2,
    capabilityWaitSeconds: CAPABILITY_WAIT_SECONDS,
    sshdInstalled: true,
  });
});

test("one failed OpenSSH install (no network yet): the retry installs it and the host is set up", async () => {
  const state = vm("once", 1);
  const r = await run(state);
  expect(r).toMatchObject({ code: 0 });
  expect(read(state)).toMatchObject({
    capabilityAttempts: 2,
    capabilityWaitSeconds: CAPABILITY_WAIT_SECONDS,
    sshdInstalled: true,
    sshdStartType: "Automatic",
    authorizedKeys: [KEY],
    authorizedKeysEncoding: "ascii",
    keyFileAclOk: true,
    firstBootFirewallRules: ["windows-estate-tcp-22", "windows-estate-tcp-10250", "windows-estate-tcp-9182"],
    hostname: "winbyoh-1",
  });
});

test("more failures than attempts: it stops before anything else, names the step and the fix on the console; run again with the network back, it finishes", async () => {
  const state = vm("never", CAPABILITY_ATTEMPTS + 1);
  const r = await run(state);
  expect(r.code).toBe(1);
  const host = read(state);
  expect(host.capabilityAttempts).toBe(CAPABILITY_ATTEMPTS);
  // Nothing half-configured: no sshd, no key, no firewall rule, no rename.
  expect(host.sshdInstalled).toBeUndefined();
  expect(host).toMatchObject({ authorizedKeys: [], sshdStartType: "Manual", hostname: "EC2AMAZ-1A2B3C" });
  expect(host.firstBootFirewallRules).toBeUndefined();
  const line = new RegExp(
    `^${FIRST_BOOT_FAILED_CONSOLE_MARKER} step "install OpenSSH.Server \\(Add-WindowsCapability\\)" failed ${CAPABILITY_ATTEMPTS} times, ${CAPABILITY_WAIT_SECONDS} s apart \\(The remote procedure call failed\\.\\)\\. .*Fix: let the VM reach Windows Update.*recreate the VM`,
  );
  expect(host.serialConsole).toEqual([expect.stringMatching(line)]);
  // And in the script's error output (which Windows PowerShell 5.1 may wrap as CLIXML).
  expect(r.stderr).toContain("install OpenSSH.Server (Add-WindowsCapability)");

  // The same script again (a recreated VM, or run by hand) once Windows Update answers: it completes.
  fs.writeFileSync(state, JSON.stringify({ ...read(state), capabilityFailures: 0 }));
  expect((await run(state)).code).toBe(0);
  expect(read(state)).toMatchObject({ sshdInstalled: true, authorizedKeys: [KEY], keyFileAclOk: true });
});
