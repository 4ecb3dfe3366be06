// Native command lines in Windows PowerShell 5.1 as the stand-in models them (test/lab/windows-51/native.js; audit
// rows 2 and 6): the kubelet service's command line goes through 5.1's legacy argument passing to sc.exe, sc.exe's
// C runtime splits it, the service keeps binPath='s value as its ImagePath, and the kubelet starts from that.
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { joinConfiguration } from "../../components/vanilla/node-plan";
import { WINDOWS_TAINT } from "../../facts/kubernetes";
import { joinScript, kubeletServiceScript } from "../../providers/vanilla-node/scripts";
import { HostState, newHost, runScript } from "./windows-51-run";

const win = require("./windows-51");

describe("the rules (windows-51/native.js)", () => {
  test("crtParse gives what Microsoft's table of examples gives", () => {
    // Microsoft Learn "Parsing C command-line arguments": its table (input; argv[1], argv[2], argv[3]).
    expect(win.rule("native.crt-argv").source).toContain("Parsing C command-line arguments");
    const table: [string, string[]][] = [
      [String.raw`"a b c" d e`, ["a b c", "d", "e"]],
      [String.raw`"ab\"c" "\\" d`, ['ab"c', "\\", "d"]],
      [String.raw`a\\\b d"e f"g h`, [String.raw`a\\\b`, "de fg", "h"]],
      [String.raw`a\\\"b c d`, [String.raw`a\"b`, "c", "d"]],
      [String.raw`a\\\\"b c" d e`, [String.raw`a\\b c`, "d", "e"]],
      [String.raw`a"b"" c d`, ['ab" c d']],
    ];
    for (const [input, argv] of table)
      expect([input, win.crtParse(`ARGS.EXE ${input}`).slice(1)]).toEqual([input, argv]);
    // argv[0]: quotes only group (the program's path).
    expect(win.crtParse('"C:\\Program Files\\a.exe" x')).toEqual(["C:\\Program Files\\a.exe", "x"]);
    // Go's rule (the kubelet's own argv): `""` inside quotes also ends the quoting.
    expect(win.crtParse('a"b"" c d', { go: true })).toEqual(['ab"', "c", "d"]);
  });

  test("legacyCommandLine: the path quoted, empty values dropped, values with blanks quoted, nothing escaped", () => {
    expect(win.rule("native.legacy-quoting").source).toContain("NativeCommandParameterBinder.cs");
    expect(win.legacyCommandLine("sc.exe", ["query", "", "kubelet"])).toBe('"sc.exe" query kubelet');
    // Whitespace inside the value's own quotes needs none (the binder's example `a"b c"d`).
    expect(win.legacyCommandLine("x.exe", ['a"b c"d'])).toBe('"x.exe" a"b c"d');
    // An embedded `""` is passed as it is inside the added quotes, so the C runtime reads it as one literal quote
    // and the quoting goes on: the value arrives changed (PowerShell/PowerShell#1995).
    const value = 'C:\\k\\a.exe --x="" --y=""';
    const line = win.legacyCommandLine("sc.exe", ["config", "s", "binPath=", value]);
    expect(line).toBe('"sc.exe" config s binPath= "C:\\k\\a.exe --x="" --y="""');
    expect(win.crtParse(line)[4]).toBe('C:\\k\\a.exe --x=" --y="');
    // A trailing backslash is not doubled in 5.1 (only 6.0 did, #4965): it escapes the closing quote.
    expect(win.crtParse(win.legacyCommandLine("x.exe", ["C:\\dir with space\\"]))).toEqual([
      "x.exe",
      'C:\\dir with space"',
    ]);
  });

  test("scImagePath: binPath='s next element; a split value or a missing space is refused with 1639", () => {
    expect(win.rule("native.sc-binpath").source).toContain("sc-config");
    const argv = ["sc.exe", "config", "kubelet", "binPath=", "C:\\k\\a.exe --x", "depend=", "containerd"];
    expect(win.scImagePath(argv)).toBe("C:\\k\\a.exe --x");
    expect(win.scImagePath(["sc.exe", "config", "kubelet", "start=", "auto"])).toBeUndefined();
    for (const bad of [
      ["sc.exe", "config", "kubelet", "binPath=C:\\k\\a.exe"],
      ["sc.exe", "config", "kubelet", "binPath=", "C:\\k\\a.exe", "--x"],
      ["sc.exe", "create", "kubelet", "start=", "auto"],
    ]) {
      const r = win.scImagePath(bad);
      expect(r).toBeInstanceOf(Error);
      expect(r.exitCode).toBe(1639);
    }
  });

  test("the old join's re-pass of the stored PathName (audit row 2) mangles the empty values", () => {
    // providers/vanilla-node/scripts.ts at c5bd4c5: `'--enforce-node-allocatable=\"\"'` went through sc.exe once
    // intact (`\"` is a literal quote), then the join passed Win32_Service.PathName back with kubeadm's flags added.
    const first = String.raw`C:\k\kube-log-runner.exe --log-file=C:\var\log\kubelet\kubelet.log C:\k\kubelet.exe --cgroups-per-qos=false --enforce-node-allocatable=\"\" --resolv-conf=\"\" --windows-service`;
    const sc = (bin: string) =>
      win.scImagePath(win.crtParse(win.legacyCommandLine("sc.exe", ["config", "kubelet", "binPath=", bin])));
    const stored = sc(first);
    expect(stored).toContain('--enforce-node-allocatable="" --resolv-conf="" --windows-service');
    const again = sc(`${stored} --hostname-override=win-a`);
    expect(again).toContain('--enforce-node-allocatable=" --resolv-conf=" --windows-service');
    // The kubelet (Go) then reads one flag whose value is " --resolv-conf=".
    expect(win.crtParse(again, { go: true })).toContain("--enforce-node-allocatable= --resolv-conf=");
  });
});

describe("the kubelet service through sc.exe on the stand-in (rows 2, 6)", () => {
  const TOKEN = "abcdef.0123456789abcdef";
  const PIN = `sha256:${"ab".repeat(32)}`;
  const reg = { nodeName: "win-n-1", nodeIp: "10.0.0.22", labels: { pool: "windows" }, taints: [WINDOWS_TAINT] };
  let dir: string;
  beforeAll(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), "native51-"))));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  /** The kubelet service step (its script through `edit`), then the join against an unreachable API server. */
  async function serviceThenJoin(name: string, edit: (s: string) => string = (s) => s) {
    const h = newHost(dir, name);
    const service = await runScript(edit(kubeletServiceScript(reg)), h.state);
    const file = "C:\\k\\kubeadm\\join.yaml";
    h.write(
      file,
      joinConfiguration(
        { labels: reg.labels, taints: [WINDOWS_TAINT] },
        reg.nodeName,
        { apiServerEndpoint: "10.0.0.10:6443" },
        { token: TOKEN, caCertHash: PIN },
      ),
    );
    const join = await runScript(joinScript(file, reg), h.state);
    return { h, service, join };
  }
  const imagePath = (h: { read: () => HostState }): string => h.read().scm?.kubelet?.imagePath ?? "";

  test("the current flags (`--flag=`, no quotes) are stored as written and the kubelet starts after the join", async () => {
    const { h, service, join } = await serviceThenJoin("win-n-1");
    expect(service.ok).toBe(true);
    expect(join).toMatchObject({ ok: true, error: "" });
    const stored = imagePath(h);
    expect(stored).toMatch(/^C:\\k\\kube-log-runner\.exe .* C:\\k\\kubelet\.exe --cert-dir=/);
    expect(stored).toContain(" --enforce-node-allocatable= --resolv-conf= --windows-service ");
    expect(h.read().kubeletFlags).toEqual(expect.arrayContaining(["--enforce-node-allocatable=", "--resolv-conf="]));
    expect(h.read()).toMatchObject({
      joined: true,
      registeredAs: "win-n-1",
      services: { kubelet: { status: "Running" } },
    });
  });

  test('the old `--flag=""` form reaches the kubelet mangled through sc.exe, and the kubelet refuses: the join fails', async () => {
    const quoted = (s: string) =>
      s
        .replace("'--enforce-node-allocatable='", "'--enforce-node-allocatable=\"\"'")
        .replace("'--resolv-conf='", "'--resolv-conf=\"\"'");
    expect(quoted(kubeletServiceScript(reg))).toContain("'--enforce-node-allocatable=\"\"'");
    const { h, service, join } = await serviceThenJoin("win-n-2", quoted);
    expect(service.ok).toBe(true);
    expect(imagePath(h)).toContain('--enforce-node-allocatable=" --resolv-conf=" --windows-service');
    expect(h.read().kubeletFlags).toContain("--enforce-node-allocatable= --resolv-conf=");
    expect(join.ok).toBe(false);
    // pkg/kubelet/apis/config/validation/validation.go ValidateKubeletConfiguration.
    expect(join.error).toContain(
      "failed while waiting for the kubelet to start: invalid configuration: enforceNodeAllocatable (--enforce-node-allocatable) is not supported unless cgroupsPerQOS (--cgroups-per-qos) is set to true",
    );
    expect(h.read().joined ?? false).toBe(false);
  });

  test("a value sc.exe splits into extra words is refused (1639) and the script stops on the exit code", async () => {
    // binPath= with its value outside the quotes' reach: the flags become words sc.exe does not know.
    const split = (s: string) =>
      s.replace("sc.exe create kubelet binPath= $bin", "sc.exe create kubelet binPath= $bin --x");
    const h = newHost(dir, "win-n-3");
    const r = await runScript(split(kubeletServiceScript(reg)), h.state);
    expect(r.ok).toBe(false);
    expect(r.error).toContain("registering the kubelet service failed with 1639");
    expect(h.read().scm?.kubelet?.imagePath).toBeUndefined();
  });

  test("row 6: re-running the service step (a kubelet upgrade) keeps kubeadm's flags in the stored ImagePath", async () => {
    const { h, join } = await serviceThenJoin("win-n-4");
    expect(join.ok).toBe(true);
    // kubeadm-flags.env as a kubeadm before NodeLocalCRISocket wrote it (cmd/kubeadm/app/phases/kubelet/flags.go:
    // the CRI endpoint and the pause image), so it holds a flag the service's own list has not.
    const env = "C:\\var\\lib\\kubelet\\kubeadm-flags.env";
    fs.writeFileSync(
      h.drive(env),
      'KUBELET_KUBEADM_ARGS="--container-runtime-endpoint=npipe:////./pipe/containerd-containerd --hostname-override=win-n-1 --pod-infra-container-image=registry.k8s.io/pause:3.10"\n',
    );
    const upgrade = await runScript(kubeletServiceScript(reg), h.state);
    expect(upgrade.ok).toBe(true);
    const stored = imagePath(h);
    expect(stored).toContain(" --container-runtime-endpoint=npipe:////./pipe/containerd-containerd");
    // A flag the kubelet no longer has is dropped (facts/kubernetes.ts REMOVED_KUBELET_FLAGS), none twice.
    expect(stored).not.toContain("--pod-infra-container-image");
    expect(stored.split(" ").filter((f) => f.startsWith("--hostname-override="))).toEqual([
      "--hostname-override=win-n-1",
    ]);
    expect(h.read().kubeletFlags).toContain("--container-runtime-endpoint=npipe:////./pipe/containerd-containerd");

    // Without the merge, the same re-run resets the ImagePath to the service's own flags: kubeadm's are gone.
    const lines = kubeletServiceScript(reg).split("\n");
    const from = lines.findIndex((l) => l.startsWith("if (Test-Path -LiteralPath $envFile)"));
    const to = lines.findIndex((l, k) => k > from && l === "}");
    expect(from).toBeGreaterThan(0);
    const noMerge = [...lines.slice(0, from), ...lines.slice(to + 1)].join("\n");
    expect((await runScript(noMerge, h.state)).ok).toBe(true);
    expect(imagePath(h)).not.toContain("--container-runtime-endpoint");
  });
});
