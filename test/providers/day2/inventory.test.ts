import { decodeNode, decodeNodes, nodeAddress, windowsNodes, wmcoHostKey } from "../../../providers/day2/inventory";
import { reachNode } from "../../../providers/day2/node-reach";
import { decodeMachines } from "../../../components/cluster-objects";
import { validateObject } from "../../helpers/schemas";
import { windowsNode } from "../../helpers/fake-nodes";

// Hand-built API objects (validated against core/v1 Node and machine.openshift.io Machine-free lists below);
// expected values follow WMCO's own rules, cited per test.
const ED25519 = "AAAAC3NzaC1lZDI1NTE5AAAAIOV5dlQWQSK28jlJ4HUAdZdwjLQOseVptgTZMMrslCYc";

const node = (
  name: string,
  over: {
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    addresses?: { type: string; address: string }[];
  } = {},
) => windowsNode(name, { ...over, addresses: over.addresses ?? [{ type: "InternalIP", address: "10.0.0.5" }] });
const list = (...items: unknown[]) => decodeNodes({ apiVersion: "v1", kind: "NodeList", metadata: {}, items });

test("the Node objects here are valid core/v1 Nodes", () => {
  expect(validateObject(node("a"), { closed: true })).toBe("");
});

test("address: the first InternalIP or InternalDNS that is not IPv6 (controllers/controllers.go GetAddress)", () => {
  const n = node("a", {
    addresses: [
      { type: "Hostname", address: "win-a" },
      { type: "InternalIP", address: "fd00::5" },
      { type: "InternalDNS", address: "win-a.example.internal" },
      { type: "InternalIP", address: "10.0.0.9" },
    ],
  });
  expect(nodeAddress(list(n)[0])).toBe("win-a.example.internal");
  expect(nodeAddress(list(node("b", { addresses: [{ type: "ExternalIP", address: "1.2.3.4" }] }))[0])).toBeUndefined();
});

test("host key: WMCO's two annotations become a key line; a type that disagrees with the key is not trusted (pkg/windows/hostkey.go)", () => {
  expect(
    wmcoHostKey({
      "windowsmachineconfig.openshift.io/ssh-host-key": ED25519,
      "windowsmachineconfig.openshift.io/ssh-host-key-type": "ssh-ed25519",
    }),
  ).toBe(`ssh-ed25519 ${ED25519}`);
  expect(
    wmcoHostKey({
      "windowsmachineconfig.openshift.io/ssh-host-key": ED25519,
      "windowsmachineconfig.openshift.io/ssh-host-key-type": "ecdsa-sha2-nistp256",
    }),
  ).toBeUndefined();
  expect(wmcoHostKey({})).toBeUndefined();
});

test("source: a Machine's MachineSet label, the BYOH label with its declared address, WMCO's busy markers", () => {
  const machines = {
    items: [
      {
        metadata: {
          name: "win-tmk9g-ms-abcde",
          namespace: "openshift-machine-api",
          labels: { "machine.openshift.io/cluster-api-machineset": "win-tmk9g-ms" },
        },
      },
    ],
  };
  const nodes = windowsNodes(
    list(
      node("from-machine", {
        annotations: { "machine.openshift.io/machine": "openshift-machine-api/win-tmk9g-ms-abcde" },
      }),
      node("byoh", {
        labels: {
          "windowsmachineconfig.openshift.io/byoh": "true",
          "windowsmachineconfig.openshift.io/upgrading": "true",
        },
        addresses: [{ type: "InternalIP", address: "10.0.0.7" }],
      }),
      node("rebooting", { annotations: { "windowsmachineconfig.openshift.io/reboot-required": "" } }),
    ),
    decodeMachines(machines),
    ["10.0.0.7"],
  );
  expect(nodes.map((n) => [n.name, n.source, n.wmcoBusy])).toEqual([
    ["byoh", { kind: "BYOH", address: "10.0.0.7" }, "WMCO is upgrading it (upgrading label)"],
    ["from-machine", { kind: "MachineSet", name: "win-tmk9g-ms" }, undefined],
    ["rebooting", { kind: "other" }, "WMCO has a reboot pending on it (reboot-required annotation)"],
  ]);
  expect(nodes[0]).toMatchObject({ build: "10.0.20348", kernelVersion: "10.0.20348.2700" });
});

const settings = {
  platform: "Azure",
  privateKey: "KEY",
  byohUsers: { "10.0.0.7": "Administrator" },
  hostKeys: {},
  recordedHostKeys: {},
  trustOnFirstUse: false,
  connectTimeoutSeconds: 15,
};

test("reach: MachineSet nodes log in as capi on Azure (windowsmachine_controller.go getDefaultUsername), port 22, WMCO's pin", () => {
  const [n] = windowsNodes(
    list(
      node("m", {
        annotations: {
          "windowsmachineconfig.openshift.io/ssh-host-key": ED25519,
          "windowsmachineconfig.openshift.io/ssh-host-key-type": "ssh-ed25519",
        },
      }),
    ),
    undefined,
    [],
  );
  expect(reachNode(n, settings)).toEqual({
    connection: {
      host: "10.0.0.5",
      port: 22,
      user: "capi",
      privateKey: "KEY",
      hostKey: `ssh-ed25519 ${ED25519}`,
      connectTimeoutSeconds: 15,
    },
    hostKey: `ssh-ed25519 ${ED25519}`,
  });
  expect(reachNode(n, { ...settings, platform: "AWS" })).toMatchObject({ connection: { user: "Administrator" } });
});

test("reach: no pin anywhere is refused unless trust on first use; a configured pin that disagrees with WMCO's is refused", () => {
  const [bare] = windowsNodes(list(node("bare")), undefined, []);
  expect(reachNode(bare, settings)).toEqual({
    problem:
      "has no host key to verify: WMCO pinned none on the Node (WMCO before 4.20) and none is configured; set windows-estate:nodeAccess.hostKeys.bare (or trustOnFirstUse: true)",
  });
  expect(reachNode(bare, { ...settings, trustOnFirstUse: true })).toMatchObject({
    connection: { trustOnFirstUse: true },
  });
  const [pinned] = windowsNodes(
    list(
      node("pinned", {
        annotations: {
          "windowsmachineconfig.openshift.io/ssh-host-key": ED25519,
          "windowsmachineconfig.openshift.io/ssh-host-key-type": "ssh-ed25519",
        },
      }),
    ),
    undefined,
    [],
  );
  expect(reachNode(pinned, { ...settings, hostKeys: { pinned: "SHA256:" + "A".repeat(43) } })).toMatchObject({
    problem: expect.stringContaining("differs from the one WMCO pinned"),
  });
});

test("reach: a BYOH node the stack does not list is named with the fix", () => {
  const [n] = windowsNodes(
    list(
      node("stray", {
        labels: { "windowsmachineconfig.openshift.io/byoh": "true" },
        addresses: [{ type: "InternalIP", address: "10.0.0.99" }],
      }),
    ),
    undefined,
    [],
  );
  expect(reachNode(n, settings)).toEqual({
    problem:
      "is a BYOH node at 10.0.0.99 that windows-estate:byoh does not list; add it there (its username) or leave it out with reboot.nodeSelector",
  });
});

test("Nodes decoded at the boundary: a field of another type reads as absent, a Node without a name is dropped", () => {
  const odd = {
    metadata: { name: "odd", labels: "byoh", annotations: { a: 1, b: "x" } },
    spec: { unschedulable: "true" },
    status: {
      addresses: [{ type: 5, address: "10.0.0.1" }, { type: "InternalIP" }, "10.0.0.2"],
      nodeInfo: { kernelVersion: 7, osImage: "Windows Server 2022 Datacenter" },
      conditions: [{ type: "Ready", status: "True", lastHeartbeatTime: 5 }],
    },
  };
  const [n, ...rest] = decodeNodes({ items: [odd, { metadata: { labels: {} } }, "not a node"] });
  expect(rest).toEqual([]);
  expect(n).toEqual({
    name: "odd",
    labels: {},
    annotations: { b: "x" },
    unschedulable: false,
    addresses: [{ type: "", address: "10.0.0.1" }],
    nodeInfo: { kernelVersion: undefined, osImage: "Windows Server 2022 Datacenter" },
    ready: { status: "True", heartbeat: undefined },
  });
  expect(decodeNode({ status: { conditions: "Ready" } }).ready).toEqual({ status: undefined, heartbeat: undefined });
  expect(decodeNodes({ items: "none" })).toEqual([]);
  expect(decodeNodes(undefined)).toEqual([]);
});
