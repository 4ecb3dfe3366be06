import * as cluster from "../../components/cluster-objects";
import { validateObject } from "../helpers/schemas";

// Discovery's decoders at the boundary (components/cluster-objects.ts): objects hand-built in the shapes the API serves
// (openshift/api, OLM, core/v1; the MachineSet and Infrastructure validated against their schemas below), and what a
// cluster we do not know may send instead: a field of another type reads as absent, never as a crash.

const b64 = (s: string) => Buffer.from(s, "utf8").toString("base64");

test("Infrastructure: platform from status (else spec), the infrastructure name, the AWS and GCP region", () => {
  const infra = {
    apiVersion: "config.openshift.io/v1",
    kind: "Infrastructure",
    metadata: { name: "cluster" },
    spec: { platformSpec: { type: "AWS" } },
    status: { infrastructureName: "ocp-x", platformStatus: { type: "AWS", aws: { region: "us-east-1" } } },
  };
  expect(validateObject(infra)).toBe("");
  expect(cluster.decodeInfrastructure(infra)).toEqual({
    platform: "AWS",
    infrastructureName: "ocp-x",
    region: { AWS: "us-east-1", GCP: undefined },
  });
  expect(cluster.decodeInfrastructure({ spec: { platformSpec: { type: "GCP" } }, status: "?" })?.platform).toBe("GCP");
  expect(cluster.decodeInfrastructure({ status: { infrastructureName: 7, platformStatus: [] } })).toEqual({
    platform: undefined,
    infrastructureName: undefined,
    region: { AWS: undefined, GCP: undefined },
  });
  expect(cluster.decodeInfrastructure(undefined)).toBeUndefined();
});

test("MachineSets: name, replicas and labels; the Linux workers are the worker role, not Windows, with a providerSpec", () => {
  const ms = (name: string, labels: Record<string, string>, value?: unknown, replicas: unknown = 1) => ({
    apiVersion: "machine.openshift.io/v1beta1",
    kind: "MachineSet",
    metadata: { name, namespace: "openshift-machine-api" },
    spec: {
      replicas,
      selector: { matchLabels: { "machine.openshift.io/cluster-api-machineset": name } },
      template: { metadata: { labels }, spec: { providerSpec: value === undefined ? {} : { value } } },
    },
  });
  const worker = { "machine.openshift.io/cluster-api-machine-role": "worker" };
  const list = {
    items: [
      ms("linux", worker, { kind: "AWSMachineProviderConfig" }, 3),
      ms("win", { ...worker, "machine.openshift.io/os-id": "Windows" }, { kind: "AWSMachineProviderConfig" }),
      ms("infra", { "machine.openshift.io/cluster-api-machine-role": "infra" }, { kind: "AWSMachineProviderConfig" }),
      ms("no-spec", worker),
      ms("odd", worker, "text", "2"),
      "not an object",
    ],
  };
  expect(validateObject(ms("linux", worker, { kind: "AWSMachineProviderConfig" }, 3))).toBe("");
  const sets = cluster.decodeMachineSets(list);
  expect(sets.map((s) => [s.name, s.replicas])).toEqual([
    ["linux", 3],
    ["win", 1],
    ["infra", 1],
    ["no-spec", 1],
    ["odd", undefined],
  ]);
  expect(cluster.linuxWorkerSpecs(sets)).toEqual([{ kind: "AWSMachineProviderConfig" }]);
  expect(cluster.decodeMachineSets({ items: "none" })).toEqual([]);
  expect(cluster.decodeMachineSets(undefined)).toEqual([]);
});

test("Machines: each with its MachineSet label, going when deleted or marked; one without a MachineSet is left out", () => {
  const machine = (name: string, labels: Record<string, string>, metadata: Record<string, unknown> = {}) => ({
    metadata: { name, labels, ...metadata },
    spec: { providerSpec: { value: { ami: { id: "ami-1" } } } },
  });
  const set = { "machine.openshift.io/cluster-api-machineset": "winworker" };
  const rows = cluster.decodeMachines({
    items: [
      machine("a", set),
      machine("b", set, { deletionTimestamp: "2026-01-01T00:00:00Z" }),
      // machine-api's MachineSet controller deletes a Machine carrying this annotation first on a scale-down.
      machine("c", set, { annotations: { "machine.openshift.io/delete-machine": "true" } }),
      machine("d", {}),
    ],
  });
  expect(rows.map(({ name, machineSet, deleting, marked }) => ({ name, machineSet, deleting, marked }))).toEqual([
    { name: "a", machineSet: "winworker", deleting: false, marked: false },
    { name: "b", machineSet: "winworker", deleting: true, marked: false },
    { name: "c", machineSet: "winworker", deleting: false, marked: true },
  ]);
  expect(rows[0].image).toContain("ami-1");
});

test("Subscription, ClusterVersion and /version: the one string each is read for", () => {
  expect(cluster.installedCsv({ status: { installedCSV: "windows-machine-config-operator.v10.19.0" } })).toBe(
    "windows-machine-config-operator.v10.19.0",
  );
  expect(cluster.installedCsv({ status: { installedCSV: "" } })).toBeUndefined();
  expect(cluster.installedCsv(undefined)).toBeUndefined();
  expect(cluster.desiredVersion({ status: { desired: { version: "4.19.3" } } })).toBe("4.19.3");
  expect(cluster.desiredVersion({ status: { desired: "4.19.3" } })).toBeUndefined();
  expect(cluster.gitVersion({ gitVersion: "v1.32.4" })).toBe("v1.32.4");
  expect(cluster.gitVersion({ gitVersion: 132 })).toBeUndefined();
});

test("NodeList page: each node's NoSchedule/NoExecute taints, whether it goes on, how many are left", () => {
  expect(
    cluster.decodeNodeTaints({
      metadata: { continue: "abc", remainingItemCount: 4 },
      items: [{ spec: { taints: [{ key: "k", effect: "NoSchedule" }, "junk"] } }, { spec: {} }],
    }),
  ).toEqual({ taints: [[{ key: "k", effect: "NoSchedule" }], []], continued: true, remaining: 4 });
  expect(cluster.decodeNodeTaints({ items: [] })).toEqual({ taints: [], continued: false, remaining: undefined });
  expect(cluster.decodeNodeTaints(undefined)).toBeUndefined();
});

test("Secrets: the pull secret's registry names only, and one key decoded from base64", () => {
  const pullSecret = {
    data: { ".dockerconfigjson": b64(JSON.stringify({ auths: { "quay.io": { auth: "x" }, "a.example": {} } })) },
  };
  expect(cluster.registriesIn(pullSecret)).toEqual(["a.example", "quay.io"]);
  expect(cluster.registriesIn({ data: { ".dockerconfigjson": b64("not json") } })).toEqual([]);
  expect(cluster.registriesIn({ data: { ".dockerconfigjson": b64('{"auths": []}') } })).toEqual([]);
  expect(cluster.registriesIn(undefined)).toEqual([]);
  expect(cluster.secretText({ data: { userData: b64("<powershell>") } }, "userData")).toBe("<powershell>");
  expect(cluster.secretText({ data: { userData: "" } }, "userData")).toBeUndefined();
  expect(cluster.secretText(undefined, "userData")).toBeUndefined();
});

test("mirror sets: each entry's source, mirrors and policy as WMCO reads them; an entry without a source is dropped", () => {
  const idms = {
    apiVersion: "config.openshift.io/v1",
    kind: "ImageDigestMirrorSet",
    metadata: { name: "corp" },
    spec: {
      imageDigestMirrors: [
        { source: "quay.io/team", mirrors: ["m.local/team", 5], mirrorSourcePolicy: "NeverContactSource" },
        { mirrors: ["m.local/x"] },
        "junk",
      ],
    },
  };
  const valid = { ...idms, spec: { imageDigestMirrors: [{ source: "quay.io/team", mirrors: ["m.local/team"] }] } };
  expect(validateObject(valid)).toBe("");
  const found = cluster.decodeMirrorSets({
    idms: [idms],
    itms: [{ metadata: { name: 7 }, spec: { imageTagMirrors: "x" } }],
  });
  expect(found).toEqual({
    idms: [
      {
        metadata: { name: "corp" },
        spec: {
          imageDigestMirrors: [
            { source: "quay.io/team", mirrors: ["m.local/team"], mirrorSourcePolicy: "NeverContactSource" },
          ],
        },
      },
    ],
    itms: [{ metadata: { name: undefined }, spec: { imageTagMirrors: [] } }],
  });
});

test("RuntimeClasses: name and scheduling.nodeSelector; one without a name is dropped", () => {
  expect(
    cluster.decodeRuntimeClasses({
      items: [
        { metadata: { name: "x" }, handler: "h", scheduling: { nodeSelector: { a: "b", n: 1 } } },
        { handler: "no name" },
        { metadata: { name: "y" }, scheduling: { nodeSelector: "a=b" } },
      ],
    }),
  ).toEqual([
    { name: "x", nodeSelector: { a: "b" } },
    { name: "y", nodeSelector: {} },
  ]);
  expect(cluster.decodeRuntimeClasses(undefined)).toEqual([]);
});
