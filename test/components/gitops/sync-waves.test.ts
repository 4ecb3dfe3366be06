import * as fs from "fs";
import * as path from "path";
import { parse } from "yaml";
import { PROJECT_DIR } from "../../../scripts/synth/main";
import { readTree, runSynth, scratch } from "../../helpers/stack";

// Render mode writes YAML for Argo CD or Flux; the order `pulumi up` keeps against a cluster (operator, then the key
// WMCO needs, then the MachineSets that need the windows-user-data WMCO writes after seeing the key: docs/architecture.md
// "How the estate is converged") travels with the files as Argo CD sync waves (argocd.argoproj.io/sync-wave: a wave
// starts once the earlier ones are healthy, argo-cd docs/user-guide/sync-waves.md).
const s = scratch();
afterAll(() => s.cleanup());

type Obj = { kind: string; metadata: { name: string; annotations?: Record<string, string> } };
const WAVE = "argocd.argoproj.io/sync-wave";

async function synthDev(extraCluster: Record<string, unknown>): Promise<Obj[]> {
  const dev = parse(fs.readFileSync(path.join(PROJECT_DIR, "Pulumi.dev.yaml"), "utf8")) as {
    config: Record<string, unknown>;
  };
  dev.config["windows-estate:cluster"] = { ...(dev.config["windows-estate:cluster"] ?? {}), ...extraCluster };
  dev.config["windows-estate:privateKeyPath"] = s.keyPath;
  const name = Object.keys(extraCluster).length > 0 ? "rendered" : "applied";
  const file = path.join(s.dir, `Pulumi.${name}.yaml`);
  fs.writeFileSync(file, JSON.stringify(dev));
  const out = path.join(s.dir, name);
  const r = await runSynth(["--stack", name, "--config-file", file, "--out", out, "--quiet"]);
  expect(r.code).toBe(0);
  return [...readTree(out)].filter(([f]) => f.startsWith("1-manifest/")).map(([, t]) => parse(t) as Obj);
}

const waveOf = (objs: Obj[], kind: string, name?: string) => {
  const o = objs.find((x) => x.kind === kind && (name === undefined || x.metadata.name === name));
  if (!o) throw new Error(`no ${kind} ${name ?? ""} rendered`);
  return Number(o.metadata.annotations?.[WAVE]);
};

test("render mode: operator objects, then the key and windows-instances, then the MachineSets", async () => {
  const objs = await synthDev({ render: "rendered/waves", renderKeySecret: true, discovery: false });
  const operator = ["Namespace", "OperatorGroup", "Subscription"].map((k) => waveOf(objs, k));
  const key = waveOf(objs, "Secret", "cloud-private-key");
  const instances = waveOf(objs, "ConfigMap", "windows-instances");
  const machineSet = waveOf(objs, "MachineSet");
  for (const w of [...operator, key, instances, machineSet]) expect(Number.isInteger(w)).toBe(true);
  for (const w of operator) expect(w).toBeLessThan(key);
  expect(instances).toBeGreaterThan(Math.max(...operator));
  expect(machineSet).toBeGreaterThan(key);
  // Mirror sets and RuntimeClasses are cluster-wide settings WMCO reads when it configures a node: with the operator.
  expect(waveOf(objs, "ImageDigestMirrorSet")).toBeLessThan(machineSet);
  expect(waveOf(objs, "RuntimeClass")).toBeLessThan(machineSet);
});

test("a stack that applies to a cluster itself gets no sync-wave annotation (no diff on every object)", async () => {
  const objs = await synthDev({});
  expect(objs.length).toBeGreaterThan(5);
  for (const o of objs) expect([o.kind, o.metadata.annotations?.[WAVE]]).toEqual([o.kind, undefined]);
});

test("kubeadm in render mode: accounts before the DaemonSets; patches of flannel's and kube-proxy's objects get no wave", async () => {
  const text = fs.readFileSync(path.join(PROJECT_DIR, "stacks", "examples", "Pulumi.kubeadm.yaml"), "utf8");
  const file = path.join(s.dir, "Pulumi.kubeadm.yaml");
  fs.writeFileSync(file, text.replace("privateKeyPath: ~/.ssh/wmco", `privateKeyPath: ${s.keyPath}`));
  const out = path.join(s.dir, "kubeadm");
  const r = await runSynth(["--stack", "kubeadm", "--config-file", file, "--out", out, "--quiet"]);
  expect(r.code).toBe(0);
  const files = [...readTree(out)];
  const objs = files.filter(([f]) => f.startsWith("1-manifest/")).map(([, t]) => parse(t) as Obj);
  expect(waveOf(objs, "ServiceAccount")).toBeLessThan(waveOf(objs, "DaemonSet"));
  const patches = files.filter(([f]) => f.startsWith("2-patch/")).map(([, t]) => parse(t) as Obj);
  expect(patches.length).toBeGreaterThan(0);
  for (const p of patches) expect([p.kind, p.metadata.annotations?.[WAVE]]).toEqual([p.kind, undefined]);
});
