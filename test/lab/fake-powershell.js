#!/usr/bin/env node
// A simulated Windows host for the WindowsHost provider's plumbing tests: decodes `-EncodedCommand` exactly as
// PowerShell does (base64 of UTF-16LE), logs the script, and answers the provider's probe and prepare scripts
// from a JSON state file. It proves transport, encoding, parsing and decisions; the scripts themselves are proven
// by the tree-sitter parse tests, and only a real Windows host proves their effect.
const fs = require("fs");
const path = require("path");
const state = process.env.FAKE_WINDOWS_STATE || path.join(__dirname, "state.json");
const i = process.argv.indexOf("-EncodedCommand");
if (i < 0) {
  process.stderr.write("only -EncodedCommand is supported\n");
  process.exit(2);
}
const launched = Buffer.from(process.argv[i + 1], "base64").toString("utf16le");
// Every start of this program is one PowerShell launch: counted in the log, which the round-trip tests read.
fs.appendFileSync(state + ".log", "#launch\n");
/**
 * Answers one script as the simulated host would: returns its exit code, output and error output. The state is read
 * afresh for every script (a runner process lives across steps) and saved by the handlers that change it.
 */
function handle(script) {
  fs.appendFileSync(state + ".log", script + "\n#---\n");
  const host = JSON.parse(fs.readFileSync(state, "utf8"));
  // With `rebootSeconds`, a restarted host takes that long to start: until then every script fails, as a host that is
  // not up would (the benchmark's rollouts model Windows' boot time so).
  if (host.upAt && Date.now() < host.upAt) return { code: 1, stdout: "", stderr: "the host is still starting\r\n" };
  let stdout = "";
  let stderr = "";
  const say = (t) => (stdout += t);
  const complain = (t) => (stderr += t);
  const finish = (code) => ({ code, stdout, stderr });
  // Saves the simulated state. With `authorizedKeysFile`, the key list is also the real sshd's file: what a script
  // authorizes or removes decides which keys the next login may use (written whole and renamed into place).
  function save() {
    fs.writeFileSync(state, JSON.stringify(host));
    if (host.authorizedKeysFile) {
      fs.writeFileSync(host.authorizedKeysFile + ".tmp", host.authorizedKeys.map((k) => k + "\n").join(""), {
        mode: 0o600,
      });
      fs.renameSync(host.authorizedKeysFile + ".tmp", host.authorizedKeysFile);
    }
  }
  const key = (/^\$key = '((?:[^']|'')*)'/m.exec(script) || [])[1]?.replace(/''/g, "'");
  // A Windows node of a vanilla cluster (providers/vanilla-node/scripts.ts): probe and each converge step.
  const svc = () => (host.services ||= {});
  if (script.includes("$feature = Get-WindowsFeature -Name Containers")) {
    const names = [...(/^\$names = @\((.*)\)$/m.exec(script) || ["", ""])[1].matchAll(/'([^']*)'/g)].map((m) => m[1]);
    const versions = Object.fromEntries(names.map((n) => [n, (host.versions || {})[n] || ""]));
    const services = {};
    for (const n of ["containerd", "kubelet"]) services[n] = svc()[n] || { status: "Missing", startType: "" };
    say(
      "\uFEFF" +
        JSON.stringify({
          hostname: host.hostname,
          osBuild: host.osBuild,
          osRevision: host.revision || host.updateRevision || 0,
          containersFeature: host.containersFeature || "Available",
          versions,
          services,
          firewall: { kubelet: !!host.firewallKubelet, vxlan: !!host.firewallVxlan },
          vxlanPort: 4789,
          joined: !!host.joined,
          proxy: host.proxy || { HTTP_PROXY: "", HTTPS_PROXY: "", NO_PROXY: "" },
        }) +
        "\r\n",
    );
    return finish(0);
  }
  if (script.includes("Install-WindowsFeature -Name Containers")) {
    // With `featuresNeedReboot`, Windows finishes the install only with the next restart.
    host.containersFeature = host.featuresNeedReboot ? "InstallPending" : "Installed";
    save();
    say(host.featuresNeedReboot ? "reboot\r\n" : "features ok\r\n");
    return finish(0);
  }
  if (script.includes("Write-Output 'host settings ok'")) {
    host.firewallKubelet = true;
    host.firewallVxlan = true;
    save();
    say("host settings ok\r\n");
    return finish(0);
  }
  if (script.includes("Write-Output 'installed'")) {
    // Each item: @{ name = '…'; url = '…'; …; version = '…' }. A host told to see a bad checksum refuses that item.
    const items = [...script.matchAll(/@\{ name = '([^']*)'; url = '([^']*)'.*version = '([^']*)' \}/g)];
    host.downloaded = host.downloaded || [];
    for (const [, name, url, version] of items) {
      if (host.badChecksum === name) {
        complain(`${name}: checksum mismatch, published aaaa, downloaded bbbb; nothing was replaced\r\n`);
        save();
        return finish(1);
      }
      (host.versions ||= {})[name] = version;
      host.downloaded.push(url);
    }
    save();
    say("installed\r\n");
    return finish(0);
  }
  if (script.includes("--register-service --config $config")) {
    const config = (/^\$config = '([^']*)'/m.exec(script) || [])[1];
    svc().containerd = { status: "Running", startType: "Automatic" };
    host.containerdConfig = config;
    host.containerdRestarts = (host.containerdRestarts || 0) + 1;
    save();
    say("containerd ok\r\n");
    return finish(0);
  }
  if (script.includes("Write-Output 'kubelet service ok'")) {
    const running = svc().kubelet && svc().kubelet.status === "Running";
    svc().kubelet = { status: running ? "Running" : "Stopped", startType: "Automatic" };
    save();
    say("kubelet service ok\r\n");
    return finish(0);
  }
  if (script.includes("join --config $join")) {
    // The join reads the file the provider wrote over SFTP, then the real script removes it (it holds the token).
    const join = (/^\$join = '([^']*)'/m.exec(script) || [])[1];
    if (!host.joined) {
      const text = fs.readFileSync(join, "utf8");
      // kubeadm validates nodeRegistration.name as a DNS-1123 subdomain before anything else (cmd/kubeadm/app/apis/
      // kubeadm/validation/validation.go ValidateNodeRegistrationOptions: validation.IsDNS1123Subdomain).
      const name = (/^\s+name: "?([^"\n]*)"?$/m.exec(text) || [])[1];
      if (name !== undefined && !/^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/.test(name)) {
        complain(
          `nodeRegistration.name: Invalid value: "${name}": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.'\r\n`,
        );
        fs.rmSync(join, { force: true });
        return finish(1);
      }
      host.joinedAs = name;
      host.joinedWithToken = (/token: "?([a-z0-9]{6}\.[a-z0-9]{16})"?/.exec(text) || [])[1] || "";
      host.joined = true;
      host.joins = (host.joins || 0) + 1;
    }
    fs.rmSync(join, { force: true });
    svc().kubelet = { status: "Running", startType: "Automatic" };
    save();
    say("joined\r\n");
    return finish(0);
  }
  if (script.includes("Write-Output 'services stopped'")) {
    const names = [...(/foreach \(\$s in @\((.*)\)\)/.exec(script) || ["", ""])[1].matchAll(/'([^']*)'/g)].map(
      (m) => m[1],
    );
    for (const n of names) if (svc()[n]) svc()[n] = { ...svc()[n], status: "Stopped" };
    host.stopped = [...(host.stopped || []), ...names];
    save();
    say("services stopped\r\n");
    return finish(0);
  }
  if (script.includes("Write-Output 'services ok'")) {
    for (const n of ["containerd", "kubelet"]) svc()[n] = { status: "Running", startType: "Automatic" };
    save();
    say("services ok\r\n");
    return finish(0);
  }
  if (script.includes("(Get-CimInstance -ClassName Win32_BIOS).SerialNumber")) {
    say((host.biosSerial || "To be filled by O.E.M.") + "\r\n");
    return finish(0);
  }
  if (script.includes("Write-Output 'proxy set'")) {
    const want =
      /^\$want = @\{ HTTP_PROXY = '([^']*)'; HTTPS_PROXY = '([^']*)'; NO_PROXY = '([^']*)' \}/m.exec(script) || [];
    host.proxy = { HTTP_PROXY: want[1] || "", HTTPS_PROXY: want[2] || "", NO_PROXY: want[3] || "" };
    for (const n of ["containerd", "kubelet"])
      if (svc()[n] && svc()[n].status === "Running") host.restartedForProxy = [...(host.restartedForProxy || []), n];
    save();
    say("proxy set\r\n");
    return finish(0);
  }
  if (script.includes("Write-Output 'reset'")) {
    host.joined = false;
    host.resets = (host.resets || 0) + 1;
    delete svc().kubelet;
    save();
    say("reset\r\n");
    return finish(0);
  }
  if (script.includes("Write-Output 'prepared'")) {
    if (!host.authorizedKeys.includes(key)) host.authorizedKeys.push(key);
    if (!script.includes("Set-Service -Name sshd -StartupType Automatic")) {
      complain("prepare no longer sets sshd to Automatic\n");
      return finish(3);
    }
    // The script restarts sshd only when its settings change, and says so.
    const restarted = host.pubkeyAuthentication !== "yes" || host.passwordAuthentication !== "no";
    Object.assign(host, {
      keyFileAclOk: true,
      pubkeyAuthentication: "yes",
      passwordAuthentication: "no",
      firewallPorts: [22, 10250, 9182],
      sshdStartType: "Automatic",
    });
    save();
    say(restarted ? "prepared, sshd restarted\r\n" : "prepared\r\n");
  } else if (script.includes("Write-Output ('retired ' +")) {
    // Retiring old WMCO keys: every authorized line whose key is listed in $retire goes; $key must stay.
    const retire = [...script.matchAll(/^\s*'((?:ssh|ecdsa)[^']*)',?$/gm)].map((m) => m[1]);
    if (!host.authorizedKeys.includes(key)) {
      complain("the key to keep is not authorized; nothing was removed\n");
      return finish(4);
    }
    const before = host.authorizedKeys.length;
    host.authorizedKeys = host.authorizedKeys.filter((k) => !retire.includes(k));
    save();
    say(`retired ${before - host.authorizedKeys.length}\r\n`);
  } else if (script.includes("169.254.169.254")) {
    // The AWS metadata route step: re-added when the simulated host lost it; the endpoint answers unless told not to.
    const added = host.metadataRouteMissing === true;
    host.metadataRouteMissing = false;
    host.routeChecks = (host.routeChecks || 0) + 1;
    save();
    const instanceId = host.metadataDown ? "" : "i-0123456789abcdef0";
    say(JSON.stringify({ routeAdded: added, gateway: "10.0.0.1", instanceId }) + "\r\n");
  } else if (script.includes("Write-Output 'patch task started'")) {
    // Windows Update in a SYSTEM task (providers/day2/patch-scripts.ts): the state's `availableUpdates` ([{ kb, title,
    // revision }]) install, raising the revision once the host restarts; `updateFailure` ({ resultCode, hResult }) makes
    // the install fail. The task finishes after `taskPolls` status reads (default 1: one read sees it Running).
    if (!script.includes("-UserId 'SYSTEM'") || !script.includes("-EncodedCommand ")) {
      complain("the patch task no longer runs the WUA script as SYSTEM\n");
      return finish(3);
    }
    const updates = host.availableUpdates || [];
    const fail = host.updateFailure;
    host.patchPolls = 0;
    host.patchTasks = (host.patchTasks || 0) + 1;
    host.patchResult = fail
      ? {
          resultCode: fail.resultCode,
          hResult: fail.hResult,
          rebootRequired: false,
          updates: updates.map((u) => ({
            title: u.title,
            kb: u.kb,
            resultCode: fail.resultCode,
            hResult: fail.hResult,
          })),
          error: "",
        }
      : {
          resultCode: 2,
          hResult: 0,
          rebootRequired: updates.length > 0,
          updates: updates.map((u) => ({ title: u.title, kb: u.kb, resultCode: 2, hResult: 0 })),
          error: "",
        };
    if (!fail && updates.length > 0) {
      host.pendingRevision = Math.max(...updates.map((u) => u.revision));
      host.availableUpdates = [];
    }
    save();
    say("patch task started\r\n");
  } else if (script.includes("Get-ScheduledTaskInfo -TaskName 'windows-estate-patch'")) {
    host.patchPolls = (host.patchPolls || 0) + 1;
    const done = host.patchPolls > (host.taskPolls ?? 1);
    save();
    say(
      "\uFEFF" +
        JSON.stringify({
          state: done ? "Ready" : "Running",
          lastTaskResult: done ? 0 : 267009,
          result: done ? host.patchResult : null,
          rebootPending: !!host.pendingRevision,
        }) +
        "\r\n",
    );
  } else if (script.includes("bootTime = $boot; rebootPending = [bool]$pending")) {
    // The inventory's SSH part (providers/day2/patch-scripts.ts hostStatusScript).
    say(
      "\uFEFF" +
        JSON.stringify({
          bootTime: host.bootTime || "2026-11-01T00:00:00.0000000Z",
          rebootPending: !!host.pendingRevision || !!host.rebootPending,
        }) +
        "\r\n",
    );
  } else if (script.includes("LastBootUpTime")) {
    say((host.bootTime || "2026-11-01T00:00:00.0000000Z") + "\r\n");
  } else if (script.includes("Restart-Computer -Force")) {
    // The reboot: a new boot time; with `neverReturns` the host goes away for good (its sshd listener is killed,
    // found by walking up from this process: shell, sshd session, sshd listener).
    host.bootTime = new Date().toISOString();
    if (host.rebootSeconds) host.upAt = Date.now() + host.rebootSeconds * 1000;
    if (host.containersFeature === "InstallPending") host.containersFeature = "Installed";
    // Installed updates take effect with the restart (the registry's UBR the kubelet reads rises then).
    if (host.pendingRevision) {
      host.revision = host.pendingRevision;
      delete host.pendingRevision;
    }
    save();
    if (host.neverReturns) {
      const parent = (pid) => Number(fs.readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ")[1]);
      let pid = process.ppid;
      const chain = [];
      for (let i = 0; i < 6 && pid > 1; i++) {
        chain.push(pid);
        pid = parent(pid);
      }
      const listener = chain.find((p) => fs.readFileSync(`/proc/${p}/cmdline`, "utf8").includes("sshd_config"));
      if (listener) process.kill(listener, "SIGKILL");
    }
    // Windows goes down: no answer follows, whichever way PowerShell was started.
    return { ...finish(0), reboot: true };
  } else if (script.includes("ConvertTo-Json -Compress")) {
    const { authorizedKeys, ...rest } = host;
    say("\uFEFF" + JSON.stringify({ ...rest, keyAuthorized: authorizedKeys.includes(key) }) + "\r\n");
  } else {
    complain("unexpected script\n");
    return finish(1);
  }
  return finish(0);
}

// Started with one script (`powershell -EncodedCommand <script>`): answer it and exit with its code. Started with the
// runner (providers/ssh/powershell-runner.ts): read one base64 (UTF-16LE) script per line from standard input and
// answer each with a frame, until an empty line or the end of input, exactly as the runner's PowerShell does.
const FRAME = "##windows-estate-runner:";
if (!launched.includes(FRAME)) {
  const r = handle(launched);
  process.stdout.write(r.stdout);
  process.stderr.write(r.stderr);
  process.exitCode = r.code;
} else {
  let buffered = "";
  process.stdin.on("data", (d) => {
    buffered += d.toString("utf8");
    const lines = buffered.split("\n");
    buffered = lines.pop();
    for (const line of lines.map((l) => l.replace(/\r$/, ""))) {
      if (line === "") process.exit(0);
      const r = handle(Buffer.from(line, "base64").toString("utf16le"));
      process.stderr.write(r.stderr);
      if (r.reboot) process.exit(0);
      const frame = {
        ok: r.code === 0,
        output: r.stdout,
        error: r.code === 0 ? "" : r.stderr || `exit code ${r.code}`,
      };
      process.stdout.write(FRAME + Buffer.from(JSON.stringify(frame), "utf8").toString("base64") + "\r\n");
    }
  });
  process.stdin.on("end", () => process.exit(0));
}
