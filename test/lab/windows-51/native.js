// The stand-in's rules for native (see index.js): how a native command's arguments travel in Windows PowerShell 5.1.
// PowerShell joins the argument values into one command line (Windows has no argv), and the program splits it again
// with its own C runtime's rules; sc.exe keeps one of those argv elements as the service's ImagePath, which the
// service control manager later hands to CreateProcess as the service's command line, split once more by the
// service's program (for the kubelet: Go's rules). A quote inside a value is where these disagree.

const BINDER = "src/System.Management.Automation/engine/NativeCommandParameterBinder.cs";

/** @type {{ id: string, area: string, rule: string, source: string, rows: number[] }[]} */
const RULES = [
  {
    id: "native.legacy-quoting",
    area: "native",
    rule:
      "Windows PowerShell 5.1 builds a native command line from the argument values joined by spaces: an empty " +
      "value is dropped, a value with whitespace outside (unescaped) double quotes is wrapped in double quotes, and " +
      'nothing inside a value is escaped: an embedded " or a trailing backslash reaches the command line as it is.',
    source:
      `PowerShell/PowerShell@v6.0.0-alpha.10 ${BINDER} appendOneNativeArgument (the 5.1 code; the trailing ` +
      "backslash escaping came only in 6.0, #4965, and embedded quotes were escaped only from 7.3, " +
      "$PSNativeCommandArgumentPassing); PowerShell/PowerShell#1995",
    rows: [2],
  },
  {
    id: "native.exe-quoted",
    area: "native",
    rule: "The program's path comes first on the command line, in double quotes unless it already has them.",
    source:
      "microsoft/referencesource System/services/monitoring/system/diagnosticts/Process.cs BuildCommandLine " +
      "(.NET Framework, which Windows PowerShell 5.1 starts native commands with)",
    rows: [2],
  },
  {
    id: "native.crt-argv",
    area: "native",
    rule:
      "A Microsoft C program splits its command line at spaces and tabs outside double quotes; 2n backslashes " +
      'before a " give n backslashes and the " opens or closes quoting, 2n+1 give n backslashes and a literal "; ' +
      'other backslashes are literal; inside quotes "" is a literal " and quoting goes on. argv[0] is the program ' +
      "path: quotes in it only group. Go programs (the kubelet, kube-log-runner) split their own command line the " +
      'same way except that "" inside quotes is a literal " that also ends the quoting (the pre-2008 rule).',
    source:
      'Microsoft Learn "Parsing C command-line arguments" (cpp/c-language/parsing-c-command-line-arguments), its ' +
      'table of examples; Go src/os/exec_windows.go commandLineToArgv / readNextArg ("Prior to 2008" rule)',
    rows: [2],
  },
  {
    id: "native.sc-binpath",
    area: "native",
    rule:
      "sc.exe create|config <service> reads its options as pairs of argv elements: the option name with its '=' " +
      "(binPath=, depend=, start=, …), then the next element as its value. binPath='s value becomes the service's " +
      "ImagePath as it is. An element that is not a known option (a value split by quoting, or binPath=value " +
      "without the space) makes sc.exe print its usage, change nothing and exit 1639 (ERROR_INVALID_COMMAND_LINE).",
    source:
      'Microsoft Learn windows-server/administration/windows-commands/sc-config and sc-create ("A space is ' +
      'required between an option and its value"); exit 1639 with the usage: OctopusDeploy/Issues#1346, Tr3kkR/Yuzu#2166',
    rows: [2, 6],
  },
];

/** Whether 5.1 wraps a value in quotes: whitespace outside quotes, counting only `"` not after a backslash. */
function needQuotes(arg) {
  let quotes = 0;
  let afterBackslash = false;
  for (const c of arg) {
    if (c === '"' && !afterBackslash) quotes++;
    else if (/\s/.test(c) && quotes % 2 === 0) return true;
    afterBackslash = c === "\\";
  }
  return false;
}

/**
 * The command line Windows PowerShell 5.1 starts `exe` with for these argument values (rules native.exe-quoted,
 * native.legacy-quoting): `"exe"`, then each non-empty value, wrapped in quotes when it has unquoted whitespace,
 * never escaped.
 */
function legacyCommandLine(exe, args) {
  const file = /^".*"$/.test(exe.trim()) ? exe.trim() : `"${exe.trim()}"`;
  const parts = args.map(String).filter((a) => a !== "");
  return [file, ...parts.map((a) => (needQuotes(a) ? `"${a}"` : a))].join(" ");
}

/**
 * argv as a program splits `commandLine` (rule native.crt-argv): the Microsoft C runtime's rules by default;
 * `{ go: true }` for a Go program (no special argv[0], and `""` inside quotes ends the quoting).
 */
function crtParse(commandLine, opts = {}) {
  const s = String(commandLine);
  const argv = [];
  let i = 0;
  const blank = (c) => c === " " || c === "\t";
  if (!opts.go) {
    // argv[0]: up to the first blank outside quotes; quotes only group.
    let first = "";
    let quoted = false;
    while (i < s.length && (quoted || !blank(s[i]))) {
      if (s[i] === '"') quoted = !quoted;
      else first += s[i];
      i++;
    }
    argv.push(first);
  }
  for (;;) {
    while (i < s.length && blank(s[i])) i++;
    if (i >= s.length) break;
    let arg = "";
    let quoted = false;
    for (;;) {
      let backslashes = 0;
      while (s[i] === "\\") {
        backslashes++;
        i++;
      }
      let copy = true;
      if (s[i] === '"') {
        if (backslashes % 2 === 0) {
          if (quoted && s[i + 1] === '"') {
            i++; // `""` inside quotes: a literal `"`
            if (opts.go) quoted = false;
          } else {
            copy = false;
            quoted = !quoted;
          }
        }
        backslashes = Math.floor(backslashes / 2);
      }
      arg += "\\".repeat(backslashes);
      if (i >= s.length || (!quoted && blank(s[i]))) break;
      if (copy) arg += s[i];
      i++;
    }
    argv.push(arg);
  }
  return argv;
}

/** sc.exe's options for create and config (sc-config, sc-create), lower case with their `=`. */
const SC_OPTIONS = [
  "type=",
  "start=",
  "error=",
  "binpath=",
  "group=",
  "tag=",
  "depend=",
  "obj=",
  "displayname=",
  "password=",
];

/**
 * What `sc.exe create|config <service> …` stores as the service's ImagePath from its argv (argv[0] is sc.exe; rule
 * native.sc-binpath): binPath='s value, undefined when a config sets no binPath=, or an Error (its `exitCode` 1639)
 * when sc.exe refuses the arguments and changes nothing.
 */
function scImagePath(argv) {
  const refuse = (why) => Object.assign(new Error(`sc.exe printed its usage (${why})`), { exitCode: 1639 });
  const command = String(argv[1] || "").toLowerCase();
  if (command !== "create" && command !== "config") return refuse(`not create or config: ${argv[1]}`);
  if (!argv[2]) return refuse("no service name");
  let imagePath;
  for (let k = 3; k < argv.length; k += 2) {
    const option = argv[k].toLowerCase();
    if (!SC_OPTIONS.includes(option)) return refuse(`unknown option ${JSON.stringify(argv[k])}`);
    if (k + 1 >= argv.length) return refuse(`${argv[k]} has no value`);
    if (option === "binpath=") imagePath = argv[k + 1];
  }
  if (imagePath === undefined && command === "create") return refuse("create needs binPath=");
  return imagePath;
}

/**
 * The kubelet's flags after the command-line lines merge kubeadm-flags.env (providers/vanilla-node/scripts.ts
 * kubeletCommandLineLines): `flags`, plus each of the file's flags whose name `flags` lacks and `removed` does not
 * list. What the script computes, not a Windows rule: shared by the stand-in and the Windows CI's predictions.
 */
function mergeKubeadmFlags(flags, removed, envText) {
  const extra = envText
    .trim()
    .replace(/^KUBELET_KUBEADM_ARGS="?/, "")
    .replace(/"$/, "");
  const have = flags.map((f) => f.split("=")[0]);
  const added = extra
    .split(/\s+/)
    .filter(Boolean)
    .filter((f) => !have.includes(f.split("=")[0]) && !removed.includes(f.split("=")[0]));
  return [...flags, ...added];
}

module.exports = { RULES, legacyCommandLine, crtParse, scImagePath, mergeKubeadmFlags };
