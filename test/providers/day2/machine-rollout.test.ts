import { MachineSetRollout } from "../../../providers/machine-rollout";
import { machineImage } from "../../../providers/day2/machine-rollout-plan";
import { serializedProviderOf } from "../../helpers/dynamic-host";
import { FakeKube } from "../../helpers/fake-kube";
import { FakeNodes } from "../../helpers/fake-nodes";
import { validateObject } from "../../helpers/schemas";
import { DynamicPlugin } from "../../helpers/dynamic-plugin";

// A MachineSet image roll as `pulumi up` runs it: the MachineSetRollout provider in the real dynamic-provider plugin,
// against the Kubernetes API stand-in playing machine-api and WMCO: deleting a Machine removes it and the MachineSet
// creates a replacement on the template's image; its Node registers and WMCO marks it configured (version =
// desired-version) a few reads later. State changes are driven by requests, never by time.
jest.setTimeout(120_000);

const SET = "winworker";
const OLD = { id: "ami-0aaaaaaaaaaaaaaaa" };
const NEW = { id: "ami-0bbbbbbbbbbbbbbbb" };
const WMCO = "10.22.2";
const URN = "urn:pulumi:test::windows-estate::pulumi-nodejs:dynamic:Resource::estate-ms-winworker-rollout";

interface Machine {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace: string; labels: Record<string, string>; deletionTimestamp?: string };
  spec: { providerSpec: { value: Record<string, unknown> } };
  status: { phase: string; nodeRef?: { kind: string; name: string } };
}

let kube: FakeKube;
let nodes: FakeNodes;
let plugin: DynamicPlugin;
let providerText: string;
let machines: Machine[] = [];
let events: string[] = [];
/** Replacements in progress: name → list reads left before its Node is configured (Infinity: never). */
const pending = new Map<string, number>();
let created = 0;
let neverConfigured = false;

const machine = (name: string, ami: { id: string }, node?: string): Machine => ({
  apiVersion: "machine.openshift.io/v1beta1",
  kind: "Machine",
  metadata: {
    name,
    namespace: "openshift-machine-api",
    labels: { "machine.openshift.io/cluster-api-machineset": SET },
  },
  spec: {
    providerSpec: {
      value: {
        apiVersion: "machine.openshift.io/v1beta1",
        kind: "AWSMachineProviderConfig",
        ami,
        instanceType: "m5a.large",
      },
    },
  },
  status: node ? { phase: "Running", nodeRef: { kind: "Node", name: node } } : { phase: "Provisioning" },
});

function addNode(name: string, configured: boolean) {
  nodes.add(name, {
    address: `10.0.2.${nodes.nodes.size + 10}`,
    annotations: {
      "windowsmachineconfig.openshift.io/desired-version": WMCO,
      ...(configured ? { "windowsmachineconfig.openshift.io/version": WMCO } : {}),
    },
  });
}

/** One list read: the cluster moves on one step (deletions finish, replacements register, WMCO configures). */
function step() {
  machines = machines.filter((m) => !m.metadata.deletionTimestamp);
  for (const [name, left] of pending) {
    const m = machines.find((x) => x.metadata.name === name);
    if (!m) continue;
    if (!m.status.nodeRef) {
      m.status = { phase: "Running", nodeRef: { kind: "Node", name } };
      addNode(name, false);
    } else if (left <= 1) {
      const n = nodes.nodes.get(name);
      if (n) n.metadata.annotations["windowsmachineconfig.openshift.io/version"] = WMCO;
      events.push(`configured ${name}`);
      pending.delete(name);
    } else pending.set(name, left - 1);
  }
}

beforeAll(async () => {
  kube = new FakeKube();
  await kube.start();
  nodes = new FakeNodes(kube);
  kube.route("/apis/machine.openshift.io/v1beta1/namespaces/openshift-machine-api/machines", (_n, req) => {
    if (req.method !== "GET") return { status: 405 };
    step();
    const selector = new URLSearchParams(req.query).get("labelSelector");
    const items = machines.filter(
      (m) =>
        selector ===
        `machine.openshift.io/cluster-api-machineset=${m.metadata.labels["machine.openshift.io/cluster-api-machineset"]}`,
    );
    return {
      status: 200,
      body: { apiVersion: "machine.openshift.io/v1beta1", kind: "MachineList", metadata: {}, items },
    };
  });
  providerText = (
    await serializedProviderOf(() => new MachineSetRollout("r", { machineSet: SET, image: "x", replicas: 3 }))
  ).text;
  plugin = new DynamicPlugin();
  await plugin.start("127.0.0.1:1");
});
afterAll(async () => {
  await plugin?.stop();
  await kube?.stop();
});

/** Three Machines on the old AMI, each with a configured Node; deleting one makes the MachineSet replace it. */
function cluster(names: string[]) {
  machines = names.map((n) => machine(n, OLD, n));
  events = [];
  for (const n of names) if (!nodes.nodes.has(n)) addNode(n, true);
  for (const n of names)
    kube.route(`/apis/machine.openshift.io/v1beta1/namespaces/openshift-machine-api/machines/${n}`, (_x, req) => {
      if (req.method !== "DELETE") return { status: 405 };
      const m = machines.find((x) => x.metadata.name === n);
      if (!m) return { status: 404 };
      m.metadata.deletionTimestamp = "2026-11-23T00:00:00Z";
      events.push(`delete ${n}`);
      const replacement = `${SET}-new-${++created}`;
      machines.push(machine(replacement, NEW));
      pending.set(replacement, neverConfigured ? Infinity : 2);
      return { status: 200, body: m };
    });
}

function inputs(maxUnavailable: number, readyTimeoutSeconds = 30) {
  return {
    machineSet: SET,
    image: machineImage({ ami: NEW }),
    replicas: 3,
    maxUnavailable,
    readyTimeoutSeconds,
    planned: [],
    pollSeconds: 0.01,
    kubeconfig: kube.kubeconfig(),
    __provider: providerText,
  };
}

test("the Machines the stand-in serves are valid machine.openshift.io/v1beta1 Machines", () => {
  for (const m of [machine("a", OLD, "a"), machine("b", NEW)]) expect(validateObject(m)).toBe("");
});

test("maxUnavailable 1: each Machine is deleted only after the previous replacement is configured by WMCO", async () => {
  cluster(["win-a", "win-b", "win-c"]);
  const out = await plugin.create(URN, inputs(1));
  expect(out.outputs.replaced).toEqual(["win-a", "win-b", "win-c"]);
  expect(events).toEqual([
    "delete win-a",
    `configured ${SET}-new-1`,
    "delete win-b",
    `configured ${SET}-new-2`,
    "delete win-c",
    `configured ${SET}-new-3`,
  ]);
  expect(machines.every((m) => m.spec.providerSpec.value.ami === NEW)).toBe(true);
});

test("maxUnavailable 2 of 3: two at once, then the last; a set never has fewer than one serving Machine", async () => {
  cluster(["win-d", "win-e", "win-f"]);
  const out = await plugin.create(URN, inputs(2));
  expect(out.outputs.replaced).toEqual(["win-d", "win-e", "win-f"]);
  expect(events.slice(0, 2)).toEqual(["delete win-d", "delete win-e"]);
  expect(events.indexOf("delete win-f")).toBeGreaterThan(events.indexOf(`configured ${SET}-new-5`));
  // Asked for more than replicas - 1, it still keeps one serving.
  cluster(["win-g", "win-h", "win-i"]);
  await plugin.create(URN, inputs(5));
  expect(events.slice(0, 3)).toEqual(["delete win-g", "delete win-h", expect.stringMatching(/^configured/)]);
});

test("a replacement WMCO never configures stops the rollout naming set and machine; the next run resumes", async () => {
  cluster(["win-j", "win-k", "win-l"]);
  neverConfigured = true;
  await expect(plugin.create(URN, inputs(1, 0.05))).rejects.toThrow(
    /MachineSet winworker: the replacements of win-j were not Ready and configured by WMCO within 0 minutes \(0\/1 on the new image; waiting: winworker-new-\d+ \(Node winworker-new-\d+ not yet Ready and configured by WMCO\)\)\. Machines replaced so far: none; the next pulumi up resumes/,
  );
  expect(events).toEqual(["delete win-j"]);
  neverConfigured = false;
  for (const name of [...pending.keys()]) pending.set(name, 1);
  events = [];
  const out = await plugin.create(URN, inputs(1));
  // win-j is already gone: the run goes on with the Machines still on the old image.
  expect(out.outputs.replaced).toEqual(["win-k", "win-l"]);
  expect(events[0]).toMatch(/^configured/);
});
