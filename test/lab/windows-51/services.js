// The stand-in's rules for services and the files their processes run from (see index.js): recovery actions, the
// dependency graph PowerShell's service cmdlets walk, and running images that Windows will rename but not overwrite.
const fs = require("fs");
const path = require("path");
const { commandWords, functionBody, leaves } = require("./statements.js");

/** @type {{ id: string, area: string, rule: string, source: string, rows: number[] }[]} */
const RULES = [
  {
    id: "services.sc-failure",
    area: "services",
    rule: "`sc.exe failure <svc> reset= <s> actions= <type>/<ms>/...` sets the service's failure actions (restart, run, reboot, or none for an empty type) and the seconds without failure after which the count resets; a service created or reconfigured without it has none.",
    source:
      "learn.microsoft.com windows-server/administration/windows-commands/sc-failure; winsvc.h SERVICE_FAILURE_ACTIONS, SC_ACTION",
    rows: [7],
  },
  {
    id: "services.failure-count",
    area: "services",
    rule: "On the Nth failure the service controller performs action N-1, repeating the last action past the end of the list; the count returns to 0 after dwResetPeriod seconds without a failure. No actions: the service stays Stopped.",
    source: "learn.microsoft.com winsvc.h SERVICE_FAILURE_ACTIONSW, Remarks; [MS-SCMR] 2.2.40",
    rows: [7],
  },
  {
    id: "services.stop-is-not-failure",
    area: "services",
    rule: "A service has failed only when its process ends without reporting SERVICE_STOPPED; a stop through the service controller (Stop-Service, sc.exe stop) is no failure and triggers no action.",
    source: "learn.microsoft.com winsvc.h SERVICE_FAILURE_ACTIONSW (first paragraph); SERVICE_FAILURE_ACTIONS_FLAG",
    rows: [7],
  },
  {
    id: "services.containerd-recovery",
    area: "services",
    rule: "`containerd --register-service` creates its service Automatic with failure actions restart after 15 s, restart after 15 s, then none, the count reset after a day.",
    source:
      "containerd cmd/containerd/command/service_windows.go registerService (s.SetRecoveryActions; the same from v1.6 through main)",
    rows: [7],
  },
  {
    id: "services.stop-dependents",
    area: "services",
    rule: "Stop-Service (and Restart-Service) without -Force on a service with a dependent that is not Stopped writes ServiceHasDependentServices and stops nothing; with -Force the running dependents are stopped with it.",
    source:
      "PowerShell Microsoft.PowerShell.Commands.Management Service.cs ServiceOperationBaseCommand.DoStopService (ServiceController.Stop stops dependents); docs Stop-Service -Force",
    rows: [7],
  },
  {
    id: "services.image-locked",
    area: "services",
    rule: "The file of a running executable is mapped as an image section: opening it for writing fails with a sharing violation and deleting it fails with access denied, whatever share mode anyone asked for.",
    source:
      "learn.microsoft.com windows-hardware/drivers/ifs/executable-images (MmFlushImageSection: STATUS_SHARING_VIOLATION, STATUS_CANNOT_DELETE)",
    rows: [9],
  },
  {
    id: "services.image-rename",
    area: "services",
    rule: "Renaming a running executable within its volume succeeds; the process runs on, and the renamed file can be deleted once it ends.",
    source:
      "restic internal/selfupdate/download_windows.go removeResticBinary (renames its own running binary aside, then writes the new one in its place)",
    rows: [9],
  },
  {
    id: "services.tar-over-image",
    area: "services",
    rule: "tar.exe (libarchive's bsdtar) writing over an existing file first unlinks it; when that fails it reports \"Can't unlink already-existing object\" for the entry, extracts the rest and exits 1.",
    source:
      'libarchive libarchive/archive_write_disk_windows.c restore_entry (CREATE_NEW, EEXIST, disk_unlink); tar/read.c read_archive (the entry\'s error, return_value = 1), tar/bsdtar.c main ("Error exit delayed from previous errors")',
    rows: [9],
  },
];

// ---- service recovery and dependencies --------------------------------------------------------------------------
// A host's services: `host.services[name]` is what Get-Service reports (status, startType), `host.scm[name]` what the
// service controller keeps beside it: `dependsOn`, `recovery` ({ resetSeconds, actions: [{ type, delayMs }] }) and
// the failure count.

/** containerd's own failure actions (services.containerd-recovery). */
const CONTAINERD_RECOVERY = Object.freeze({
  resetSeconds: 86400,
  actions: [
    { type: "restart", delayMs: 15000 },
    { type: "restart", delayMs: 15000 },
    { type: "none", delayMs: 0 },
  ],
});

const ACTION_TYPES = { restart: "restart", run: "run", reboot: "reboot", "": "none" };

/**
 * The failure actions `sc.exe failure <name> …` sets from its arguments (the words after the service name), or an
 * Error in sc.exe's terms (services.sc-failure). `reset=` and `actions=` go together.
 */
function scFailure(args) {
  const opt = {};
  for (let k = 0; k < args.length; k += 2) {
    if (!/^[a-z]+=$/.test(args[k]) || k + 1 >= args.length)
      return new Error(`sc.exe failure: expected "<option>= <value>" at "${args[k]}"`);
    opt[args[k].slice(0, -1)] = args[k + 1];
  }
  if (opt.reset === undefined || opt.actions === undefined)
    return new Error("sc.exe failure: reset= and actions= must be given together");
  const resetSeconds = opt.reset.toUpperCase() === "INFINITE" ? Infinity : Number(opt.reset);
  if (!Number.isInteger(resetSeconds) && resetSeconds !== Infinity)
    return new Error(`sc.exe failure: reset= ${opt.reset} is not a number of seconds`);
  const words = opt.actions === '""' ? [] : opt.actions.split("/");
  if (words.length % 2 !== 0) return new Error(`sc.exe failure: actions= ${opt.actions} is not <action>/<delay> pairs`);
  const actions = [];
  for (let k = 0; k < words.length; k += 2) {
    const type = ACTION_TYPES[words[k].toLowerCase()];
    const delayMs = Number(words[k + 1]);
    if (!type || !Number.isInteger(delayMs))
      return new Error(`sc.exe failure: "${words[k]}/${words[k + 1]}" is not an action and a delay in ms`);
    actions.push({ type, delayMs });
  }
  return { resetSeconds, actions };
}

/**
 * The failure actions a script sets for `name` with its `sc.exe failure` line (its words as sc.exe gets them, the
 * `| Out-Null` aside), undefined when it has no such line, or an Error.
 */
function scFailureInScript(script, name) {
  const st = leaves(script).find((l) => l.startsWith(`sc.exe failure ${name} `));
  return st === undefined ? undefined : scFailure(commandWords(st).slice(3));
}

/**
 * The service controller's record of `name` after a script that registers it with `sc.exe create|config` (its
 * `depend=` list) and `sc.exe failure`: created afresh it has no failure actions unless the script sets them; a
 * `config` keeps the ones it had. Returns the record, or an Error for `sc.exe failure` arguments sc.exe refuses.
 */
function registerFromScript(host, name, script) {
  const scm = (host.scm ||= {});
  const registers = leaves(script)
    .map(commandWords)
    .filter((w) => w[0] === "sc.exe" && ["create", "config"].includes(w[1]) && w[2] === name);
  const created = registers.some((w) => w[1] === "create") && !(host.services || {})[name];
  const rec = { ...(scm[name] || {}) };
  if (created) for (const k of ["dependsOn", "recovery", "failures", "lastFailureAt"]) delete rec[k];
  const depend = registers.map((w) => (w.includes("depend=") ? w[w.indexOf("depend=") + 1] : undefined)).find(Boolean);
  if (depend) rec.dependsOn = depend.split("/").filter(Boolean);
  const recovery = scFailureInScript(script, name);
  if (recovery instanceof Error) return recovery;
  if (recovery) rec.recovery = recovery;
  scm[name] = rec;
  return rec;
}

/** containerd registering itself (`--register-service`): no dependencies, its own failure actions. */
function registerContainerd(host) {
  (host.scm ||= {}).containerd = { recovery: CONTAINERD_RECOVERY };
}

/** The registered services whose dependencies name `name` (ServiceController.DependentServices). */
const dependentsOf = (host, name) =>
  Object.keys(host.services || {}).filter((n) =>
    ((host.scm || {})[n]?.dependsOn || []).some((d) => d.toLowerCase() === name.toLowerCase()),
  );

/**
 * The service controller seeing `name`'s process end without SERVICE_STOPPED (a crash) at `now` (ms): the failure is
 * counted (services.failure-count) and its action applied; the stand-in does not wait out the delay. A service with
 * no actions, or whose action is `none`, stays Stopped. Returns the action taken (`restart`, `none`, …).
 */
function crash(host, name, now) {
  const s = (host.services || {})[name];
  if (!s || s.status !== "Running") throw new Error(`service ${name} is not running`);
  const rec = ((host.scm ||= {})[name] ||= {});
  const r = rec.recovery;
  const stale = r && rec.lastFailureAt !== undefined && (now - rec.lastFailureAt) / 1000 >= r.resetSeconds;
  rec.failures = (stale ? 0 : rec.failures || 0) + 1;
  rec.lastFailureAt = now;
  const action = r && r.actions.length > 0 ? r.actions[Math.min(rec.failures, r.actions.length) - 1] : undefined;
  s.status = action && action.type === "restart" ? "Running" : "Stopped";
  return action ? action.type : "none";
}

/**
 * Stop-Service (services.stop-dependents): stops `name` and, with `force`, its running dependents first; without it a
 * dependent that is not Stopped refuses the stop. A deliberate stop is no failure (services.stop-is-not-failure):
 * nothing is counted. Returns the services stopped, dependents first, or an Error in PowerShell's words.
 */
function stopService(host, name, force) {
  const s = (host.services || {})[name];
  if (!s) return new Error(`Cannot find any service with service name '${name}'.`);
  const running = dependentsOf(host, name).filter((d) => host.services[d].status !== "Stopped");
  if (running.length > 0 && !force)
    return new Error(
      `Cannot stop service '${name} (${name})' because it has dependent services. It can only be stopped if the Force flag is set.`,
    );
  const stopped = [];
  for (const d of running) {
    const more = stopService(host, d, true);
    if (more instanceof Error) return more;
    stopped.push(...more);
  }
  if (s.status !== "Stopped") {
    s.status = "Stopped";
    stopped.push(name);
  }
  return stopped;
}

// ---- running images ---------------------------------------------------------------------------------------------

const same = (a, b) => a.replace(/\//g, "\\").toLowerCase() === b.replace(/\//g, "\\").toLowerCase();
/** Whether `winPath` is the file of a running process (`runningImages`, NTFS names compare without case). */
const imageRunning = (runningImages, winPath) => (runningImages || []).some((p) => same(p, winPath));

/**
 * Why Windows refuses `op` ("write", "delete", "rename") on `winPath`, or undefined (services.image-locked,
 * services.image-rename). Messages as .NET and PowerShell word them.
 */
function imageProblem(runningImages, winPath, op) {
  if (!imageRunning(runningImages, winPath) || op === "rename") return undefined;
  return op === "write"
    ? `The process cannot access the file '${winPath}' because it is being used by another process.`
    : `Access to the path '${winPath}' is denied.`;
}

/** A rename of a running image: the process runs on from the file under its new name. */
function renameImage(runningImages, from, to) {
  return (runningImages || []).map((p) => (same(p, from) ? to : p));
}

/**
 * Windows path → the file under the host's drive folder, and the files an archive extracted to `dir` holds
 * (relative, `\`-separated).
 */
function filesUnder(dir) {
  const out = [];
  const walk = (d, rel) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const r = rel ? `${rel}\\${e.name}` : e.name;
      if (e.isDirectory()) walk(path.join(d, e.name), r);
      else out.push(r);
    }
  };
  walk(dir, "");
  return out.sort();
}

/**
 * tar.exe extracting the files of `extracted` (a directory holding the archive's entries) straight over `target`
 * (services.tar-over-image): an entry whose existing file is a running image is refused, the others replace theirs.
 * Returns bsdtar's error lines (none when it succeeded).
 */
function tarOver(extracted, target, host, hostFile) {
  const errors = [];
  for (const rel of filesUnder(extracted)) {
    const win = `${target}\\${rel}`;
    const dest = hostFile(win);
    if (fs.existsSync(dest) && imageRunning(host.runningImages, win)) {
      errors.push(`${rel.replace(/\\/g, "/")}: Can't unlink already-existing object: Permission denied`);
      continue;
    }
    fs.mkdirSync(path.dirname(dest), { recursive: true });
    fs.copyFileSync(path.join(extracted, ...rel.split("\\")), dest);
  }
  if (errors.length > 0) errors.push("tar.exe: Error exit delayed from previous errors");
  return errors;
}

/**
 * What the install script's `Move-IntoPlace` function (providers/vanilla-node/scripts.ts installScript) does, read
 * from its body line by line, or undefined when the script has no such function:
 * - `setsAside`: `$old = $dest + '.windows-estate-old'` and `Move-Item -LiteralPath $dest -Destination $old` come
 *   before the move of `$src` to `$dest` (a rename, allowed for a running image: services.image-rename);
 * - `clearsOld`: a `Remove-Item -LiteralPath $old` before that rename (an older set-aside file deleted first);
 * - `unique`: a GUID name taken when that older file is still there;
 * - `force`: the move of `$src` to `$dest` has `-Force` (Move-Item then deletes the file in place first);
 * - `removesOld`: a `Remove-Item -LiteralPath $old` after that move.
 */
function moveIntoPlaceOf(script) {
  const body = functionBody(script, "Move-IntoPlace");
  if (body === undefined) return undefined;
  // Its commands and assignments in the order they run, blocks opened (statements.js).
  const steps = leaves(body);
  const at = (re) => steps.findIndex((l) => re.test(l));
  const last = (re) => steps.length - 1 - [...steps].reverse().findIndex((l) => re.test(l));
  const named = at(/^\$old = \$dest \+ '\.windows-estate-old'$/);
  const aside = at(/^Move-Item -LiteralPath \$dest -Destination \$old\b/);
  const place = at(/^Move-Item -LiteralPath \$src -Destination \$dest\b/);
  if (place < 0) return new Error("the stand-in finds no move of $src to $dest in Move-IntoPlace");
  const setsAside = named >= 0 && aside > named && aside < place;
  const removeOld = /^Remove-Item -LiteralPath \$old\b/;
  return {
    setsAside,
    clearsOld: setsAside && at(removeOld) >= 0 && at(removeOld) < aside,
    unique: setsAside && at(/^\$old = \$dest \+ '\.windows-estate-old-' \+ \[guid\]/) >= 0,
    force: commandWords(steps[place]).includes("-Force"),
    removesOld: setsAside && at(removeOld) >= 0 && last(removeOld) > place,
  };
}

/**
 * Places new files as `how` (moveIntoPlaceOf) says: each `{ from, to }` (`from` a file on the lab machine, `to` a
 * Windows path) moved to `to`. A file in place is renamed aside when the script does so (a running image too:
 * services.image-rename); otherwise Move-Item without -Force refuses an existing destination, and with -Force it
 * deletes it first, which Windows refuses for a running image (services.image-locked). Returns an Error in .NET's and
 * the script's words at the first refusal (the files before it are placed), else undefined.
 */
function placeFiles(files, how, host, hostFile) {
  for (const { from, to } of files) {
    const dest = hostFile(to);
    let old;
    if (fs.existsSync(dest) && how.setsAside) {
      old = `${to}.windows-estate-old`;
      if (how.clearsOld && fs.existsSync(hostFile(old)) && !imageRunning(host.runningImages, old))
        fs.rmSync(hostFile(old));
      if (fs.existsSync(hostFile(old))) {
        if (!how.unique) return new Error(`Cannot create a file when that file already exists.`);
        old = `${to}.windows-estate-old-${Date.now().toString(16)}`;
      }
      fs.renameSync(dest, hostFile(old));
      host.runningImages = renameImage(host.runningImages, to, old);
    }
    if (fs.existsSync(dest)) {
      if (!how.force) return new Error(`Cannot create a file when that file already exists.`);
      const refused = imageProblem(host.runningImages, to, "delete");
      if (refused) return new Error(refused);
    }
    fs.mkdirSync(path.dirname(dest), { recursive: true });
    fs.copyFileSync(from, dest);
    if (old !== undefined && how.removesOld && !imageRunning(host.runningImages, old))
      fs.rmSync(hostFile(old), { force: true });
  }
  return undefined;
}

/**
 * The script's clean-up of files set aside by an earlier run: under a `tgz` target's folder, or beside a `file`
 * target; one a process still runs from cannot be deleted (services.image-locked) and stays for a later run.
 */
function removeSetAside(target, kind, host, hostFile) {
  const dir = kind === "tgz" ? target : target.replace(/\\[^\\]*$/, "");
  if (!fs.existsSync(hostFile(dir))) return;
  const candidates =
    kind === "tgz"
      ? filesUnder(hostFile(dir)).map((rel) => `${dir}\\${rel}`)
      : fs.readdirSync(hostFile(dir)).map((n) => `${dir}\\${n}`);
  const setAside = (p) =>
    kind === "tgz"
      ? /\.windows-estate-old(-[0-9a-f]+)?$/.test(p)
      : p.toLowerCase().startsWith(`${target}.windows-estate-old`.toLowerCase());
  for (const win of candidates)
    if (setAside(win) && !imageRunning(host.runningImages, win)) fs.rmSync(hostFile(win), { force: true });
}

module.exports = {
  RULES,
  scFailure,
  registerFromScript,
  registerContainerd,
  dependentsOf,
  crash,
  stopService,
  filesUnder,
  tarOver,
  moveIntoPlaceOf,
  placeFiles,
  removeSetAside,
};
