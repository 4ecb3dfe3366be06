// The stand-in's rules for a new VM's first boot (see index.js): one boot's run of the first-boot script
// (components/provisioning/user-data.ts firstBootScript), every top-level statement in the script's own order against
// the host's state, so a test sees what a login could reach at each point (`host.firstBootEvents`). A statement it
// has no model of stops the run (`unmodelled`), so the script cannot gain a step the stand-in silently skips.
// The other statements it runs (Add-WindowsCapability failing while `host.capabilityFailures` lasts, with "The remote
// procedure call failed.", what Windows Update answers with no network; the key file's ACL through files.js's icacls)
// follow the rules of their own areas.
"use strict";

/** @type {{ id: string, area: string, rule: string, source: string, rows: number[] }[]} */
const RULES = [
  {
    id: "boot.rename-restart",
    area: "boot",
    rule:
      "Rename-Computer -Restart gives the computer its new name from the next boot and starts the restart; the " +
      "script goes on until it ends (here at its `exit`), and nothing runs after the restart unless the cloud runs " +
      "the script again.",
    source:
      'Microsoft Learn Rename-Computer (-Restart: "restarts the computer that was renamed"; the name applies at ' +
      "the restart)",
    rows: [],
  },
  {
    id: "boot.user-data-persist",
    area: "boot",
    rule:
      "EC2 runs `<powershell>` user data once, at launch; with `<persist>true</persist>` at every boot. Azure never " +
      "runs custom data on Windows: its Custom Script Extension runs the command it is given, once per deployment. " +
      "Each call of the stand-in is one boot.",
    source:
      'AWS EC2 User Guide, Run commands on your Windows instance at launch ("To run user data scripts every time ' +
      'you reboot or start the instance, add <persist>true</persist>"); WMCO pkg/secrets/secrets.go processTags',
    rows: [],
  },
  {
    id: "boot.sshd-first-start",
    area: "boot",
    rule:
      "sshd installed from the capability starts Manual; its first start writes the default sshd_config " +
      "(`#PasswordAuthentication yes`, so passwords are accepted) and the host keys, and it reads its config only " +
      "when it starts: a changed sshd_config needs a restart.",
    source:
      'WMCO pkg/secrets/secrets.go generateUserDataWithPubKey ("sshd service is started to create the default ' +
      'sshd_config file. This file is modified for enabling publicKey auth and the service is restarted")',
    rows: [],
  },
  {
    id: "boot.ec2launch-routes",
    area: "boot",
    rule:
      "EC2Launch v2's `run-task add-routes --persistent` keeps the instance-metadata routes across reboots; it " +
      "exists from EC2Launch 2.0.2107 (the host's `ec2launchVersion`; none when unset).",
    source:
      'WMCO pkg/secrets/secrets.go appendAwsUserDataConfig (EC2LaunchMinimumVersion 2.0.2107, "custom task to ' +
      'persist routes"); docs/TROUBLESHOOTING.md "Node reboot limitation in AWS"',
    rows: [],
  },
];

const { unquote, statements, block, value: valueOf } = require("./statements.js");

function compareVersions(a, b) {
  const pa = a.split(".").map(Number);
  const pb = b.split(".").map(Number);
  if (pa.some(isNaN) || pb.some(isNaN) || pa.length < 2)
    throw { error: `Cannot convert value "${a}" to type "System.Version".` };
  for (let k = 0; k < Math.max(pa.length, pb.length); k++) {
    const d = (pa[k] || 0) - (pb[k] || 0);
    if (d !== 0) return d;
  }
  return 0;
}

/**
 * Runs the first-boot script once (one boot) on `host` (its state object, changed in place). Returns the exit code
 * and what went to standard error; `unmodelled` names a statement the stand-in has no model of.
 */
function runFirstBoot(script, host) {
  // files.js's rules for the key file's ACL (required here, not at load: index.js loads this module too).
  const win = require("./files.js");
  const vars = { LASTEXITCODE: 0 };
  const events = (host.firstBootEvents ||= []);
  const serial = (host.serialConsole ||= []);
  const boot = (host.boots = (host.boots || 0) + 1);
  const event = (what) => events.push({ boot, what, ...loginState() });
  // Whether a login with the key could succeed now, and with a password.
  const loginState = () => ({
    sshd: !!(host.sshdRunning && host.sshdRunning.started),
    keyLogin: !!(host.sshdRunning && host.sshdRunning.started && (host.authorizedKeys || []).length > 0),
    passwordLogin: !!(host.sshdRunning && host.sshdRunning.started && host.sshdRunning.passwordAuthentication !== "no"),
    hostname: host.hostname,
  });
  // An expression's value as the one reader evaluates it (statements.js), with this run's variables.
  const value = (t) => valueOf(t, vars);
  const test = (cond) =>
    cond.split(/\s+-and\s+/).every((term) => {
      term = term.trim();
      if (/^-not \(Get-Service -Name sshd -ErrorAction SilentlyContinue\)$/.test(term)) return !host.sshdInstalled;
      if (/^Test-Path -LiteralPath \$done$/.test(term)) return !!host.firstBootDone;
      if (/^-not \(Test-Path -LiteralPath \$ec2launch\)$/.test(term)) return !host.ec2launchVersion;
      let m;
      if ((m = /^\[System\.Net\.Dns\]::GetHostName\(\) -cne ('(?:[^']|'')*')$/.exec(term)))
        return host.hostname !== unquote(m[1]);
      if ((m = /^(\S+) -lt (\S+)$/.exec(term))) return value(m[1]) < value(m[2]);
      if ((m = /^(\$\w+) -ne (\S+)$/.exec(term))) return value(m[1]) !== value(m[2]);
      if (/^\$\w+$/.test(term)) return !!value(term);
      throw { unmodelled: term };
    });
  const tmpFile = {};
  const exec = (list, caught) => {
    for (let k = 0; k < list.length; k++) {
      const st = list[k];
      let b;
      let m;
      if (st === "$ErrorActionPreference = 'Stop'" || st.startsWith("function ")) continue;
      if (
        (m =
          /^if \(-not \(Get-NetFirewallRule -Name '([^']+)' -ErrorAction SilentlyContinue\)\) \{ New-NetFirewallRule -Name '\1' .* \| Out-Null \}$/.exec(
            st,
          ))
      ) {
        const rules = (host.firstBootFirewallRules ||= []);
        if (!rules.includes(m[1])) rules.push(m[1]);
      } else if (
        /^if \(Test-Path -LiteralPath \$config\) \{ \$text = \[System\.IO\.File\]::ReadAllText\(\$config\) \}$/.test(st)
      ) {
        // read: the config sshd wrote at its first start, or nothing
      } else if (/^if \(\$configChanged\) \{\s*\[System\.IO\.File\]::WriteAllText\(/.test(st)) {
        // The key-only block (providers/windows-host/scripts.ts SSHD_KEY_ONLY_CONFIG): written when it changed.
        if (vars.configChanged) host.sshdConfig = vars.pendingConfig;
      } else if ((b = block(st, "while"))) {
        while (test(b.cond)) exec(statements(b.body), caught);
      } else if ((b = block(st, "if"))) {
        if (test(b.cond)) exec(statements(b.body), caught);
        else if (b.otherwise !== undefined) exec(statements(b.otherwise), caught);
      } else if ((b = block(st, "try"))) {
        try {
          exec(statements(b.body), caught);
        } catch (e) {
          if (b.otherwise === undefined || !e.error) throw e;
          exec(statements(b.otherwise), e.error);
        }
      } else if ((m = /^exit (\d+)$/.exec(st))) {
        throw { exit: Number(m[1]) };
      } else if ((m = /^throw (.*)$/.exec(st))) {
        throw { error: String(value(m[1])), terminating: true };
      } else if ((m = /^\$(\w+)\+\+$/.exec(st))) {
        vars[m[1]] = (vars[m[1]] || 0) + 1;
      } else if ((m = /^\$(\w+) = \$_\.Exception\.Message$/.exec(st)) && caught !== undefined) {
        vars[m[1]] = caught;
      } else if ((m = /^\$(\w+) = Join-Path \$env:(ProgramData|ProgramFiles) ('(?:[^']|'')*')$/.exec(st))) {
        vars[m[1]] = `C:\\${m[2] === "ProgramData" ? "ProgramData" : "Program Files"}\\${unquote(m[3])}`;
      } else if ((m = /^\$(\w+) = \[string\]\(& \$ec2launch version\)$/.exec(st))) {
        vars[m[1]] = host.ec2launchVersion;
      } else if ((m = /^\$(\w+) = \(\[version\]\$(\w+)\.Trim\(\)\) -ge \(\[version\]('(?:[^']|'')*')\)$/.exec(st))) {
        vars[m[1]] = compareVersions(String(vars[m[2]] ?? "").trim(), unquote(m[3])) >= 0;
      } else if (st === "& $ec2launch run-task add-routes --persistent | Out-Null") {
        host.metadataRoutesPersistent = true;
        vars.LASTEXITCODE = 0;
        event("metadata routes persistent");
      } else if ((m = /^Rename-Computer -NewName ('(?:[^']|'')*') -Force -Restart$/.exec(st))) {
        // The new name is the computer's once it has restarted; the run ends at the script's `exit`.
        host.hostname = unquote(m[1]);
        host.restarts = (host.restarts || 0) + 1;
        event(`renamed to ${host.hostname}, restarting`);
        if (host.sshdRunning) host.sshdRunning = { ...host.sshdRunning, started: false };
      } else if ((m = /^Start-Sleep -Seconds (\S+)$/.exec(st))) {
        host.capabilityWaitSeconds = (host.capabilityWaitSeconds || 0) + value(m[1]);
      } else if (/^Add-WindowsCapability -Online -Name OpenSSH\.Server~~~~0\.0\.1\.0 \| Out-Null$/.test(st)) {
        host.capabilityAttempts = (host.capabilityAttempts || 0) + 1;
        if ((host.capabilityFailures || 0) > 0) {
          host.capabilityFailures--;
          throw { error: "The remote procedure call failed." };
        }
        if ((host.capabilityNoService || 0) > 0) host.capabilityNoService--;
        else {
          host.sshdInstalled = true;
          event("OpenSSH installed");
        }
      } else if (st === "Set-Service -Name sshd -StartupType Automatic") {
        if (!host.sshdInstalled) throw { error: "Cannot find any service with service name 'sshd'." };
        host.sshdStartType = "Automatic";
      } else if (st === "Start-Service -Name sshd" || st === "Restart-Service -Name sshd") {
        if (!host.sshdInstalled) throw { error: "Cannot find any service with service name 'sshd'." };
        // The first start writes the default config and the host keys.
        if (!host.sshdConfig) host.sshdConfig = { PubkeyAuthentication: "", PasswordAuthentication: "" };
        host.sshdHostKeys = true;
        host.sshdRunning = {
          started: true,
          pubkeyAuthentication: host.sshdConfig.PubkeyAuthentication,
          passwordAuthentication: host.sshdConfig.PasswordAuthentication,
        };
        host.pubkeyAuthentication = host.sshdConfig.PubkeyAuthentication;
        host.passwordAuthentication = host.sshdConfig.PasswordAuthentication;
        event(st.startsWith("Restart") ? "sshd restarted" : "sshd started");
      } else if (st === "$text = ''" || st === "$before = $text" || st === "$configChanged = $text -ne $before") {
        // The key-only block (providers/windows-host/scripts.ts SSHD_KEY_ONLY_CONFIG): modelled by its foreach and
        // its write below.
      } else if ((b = block(st, "foreach")) && b.cond.startsWith("$pair in ")) {
        // Its pairs, `@(@('<setting>', '<value>'), …)`, as the reader evaluates them.
        vars.pendingConfig = { ...(host.sshdConfig || {}) };
        for (const [k, v] of value(b.cond.slice("$pair in ".length))) vars.pendingConfig[k] = v;
        vars.configChanged = JSON.stringify(vars.pendingConfig) !== JSON.stringify(host.sshdConfig || {});
      } else if ((m = /^Set-LocalUser -Name ('(?:[^']|'')*') -PasswordNeverExpires \$true$/.exec(st))) {
        host.passwordNeverExpires = unquote(m[1]);
      } else if ((m = /^\$(\w+) = \$keyFile \+ ('(?:[^']|'')*')$/.exec(st))) {
        vars[m[1]] = "tmp";
      } else if ((m = /^Set-Content -LiteralPath \$tmp -Value ('(?:[^']|'')*') -Encoding (\w+)$/.exec(st))) {
        tmpFile.lines = [unquote(m[1])];
        tmpFile.encoding = m[2];
        tmpFile.acl = win.newFileAcl(host.keyFileInheritedSids);
      } else if ((m = /^icacls\.exe \$tmp (.*?) \| Out-Null$/.exec(st))) {
        const acl = win.icacls(tmpFile.acl, win.icaclsArgs(m[1]));
        vars.LASTEXITCODE = acl instanceof Error ? 5 : 0;
        if (!(acl instanceof Error)) tmpFile.acl = acl;
      } else if (st === "Move-Item -LiteralPath $tmp -Destination $keyFile -Force") {
        host.authorizedKeys = tmpFile.lines;
        host.authorizedKeysEncoding = tmpFile.encoding;
        host.keyFileAcl = tmpFile.acl;
        host.keyFileAclOk = win.keyFileAclOk(tmpFile.acl);
        event("key authorized");
      } else if (
        /^\$hostKey = Get-Content -LiteralPath \(Join-Path \$env:ProgramData 'ssh\\ssh_host_ed25519_key\.pub'\) -Raw$/.test(
          st,
        )
      ) {
        if (!host.sshdHostKeys)
          throw {
            error: "Cannot find path 'C:\\ProgramData\\ssh\\ssh_host_ed25519_key.pub' because it does not exist.",
          };
        vars.hostKey = (host.sshHostKey || "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIFirstBootLabHostKey") + "\r\n";
      } else if ((m = /^Send-ConsoleLine (.*)$/.exec(st))) {
        serial.push(String(value(m[1])));
      } else if (/^New-Item -ItemType Directory -Force -Path \(Split-Path -Parent \$done\) \| Out-Null$/.test(st)) {
        // the folder of the marker
      } else if (/^Set-Content -LiteralPath \$done -Value /.test(st)) {
        host.firstBootDone = true;
        event("first boot done");
      } else if ((m = /^\$(\w+) = (.*)$/.exec(st))) {
        vars[m[1]] = value(m[2]);
      } else throw { unmodelled: st };
    }
  };
  try {
    exec(statements(script));
  } catch (e) {
    if (e.exit !== undefined) return { code: e.exit, stderr: "" };
    if (e.unmodelled)
      return {
        code: 1,
        unmodelled: e.unmodelled,
        stderr: `the stand-in has no model of ${JSON.stringify(e.unmodelled)}\r\n`,
      };
    // A terminating error nothing caught ends the script ($ErrorActionPreference = 'Stop').
    if (e.error) return { code: 1, stderr: `${e.error}\r\n` };
    throw e;
  }
  return { code: 0, stderr: "" };
}

module.exports = { RULES, runFirstBoot };
