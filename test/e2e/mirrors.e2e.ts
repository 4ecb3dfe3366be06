import { spawnSync } from "child_process";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { stringify } from "yaml";
import type { LabInfo } from "../../lab/record";
import { labApi, stopLab } from "./lab";
import { labStack, Stack } from "./project";

// Mirror sources WMCO cannot write on a Windows node, through the real commands: `npm run synth` (offline) and
// `pulumi preview` (discovery on) against the Azure lab. WMCO writes each source registry's file to
// C:\k\containerd\registries\<source>\hosts.toml with the source as spelled, port or wildcard included
// (pkg/registries/registries.go GenerateConfigFiles; pkg/windows/windows.go ContainerdConfigDir), and the failed
// write stops node configuration (pkg/nodeconfig/nodeconfig.go Configure), on release-4.18 to master alike.

const LAB = "e2e-mirrors";
const IDMS = "/apis/config.openshift.io/v1/imagedigestmirrorsets";
let lab: LabInfo;
let dir: string;
let base: Record<string, unknown>;
let stack: Stack;

/** The dev stack (one Windows MachineSet) with a mirror source on a registry port after its two digest entries. */
function withPortSource(): Record<string, unknown> {
  const config = structuredClone(base);
  const mirrors = config["windows-estate:mirrors"] as { digest: { source: string; mirrors: string[] }[] };
  mirrors.digest.push({ source: "registry.corp.example:5000/team/app", mirrors: ["mirror.example.com/team/app"] });
  return config;
}

beforeAll(async () => {
  ({ lab, dir, stack, config: base } = await labStack("azure", LAB, { file: "Pulumi.dev.yaml" }));
}, 900_000);
afterAll(() => stopLab(LAB));

test("synth refuses a digest source with a port: exit 2, naming mirrors.digest[2].source and why, nothing written", () => {
  const file = path.join(dir, "Pulumi.port-mirror.yaml");
  fs.writeFileSync(file, stringify({ config: withPortSource() }));
  const out = fs.mkdtempSync(path.join(os.tmpdir(), "mirrors-synth-"));
  const r = spawnSync(
    "npm",
    ["run", "-s", "synth", "--", "--stack", "port-mirror", "--config-file", file, "--out", out],
    {
      cwd: dir,
      encoding: "utf8",
      timeout: 300_000,
    },
  );
  const text = `${r.stdout}${r.stderr}`;
  expect(r.status).toBe(2);
  expect(text).toContain(
    "windows-estate:mirrors.digest[2].source: registry.corp.example:5000/team/app: WMCO writes this registry's mirrors to C:\\k\\containerd\\registries\\registry.corp.example:5000\\hosts.toml",
  );
  expect(text).toContain("':' cannot be part of a Windows file name");
  expect(text).toContain("nothing was written.");
  expect(text).not.toMatch(/^\s+at /m);
  expect(fs.readdirSync(out)).toEqual([]);
});

test("preview refuses the same config before anything is declared", () => {
  stack.writeConfig(withPortSource());
  const p = stack.previewJson();
  expect(p.status).not.toBe(0);
  expect(p.stdout + p.stderr).toContain("windows-estate:mirrors.digest[2].source: registry.corp.example:5000/team/app");
  expect(p.steps.filter((s) => s.newState?.type !== "pulumi:pulumi:Stack")).toEqual([]);
});

test("another team's ImageDigestMirrorSet with a port in the cluster stops the preview, naming the object", async () => {
  const api = labApi(lab);
  const created = await api.request("POST", IDMS, {
    apiVersion: "config.openshift.io/v1",
    kind: "ImageDigestMirrorSet",
    metadata: { name: "corp-registry" },
    spec: {
      imageDigestMirrors: [
        { source: "quay.io/corp/tools", mirrors: ["mirror.example.com/corp/tools"] },
        { source: "registry.corp.example:5000/team", mirrors: ["mirror.example.com/team"] },
      ],
    },
  });
  // The real CRD (openshift/api) admits a source with a port: WMCO, not the API server, is where it breaks.
  expect(created.status).toBe(201);
  try {
    stack.writeConfig(base);
    const p = stack.previewJson();
    const text = p.stdout + p.stderr;
    expect(p.status).not.toBe(0);
    expect(text).toContain(
      "windows-estate:cluster: the cluster's ImageDigestMirrorSet corp-registry has source registry.corp.example:5000/team (spec.imageDigestMirrors[1].source): WMCO writes",
    );
    expect(text).toContain("oc edit imagedigestmirrorset corp-registry");
    expect(p.steps.filter((s) => s.newState?.type !== "pulumi:pulumi:Stack")).toEqual([]);

    // Without Windows nodes in the stack nothing fails yet: the preview passes and says it.
    stack.writeConfig({ ...base, "windows-estate:machineSets": [] });
    const quiet = stack.previewJson();
    expect(quiet.status).toBe(0);
    expect(quiet.stdout + quiet.stderr).toContain("This stack declares no Windows nodes, so nothing fails yet");
  } finally {
    await api.request("DELETE", `${IDMS}/corp-registry`);
  }
});
