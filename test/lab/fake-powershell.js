#!/usr/bin/env node
// A simulated Windows host for the WindowsHost provider's plumbing tests: decodes `-EncodedCommand` exactly as
// PowerShell does (base64 of UTF-16LE), logs the script, and answers the provider's probe and prepare scripts
// from a JSON state file. It proves transport, encoding, parsing and decisions; the scripts themselves are proven
// by the tree-sitter parse tests, and only a real Windows host proves their effect.
// For vanilla nodes it refuses what the real pieces refuse: a join file kubeadm's validation rejects (endpoint, CA
// pin, token, name), a kubelet command line the kubelet will not start with; downloads from a loopback mirror are
// fetched and checked as the install script checks them, and a join to a loopback API server is made there for real
// (fake-windows-network.js, loaded beside it). What it still cannot see is in docs/testing.md.
const fs = require("fs");
const path = require("path");
// Windows PowerShell 5.1's rules where they bite, as data with their sources (windows-51/index.js).
const win = require(path.join(__dirname, "windows-51"));
const state = process.env.FAKE_WINDOWS_STATE || path.join(__dirname, "state.json");
// cmd.exe, Win32-OpenSSH's default shell, is given the exec request's command line (here: this program's argv, the
// request has no quoting) and refuses a line past its limit without starting PowerShell (transport.cmd-line-limit).
// Only under sshd (which sets SSH_CONNECTION): a test that starts the stand-in itself has no cmd.exe in between.
const cmdRefuses =
  process.env.SSH_CONNECTION !== undefined &&
  win.execCommandLineProblem(["powershell", ...process.argv.slice(2)].join(" "));
if (cmdRefuses) {
  fs.appendFileSync(state + ".transport.log", "refused by cmd.exe: the command line is too long\n");
  process.stderr.write(cmdRefuses + "\r\n");
  process.exit(1);
}
const i = process.argv.indexOf("-EncodedCommand");
if (i < 0) {
  process.stderr.write("only -EncodedCommand is supported\n");
  process.exit(2);
}
const launched = Buffer.from(process.argv[i + 1], "base64").toString("utf16le");
// Every start of this program is one PowerShell launch: counted in the log, which the round-trip tests read.
fs.appendFileSync(state + ".log", "#launch\n");

// Every script is read through the stand-in's one statement reader (windows-51/statements.js): its statements in
// order, blocks opened, and the values and messages the script builds.
const ps = win.reader;
const unquote = ps.unquote;

/** The key-file scripts' own words when icacls cannot restrict the new file (their `icacls could not` throw). */
const icaclsRefused = (script) =>
  ps.thrown(script, "icacls could not restrict", { LASTEXITCODE: 5 }) || "the stand-in: no icacls check in the script";

/** The install script's own words for a checksum mismatch (its `checksum mismatch` throw), with `vars`. */
const mismatch = (script, vars) =>
  ps.thrown(script, "checksum mismatch", vars) ||
  `${vars["it.name"]}: checksum mismatch, published ${vars.published}, downloaded ${vars.actual}; nothing was replaced`;
/** The values of a script's `$name = '…'` and `$name = @('…', …)` assignments. */
const psString = (script, name) => ps.assigned(script, name, {}, (v) => typeof v === "string");
const psArray = (script, name) => ps.assigned(script, name, {}, Array.isArray);

/**
 * Where a Windows path of this host lives on the lab machine. A host with a `driveRoot` (test/lab/lab-windows.ts,
 * `drives`) has its drives under it, the same place its SFTP server writes `/C:/…` (test/lab/sftp-drive.js); other
 * paths (the POSIX paths of the tests that use them) are used as they are.
 */
function hostFile(host, p) {
  const m = /^([A-Za-z]):[\\/](.*)$/.exec(p);
  if (!m || !host.driveRoot) return p;
  return path.join(host.driveRoot, `${m[1]}:`, ...m[2].split(/[\\/]/).filter(Boolean));
}

/**
 * A small YAML reader for what the program and the lab write with the `yaml` package (block mappings and sequences,
 * plain and quoted scalars, `[]`/`{}`): the JoinConfiguration and cluster-info's kubeconfig. Kept here because the
 * stand-in has no npm dependencies (it runs as the hosts' `powershell` from a folder of its own).
 */
function parseYaml(text) {
  const lines = text
    .split(/\r?\n/)
    .map((raw) => ({ raw: raw.trimEnd(), indent: raw.search(/\S/), text: raw.trim() }))
    .filter((l) => l.indent >= 0 && !l.text.startsWith("#") && l.text !== "---");
  let i = 0;
  const isItem = (t) => t === "-" || t.startsWith("- ");
  const looksLikeKey = (t) => /^("(?:[^"\\]|\\.)*"|'(?:[^']|'')*'|[^"'\[{#][^:]*?):(\s|$)/.test(t);
  const scalar = (v) => {
    const s = v.trim();
    if (s === "" || s === "null" || s === "~") return null;
    if (s === "[]") return [];
    if (s === "{}") return {};
    if (s.startsWith('"')) return JSON.parse(s);
    if (s.startsWith("'")) return unquote(s);
    if (s === "true" || s === "false") return s === "true";
    return s;
  };
  const block = () => (i >= lines.length ? null : isItem(lines[i].text) ? seq(lines[i].indent) : map(lines[i].indent));
  function map(indent) {
    const out = {};
    while (i < lines.length && lines[i].indent === indent && !isItem(lines[i].text)) {
      const m = /^("(?:[^"\\]|\\.)*"|'(?:[^']|'')*'|[^"'][^:]*?):(?:\s+(.*))?$/.exec(lines[i].text);
      if (!m) throw new Error(`unreadable YAML line: ${lines[i].text}`);
      const key = scalar(m[1]);
      i++;
      if (m[2] !== undefined && m[2] !== "") {
        let v = m[2];
        // A long plain scalar folded onto more-indented lines.
        while (i < lines.length && lines[i].indent > indent && !looksLikeKey(lines[i].text) && !isItem(lines[i].text))
          v += " " + lines[i++].text;
        out[key] = scalar(v);
      } else if (
        i < lines.length &&
        (lines[i].indent > indent || (lines[i].indent === indent && isItem(lines[i].text)))
      )
        out[key] = block();
      else out[key] = null;
    }
    return out;
  }
  function seq(indent) {
    const out = [];
    while (i < lines.length && lines[i].indent === indent && isItem(lines[i].text)) {
      const rest = lines[i].text.slice(1).trimStart();
      if (rest === "") {
        i++;
        out.push(block());
      } else if (looksLikeKey(rest)) {
        // A mapping whose first key follows the dash: read that line again as the mapping's first line.
        const column = lines[i].raw.length - rest.length;
        lines[i] = { raw: lines[i].raw, indent: column, text: rest };
        out.push(map(column));
      } else {
        out.push(scalar(rest));
        i++;
      }
    }
    return out;
  }
  return block();
}

const dig = (o, ...keys) => keys.reduce((v, k) => (v && typeof v === "object" ? v[k] : undefined), o);

// ---- kubeadm's checks of a JoinConfiguration that need no cluster, in kubeadm's words ----------------------------
// (cmd/kubeadm/app/apis/kubeadm/validation/validation.go ValidateDiscovery, ValidateDiscoveryBootstrapToken,
// ValidateToken, ValidateDiscoveryTokenAPIServer; cmd/kubeadm/app/util/pubkeypin/pubkeypin.go Allow). A token is never
// quoted back: kubeadm prints it, the stand-in says "<hidden>" (its messages reach the CLI's output).
const TOKEN = /^([a-z0-9]{6})\.([a-z0-9]{16})$/;

/** net.SplitHostPort's refusals for `host:port` (Go net/ipsock.go), or undefined when it splits. */
function splitHostPortProblem(a) {
  if (a.startsWith("[")) {
    const end = a.indexOf("]");
    if (end < 0) return `address ${a}: missing ']' in address`;
    if (end + 1 === a.length) return `address ${a}: missing port in address`;
    if (a[end + 1] !== ":") return `address ${a}: missing port in address`;
    return undefined;
  }
  const colons = a.split(":").length - 1;
  if (colons === 0) return `address ${a}: missing port in address`;
  if (colons > 1) return `address ${a}: too many colons in address`;
  return undefined;
}

/** pubkeypin.Set.Allow: `sha256:<64 hex>` each, else its error. */
function pinProblem(pins) {
  for (const pin of pins) {
    const parts = String(pin).split(":");
    if (parts.length !== 2) return 'invalid hash, expected "format:hex-value". Known format(s) are: sha256';
    if (parts[0].toLowerCase() !== "sha256") return `unknown hash format "${parts[0]}". Known format(s) are: sha256`;
    if (parts[1].length !== 64)
      return `invalid hash "${pin}", expected a 32 byte SHA-256 hash, found ${Math.floor(parts[1].length / 2)} bytes`;
    if (!/^[0-9a-fA-F]{64}$/.test(parts[1])) return `invalid hash "${pin}", could not decode SHA-256 from hex`;
  }
  return undefined;
}

/**
 * The join file read as kubeadm reads it: its discovery and node registration, and the field errors of kubeadm's
 * validation.
 */
function readJoinFile(text) {
  const doc = parseYaml(text) || {};
  const bt = dig(doc, "discovery", "bootstrapToken");
  const nr = doc.nodeRegistration || {};
  const extra = Array.isArray(nr.kubeletExtraArgs)
    ? nr.kubeletExtraArgs.map((a) => ({ name: String(a.name), value: String(a.value ?? "") }))
    : Object.entries(nr.kubeletExtraArgs || {}).map(([name, value]) => ({ name, value: String(value) }));
  const join = {
    apiVersion: doc.apiVersion,
    kind: doc.kind,
    token: bt && bt.token != null ? String(bt.token) : "",
    tlsBootstrapToken: doc.discovery && doc.discovery.tlsBootstrapToken ? String(doc.discovery.tlsBootstrapToken) : "",
    endpoint: bt && bt.apiServerEndpoint != null ? String(bt.apiServerEndpoint) : "",
    pins: bt && Array.isArray(bt.caCertHashes) ? bt.caCertHashes.map((h) => (h == null ? "" : String(h))) : [],
    unsafeSkipCAVerification: !!(bt && bt.unsafeSkipCAVerification === true),
    name: nr.name == null ? undefined : String(nr.name),
    taints: Array.isArray(nr.taints)
      ? nr.taints.map((t) => ({
          key: String(t.key),
          value: t.value == null ? "" : String(t.value),
          effect: String(t.effect),
        }))
      : undefined,
    kubeletExtraArgs: extra,
  };
  // v1beta4 SetDefaults_Discovery: the TLS bootstrap token defaults to the discovery token.
  if (!join.tlsBootstrapToken) join.tlsBootstrapToken = join.token;
  const errors = [];
  if (!/^kubeadm\.k8s\.io\/v1beta[34]$/.test(doc.apiVersion || "") || doc.kind !== "JoinConfiguration")
    errors.push(
      `the file is not a kubeadm.k8s.io/v1beta4 JoinConfiguration (apiVersion "${doc.apiVersion}", kind "${doc.kind}")`,
    );
  // ValidateNodeRegistrationOptions, after kubeadm's defaulting (rule names.kubeadm-node-name).
  const nameProblem = join.name === undefined ? undefined : win.kubeadmNodeNameProblem(join.name);
  if (nameProblem) errors.push(nameProblem);
  if (!doc.discovery || (!bt && !doc.discovery.file))
    errors.push('discovery: Invalid value: "": bootstrapToken or file must be set');
  if (join.endpoint === "") errors.push("discovery.bootstrapToken: Required value: APIServerEndpoint is not set");
  if (join.pins.length === 0 && !join.unsafeSkipCAVerification)
    errors.push(
      'discovery.bootstrapToken.caCertHashes: Invalid value: "": using token-based discovery without caCertHashes can be unsafe. Set unsafeSkipCAVerification as true in your kubeadm config file or pass --discovery-token-unsafe-skip-ca-verification flag to continue',
    );
  if (!TOKEN.test(join.token))
    errors.push('discovery.bootstrapToken.token: Invalid value: "<hidden>": the bootstrap token is invalid');
  if (join.endpoint !== "") {
    const p = splitHostPortProblem(join.endpoint);
    if (p) errors.push(`discovery.bootstrapToken.apiServerEndpoint: Invalid value: "${join.endpoint}": ${p}`);
  }
  if (!TOKEN.test(join.tlsBootstrapToken))
    errors.push('discovery.tlsBootstrapToken: Invalid value: "<hidden>": the bootstrap token is invalid');
  return { join, errors };
}

// ---- the kubelet as its service's command line makes it ----------------------------------------------------------

/**
 * The kubelet's command line as the service script sets it (providers/vanilla-node/scripts.ts
 * kubeletCommandLineLines): the script's `$flags`, plus kubeadm-flags.env's flags when the script merges that file
 * (each flag the list does not have and the `$removed` list does not name), as its PowerShell does. Undefined when
 * the script sets no `$flags`.
 */
function commandLineOf(script, host) {
  const flags = psArray(script, "flags");
  if (!flags) return undefined;
  const removed = psArray(script, "removed") || [];
  const envFile = psString(script, "envFile");
  // Merged only by a script that reads the file (`if (Test-Path -LiteralPath $envFile) { … }`).
  const merges =
    envFile && ps.statements(script).some((st) => ps.block(st, "if")?.cond === "Test-Path -LiteralPath $envFile");
  const envText = merges ? readHostText(host, envFile) : undefined;
  return envText !== undefined ? win.mergeKubeadmFlags(flags, removed, envText) : flags;
}

/**
 * The script's `sc.exe create|config kubelet binPath= $bin …` line run as Windows PowerShell 5.1 runs it
 * (windows-51/native.js): `$bin` (the script's prefix + `$flags -join ' '`) and the other words become one command
 * line with 5.1's legacy quoting, sc.exe splits it with its C runtime's rules and keeps binPath='s value as the
 * service's ImagePath, or refuses (exit 1639) and changes nothing. `exists`: the script's Get-Service found the service
 * (config), else it creates it. Undefined when the script has no such line.
 */
function scKubelet(script, flags, exists) {
  const bin = ps.assigned(script, "bin", { flags }, (v) => typeof v === "string");
  const lines = ps
    .leaves(script)
    .map(ps.commandWords)
    .filter(
      (w) =>
        w[0] === "sc.exe" &&
        /^(create|config)$/.test(w[1]) &&
        w[2] === "kubelet" &&
        w[3] === "binPath=" &&
        w[4] === "$bin",
    );
  const line = lines.find((w) => w[1] === (exists ? "config" : "create")) || lines[0];
  if (bin === undefined || !line) return undefined;
  const args = line.slice(1).map((a) => (a === "$bin" ? bin : a));
  const commandLine = win.legacyCommandLine("C:\\Windows\\system32\\sc.exe", args);
  const imagePath = win.scImagePath(win.crtParse(commandLine));
  return imagePath instanceof Error ? { commandLine, error: imagePath } : { commandLine, imagePath };
}

/**
 * Keeps the kubelet service's ImagePath in its service controller record (`scm.kubelet.imagePath`); the kubelet
 * starts from it: the service manager passes it as the command line, split as Go splits it (kube-log-runner and the
 * kubelet are Go programs), and the kubelet's flags are what follows kubelet.exe.
 */
function setKubeletImagePath(host, imagePath) {
  ((host.scm ||= {}).kubelet ||= {}).imagePath = imagePath;
  const argv = win.crtParse(imagePath, { go: true });
  const k = argv.findIndex((a) => /(^|\\)kubelet\.exe$/i.test(a));
  host.kubeletFlags = k < 0 ? [] : argv.slice(k + 1);
}

/** A file on the host: from its drive folder when it has one, else from the state's `files` (path → text). */
function readHostText(host, p) {
  if (host.driveRoot) {
    const f = hostFile(host, p);
    return fs.existsSync(f) ? fs.readFileSync(f, "utf8") : undefined;
  }
  return (host.files || {})[p];
}
function writeHostText(host, p, text) {
  if (host.driveRoot) {
    const f = hostFile(host, p);
    fs.mkdirSync(path.dirname(f), { recursive: true });
    fs.writeFileSync(f, text);
  } else (host.files ||= {})[p] = text;
}

const flagValue = (flags, name) => {
  const f = [...flags].reverse().find((x) => x === name || x.startsWith(name + "="));
  return f === undefined ? undefined : f.slice(name.length + 1);
};

/**
 * What the kubelet makes of its command line at start, or why it does not start. Its name: --hostname-override, else
 * the hostname in lower case (k8s.io/component-helpers node/util GetHostname); its InternalIP from --node-ip; labels
 * from --node-labels, refused in
 * the namespaces it reserves (cmd/kubelet/app/options/options.go ValidateKubeletFlags; the allowed keys are
 * k8s.io/kubelet pkg/apis well_known_labels.go `kubeletLabels`, `kubeletLabelNamespaces`); taints from
 * --register-with-taints (pkg/util/taints ParseTaints); a flag the kubelet no longer has stops it ("unknown flag").
 */
const KUBELET_LABELS = [
  "kubernetes.io/hostname",
  "kubernetes.io/instance-type",
  "kubernetes.io/os",
  "kubernetes.io/arch",
  "beta.kubernetes.io/instance-type",
  "beta.kubernetes.io/os",
  "beta.kubernetes.io/arch",
  "failure-domain.beta.kubernetes.io/zone",
  "failure-domain.beta.kubernetes.io/region",
  "topology.kubernetes.io/zone",
  "topology.kubernetes.io/region",
  "node.kubernetes.io/instance-type",
];
const KUBELET_LABEL_NAMESPACES = ["kubelet.kubernetes.io", "node.kubernetes.io"];
/** Flags kubelets no longer have (each one's removal: facts/kubernetes.ts REMOVED_KUBELET_FLAGS cites it). */
const GONE_KUBELET_FLAGS = [
  "--network-plugin",
  "--image-pull-progress-deadline",
  "--log-dir",
  "--logtostderr",
  "--container-runtime",
  "--pod-infra-container-image",
];
function kubeletStart(flags, hostname) {
  for (const f of flags) {
    const n = f.split("=")[0];
    if (GONE_KUBELET_FLAGS.includes(n)) return { error: `unknown flag: ${n}` };
  }
  // pkg/kubelet/apis/config/validation/validation.go ValidateKubeletConfiguration: no enforcement without QoS
  // cgroups, which Windows has not (--cgroups-per-qos=false); pflag reads an empty value as an empty list
  // (spf13/pflag string_slice.go readAsCSV), any other value (a quote, a space) as a list of one or more.
  const enforce = flagValue(flags, "--enforce-node-allocatable");
  if (enforce !== undefined && enforce !== "" && flagValue(flags, "--cgroups-per-qos") === "false")
    return {
      error:
        "invalid configuration: enforceNodeAllocatable (--enforce-node-allocatable) is not supported unless cgroupsPerQOS (--cgroups-per-qos) is set to true",
    };
  // Its host name is the DNS host name, lower-cased like an override (rule names.kubelet-node-name).
  const name = win.kubeletNodeName(flagValue(flags, "--hostname-override"), hostname);
  const labels = {};
  for (const kv of (flagValue(flags, "--node-labels") || "").split(",").filter(Boolean)) {
    const [k, v = ""] = kv.split("=");
    labels[k] = v;
  }
  const within = (ns, d) => ns === d || ns.endsWith("." + d);
  const unknown = Object.keys(labels).filter((k) => {
    const slash = k.indexOf("/");
    if (slash < 0) return false;
    const ns = k.slice(0, slash);
    if (!within(ns, "kubernetes.io") && !within(ns, "k8s.io")) return false;
    return !KUBELET_LABELS.includes(k) && !KUBELET_LABEL_NAMESPACES.some((d) => within(ns, d));
  });
  if (unknown.length > 0)
    return {
      error: `unknown 'kubernetes.io' or 'k8s.io' labels specified with --node-labels: [${unknown.sort().join(" ")}]`,
    };
  const taints = [];
  for (const spec of (flagValue(flags, "--register-with-taints") || "").split(",").filter(Boolean)) {
    const m = /^([^=:]+)(?:=([^:]*))?:(NoSchedule|PreferNoSchedule|NoExecute)$/.exec(spec);
    if (!m) return { error: `invalid taint spec: ${spec}` };
    taints.push({ key: m[1], ...(m[2] ? { value: m[2] } : {}), effect: m[3] });
  }
  return { name, labels, taints, nodeIp: flagValue(flags, "--node-ip") };
}

/**
 * kubeadm-flags.env as `kubeadm join` writes it (cmd/kubeadm/app/phases/kubelet/flags.go buildKubeletArgsCommon,
 * WriteKubeletArgsToFile; kubeadm v1.36: the CRI socket goes to the instance config instead, NodeLocalCRISocket being
 * GA): --register-with-taints when taints are set, --hostname-override when the Node's name is not the hostname,
 * sorted, then kubeletExtraArgs replacing any of the same name (cmd/kubeadm/app/util/arguments.go ArgumentsToCommand).
 * A taint prints as `key=value:effect`, `key:effect` without a value (k8s.io/api core/v1 taint.go ToString).
 */
function kubeadmFlagsEnv(join, nodeName, hostname) {
  const base = [];
  if (join.taints && join.taints.length > 0)
    base.push({
      name: "register-with-taints",
      value: join.taints.map((t) => (t.value ? `${t.key}=${t.value}:${t.effect}` : `${t.key}:${t.effect}`)).join(","),
    });
  if (nodeName !== win.kubeletDefaultNodeName(hostname)) base.push({ name: "hostname-override", value: nodeName });
  base.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const overridden = new Set(join.kubeletExtraArgs.map((a) => a.name));
  const args = [...base.filter((a) => !overridden.has(a.name)), ...join.kubeletExtraArgs].map(
    (a) => `--${a.name}=${a.value}`,
  );
  // Go's %q, which JSON.stringify matches for these ASCII flags.
  return `KUBELET_KUBEADM_ARGS=${JSON.stringify(args.join(" "))}\n`;
}

/**
 * The Node's name kubeadm joins (cmd/kubeadm/app/phases/kubelet/flags.go GetNodeNameAndHostname): the hostname in
 * lower case, nodeRegistration.name over it, a `hostname-override` kubelet argument over both.
 */
function kubeadmNodeName(join, hostname) {
  const override = [...join.kubeletExtraArgs].reverse().find((a) => a.name === "hostname-override");
  return override ? override.value : win.kubeletNodeName(join.name, hostname);
}

/** Whether kubeadm's endpoint is one the stand-in can reach: the lab's API server listens on loopback only. */
const reachable = (endpoint) => /^(127\.\d+\.\d+\.\d+|localhost|\[::1\]):\d+$/.test(endpoint);

/** The network side (downloads, the join against a real API server), loaded when a script needs it. */
const network = () => require(path.join(__dirname, "fake-windows-network.js"));
/**
 * The kubelet starting on a node joined to the lab's API server: it reports its status and its node Lease at once
 * (fake-windows-network.js kubeletStarted), then runs as a process of its own that renews the Lease until its service
 * stops (runKubelet). One whose report is refused still runs, as a real one retries on its own.
 */
async function startKubelet(host) {
  if (!host.joined || !host.cluster || !host.driveRoot) return;
  try {
    host.kubeletHeartbeats = [
      ...(host.kubeletHeartbeats || []),
      await network().kubeletStarted(host, { readHostText: (p) => readHostText(host, p) }),
    ];
  } catch (e) {
    host.kubeletStatusError = e.message;
  }
  const pem = hostFile(host, "C:\\var\\lib\\kubelet\\pki\\kubelet-client-current.pem");
  const ca = hostFile(host, "C:\\etc\\kubernetes\\pki\\ca.crt");
  const child = require("child_process").spawn(
    process.execPath,
    [path.join(__dirname, "fake-windows-network.js"), "--kubelet", state, pem, ca],
    { detached: true, stdio: "ignore" },
  );
  child.unref();
  host.kubeletPid = child.pid;
}
/**
 * What a script's pending-restart check finds: staged updates (`pendingRevision`) and the servicing markers
 * (`rebootPending`); `pendingFileRenames` (PendingFileRenameOperations, which antivirus and drivers keep set) only
 * for a script that reads that value (updates.pending-file-renames).
 */
const restartPending = (host, script) =>
  !!host.pendingRevision ||
  !!host.rebootPending ||
  (!!host.pendingFileRenames && script.includes("PendingFileRenameOperations"));
/**
 * Answers one script as the simulated host would: returns its exit code, output and error output. The state is read
 * afresh for every script (a runner process lives across steps) and saved by the handlers that change it.
 */
async function handle(script) {
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
  // Saves the simulated state. With `authorizedKeysFile`, the key list is also the real sshd's file, in the file's
  // encoding (`authorizedKeysEncoding`, a Set-Content -Encoding value, default ascii): what a script authorizes or
  // removes, and whether sshd can read it, decides which keys the next login may use (written whole and renamed into
  // place). A UTF-8 BOM is left out there: Win32-OpenSSH's fopen skips it, the lab's sshd would not (windows-51/files.js).
  function save() {
    fs.writeFileSync(state, JSON.stringify(host));
    if (host.authorizedKeysFile) {
      const text = host.authorizedKeys.map((k) => k + "\n").join("");
      fs.writeFileSync(
        host.authorizedKeysFile + ".tmp",
        win.sshdStream(win.encodeText(text, host.authorizedKeysEncoding || "ascii")),
        { mode: 0o600 },
      );
      fs.renameSync(host.authorizedKeysFile + ".tmp", host.authorizedKeysFile);
    }
  }
  // administrators_authorized_keys as bytes (undefined when there is none): the lines in their encoding, CRLF as 5.1
  // writes them.
  const keyBytes = () =>
    host.authorizedKeys.length === 0 && !host.authorizedKeysEncoding
      ? undefined
      : win.encodeText(host.authorizedKeys.map((k) => k + "\r\n").join(""), host.authorizedKeysEncoding || "ascii");
  const readsBytes = script.includes("[System.IO.File]::ReadAllBytes($keyFile)");
  // Whether the key is found where the script looks for it: `lookup` is the script's lookup expression (the probe's
  // `keyAuthorized = [bool]($v | …)`, prepare's `if (-not ($v | …) …)`), `re` captures the variable it searches; how
  // the script fills that variable decides the lines: `$v = @($text -split …)` after `ReadAllBytes($keyFile)` is what sshd sees
  // (win.sshdKeyLines), `$v = @(Get-Content -LiteralPath $keyFile)` the decoded lines (win.getContentLines), a
  // variable never filled is $null (no key). An Error for a lookup or a filling the stand-in has no model of.
  const keyVisible = (k, lookup, re) => {
    const v = (re.exec(lookup || "") || [])[1];
    if (!v) return new Error(`no key lookup matching ${re}`);
    const fills = ps
      .leaves(script)
      .filter((st) => st.startsWith(`$${v} = `))
      .map((st) => st.slice(v.length + 4))
      .filter((f) => f !== "@()");
    const b = keyBytes();
    if (fills.length === 0 || !b) return false;
    if (fills.every((f) => f.startsWith("@(Get-Content -LiteralPath $keyFile)")))
      return win.getContentLines(b).some((l) => l.trim() === k);
    if (readsBytes && fills.every((f) => f.startsWith("@($text -split "))) return win.sshdKeyLines(b).includes(k);
    return new Error(`no model of how $${v} is filled: ${fills.join(" / ")}`);
  };
  const key = psString(script, "key");
  // The steps of a script that touch the key file's ACL, in order (for win.aclThroughSteps): Set-Content of `$tmp` (a
  // new file), icacls on `$tmp` or `$keyFile`, the Move-Item of `$tmp` onto `$keyFile`. Those inside the block
  // statement `rewrite` only when `runs`.
  const keyFileSteps = (rewrite, runs) =>
    ps
      .leaves(script, (st) => st === rewrite && !runs)
      .flatMap((l) => {
        const ic = /^icacls\.exe \$(tmp|keyFile) (.*?) \| Out-Null$/.exec(l);
        if (/^Set-Content -LiteralPath \$tmp /.test(l)) return [{ op: "new-tmp" }];
        if (ic) return [{ op: "icacls", target: ic[1] === "tmp" ? "tmp" : "live", args: win.icaclsArgs(ic[2]) }];
        if (/^Move-Item -LiteralPath \$tmp -Destination \$keyFile -Force$/.test(l)) return [{ op: "move" }];
        return [];
      });
  // First boot (components/provisioning/user-data.ts firstBootScript): one boot's run, every statement in the
  // script's own order (windows-51/boot.js, which says what it models); the host's state records what a login could
  // reach after each step (`firstBootEvents`), the serial console lines, and `firstBootRuns`.
  if (script.includes("Add-WindowsCapability -Online -Name OpenSSH.Server")) {
    host.firstBootRuns = (host.firstBootRuns || 0) + 1;
    const run = win.runFirstBoot(script, host);
    save();
    complain(run.stderr);
    return finish(run.code);
  }
  // A Windows node of a vanilla cluster (providers/vanilla-node/scripts.ts): probe and each converge step.
  const svc = () => (host.services ||= {});
  if (script.includes("$feature = Get-WindowsFeature -Name Containers")) {
    const names = psArray(script, "names") || [];
    const versions = Object.fromEntries(names.map((n) => [n, (host.versions || {})[n] || ""]));
    const services = {};
    for (const n of ["containerd", "kubelet"]) services[n] = svc()[n] || { status: "Missing", startType: "" };
    say(
      "\uFEFF" +
        JSON.stringify({
          // $env:COMPUTERNAME and [System.Net.Dns]::GetHostName() (rules names.netbios, names.os-hostname).
          hostname: win.netbiosName(host.hostname),
          dnsHostname: host.hostname,
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
    // Each item of `$items`: @{ name = '…'; url = '…'; sum = '…'; sha = '…'; kind = '…'; target = '…'; strip = $…;
    // version = '…' }, worked through in order as the script does: each one checked, then placed, the first failure
    // ending the step.
    // A URL on loopback (the tests' artifact server) is really downloaded and checked (fake-windows-network.js);
    // another is recorded only (the stand-in has no Internet), after the checks that need no download. A host told to
    // see a bad checksum (`badChecksum`) refuses that item.
    const items = psArray(script, "items");
    if (!items) return finish((complain("the stand-in: no $items it can read\r\n"), 1));
    for (const it of items) Object.assign(it, { sum: it.sum || "", sha: it.sha || "", strip: it.strip === true });
    host.downloaded = host.downloaded || [];
    for (const it of items) {
      // The script's own refusals of an item it cannot check (providers/vanilla-node/scripts.ts installScript).
      const shape = !/^https?:\/\//.test(it.url || "")
        ? `${it.name}: ${it.url} is not an http(s) URL`
        : (it.sum === "") === (it.sha === "")
          ? `${it.name}: exactly one of a checksum URL and a pinned SHA-256 is needed`
          : it.sha && !/^[0-9a-fA-F]{64}$/.test(it.sha)
            ? `${it.name}: the pinned checksum is not a SHA-256`
            : undefined;
      if (shape) {
        complain(shape + "; nothing was replaced\r\n");
        save();
        return finish(1);
      }
      if (host.badChecksum === it.name) {
        complain(`${mismatch(script, { "it.name": it.name, published: "aaaa", actual: "bbbb" })}\r\n`);
        save();
        return finish(1);
      }
      if (reachable(new URL(it.url).host) && (!it.sum || reachable(new URL(it.sum).host))) {
        try {
          await network().installItem(it, { script, host, hostFile: (p) => hostFile(host, p), mismatch });
        } catch (e) {
          complain(e.message + "\r\n");
          save();
          return finish(1);
        }
      }
      (host.versions ||= {})[it.name] = it.version;
      host.downloaded.push(it.url);
    }
    save();
    say("installed\r\n");
    return finish(0);
  }
  if (script.includes("--register-service --config $config")) {
    // Run as the script's lines say, in their order (providers/vanilla-node/scripts.ts containerdServiceScript): the
    // dependents are those running where `$dependents =` reads them (after Stop-Service -Force stopped them: none);
    // sc.exe delete exits 1072 on a host whose containerd is `markedForDelete` (DeleteService), and registering again
    // then fails; each check and the catch's words are the script's own (ps.thrownBy).
    const config = psString(script, "config");
    // Its statements in the order they run, each block before its inside (ps.walk).
    const steps = ps.walk(script);
    const at = (re) => steps.findIndex((l) => re.test(l));
    const readDeps = at(/^\$dependents = @\(Get-Service -Name containerd -DependentServices/);
    const stop = at(/^Stop-Service -Name containerd -Force\b/);
    const running = () => win.dependentsOf(host, "containerd").filter((d) => svc()[d].status === "Running");
    const existed = !!svc().containerd;
    let dependents = existed && readDeps >= 0 && (stop < 0 || readDeps < stop) ? running() : [];
    if (existed && stop >= 0) win.stopService(host, "containerd", true);
    if (existed && readDeps > stop && stop >= 0) dependents = running();
    // The statement after the command `re`, when it is the script's `if ($LASTEXITCODE -ne 0) { throw … }`.
    const checked = (re) => {
      const k = at(re);
      const next = k >= 0 ? ps.block(steps[k + 1] || "", "if") : undefined;
      return next && next.cond === "$LASTEXITCODE -ne 0" ? steps[k + 1] : undefined;
    };
    let error;
    const exitCode = (code, re, words) => {
      const check = checked(re);
      if (code !== 0 && !error) error = check ? ps.thrownBy(check, { LASTEXITCODE: code }) : words;
    };
    if (existed) {
      exitCode(host.containerdMarkedForDelete ? 1072 : 0, /^sc\.exe delete containerd\b/, undefined);
      if (!host.containerdMarkedForDelete) delete svc().containerd;
    }
    if (!error)
      exitCode(host.containerdMarkedForDelete ? 1 : 0, /^& \$exe --register-service --config \$config/, undefined);
    if (error === undefined && host.containerdMarkedForDelete) error = "Cannot start service containerd.";
    if (error !== undefined) {
      const onError = steps.find((l) => ps.block(l, "if")?.cond === "$dependents" && /\{ throw\b/.test(l));
      if (onError && dependents.length > 0)
        error = ps.thrownBy(onError, { "_.Exception.Message": error, dependents: dependents });
      save();
      return finish((complain(error + "\r\n"), 1));
    }
    win.registerContainerd(host);
    svc().containerd = { status: "Running", startType: "Automatic" };
    if (at(/^foreach \(\$d in \$dependents\) \{ Start-Service -Name \$d \}$/) >= 0)
      for (const d of dependents) if (svc()[d]) svc()[d].status = "Running";
    host.containerdConfig = config;
    host.containerdRestarts = (host.containerdRestarts || 0) + 1;
    save();
    say("containerd ok\r\n");
    return finish(0);
  }
  if (script.includes("Write-Output 'kubelet service ok'")) {
    // The service's command line goes through sc.exe as 5.1 passes it; the stored ImagePath is what the kubelet
    // starts with, at the join and after (scKubelet). A refused sc.exe changes nothing; the script stops on its code.
    const kubeletFlags = commandLineOf(script, host);
    const sc = kubeletFlags && scKubelet(script, kubeletFlags, !!svc().kubelet);
    const check = ps.thrown(script, "registering the kubelet service failed with", { LASTEXITCODE: 1639 });
    if (sc && sc.error && check !== undefined) return finish((complain(`${sc.error.message}\r\n${check}\r\n`), 1));
    // Its dependencies and failure actions, from the script's sc.exe arguments (windows-51/services.js).
    const registered = win.registerFromScript(host, "kubelet", script);
    if (registered instanceof Error) return finish((complain(registered.message + "\r\n"), 1));
    const running = svc().kubelet && svc().kubelet.status === "Running";
    svc().kubelet = { status: running ? "Running" : "Stopped", startType: "Automatic" };
    if (sc && !sc.error) setKubeletImagePath(host, sc.imagePath);
    else if (kubeletFlags && !sc) host.kubeletFlags = kubeletFlags;
    save();
    say("kubelet service ok\r\n");
    return finish(0);
  }
  if (script.includes("join --config $join")) {
    // The join reads the file the provider wrote over SFTP, then the real script removes it (it holds the token).
    const join = hostFile(host, psString(script, "join") || "");
    if (host.joined) {
      fs.rmSync(join, { force: true });
      svc().kubelet = { status: "Running", startType: "Automatic" };
      save();
      say("joined\r\n");
      return finish(0);
    }
    const failed = (message) => {
      fs.rmSync(join, { force: true });
      save();
      complain(message + "\r\n");
      return finish(1);
    };
    if (!fs.existsSync(join))
      return failed(`open ${psString(script, "join")}: The system cannot find the file specified.`);
    // kubeadm validates the file before anything else; the messages are its own (readJoinFile).
    const { join: cfg, errors } = readJoinFile(fs.readFileSync(join, "utf8"));
    if (errors.length > 0) return failed(errors.join("\n"));
    const hostname = String(host.hostname || "");
    const nodeName = kubeadmNodeName(cfg, hostname);
    if (!reachable(cfg.endpoint) || host.joinOffline) {
      // No API server to ask: the checks discovery makes before it connects (pubkeypin.Set.Allow).
      const pin = pinProblem(cfg.pins);
      if (pin)
        return failed(
          `error execution phase preflight: couldn't validate the identity of the API Server: invalid discovery token CA certificate hash: ${pin}`,
        );
    }
    const env = kubeadmFlagsEnv(cfg, nodeName, hostname);
    if (reachable(cfg.endpoint) && !host.joinOffline) {
      // kubeadm's discovery and config reads, the kubelet's TLS bootstrap and registration, against the real API
      // server (fake-windows-network.js); what they created is recorded for the tests.
      try {
        host.cluster = await network().joinCluster(cfg, {
          host,
          nodeName,
          hostname,
          kubeadmFlagsEnv: env,
          writeHostText: (p, text) => writeHostText(host, p, text),
          kubeletStart,
          parseYaml,
          pinProblem,
        });
      } catch (e) {
        return failed(e.message);
      }
    } else {
      writeHostText(host, "C:\\var\\lib\\kubelet\\kubeadm-flags.env", env);
      // Offline, the kubelet's command line still decides its name and whether it starts.
      const kubelet = host.kubeletFlags ? kubeletStart(host.kubeletFlags, hostname) : undefined;
      if (kubelet && kubelet.error)
        return failed(
          `error execution phase kubelet-wait-bootstrap: failed while waiting for the kubelet to start: ${kubelet.error}`,
        );
      if (kubelet) host.registeredAs = kubelet.name;
    }
    host.joinedAs = cfg.name;
    host.joinedWithToken = cfg.token;
    host.joined = true;
    host.joins = (host.joins || 0) + 1;
    fs.rmSync(join, { force: true });
    // The rest of the script: the same command line, now with kubeadm-flags.env merged, and the kubelet restarted.
    const flags = commandLineOf(script, host);
    const sc = flags && scKubelet(script, flags, true);
    if (sc && sc.error && script.includes("updating the kubelet service after the join failed with")) {
      save();
      complain(`${sc.error.message}\r\nupdating the kubelet service after the join failed with 1639\r\n`);
      return finish(1);
    }
    if (sc && !sc.error) setKubeletImagePath(host, sc.imagePath);
    else if (flags && !sc) host.kubeletFlags = flags;
    // Restart-Service: a kubelet that refuses its command line exits at once and its service stays stopped.
    const refused = host.kubeletFlags ? kubeletStart(host.kubeletFlags, hostname).error : undefined;
    svc().kubelet = { status: refused ? "Stopped" : "Running", startType: "Automatic" };
    if (refused) host.kubeletError = refused;
    else await startKubelet(host);
    save();
    say("joined\r\n");
    return finish(0);
  }
  // NodeFiles' windows scripts (providers/node-files/scripts.ts), on the host's drive folder.
  if (script.includes("ConvertTo-Json -InputObject $sums -Compress")) {
    const root = hostFile(host, psString(script, "root") || "");
    const sums = {};
    const walk = (dir, rel) => {
      for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
        const r = rel ? `${rel}/${e.name}` : e.name;
        if (e.isDirectory()) walk(path.join(dir, e.name), r);
        else
          sums[r] = require("crypto")
            .createHash("sha256")
            .update(fs.readFileSync(path.join(dir, e.name)))
            .digest("hex");
      }
    };
    if (!fs.existsSync(root)) say("{}\r\n");
    else {
      walk(root, "");
      say(JSON.stringify(sums) + "\r\n");
    }
    return finish(0);
  }
  if (script.includes("Remove-Item -LiteralPath $root -Recurse -Force")) {
    fs.rmSync(hostFile(host, psString(script, "root") || ""), { recursive: true, force: true });
    return finish(0);
  }
  if (script.includes("Where-Object { -not (Get-ChildItem -LiteralPath $_.FullName -Force) } | Remove-Item -Force")) {
    const root = hostFile(host, psString(script, "root") || "");
    const prune = (dir) => {
      for (const e of fs.readdirSync(dir, { withFileTypes: true }))
        if (e.isDirectory()) {
          const d = path.join(dir, e.name);
          prune(d);
          if (fs.readdirSync(d).length === 0) fs.rmdirSync(d);
        }
    };
    if (fs.existsSync(root)) prune(root);
    return finish(0);
  }
  if (script.includes("Write-Output 'kubeadm upgraded'")) {
    // kubeadm upgrade node on a worker: needs the node's kubelet.conf (cmd/kubeadm/app/cmd/upgrade/node.go).
    if (!host.joined) {
      complain('couldn\'t create a Kubernetes client from file "C:\\etc\\kubernetes\\kubelet.conf"\r\n');
      return finish(1);
    }
    if (host.kubeadmUpgradeFails) {
      complain("[upgrade/kubelet-config] FATAL: the kubelet-config ConfigMap could not be read\r\n");
      return finish(1);
    }
    host.kubeadmUpgrades = (host.kubeadmUpgrades || 0) + 1;
    save();
    say("kubeadm upgraded\r\n");
    return finish(0);
  }
  if (script.includes("Write-Output 'services stopped'")) {
    const loop = ps.walk(script).find((st) => /^\$s in /.test(ps.block(st, "foreach")?.cond || ""));
    const names = loop ? ps.value(ps.block(loop, "foreach").cond.slice("$s in ".length)) : [];
    // Stop-Service, -Force or not, with the dependents' rule (windows-51/services.js); a stop is no failure.
    const force = ps.leaves(script).includes("Stop-Service -Name $s -Force");
    for (const n of names.filter((x) => svc()[x])) {
      const stopped = win.stopService(host, n, force);
      if (stopped instanceof Error) return finish((complain(stopped.message + "\r\n"), 1));
    }
    host.stopped = [...(host.stopped || []), ...names];
    save();
    say("services stopped\r\n");
    return finish(0);
  }
  if (script.includes("Write-Output 'services ok'")) {
    const kubeletStarts = !svc().kubelet || svc().kubelet.status !== "Running";
    for (const n of ["containerd", "kubelet"]) svc()[n] = { status: "Running", startType: "Automatic" };
    if (kubeletStarts) await startKubelet(host);
    save();
    say("services ok\r\n");
    return finish(0);
  }
  // Test-only: a service's process killed (it ends without SERVICE_STOPPED). The service controller applies the
  // service's failure actions (windows-51/services.js crash); the program never sends this.
  const killed = ps
    .leaves(script)
    .map((st) => /^Stop-Process -Name (\S+) -Force$/.exec(st))
    .find(Boolean);
  if (killed) {
    say(win.crash(host, killed[1], Date.now()) + "\r\n");
    save();
    return finish(0);
  }
  if (script.includes("(Get-CimInstance -ClassName Win32_BIOS).SerialNumber")) {
    say((host.biosSerial || "To be filled by O.E.M.") + "\r\n");
    return finish(0);
  }
  if (script.includes("Write-Output 'proxy set'")) {
    const want = ps.assigned(script, "want") || {};
    host.proxy = {
      HTTP_PROXY: want.HTTP_PROXY || "",
      HTTPS_PROXY: want.HTTPS_PROXY || "",
      NO_PROXY: want.NO_PROXY || "",
    };
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
    // The key file is replaced (as ASCII, the lines Get-Content reads kept) when the script's rewrite test says so:
    // the key missing where it looks (keyVisible), the file in an encoding it names as one sshd cannot read
    // (`… -contains $keyFileEncoding`), or, when the test has `-not $aclOk`, an ACL that is not sshd's.
    // The live file's ACL before: `keyFileAcl`, else a restricted one when `keyFileAclOk`, else a new file's.
    const before =
      keyBytes() === undefined
        ? undefined
        : host.keyFileAcl || (host.keyFileAclOk ? win.restrictedAcl() : win.newFileAcl(host.keyFileInheritedSids));
    // The rewrite test: the top-level `if (-not ($v | Where-Object …) …) { … }` and its condition.
    const rewrite = ps.statements(script).find((st) => /^if \(-not \(\$\w+ \| Where-Object/.test(st));
    const test = rewrite && ps.block(rewrite, "if");
    const found = keyVisible(key, test && test.cond, /^-not \(\$(\w+) \| Where-Object/);
    if (found instanceof Error || !test) {
      complain(`the stand-in: ${found instanceof Error ? found.message : "no rewrite test in prepare"}\r\n`);
      return finish(1);
    }
    const encoding = win.keyFileEncoding(keyBytes());
    const unreadable = readsBytes && new RegExp(`'${encoding}'.*\\) -contains \\$keyFileEncoding`).test(test.cond);
    const aclTested = / -or -not \$aclOk$/.test(test.cond);
    const rewritten = !found || unreadable || (aclTested && !(before && win.keyFileAclOk(before)));
    // Its ACL through the script's steps, in order (win.aclThroughSteps: rules files.icacls-acl,
    // files.rename-keeps-acl); the rewrite block's steps only when it runs. `keyFileAclLoosened` counts the steps
    // that left the live file readable by others where it was restricted or absent before.
    const acl = win.aclThroughSteps(before, keyFileSteps(rewrite, rewritten), host.keyFileInheritedSids);
    if (acl.error) {
      complain(`${acl.error.message}\r\n${icaclsRefused(script)}\r\n`);
      return finish(1);
    }
    if (rewritten) {
      const kept = keyBytes() ? win.getContentLines(keyBytes()) : [];
      host.authorizedKeys = kept.some((l) => l.trim() === key) ? kept : [...kept, key];
      host.authorizedKeysEncoding = "ascii";
    }
    if (acl.loosened) host.keyFileAclLoosened = (host.keyFileAclLoosened || 0) + acl.loosened;
    host.keyFileAcl = acl.live;
    if (!script.includes("Set-Service -Name sshd -StartupType Automatic")) {
      complain("prepare no longer sets sshd to Automatic\n");
      return finish(3);
    }
    // The script restarts sshd only when its settings change, and says so.
    const restarted = host.pubkeyAuthentication !== "yes" || host.passwordAuthentication !== "no";
    Object.assign(host, {
      keyFileAclOk: !!acl.live && win.keyFileAclOk(acl.live),
      pubkeyAuthentication: "yes",
      passwordAuthentication: "no",
      firewallPorts: [22, 10250, 9182],
      sshdStartType: "Automatic",
    });
    save();
    say(restarted ? "prepared, sshd restarted\r\n" : "prepared\r\n");
  } else if (script.includes("Write-Output ('retired ' +")) {
    // Retiring old WMCO keys: every authorized line whose key is listed in $retire goes; $key must stay.
    const retire = psArray(script, "retire") || [];
    if (!host.authorizedKeys.includes(key)) {
      complain("the key to keep is not authorized; nothing was removed\n");
      return finish(4);
    }
    const before = host.authorizedKeys.length;
    host.authorizedKeys = host.authorizedKeys.filter((k) => !retire.includes(k));
    // Rewritten with Set-Content -Encoding ascii when a key went, its ACL through the `if ($removed -gt 0)` block's
    // steps (as prepare's: `keyFileAclLoosened`).
    const removed = host.authorizedKeys.length < before;
    if (removed) host.authorizedKeysEncoding = "ascii";
    const rewrite = ps.statements(script).find((st) => ps.block(st, "if")?.cond === "$removed -gt 0");
    const was =
      host.keyFileAcl || (host.keyFileAclOk ? win.restrictedAcl() : win.newFileAcl(host.keyFileInheritedSids));
    const acl = win.aclThroughSteps(was, keyFileSteps(rewrite, removed), host.keyFileInheritedSids);
    if (acl.error) {
      complain(`${acl.error.message}\r\n${icaclsRefused(script)}\r\n`);
      return finish(1);
    }
    if (acl.loosened) host.keyFileAclLoosened = (host.keyFileAclLoosened || 0) + acl.loosened;
    Object.assign(host, { keyFileAcl: acl.live, keyFileAclOk: win.keyFileAclOk(acl.live) });
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
  } else if (script.includes("Write-Output 'patch task stopped'")) {
    // Stop-ScheduledTask: a running task ends without writing its result (Task Scheduler then reports it Ready).
    host.patchTaskStops = (host.patchTaskStops || 0) + 1;
    host.patchTaskStopped = true;
    save();
    say("patch task stopped\r\n");
  } else if (script.includes("Write-Output 'patch task started'")) {
    // Windows Update in a SYSTEM task (providers/day2/patch-scripts.ts), the task's own script decoded from the
    // action as Task Scheduler would run it. Per-host state the tests set:
    // - `availableUpdates` ([{ kb, title, revision }]): what the search finds; installed, they raise the revision once
    //   the host restarts;
    // - `updateFailure` ({ resultCode, hResult }): every update's install fails so;
    // - `failedUpdates` ({ <kb>: hResult }): those updates fail, the others install: SucceededWithErrors (3);
    // - `rebootPending`: a restart already pending before any update (CBS RebootPending, WU RebootRequired);
    // - `pendingFileRenames`: PendingFileRenameOperations set, as on many hosts for good (not a WUA restart);
    // - `taskHangs`: the install task runs until stopped (past its limit: on-demand tasks are not held to
    //   ExecutionTimeLimit).
    // A search-only task (`$searchOnly = $true`) reports what is applicable and changes nothing. The task finishes
    // after `taskPolls` status reads (default 1: one read sees it Running). Recorded: `patchTaskLimitMinutes`,
    // `wuaProxy` (the WebProxy address), `patchSearches`, `patchTasks`.
    const encodedTask = /-EncodedCommand ([A-Za-z0-9+/=]+)'/.exec(script);
    if (!script.includes("-UserId 'SYSTEM'") || !encodedTask) {
      complain("the patch task no longer runs the WUA script as SYSTEM\n");
      return finish(3);
    }
    const task = Buffer.from(encodedTask[1], "base64").toString("utf16le");
    const limit = /-ExecutionTimeLimit \(New-TimeSpan -Minutes (\d+)\)/.exec(script);
    host.patchTaskLimitMinutes = limit ? Number(limit[1]) : undefined;
    host.wuaProxy = psString(task, "proxy.Address");
    host.patchPolls = 0;
    host.patchTaskStopped = false;
    const updates = host.availableUpdates || [];
    const pendingBefore = !!host.rebootPending || !!host.pendingRevision;
    const named = updates.map((u) => ({ title: u.title, kb: u.kb }));
    host.patchTaskKind = task.includes("$searchOnly = $true") ? "search" : "install";
    if (host.patchTaskKind === "search") {
      host.patchSearches = (host.patchSearches || 0) + 1;
      host.patchResult = {
        stage: "search",
        resultCode: 2,
        hResult: 0,
        rebootRequired: pendingBefore,
        applicable: named,
        updates: [],
        error: "",
      };
      save();
      say("patch task started\r\n");
      return finish(0);
    }
    const fail = host.updateFailure;
    const failed = host.failedUpdates || {};
    host.patchTasks = (host.patchTasks || 0) + 1;
    const results = updates.map((u) =>
      fail
        ? { title: u.title, kb: u.kb, resultCode: fail.resultCode, hResult: fail.hResult }
        : u.kb in failed
          ? { title: u.title, kb: u.kb, resultCode: 4, hResult: failed[u.kb] }
          : { title: u.title, kb: u.kb, resultCode: 2, hResult: 0 },
    );
    const installed = updates.filter((_, k) => results[k].resultCode === 2);
    host.patchResult = {
      stage: updates.length > 0 ? "install" : "search",
      resultCode: fail ? fail.resultCode : installed.length < updates.length ? 3 : 2,
      hResult: fail ? fail.hResult : 0,
      rebootRequired: installed.length > 0 || pendingBefore,
      applicable: named,
      updates: results,
      error: "",
    };
    if (installed.length > 0) {
      host.pendingRevision = Math.max(...installed.map((u) => u.revision));
      host.availableUpdates = updates.filter((u) => !installed.includes(u));
    }
    save();
    say("patch task started\r\n");
  } else if (script.includes("Get-ScheduledTaskInfo -TaskName 'windows-estate-patch'")) {
    host.patchPolls = (host.patchPolls || 0) + 1;
    const hangs = host.taskHangs && host.patchTaskKind === "install";
    const done = !hangs && host.patchPolls > (host.taskPolls ?? 1);
    const running = !done && !host.patchTaskStopped;
    save();
    say(
      "\uFEFF" +
        JSON.stringify({
          state: running ? "Running" : "Ready",
          lastTaskResult: running ? 267009 : host.patchTaskStopped ? 267014 : 0,
          result: done ? host.patchResult : null,
          rebootPending: restartPending(host, script),
        }) +
        "\r\n",
    );
  } else if (script.includes("bootTime = $boot; rebootPending = [bool]$pending")) {
    // The inventory's SSH part (providers/day2/patch-scripts.ts hostStatusScript).
    say(
      "\uFEFF" +
        JSON.stringify({
          bootTime: host.bootTime || "2026-11-01T00:00:00.0000000Z",
          rebootPending: restartPending(host, script),
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
    delete host.rebootPending;
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
    // Windows goes down. Whether Restart-Computer's answer gets out first is a race (transport.restart-answer): by
    // default none follows, whichever way PowerShell was started; with `restartAnswers` it is answered, then ends.
    return { ...finish(0), reboot: true, answered: !!host.restartAnswers };
  } else if (script.includes("ConvertTo-Json -Compress")) {
    const { authorizedKeys: _keys, authorizedKeysEncoding: _encoding, ...rest } = host;
    // WMCO's BYOH prerequisites (providers/windows-host/scripts.ts probeScript): by default DNS holds a PTR record
    // naming the host and the address comes from DHCP, so nothing is required of the registry. A test sets
    // `ptrNames: []` for a missing record, `addressDhcp: "Disabled"` for a static address, and `deviceLessNicDisabled`.
    const address = psString(script, "address") ?? "";
    const prerequisites = {
      wmcoIPv4: /^\d{1,3}(\.\d{1,3}){3}$/.test(address) ? address : (host.resolvedIPv4 ?? ""),
      ptrNames: host.ptrNames ?? [`${host.hostname}.lab.internal`],
      addressDhcp: host.addressDhcp ?? "Enabled",
      deviceLessNicDisabled: host.deviceLessNicDisabled ?? -1,
    };
    // The key as the probe's `keyAuthorized =` line reads the file (keyVisible); the encoding as sshd sees it.
    const keyFile = readsBytes ? { keyFileEncoding: win.keyFileEncoding(keyBytes()) } : {};
    // The reported object's entries (`[pscustomobject]@{ … } | ConvertTo-Json`), as the reader reads them.
    const reported = ps.hashEntries(ps.statements(script).find((st) => st.startsWith("[pscustomobject]@{")) || "");
    const keyAuthorized =
      reported && "keyAuthorized" in reported
        ? keyVisible(key, reported.keyAuthorized, /^\[bool\]\(\$(\w+) \| Where-Object/)
        : undefined;
    if (keyAuthorized instanceof Error) {
      complain(`the stand-in: ${keyAuthorized.message}\r\n`);
      return finish(1);
    }
    say("\uFEFF" + JSON.stringify({ ...rest, ...prerequisites, ...keyFile, keyAuthorized }) + "\r\n");
  } else {
    complain("unexpected script\n");
    return finish(1);
  }
  return finish(0);
}

/** `handle`, with a statement the reader has no model of (windows-51/statements.js) refused in words, not a crash. */
const answer = (script) =>
  handle(script).catch((e) => {
    if (!e || !e.unmodelled) throw e;
    return { code: 1, stdout: "", stderr: `the stand-in has no model of ${JSON.stringify(e.unmodelled)}\r\n` };
  });

// Started with one script (`powershell -EncodedCommand <script>`): answer it and exit with its code. Started with the
// runner (providers/ssh/powershell-runner.ts): read one base64 (UTF-16LE) script per line from standard input and
// answer each with a frame, in order, until an empty line or the end of input, exactly as the runner's PowerShell
// does. A script that talks to the network is answered when it is done; the next waits for it.
const FRAME = "##windows-estate-runner:";
// Ansible's PowerShell module transport over SSH (the benchmark's baseline): its nested PowerShell, its bootstrap
// reading the module from standard input, its temporary directories (ansible-windows.js, on the hosts that have it
// beside them: test/lab/lab-windows.ts copies it).
const ansibleFile = path.join(__dirname, "ansible-windows.js");
const ansible = fs.existsSync(ansibleFile) ? require(ansibleFile) : undefined;
if (ansible && ansible.answers(launched)) {
  ansible.answer(launched, { state, handle: answer, clixml: win.clixml });
} else if (!launched.includes(FRAME)) {
  answer(launched).then((r) => {
    process.stdout.write(r.stdout);
    // -EncodedCommand with stderr redirected: 5.1 writes its errors as CLIXML (transport.stderr-clixml).
    process.stderr.write(r.stderr ? win.clixml(r.stderr) : "");
    process.exitCode = r.code;
  });
} else {
  let buffered = "";
  let queue = Promise.resolve();
  // How the runner ended, in `<state>.transport.log`: on its empty line, or at the end of its input (which an old
  // Win32-OpenSSH may never pass on: with `ignoresEof` the stand-in waits on, as PowerShell would,
  // transport.runner-eof).
  const ended = (how) => {
    fs.appendFileSync(state + ".transport.log", `runner ended: ${how}\n`);
    process.exit(0);
  };
  const answerLine = async (line) => {
    if (line === "") ended("empty line");
    const r = await answer(Buffer.from(line, "base64").toString("utf16le"));
    process.stderr.write(r.stderr);
    if (r.reboot) fs.appendFileSync(state + ".transport.log", `restart: ${r.answered ? "answered" : "no answer"}\n`);
    if (r.reboot && !r.answered) process.exit(0);
    const frame = {
      ok: r.code === 0,
      output: r.stdout,
      error: r.code === 0 ? "" : r.stderr || `exit code ${r.code}`,
    };
    const framed = FRAME + Buffer.from(JSON.stringify(frame), "utf8").toString("base64") + "\r\n";
    // An answered restart: the answer gets out, then Windows goes down with the process.
    process.stdout.write(framed, r.reboot ? () => process.exit(0) : undefined);
  };
  process.stdin.on("data", (d) => {
    buffered += d.toString("utf8");
    const lines = buffered.split("\n");
    buffered = lines.pop();
    for (const line of lines.map((l) => l.replace(/\r$/, ""))) queue = queue.then(() => answerLine(line));
  });
  process.stdin.on("end", () =>
    queue.then(() => {
      if (!JSON.parse(fs.readFileSync(state, "utf8")).ignoresEof) ended("end of input");
      // Still waiting for input that never comes; the lab gives up after a while so that no process outlives a test.
      else setTimeout(() => ended("never (gave up waiting)"), 30_000);
    }),
  );
}
