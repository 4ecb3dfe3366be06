import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import {
  CAPABILITY_ATTEMPTS,
  CAPABILITY_WAIT_SECONDS,
  FIRST_BOOT_FAILED_CONSOLE_MARKER,
  FIRST_BOOT_WARNING_CONSOLE_MARKER,
  firstBootScript,
  FirstBoot,
  HOST_KEY_CONSOLE_MARKER,
} from "../../../components/provisioning/user-data";
import { newHost, runEncoded } from "../../lab/windows-51-run";

// First boot as a new VM runs it, through the lab's PowerShell stand-in (`-EncodedCommand`, as EC2Launch and the
// Custom Script Extension start it): one call is one boot; every statement runs in the script's own order
// (test/lab/windows-51/boot.js), and the host records what a login could reach after each step (`firstBootEvents`).
// Audit rows 1, 6 and 13 of issue 41 (cloud hosts), row 4 of issue 31 (OpenSSH from Windows Update).

const KEY = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIE4xampleKeyOnlyForTheseTestsAAAAAAAAAAAAAAAA wmco";
const ROTATED = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIRotatedKeyOnlyForTheseTestsAAAAAAAAAAAAAAA wmco";
const base: FirstBoot = { cloud: "aws", publicKey: KEY, hostname: "winbyoh-1", tcpPorts: [10250, 9182], udpPorts: [] };
const aws = firstBootScript(base);
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "first-boot-"));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

interface Event {
  boot: number;
  what: string;
  sshd: boolean;
  keyLogin: boolean;
  passwordLogin: boolean;
  hostname: string;
}

const boot = (state: string, text = aws) => runEncoded(text, state);
/**
 * A freshly launched VM without OpenSSH: on AWS named as Amazon's AMIs name it (`EC2AMAZ-…`) with EC2Launch v2 of
 * the AMIs of 2025; its Windows Update fails the first `failures` installs.
 */
function vm(name: string, o: { failures?: number; hostname?: string; ec2launch?: string | null } = {}): string {
  return newHost(dir, name, {
    hostname: o.hostname ?? "EC2AMAZ-1A2B3C",
    capabilityFailures: o.failures ?? 0,
    ...(o.ec2launch === null ? {} : { ec2launchVersion: o.ec2launch ?? "2.2.63" }),
  }).state;
}
const read = (state: string) => JSON.parse(fs.readFileSync(state, "utf8"));
const events = (state: string): Event[] => read(state).firstBootEvents ?? [];

describe("AWS: no login can reach the host before its name is final", () => {
  test("boot 1 renames and restarts, with nothing of SSH installed, started or authorized", async () => {
    const state = vm("rename-first");
    expect(await boot(state)).toMatchObject({ code: 0 });
    const host = read(state);
    expect(host).toMatchObject({ hostname: "winbyoh-1", restarts: 1, authorizedKeys: [] });
    expect(host.sshdInstalled).toBeUndefined();
    expect(host.firstBootDone).toBeUndefined();
    expect(events(state).map((e) => e.what)).toEqual([
      "metadata routes persistent",
      "renamed to winbyoh-1, restarting",
    ]);
  });

  test("boot 2 (the user data persists) sets SSH up under the final name: key-only before the key, then done", async () => {
    const state = vm("two-boots");
    await boot(state);
    expect(await boot(state)).toMatchObject({ code: 0 });
    const host = read(state);
    expect(host).toMatchObject({
      hostname: "winbyoh-1",
      restarts: 1,
      sshdInstalled: true,
      sshdStartType: "Automatic",
      pubkeyAuthentication: "yes",
      passwordAuthentication: "no",
      authorizedKeys: [KEY],
      authorizedKeysEncoding: "ascii",
      keyFileAclOk: true,
      firstBootDone: true,
      // The names the WindowsHost probe reads (providers/windows-host/scripts.ts probeScript): no drift at first contact.
      firstBootFirewallRules: ["windows-estate-22", "windows-estate-10250", "windows-estate-9182"],
    });
    expect(host.serialConsole).toEqual([
      `${HOST_KEY_CONSOLE_MARKER} ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIFirstBootLabHostKey`,
    ]);
    const seen = events(state);
    // sshd never runs under the AMI's name; no key login before sshd is key-only; a password login is never open
    // once a key works.
    for (const e of seen) if (e.sshd) expect(e.hostname).toBe("winbyoh-1");
    for (const e of seen) if (e.keyLogin) expect(e).toMatchObject({ hostname: "winbyoh-1", passwordLogin: false });
    // The restart of sshd (for its key-only config) comes before the key: no login can be cut by it.
    const what = seen.map((e) => e.what);
    expect(what.indexOf("sshd restarted")).toBeLessThan(what.indexOf("key authorized"));
    expect(what.slice(-1)).toEqual(["first boot done"]);
  });

  test("later boots change nothing: a key rotated over SSH since stays (the marker stops the persisted script)", async () => {
    const state = vm("rotated");
    await boot(state);
    await boot(state);
    const before = events(state).length;
    // What WindowsHost's key rotation does over SSH (providers/windows-host/scripts.ts prepareScript), in short.
    fs.writeFileSync(state, JSON.stringify({ ...read(state), authorizedKeys: [ROTATED] }));
    expect(await boot(state)).toMatchObject({ code: 0 });
    expect(read(state)).toMatchObject({ authorizedKeys: [ROTATED], firstBootRuns: 3, restarts: 1 });
    expect(events(state)).toHaveLength(before);
  });

  test("EC2Launch v2 older than WMCO's minimum, or none: said on the console, and first boot still completes", async () => {
    for (const [name, version, why] of [
      ["old-ec2launch", "2.0.1643", "EC2Launch 2.0.1643"],
      ["no-ec2launch", null, "no EC2Launch v2 at C:\\Program Files\\Amazon\\EC2Launch\\EC2Launch.exe"],
    ] as const) {
      const state = vm(name, { ec2launch: version });
      await boot(state);
      expect(await boot(state)).toMatchObject({ code: 0 });
      const host = read(state);
      expect(host.metadataRoutesPersistent).toBeUndefined();
      expect(host.firstBootDone).toBe(true);
      expect(host.serialConsole[0]).toBe(
        `${FIRST_BOOT_WARNING_CONSOLE_MARKER} the instance-metadata routes are not made persistent (${why}): after an unplanned reboot the node may stay NotReady. Fix: use an AMI with EC2Launch v2 2.0.2107 or later`,
      );
    }
  });
});

test("Azure: the VM is named at creation, so one run (its extension's) does everything, without a restart", async () => {
  const script = firstBootScript({ ...base, cloud: "azure", neverExpiringAdmin: "capi" });
  expect(script).not.toContain("EC2Launch");
  const state = vm("azure", { hostname: "winbyoh-1", ec2launch: null });
  expect(await boot(state, script)).toMatchObject({ code: 0 });
  const host = read(state);
  expect(host.restarts).toBeUndefined();
  expect(host).toMatchObject({
    authorizedKeys: [KEY],
    passwordAuthentication: "no",
    passwordNeverExpires: "capi",
    firstBootDone: true,
  });
});

// PowerShell ends a single-quoted string at U+2018, U+2019, U+201A and U+201B too (CharTraits.cs `IsSingleQuote`),
// and the stand-in's reader tokenizes as it does (windows-51/statements.js): a key comment with a typographic
// apostrophe reaches the host whole only when psQuote doubles it.
test("a key comment with typographic quotes (“Anna’s ‚laptop‛ ‘x’”) is authorized exactly as given", async () => {
  const key = KEY.replace(/ wmco$/, " “Anna’s ‚laptop‛ ‘x’”");
  const state = vm("smart-quotes", { hostname: "winbyoh-1", ec2launch: null });
  expect(await boot(state, firstBootScript({ ...base, cloud: "azure", publicKey: key }))).toMatchObject({ code: 0 });
  expect(read(state)).toMatchObject({ authorizedKeys: [key], firstBootDone: true });
});

// WMCO's own user data (release-4.22 pkg/secrets/secrets.go generateUserDataWithPubKey) loops `while (-not $success
// -and $attempt -lt 10)` with `Start-Sleep -Seconds 5` after a failure: a VM whose Windows Update answers by the tenth
// try gets OpenSSH there, and so must it here. The numbers are WMCO's, not this program's constants.
test("as patient as WMCO: Windows Update answering at the 10th try (9 failures, 5 s apart) still installs OpenSSH", async () => {
  const state = vm("wmco", { failures: 9, hostname: "winbyoh-1" });
  expect(await boot(state)).toMatchObject({ code: 0 });
  expect(read(state)).toMatchObject({ capabilityAttempts: 10, capabilityWaitSeconds: 9 * 5, sshdInstalled: true });
});

// The stand-in runs the script's own loop, so the retry is the script's: these are the reviewer's mutations, each of
// which must break first boot.
test("without the try/catch around Add-WindowsCapability the first failure ends first boot (no retry)", async () => {
  const bare = aws.replace(/^ {2}try \{ (Add-WindowsCapability [^}]*) \}\n {2}catch \{[^\n]*\}$/m, "  $1");
  expect(bare).not.toBe(aws);
  const state = vm("bare", { failures: 1, hostname: "winbyoh-1" });
  const r = await boot(state, bare);
  expect(r.code).toBe(1);
  expect(r.stderr).toContain("The remote procedure call failed.");
  expect(read(state)).toMatchObject({ capabilityAttempts: 1, authorizedKeys: [] });
  expect(read(state).sshdInstalled).toBeUndefined();
  // The script as it is, on the same kind of host, retries and finishes.
  expect((await boot(vm("fixed", { failures: 1, hostname: "winbyoh-1" }))).code).toBe(0);
});

test("an install that returns without error but leaves no sshd service yet is retried after the same wait, not at once", async () => {
  const state = vm("no-service", { hostname: "winbyoh-1" });
  fs.writeFileSync(state, JSON.stringify({ ...read(state), capabilityNoService: 1 }));
  expect(await boot(state)).toMatchObject({ code: 0 });
  expect(read(state)).toMatchObject({
    capabilityAttempts: 2,
    capabilityWaitSeconds: CAPABILITY_WAIT_SECONDS,
    sshdInstalled: true,
  });
});

test("more failures than attempts: it stops before anything of SSH, names the step and the fix on the console; the next boot finishes", async () => {
  const state = vm("never", { failures: CAPABILITY_ATTEMPTS + 1 });
  expect(await boot(state)).toMatchObject({ code: 0 }); // boot 1: the rename
  const r = await boot(state);
  expect(r.code).toBe(1);
  const host = read(state);
  expect(host.capabilityAttempts).toBe(CAPABILITY_ATTEMPTS);
  // Nothing of SSH: no sshd, no key, no firewall rule; the name is already final.
  expect(host.sshdInstalled).toBeUndefined();
  expect(host).toMatchObject({ authorizedKeys: [], sshdStartType: "Manual", hostname: "winbyoh-1" });
  expect(host.firstBootFirewallRules).toBeUndefined();
  const line = new RegExp(
    `^${FIRST_BOOT_FAILED_CONSOLE_MARKER} step "install OpenSSH.Server \\(Add-WindowsCapability\\)" failed ${CAPABILITY_ATTEMPTS} times, ${CAPABILITY_WAIT_SECONDS} s apart \\(The remote procedure call failed\\.\\)\\. .*Fix: let the VM reach Windows Update.*then reboot the instance: its user data runs again at every boot until first boot completes\\.$`,
  );
  expect(host.serialConsole).toEqual([expect.stringMatching(line)]);
  // And in the script's error output (which Windows PowerShell 5.1 may wrap as CLIXML).
  expect(r.stderr).toContain("install OpenSSH.Server (Add-WindowsCapability)");

  // The next boot, with Windows Update answering: it completes.
  fs.writeFileSync(state, JSON.stringify({ ...read(state), capabilityFailures: 0 }));
  expect((await boot(state)).code).toBe(0);
  expect(read(state)).toMatchObject({
    sshdInstalled: true,
    authorizedKeys: [KEY],
    keyFileAclOk: true,
    firstBootDone: true,
  });
});

test("on Azure a failed first boot says to run its extension again (it runs custom data once)", async () => {
  const script = firstBootScript({ ...base, cloud: "azure" });
  const state = vm("azure-never", { hostname: "winbyoh-1", failures: CAPABILITY_ATTEMPTS, ec2launch: null });
  expect((await boot(state, script)).code).toBe(1);
  expect(read(state).serialConsole[0]).toMatch(
    /then run first boot again: pulumi up --replace on its first-boot VirtualMachineExtension/,
  );
});
