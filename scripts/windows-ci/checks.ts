/**
 * What the Windows workflow (.github/workflows/windows-powershell.yml) checks on real Windows PowerShell 5.1, and what
 * the lab's stand-in predicts for each (issue 31, audit rows 1, 2, 5, 6, 8, 10, 11): the program's own script lines for a
 * sample stack, and the predictions computed with the stand-in's rule functions (test/lab/windows-51). check.ps1 runs
 * the lines on Windows and fails on any difference. Nothing here needs a cluster; only the checksum check needs the
 * network (to learn each asset's real Content-Type and body), and it is given a fetcher so tests need none.
 */
import { generateKeyPairSync } from "crypto";
import { messageOf } from "../../lib/errors";
import { powershellCommand } from "../../providers/ssh/powershell";
import { installScript, kubeletServiceScript } from "../../providers/vanilla-node/scripts";
import { prepareScript, retireKeysScript } from "../../providers/windows-host/scripts";
import { parsePrivateKey } from "../../stacks/key";
import { sampleNode, SAMPLE_STACK } from "./sample";
import { StandIn, StandInAcl } from "./stand-in";

/** One HTTP answer as the check needs it: the final response after redirects (Invoke-WebRequest follows them too). */
export interface Fetched {
  status: number;
  contentType: string;
  body: Buffer;
}
export type Fetcher = (url: string) => Promise<Fetched>;

/** Node's fetch, following redirects as Invoke-WebRequest does. */
export const httpFetch: Fetcher = async (url) => {
  const r = await fetch(url, { redirect: "follow" }).catch((e: unknown) => {
    const cause = e instanceof Error && e.cause instanceof Error ? `: ${e.cause.message}` : "";
    throw new Error(`fetching ${url} failed (${messageOf(e)}${cause}); the checksum check needs the network`);
  });
  return {
    status: r.status,
    contentType: r.headers.get("content-type") ?? "",
    body: Buffer.from(await r.arrayBuffer()),
  };
};

/** The service check's test service: never `kubelet`, so a runner's own services are untouched. */
export const TEST_SERVICE = "windows-estate-ci-kubelet";
/** kubeadm-flags.env as a kubeadm join writes it (cmd/kubeadm/app/phases/kubelet/flags.go), one removed flag in it. */
export const KUBEADM_FLAGS_ENV =
  'KUBELET_KUBEADM_ARGS="--container-runtime-endpoint=npipe:////./pipe/containerd-containerd ' +
  '--hostname-override=win-ci --pod-infra-container-image=registry.k8s.io/pause:3.10.2"';
/** The error the stderr check throws: plain text, so its first CLIXML record is predictable exactly. */
export const STDERR_MESSAGE = "windows-estate-ci: an error for the CLIXML check";
/** How many retired keys the retire check tries: the audit measured 2 under the limit and 3 over it (row 10). */
export const RETIRE_COUNTS = [1, 2, 3, 4];

export interface ChecksumAsset {
  name: string;
  url: string;
  contentType: string;
  /** What 5.1's `.Content` is for that Content-Type (web.js webContent). */
  contentIs: "byte[]" | "string";
  /** The SHA-256 the install script's lines must read from the file. */
  published: string;
}
export interface ServiceCase {
  name: string;
  /** `sc.exe create` or `config`, as the kubelet service script and the join run it. */
  command: "create" | "config";
  /** kubeadm-flags.env's text while the script's lines run; null: no such file. */
  envFile: string | null;
  /** True: `$bin` comes from the service script's own lines (and must equal `bin`); false: `bin` is passed as is. */
  fromScript: boolean;
  bin: string;
  /** The argument values sc.exe is given, and the command line 5.1 builds from them (native.js legacyCommandLine). */
  args: string[];
  commandLine: string;
  /** The ImagePath sc.exe stores (native.js crtParse → scImagePath); null when sc.exe refuses and changes nothing. */
  imagePath: string | null;
}
export interface KeyFileCase {
  name: string;
  /** How the file is written before the prepare lines run: null (no file) or `out-file` (5.1's `Out-File` default). */
  before: null | "out-file";
  /** The bytes that writing gives (files.js encodeText), and Get-Content's lines of them (getContentLines); base64. */
  beforeBytes: string | null;
  beforeLines: string[];
  /** What sshd reads from the file before (files.js sshdKeyLines): why the case exists. */
  beforeSshdLines: string[];
  /** The bytes after the prepare lines: the key as sshd reads it (ASCII, CRLF); base64, and Get-Content's lines. */
  afterBytes: string;
  afterLines: string[];
}
export interface RetireCase {
  retired: number;
  commandLine: string;
  length: number;
  /** transport.js execCommandLineProblem: what cmd.exe answers for a longer line; null when it runs. */
  refused: string | null;
}

/** The stand-in rules each check puts to the test: a check failing on Windows means one of these is wrong. */
export const CHECK_RULES = {
  checksum: ["web.content-is-bytes", "web.text-types", "web.bytes-as-text"],
  service: ["native.legacy-quoting", "native.exe-quoted", "native.crt-argv", "native.sc-binpath"],
  keys: [
    "files.write-encoding",
    "files.get-content-decodes-bom",
    "files.sshd-reads-bytes",
    "files.icacls-acl",
    "files.rename-keeps-acl",
  ],
  hostName: ["names.netbios", "names.os-hostname"],
  retire: ["transport.cmd-line-limit"],
  stderr: ["transport.stderr-clixml"],
} as const;

/** The predictions file check.ps1 reads (predictions.json). */
export interface Predictions {
  sampleStack: string;
  /** Every rule a check relies on (CHECK_RULES): id → what Windows does and its source. */
  rules: Record<string, { rule: string; source: string; rows: number[] }>;
  checksum: { lines: string; assets: ChecksumAsset[] };
  service: { name: string; lines: string; cases: ServiceCase[] };
  keys: {
    key: string;
    lines: string;
    cases: KeyFileCase[];
    /** The ACL after the script's icacls lines on the file it wrote, moved into place (files.js newFileAcl → icacls → aclSids). */
    acl: { protected: boolean; sids: string[] };
  };
  hostName: { dnsHostName: string; computerName: string; kubeletNodeName: string };
  retire: { limit: number; keep: string; retireKeys: string[]; cases: RetireCase[] };
  /**
   * A script that throws, as one exec command line: its redirected stderr starts with `header` and holds `firstRecord`
   * (transport.js clixml of the message: the error's first line as 5.1 writes it).
   */
  stderr: { commandLine: string; message: string; header: string; firstRecord: string };
}

export interface RenderOptions {
  root: string;
  standIn: StandIn;
  /** The DNS host name the runner reports ([System.Net.Dns]::GetHostName()): its NetBIOS name is predicted from it. */
  dnsHostName: string;
  fetch: Fetcher;
  /** OpenSSH RSA-4096 public keys, at least RETIRE_COUNTS' largest + 1 (the kept one first); generated when absent. */
  rsaKeys?: string[];
}

/** The lines of `script` from the first line matching `first` to the first matching `last`, inclusive. */
export function linesBetween(script: string, first: RegExp, last: RegExp, what: string): string[] {
  const lines = script.split("\n");
  const i = lines.findIndex((l) => first.test(l));
  const j = i < 0 ? -1 : lines.findIndex((l, k) => k >= i && last.test(l));
  if (i < 0 || j < 0) throw new Error(`${what}: no lines from ${first} to ${last}; the check must follow the script`);
  return lines.slice(i, j + 1);
}

/**
 * The install script's checksum lines: from reading `$it.sum` to the end of its block (braces balanced), so they run
 * on their own with `$web` and `$it` set and leave `$published`.
 */
export function checksumLines(script: string): string {
  const lines = script.split("\n");
  const i = lines.findIndex((l) => l.includes("-Uri $it.sum"));
  if (i < 0) throw new Error("the install script no longer reads $it.sum; the checksum check must follow it");
  const out: string[] = [];
  let depth = 0;
  for (const l of lines.slice(i)) {
    const next = depth + (l.match(/\{/g) ?? []).length - (l.match(/\}/g) ?? []).length;
    if (next < 0) break;
    out.push(l);
    depth = next;
  }
  if (!out.some((l) => l.includes("$published")))
    throw new Error("the install script's checksum lines no longer set $published");
  return out.join("\n");
}

/** The single-quoted PowerShell strings of a line, unescaped (psQuote's inverse). */
function quoted(line: string): string[] {
  return [...line.matchAll(/'((?:[^']|'')*)'/g)].map((m) => m[1].replace(/''/g, "'"));
}

/**
 * `$bin` as the kubelet command-line lines compute it (providers/vanilla-node/scripts.ts kubeletCommandLineLines):
 * `$flags`, plus each kubeadm-flags.env flag whose name it lacks and `$removed` does not list, after the
 * kube-log-runner prefix, merged by the stand-in's own function (native.js mergeKubeadmFlags).
 */
export function binOf(w: StandIn, lines: readonly string[], envFile: string | null): string {
  const line = (prefix: string) => {
    const l = lines.find((x) => x.startsWith(prefix));
    if (!l) throw new Error(`the kubelet service lines no longer set ${prefix.trim()}`);
    return l;
  };
  const flags = quoted(line("$flags = @("));
  const removed = quoted(line("$removed = @("));
  const binLine = line("$bin = ");
  const m = /^\$bin = '((?:[^']|'')*)' \+ \(\$flags -join ' '\)$/.exec(binLine);
  if (!m) throw new Error(`the kubelet service script's $bin is no longer '<runner>' + ($flags -join ' '): ${binLine}`);
  const merged = envFile !== null ? w.mergeKubeadmFlags(flags, removed, envFile) : flags;
  return m[1].replace(/''/g, "'") + merged.join(" ");
}

function serviceCase(
  w: StandIn,
  name: string,
  command: "create" | "config",
  bin: string,
  envFile: string | null,
  fromScript: boolean,
): ServiceCase {
  const args =
    command === "create"
      ? [command, TEST_SERVICE, "binPath=", bin, "start=", "demand"]
      : [command, TEST_SERVICE, "binPath=", bin];
  const commandLine = w.legacyCommandLine("sc.exe", args);
  const stored = w.scImagePath(w.crtParse(commandLine));
  return {
    name,
    command,
    envFile,
    fromScript,
    bin,
    args,
    commandLine,
    imagePath: stored instanceof Error ? null : stored,
  };
}

/** RSA-4096 public keys in authorized_keys form, as the program writes a WMCO key (stacks/key.ts). */
export function rsa4096Keys(n: number): string[] {
  return Array.from({ length: n }, () => {
    const { privateKey } = generateKeyPairSync("rsa", {
      modulusLength: 4096,
      publicKeyEncoding: { type: "spki", format: "pem" },
      privateKeyEncoding: { type: "pkcs1", format: "pem" },
    });
    return parsePrivateKey(privateKey).publicKey;
  });
}

const b64 = (b: Buffer) => b.toString("base64");
/** Lines as 5.1's Set-Content and Out-File end each one. */
const crlfLines = (lines: readonly string[]) => lines.map((l) => `${l}\r\n`).join("");

/** The predictions and the rendered scripts (file name → text) for the sample stack. */
export async function renderChecks(
  o: RenderOptions,
): Promise<{ predictions: Predictions; files: Map<string, string> }> {
  const w = o.standIn;
  const sample = sampleNode(o.root);
  const files = new Map<string, string>();

  // Checksums: every published checksum file of the plan, with its real Content-Type.
  const install = installScript(sample.plan.downloads);
  files.set("install.ps1", install);
  const assets: ChecksumAsset[] = [];
  for (const d of sample.plan.downloads) {
    if (!d.checksumUrl) continue;
    const r = await o.fetch(d.checksumUrl);
    if (r.status !== 200) throw new Error(`${d.name}: ${d.checksumUrl} answered ${r.status}, not 200`);
    const published = r.body.toString("latin1").trim().split(/\s+/)[0].toLowerCase();
    if (!/^[0-9a-f]{64}$/.test(published))
      throw new Error(`${d.name}: ${d.checksumUrl} holds no SHA-256 as its first word`);
    const content = w.webContent(r.contentType, r.body);
    assets.push({
      name: d.name,
      url: d.checksumUrl,
      contentType: r.contentType,
      contentIs: Buffer.isBuffer(content) ? "byte[]" : "string",
      published,
    });
  }

  // The kubelet service's command line: the script's `$bin` through sc.exe and back.
  const serviceScript = kubeletServiceScript(sample.registration(w.kubeletDefaultNodeName(o.dnsHostName)));
  files.set("kubelet-service.ps1", serviceScript);
  const binLines = linesBetween(serviceScript, /^\$flags = @\(/, /^\$bin = /, "the kubelet service script");
  const created = binOf(w, binLines, null);
  const joined = binOf(w, binLines, KUBEADM_FLAGS_ENV);
  // The form the program wrote before row 2's fix: empty values as `""`, which 5.1 passes unescaped.
  const quotedEmpty = created.replace(/(--enforce-node-allocatable=|--resolv-conf=)(?= |$)/g, '$1""');
  const service = {
    name: TEST_SERVICE,
    lines: binLines.join("\n"),
    cases: [
      serviceCase(w, "the service script's create", "create", created, null, true),
      serviceCase(w, "the join's config, kubeadm-flags.env merged", "config", joined, KUBEADM_FLAGS_ENV, true),
      serviceCase(w, 'empty values written "" (before row 2\'s fix)', "config", quotedEmpty, null, false),
    ],
  };

  // administrators_authorized_keys: the prepare script's lines up to the end of the block that replaces the file
  // (restricted as a temporary file, then moved into place).
  const keys = o.rsaKeys ?? rsa4096Keys(Math.max(...RETIRE_COUNTS) + 1);
  const key = keys[0];
  const prepare = prepareScript(key);
  files.set("prepare.ps1", prepare);
  const upToMove = linesBetween(
    prepare,
    /^\$ErrorActionPreference/,
    /^\s*Move-Item .* -Destination \$keyFile /,
    "the prepare script",
  );
  const keyLines = [
    ...upToMove,
    ...linesBetween(prepare.split("\n").slice(upToMove.length).join("\n"), /^/, /^\}$/, "the prepare script"),
  ];
  // Both cases leave a file the script wrote anew: its icacls lines in order on the temporary file, then the move,
  // which keeps that ACL (files.rename-keeps-acl); and any icacls line on the live file after.
  const icaclsLines = [...prepare.matchAll(/^\s*icacls\.exe \$(?:tmp|keyFile) (.*?) \| Out-Null$/gm)].map((m) => m[1]);
  if (icaclsLines.length === 0) throw new Error("the prepare script no longer restricts the key file with icacls");
  let acl: StandInAcl | Error = w.newFileAcl();
  for (const line of icaclsLines) if (!(acl instanceof Error)) acl = w.icacls(acl, w.icaclsArgs(line));
  if (acl instanceof Error) throw new Error(`the stand-in's icacls refuses the prepare script's line: ${acl.message}`);
  const after = w.encodeText(crlfLines([key]), "ascii");
  if (!w.sshdKeyLines(after).includes(key)) throw new Error("the stand-in's sshd reads no key from an ASCII file");
  const utf16 = w.encodeText(crlfLines([key]), "unicode");
  const keyCases: KeyFileCase[] = [
    { name: "no file yet", before: null, beforeBytes: null, beforeLines: [], beforeSshdLines: [] },
    {
      name: "the key in a file Out-File wrote (UTF-16LE)",
      before: "out-file" as const,
      beforeBytes: b64(utf16),
      beforeLines: w.getContentLines(utf16),
      beforeSshdLines: w.sshdKeyLines(utf16),
    },
  ].map((c) => ({ ...c, afterBytes: b64(after), afterLines: w.getContentLines(after) }));

  // Host names.
  const hostName = {
    dnsHostName: o.dnsHostName,
    computerName: w.netbiosName(o.dnsHostName),
    kubeletNodeName: w.kubeletDefaultNodeName(o.dnsHostName),
  };

  // The retire command over exec, as retire.ts would send it, for 1 to 4 retired RSA-4096 keys.
  const retireKeys = keys.slice(1);
  const retireCases = RETIRE_COUNTS.map((n): RetireCase => {
    const commandLine = powershellCommand(retireKeysScript(key, retireKeys.slice(0, n)));
    return {
      retired: n,
      commandLine,
      length: commandLine.length,
      refused: w.execCommandLineProblem(commandLine) ?? null,
    };
  });

  // An error on stderr from an -EncodedCommand PowerShell (row 11).
  const xml = w.clixml(`${STDERR_MESSAGE}\r\n`);
  const firstRecord = /<S S="Error">.*?<\/S>/.exec(xml)?.[0];
  if (!firstRecord) throw new Error("the stand-in's clixml wrote no error record");
  const stderr = {
    commandLine: powershellCommand(`throw '${STDERR_MESSAGE}'`),
    message: STDERR_MESSAGE,
    header: xml.split("\r\n")[0],
    firstRecord,
  };

  const rules: Predictions["rules"] = {};
  for (const id of Object.values(CHECK_RULES).flat()) {
    const r = w.rule(id);
    rules[id] = { rule: r.rule, source: r.source, rows: r.rows };
  }
  return {
    predictions: {
      sampleStack: SAMPLE_STACK.split("\\").join("/"),
      rules,
      checksum: { lines: checksumLines(install), assets },
      service,
      keys: {
        key,
        lines: keyLines.join("\n"),
        cases: keyCases,
        acl: { protected: acl.protected, sids: w.aclSids(acl) },
      },
      hostName,
      retire: { limit: w.CMD_EXE_MAX_COMMAND_LINE, keep: key, retireKeys, cases: retireCases },
      stderr,
    },
    files,
  };
}

/** JSON with every non-ASCII character escaped: Windows PowerShell reads a file without a BOM in the ANSI code page. */
export function asciiJson(value: unknown): string {
  return JSON.stringify(value, null, 2).replace(
    /[\u007f-\uffff]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}
