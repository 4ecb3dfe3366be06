import {
  decodeInfrastructure,
  decodeMachines,
  decodeMachineSets,
  decodeNodeTaints,
  desiredVersion,
  gitVersion,
  installedCsv,
  linuxWorkerSpecs,
  registriesIn,
  secretText,
} from "../../components/cluster-objects";
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
  expect(decodeInfrastructure(infra)).toEqual({
    platform: "AWS",
    infrastructureName: "ocp-x",
    region: { AWS: "us-east-1", GCP: undefined },
  });
  expect(decodeInfrastructure({ spec: { platformSpec: { type: "GCP" } }, status: "?" })?.platform).toBe("GCP");
  expect(decodeInfrastructure({ status: { infrastructureName: 7, platformStatus: [] } })).toEqual({
    platform: undefined,
    infrastructureName: undefined,
    region: { AWS: undefined, GCP: undefined },
  });
  expect(decodeInfrastructure(undefined)).toBeUndefined();
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
  const sets = decodeMachineSets(list);
  expect(sets.map((s) => [s.name, s.replicas])).toEqual([
    ["linux", 3],
    ["win", 1],
    ["infra", 1],
    ["no-spec", 1],
    ["odd", undefined],
  ]);
  expect(linuxWorkerSpecs(sets)).toEqual([{ kind: "AWSMachineProviderConfig" }]);
  expect(decodeMachineSets({ items: "none" })).toEqual([]);
  expect(decodeMachineSets(undefined)).toEqual([]);
});

test("Machines: each with its MachineSet label, going when deleted or marked; one without a MachineSet is left out", () => {
  const machine = (name: string, labels: Record<string, string>, metadata: Record<string, unknown> = {}) => ({
    metadata: { name, labels, ...metadata },
    spec: { providerSpec: { value: { ami: { id: "ami-1" } } } },
  });
  const set = { "machine.openshift.io/cluster-api-machineset": "winworker" };
  const rows = decodeMachines({
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
  expect(installedCsv({ status: { installedCSV: "windows-machine-config-operator.v10.19.0" } })).toBe(
    "windows-machine-config-operator.v10.19.0",
  );
  expect(installedCsv({ status: { installedCSV: "" } })).toBeUndefined();
  expect(installedCsv(undefined)).toBeUndefined();
  expect(desiredVersion({ status: { desired: { version: "4.19.3" } } })).toBe("4.19.3");
  expect(desiredVersion({ status: { desired: "4.19.3" } })).toBeUndefined();
  expect(gitVersion({ gitVersion: "v1.32.4" })).toBe("v1.32.4");
  expect(gitVersion({ gitVersion: 132 })).toBeUndefined();
});

test("NodeList page: each node's NoSchedule/NoExecute taints, whether it goes on, how many are left", () => {
  expect(
    decodeNodeTaints({
      metadata: { continue: "abc", remainingItemCount: 4 },
      items: [{ spec: { taints: [{ key: "k", effect: "NoSchedule" }, "junk"] } }, { spec: {} }],
    }),
  ).toEqual({ taints: [[{ key: "k", effect: "NoSchedule" }], []], continued: true, remaining: 4 });
  expect(decodeNodeTaints({ items: [] })).toEqual({ taints: [], continued: false, remaining: undefined });
  expect(decodeNodeTaints(undefined)).toBeUndefined();
});

test("Secrets: the pull secret's registry names only, and one key decoded from base64", () => {
  const pullSecret = {
    data: { ".dockerconfigjson": b64(JSON.stringify({ auths: { "quay.io": { auth: "x" }, "a.example": {} } })) },
  };
  expect(registriesIn(pullSecret)).toEqual(["a.example", "quay.io"]);
  expect(registriesIn({ data: { ".dockerconfigjson": b64("not json") } })).toEqual([]);
  expect(registriesIn({ data: { ".dockerconfigjson": b64('{"auths": []}') } })).toEqual([]);
  expect(registriesIn(undefined)).toEqual([]);
  expect(secretText({ data: { userData: b64("<powershell>") } }, "userData")).toBe("<powershell>");
  expect(secretText({ data: { userData: "" } }, "userData")).toBeUndefined();
  expect(secretText(undefined, "userData")).toBeUndefined();
});
