import { execFileSync } from "child_process";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { parse } from "yaml";
import { CHECK_RULES, Fetcher, Predictions, rsa4096Keys } from "../../scripts/windows-ci/checks";
import { renderTo } from "../../scripts/windows-ci/render";
import { standIn } from "../../scripts/windows-ci/stand-in";
import { RSA_4096_PUBLIC_KEYS } from "../helpers/fixture-keys";
import { powershellErrors } from "../helpers/powershell-parser";

// The Windows workflow's node side (scripts/windows-ci): what it renders for check.ps1, which only a Windows runner
// runs (.github/workflows/windows-powershell.yml). Windows itself cannot run here; these tests prove the predictions
// are the stand-in's, for the program's own scripts, and that check.ps1 is Windows PowerShell 5.1 that parses.

const ROOT = path.resolve(__dirname, "..", "..");
const w = standIn();
const SHA = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

/** GitHub serves release assets as application/octet-stream; dl.k8s.io is given a text type here. */
const fakeFetch: Fetcher = async (url) => ({
  status: 200,
  contentType: url.startsWith("https://github.com/") ? "application/octet-stream" : "text/plain; charset=utf-8",
  body: Buffer.from(`${SHA}  ${path.posix.basename(url)}\n`),
});

let dir: string;
let p: Predictions;
// The committed test-only keys (test/fixtures/keys): rsa4096Keys, which renders them when the workflow runs, is
// tested once below instead of generating five RSA-4096 keys here on every run.
const keys = RSA_4096_PUBLIC_KEYS;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "windows-ci-"));
  await renderTo(dir, {
    root: ROOT,
    standIn: w,
    dnsHostName: "Corporate-Mail-Server01",
    fetch: fakeFetch,
    rsaKeys: [...keys],
  });
  p = JSON.parse(fs.readFileSync(path.join(dir, "predictions.json"), "utf8")) as Predictions;
}, 120_000);

afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

test("the directory holds the sample stack's scripts and an ASCII predictions file (Windows PowerShell reads it so)", () => {
  expect(fs.readdirSync(dir).sort()).toEqual(["install.ps1", "kubelet-service.ps1", "predictions.json", "prepare.ps1"]);
  expect(fs.readFileSync(path.join(dir, "predictions.json"), "latin1")).toMatch(/^[\x00-\x7f]*$/);
  expect(p.sampleStack).toBe("stacks/examples/Pulumi.kubeadm.yaml");
});

test("every rule a check relies on is quoted with its source", () => {
  for (const id of Object.values(CHECK_RULES).flat())
    expect(p.rules[id]).toEqual(expect.objectContaining({ rule: w.rule(id).rule, source: w.rule(id).source }));
});

test("checksums: one per published checksum file of the plan; .Content is byte[] for GitHub's octet-stream, a string for text (row 1)", () => {
  const byName = Object.fromEntries(p.checksum.assets.map((a) => [a.name, a]));
  expect(Object.keys(byName).sort()).toEqual([
    "cni-plugins",
    "containerd",
    "kube-log-runner",
    "kube-proxy",
    "kubeadm",
    "kubelet",
  ]);
  expect(byName.containerd).toEqual({
    name: "containerd",
    url: "https://github.com/containerd/containerd/releases/download/v2.3.4/containerd-2.3.4-windows-amd64.tar.gz.sha256sum",
    contentType: "application/octet-stream",
    contentIs: "byte[]",
    published: SHA,
  });
  expect(byName.kubelet.contentIs).toBe("string");
  // The install script's own lines, from reading the checksum file to $published, and nothing after them.
  expect(p.checksum.lines).toMatch(/^\s*\$content = \(Invoke-WebRequest @web -Uri \$it\.sum\)\.Content/);
  expect(p.checksum.lines).toContain("$published");
  expect(p.checksum.lines).not.toContain("Get-FileHash");
  expect(fs.readFileSync(path.join(dir, "install.ps1"), "utf8")).toContain(p.checksum.lines);
});

test("service: $bin from the script's lines, through 5.1's quoting and sc.exe's parsing (rows 2, 6)", () => {
  const [created, joined, quoted] = p.service.cases;
  expect(p.service.lines.split("\n")[0]).toMatch(/^\$flags = @\(/);
  expect(p.service.lines.split("\n").at(-1)).toMatch(/^\$bin = /);
  // The node name the kubelet registers for this host name (names.js), in the script the provider would send.
  expect(created.bin).toContain("--hostname-override=corporate-mail-server01 ");
  expect(created.bin).toMatch(/^C:\\k\\kube-log-runner\.exe .* C:\\k\\kubelet\.exe --cert-dir=/);
  expect(created.args).toEqual(["create", "windows-estate-ci-kubelet", "binPath=", created.bin, "start=", "demand"]);
  expect(created.commandLine).toBe(`"sc.exe" create windows-estate-ci-kubelet binPath= "${created.bin}" start= demand`);
  expect(created.imagePath).toBe(created.bin);
  // kubeadm's flags merged, a removed one dropped (facts/kubernetes.ts REMOVED_KUBELET_FLAGS).
  expect(joined.bin).toContain(" --container-runtime-endpoint=npipe:////./pipe/containerd-containerd");
  expect(joined.bin).not.toContain("--pod-infra-container-image");
  expect(joined.bin.match(/--hostname-override=/g)).toHaveLength(1);
  expect(joined.imagePath).toBe(joined.bin);
  // The old `""` form: 5.1 does not escape the quotes, so sc.exe stores a mangled command line.
  expect(quoted.fromScript).toBe(false);
  expect(quoted.bin).toContain('--enforce-node-allocatable="" --resolv-conf=""');
  expect(quoted.imagePath).toContain('--enforce-node-allocatable=" --resolv-conf="');
});

test("keys: the prepare script's lines to its key file's replacement; a UTF-16 file Get-Content reads and sshd does not (row 5)", () => {
  expect(p.keys.key).toBe(keys[0]);
  expect(p.keys.lines).toContain("$key = '" + keys[0] + "'");
  // Up to the end of the block that restricts the temporary file and moves it into place.
  expect(p.keys.lines.split("\n").slice(-2)).toEqual([
    expect.stringMatching(/^ {2}Move-Item -LiteralPath \$tmp /),
    "}",
  ]);
  const [fresh, utf16] = p.keys.cases;
  const ascii = Buffer.from(`${keys[0]}\r\n`, "latin1");
  for (const c of [fresh, utf16]) {
    expect(Buffer.from(c.afterBytes, "base64")).toEqual(ascii);
    expect(c.afterLines).toEqual([keys[0]]);
  }
  expect(fresh.before).toBeNull();
  const before = Buffer.from(utf16.beforeBytes ?? "", "base64");
  expect(before.subarray(0, 2)).toEqual(Buffer.from([0xff, 0xfe]));
  expect(before.subarray(2)).toEqual(Buffer.from(`${keys[0]}\r\n`, "utf16le"));
  expect(utf16.beforeLines).toEqual([keys[0]]);
  expect(utf16.beforeSshdLines).not.toContain(keys[0]);
  expect(p.keys.acl).toEqual({ protected: true, sids: ["S-1-5-18", "S-1-5-32-544"] });
});

test("host names: $env:COMPUTERNAME is the NetBIOS name of the DNS host name read on the runner (row 8)", () => {
  expect(p.hostName).toEqual({
    dnsHostName: "Corporate-Mail-Server01",
    computerName: "CORPORATE-MAIL-",
    kubeletNodeName: "corporate-mail-server01",
  });
});

/** The key's size in bits, as ssh-keygen reads the line. */
const rsaBits = (line: string) =>
  Number(execFileSync("ssh-keygen", ["-l", "-f", "-"], { input: line }).toString().split(" ")[0]);

test("rsa4096Keys makes OpenSSH RSA-4096 authorized_keys lines, the form of the fixture keys used in their place", () => {
  const [made] = rsa4096Keys(1);
  const form = /^ssh-rsa [A-Za-z0-9+/]+=*$/;
  expect(made).toMatch(form);
  expect(rsaBits(made)).toBe(4096);
  expect(keys).toHaveLength(5);
  for (const k of keys) {
    expect(k).toMatch(form);
    expect(rsaBits(k)).toBe(4096);
  }
});

test("retire: the exec command line for 1 to 4 RSA-4096 keys against cmd.exe's 8191 characters (row 10)", () => {
  expect(p.retire.limit).toBe(8191);
  expect(p.retire.retireKeys).toEqual(keys.slice(1));
  expect(p.retire.cases.map((c) => c.retired)).toEqual([1, 2, 3, 4]);
  for (const c of p.retire.cases) {
    expect(c.commandLine).toMatch(/^powershell -NoProfile -NonInteractive -ExecutionPolicy Bypass -EncodedCommand /);
    expect(c.length).toBe(c.commandLine.length);
  }
  // cmd.exe refuses a line past 8191 characters (Microsoft KB830473) with its own words; the cases reach both sides
  // of the limit (one key fits, four RSA-4096 keys do not: the audit measured about 10 000 characters at three), so the
  // Windows run checks a line cmd.exe takes and one it refuses.
  for (const c of p.retire.cases) expect(c.refused).toBe(c.length > 8191 ? "The command line is too long." : null);
  expect(p.retire.cases[0].refused).toBeNull();
  expect(p.retire.cases[3].refused).toBe("The command line is too long.");
});

test("stderr: a throwing -EncodedCommand script's first CLIXML record, as transport.js clixml writes it (row 11)", () => {
  expect(p.stderr.commandLine).toMatch(
    /^powershell -NoProfile -NonInteractive -ExecutionPolicy Bypass -EncodedCommand /,
  );
  const encoded = p.stderr.commandLine.split(" ").at(-1) ?? "";
  expect(Buffer.from(encoded, "base64").toString("utf16le")).toBe(`throw '${p.stderr.message}'`);
  expect(p.stderr.header).toBe("#< CLIXML");
  expect(p.stderr.firstRecord).toBe(`<S S="Error">${p.stderr.message}_x000D__x000A_</S>`);
});

test("check.ps1 is Windows PowerShell 5.1 that parses, and checks every part of the predictions", async () => {
  const script = fs.readFileSync(path.join(ROOT, "scripts", "windows-ci", "check.ps1"), "utf8");
  expect(await powershellErrors(script)).toEqual([]);
  for (const part of ["checksum", "service", "keys", "hostName", "retire", "stderr"])
    expect(script).toContain(`$p.${part}.`);
  // PowerShell 7 operators the tree-sitter grammar would not flag in every position.
  const code = script
    .split("\n")
    .filter((l) => !l.trim().startsWith("#"))
    .join("\n");
  expect(code).not.toMatch(/\?\?|\?\.|&&|\|\||\$PSStyle|-Parallel/);
});

test("the workflow runs check.ps1 in Windows PowerShell 5.1 on windows-2022, with no secrets", () => {
  const text = fs.readFileSync(path.join(ROOT, ".github", "workflows", "windows-powershell.yml"), "utf8");
  const wf = parse(text) as {
    on: Record<string, unknown>;
    jobs: Record<string, { "runs-on": string; steps: { run?: string; shell?: string }[] }>;
  };
  expect(Object.keys(wf.on).sort()).toEqual(["pull_request", "push"]);
  expect(text).not.toMatch(/secrets\./);
  const job = Object.values(wf.jobs)[0];
  expect(job["runs-on"]).toBe("windows-2022");
  const runs = job.steps.map((s) => s.run ?? "");
  // pwsh is PowerShell 7; `shell: powershell` and powershell.exe are Windows PowerShell 5.1.
  expect(job.steps.filter((s) => s.shell === "pwsh" || /\bpwsh\b/.test(s.run ?? ""))).toEqual([]);
  // The npm script's command, run without npm (whose `--` Windows PowerShell drops).
  const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8")) as {
    scripts: Record<string, string>;
  };
  expect(pkg.scripts["windows-ci:render"]).toBe("ts-node --transpile-only scripts/windows-ci/render.ts");
  const render = runs.findIndex((r) =>
    r.includes("node node_modules/ts-node/dist/bin.js --transpile-only scripts/windows-ci/render.ts --out "),
  );
  const check = runs.findIndex((r) =>
    r.includes("powershell.exe -NoProfile -ExecutionPolicy Bypass -File scripts\\windows-ci\\check.ps1"),
  );
  expect({ render: render > 0, check: check > render }).toEqual({ render: true, check: true });
});
