import { generateKeyPairSync } from "crypto";
import * as fs from "fs";
import * as path from "path";
import { parsePrivateKey, ParsedKey } from "../../../stacks/key";
import { MachineSetConfig, machineSetsSchema } from "../../../stacks/schema/machinesets";
import { ByohHostConfig, byohSchema } from "../../../stacks/schema/byoh";
import {
  byohKeyIssues,
  byohNodes,
  keyChange,
  resolveIpv4,
  rotationIssues,
  templateKeyIssues,
  unstatedTemplateKeys,
  upgradeRotationIssues,
  userDataPublicKey,
  vsphereRotationIssues,
} from "../../../components/key/rotation";
import { decodeNodes } from "../../../providers/day2/inventory";
import { runSynth, scratch, writeStack } from "../../helpers/stack";

function newKey(): ParsedKey {
  const { privateKey } = generateKeyPairSync("ed25519", {
    privateKeyEncoding: { type: "pkcs8", format: "pem" },
    publicKeyEncoding: { type: "spki", format: "pem" },
  });
  return parsePrivateKey(privateKey);
}
const oldKey = newKey();
const nextKey = newKey();

/**
 * The shape of WMCO's user data (pkg/secrets/secrets.go `generateUserDataWithPubKey`): the key, as
 * `ssh.MarshalAuthorizedKey` writes it (with its newline), echoed into administrators_authorized_keys.
 */
function wmcoUserData(publicKey: string): string {
  return [
    "<powershell>",
    '$authorizedKeyFilePath = "$env:ProgramData\\ssh\\administrators_authorized_keys"',
    "New-Item -Force $authorizedKeyFilePath",
    `echo "${publicKey}\n"| Out-File $authorizedKeyFilePath -Encoding ascii`,
    "</powershell>",
    "<persist>true</persist>",
  ].join("\n");
}

const vsphereSet = (templateKeys?: string[]): MachineSetConfig =>
  machineSetsSchema.parse([{ name: "winvs", vsphere: { template: "golden/win2022", templateKeys } }])[0];

describe("the key WMCO uses now, from windows-user-data", () => {
  test("is the authorized_keys line WMCO echoes into the user data", () => {
    expect(userDataPublicKey(wmcoUserData(oldKey.publicKey))).toBe(oldKey.publicKey);
    expect(userDataPublicKey("<powershell>no key here</powershell>")).toBeUndefined();
  });

  test("a change is the old and the new SHA256 fingerprints; the same key, or none in the cluster, is none", () => {
    expect(keyChange(oldKey.publicKey, nextKey)).toEqual({ from: oldKey.fingerprint, to: nextKey.fingerprint });
    expect(keyChange(nextKey.publicKey, nextKey)).toBeUndefined();
    expect(keyChange(undefined, nextKey)).toBeUndefined();
  });
});

/** A vSphere stack as the example writes it, with `cluster` and `vsphere` extras. */
const stack = (dir: string, keyPath: string, cluster: object, vsphere: object) =>
  writeStack(dir, "vs", {
    cluster: { platform: "VSphere", infrastructureId: "ocp-vs-4hd8w", ...cluster },
    privateKeyPath: keyPath,
    machineSets: [
      {
        name: "winvs",
        vsphere: {
          template: "golden/win2022",
          server: "vc",
          datacenter: "DC1",
          datastore: "ds",
          folder: "/DC1/vm",
          resourcePool: "/DC1/host/C/Resources",
          networkName: "net",
          ...vsphere,
        },
      },
    ],
  });

describe("vSphere templates (the key is the template's: docs/vsphere-golden-image.md)", () => {
  test("the stack's key listed by fingerprint or as a key line passes", () => {
    expect(templateKeyIssues([vsphereSet([nextKey.fingerprint])], nextKey)).toEqual([]);
    expect(templateKeyIssues([vsphereSet([oldKey.fingerprint, `${nextKey.publicKey} me@laptop`])], nextKey)).toEqual(
      [],
    );
  });

  test("a stale statement (the template holds only the old key) is refused, naming the key and the fix", () => {
    const issues = templateKeyIssues([vsphereSet([oldKey.fingerprint])], nextKey);
    expect(issues).toHaveLength(1);
    expect(issues[0].path).toBe("machineSets[0].vsphere.templateKeys");
    expect(issues[0].message).toContain(nextKey.fingerprint);
    expect(issues[0].message).toContain("golden/win2022");
    // WMCO's event on a failed login (controllers/windowsmachine_controller.go: "Machine %s authentication failure").
    expect(issues[0].message).toContain("authentication failure");
  });

  test("an entry that is no key is refused at its own index; with the key unknown only the form is checked", () => {
    const issues = templateKeyIssues([vsphereSet([nextKey.fingerprint, "SHA256:short"])], undefined);
    expect(issues.map((i) => i.path)).toEqual(["machineSets[0].vsphere.templateKeys[1]"]);
    expect(templateKeyIssues([vsphereSet([oldKey.fingerprint])], undefined)).toEqual([]);
  });

  test("a key change refuses a vSphere set that does not state its template holds the new key", () => {
    const change = keyChange(oldKey.publicKey, nextKey);
    const issues = vsphereRotationIssues([vsphereSet()], change);
    expect(issues).toHaveLength(1);
    expect(issues[0].path).toBe("machineSets[0].vsphere.templateKeys");
    expect(issues[0].message).toContain(`["${nextKey.fingerprint}"]`);
    expect(issues[0].message).toContain("openshift-machine-api/windows-user-data");
    expect(vsphereRotationIssues([vsphereSet([nextKey.fingerprint])], change)).toEqual([]);
    expect(vsphereRotationIssues([vsphereSet()], undefined)).toEqual([]);
    const azure = { ...vsphereSet(), vsphere: undefined };
    expect(vsphereRotationIssues([azure], change)).toEqual([]);
  });

  test("synth refuses a template that holds another key, from the config alone (exit 2)", async () => {
    const s = scratch();
    try {
      const file = stack(s.dir, s.keyPath, { discovery: false }, { templateKeys: [oldKey.fingerprint] });
      const r = await runSynth(["--stack", "vs", "--config-file", file, "--out", path.join(s.dir, "out"), "--quiet"]);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain("windows-estate:machineSets[0].vsphere.templateKeys");
    } finally {
      s.cleanup();
    }
  }, 60_000);
});

describe("a vSphere set that does not say what its template holds (docs/day2.md: without discovery, set templateKeys)", () => {
  test("is warned only when the stack has discovery off, naming the set, its template and the stack's fingerprint", () => {
    const issues = unstatedTemplateKeys([vsphereSet()], nextKey, false);
    expect(issues.map((i) => i.path)).toEqual(["machineSets[0].vsphere.templateKeys"]);
    expect(issues[0].message).toContain("golden/win2022");
    expect(issues[0].message).toContain(`templateKeys: ["${nextKey.fingerprint}"]`);
    // With discovery at preview/up the rotation itself is refused (vsphereRotationIssues): nothing to warn.
    expect(unstatedTemplateKeys([vsphereSet()], nextKey, true)).toEqual([]);
    expect(unstatedTemplateKeys([vsphereSet([nextKey.fingerprint])], nextKey, false)).toEqual([]);
    expect(unstatedTemplateKeys([{ ...vsphereSet(), vsphere: undefined }], nextKey, false)).toEqual([]);
    // An encrypted key under synth: the fix is still shown, with where its fingerprint comes from.
    expect(unstatedTemplateKeys([vsphereSet()], undefined, false)[0].message).toContain('templateKeys: ["SHA256:<');
  });

  test("synth judges the stack's own discovery (synth itself is always offline) and still renders", async () => {
    const s = scratch();
    try {
      const fingerprint = parsePrivateKey(fs.readFileSync(s.keyPath, "utf8")).fingerprint;
      const synth = async (cluster: object, vsphere: object) => {
        const r = await runSynth([
          ...["--stack", "vs", "--config-file", stack(s.dir, s.keyPath, cluster, vsphere)],
          ...["--out", path.join(s.dir, "out"), "--quiet"],
        ]);
        expect(r.code).toBe(0);
        return r.stdout.split("\n").filter((l) => l.startsWith("warning: windows-estate:machineSets[0].vsphere"));
      };
      const off = await synth({ discovery: false }, {});
      expect(off).toHaveLength(1);
      expect(off[0]).toContain(`templateKeys: ["${fingerprint}"]`);
      expect(await synth({ render: "rendered", renderKeySecret: true }, {})).toHaveLength(1); // render: discovery off
      expect(await synth({}, {})).toEqual([]);
      expect(await synth({ discovery: false }, { templateKeys: [fingerprint] })).toEqual([]);
    } finally {
      s.cleanup();
    }
  }, 120_000);
});

describe("BYOH keys and their Nodes (pkg/wiparser GetNodeUsername: exact address match)", () => {
  const nodeList = {
    items: [
      {
        metadata: { name: "win-byoh-1", labels: { "windowsmachineconfig.openshift.io/byoh": "true" } },
        status: {
          addresses: [
            { type: "InternalIP", address: "10.0.0.42" },
            { type: "Hostname", address: "win-byoh-1" },
          ],
        },
      },
      // A Machine node: not BYOH, never matched.
      {
        metadata: { name: "winvs-abcde", labels: {} },
        status: { addresses: [{ type: "InternalIP", address: "10.0.0.43" }] },
      },
    ],
  };
  const host = (address: string): ByohHostConfig => byohSchema.parse([{ address, username: "Administrator" }])[0];
  const change = keyChange(oldKey.publicKey, nextKey);

  test("only Nodes labelled byoh=true are BYOH Nodes", () => {
    expect(byohNodes(decodeNodes(nodeList)).map((n) => n.name)).toEqual(["win-byoh-1"]);
  });

  test("a DNS name that resolves to a Node but is not one of its addresses is refused, naming the address to use", () => {
    const issues = byohKeyIssues(
      [host("10.0.0.9"), host("win-byoh-1.corp.example.com")],
      byohNodes(decodeNodes(nodeList)),
      { "win-byoh-1.corp.example.com": "10.0.0.42" },
      change,
    );
    expect(issues).toHaveLength(1);
    expect(issues[0].path).toBe("byoh[1].address");
    expect(issues[0].message).toContain("win-byoh-1.corp.example.com is not one of Node win-byoh-1's addresses");
    expect(issues[0].message).toContain("Set it to 10.0.0.42 (the Node's InternalIP) or win-byoh-1 (its Hostname");
    expect(issues[0].message).toContain(change?.to ?? "?");
  });

  test("a key that is one of the Node's addresses (IP or Hostname), or has no Node yet, passes", () => {
    const nodes = byohNodes(decodeNodes(nodeList));
    expect(
      byohKeyIssues([host("10.0.0.42"), host("win-byoh-1")], nodes, { "win-byoh-1": "10.0.0.42" }, change),
    ).toEqual([]);
    expect(
      byohKeyIssues([host("new.corp.example.com")], nodes, { "new.corp.example.com": "10.0.0.77" }, change),
    ).toEqual([]);
    expect(byohKeyIssues([host("gone.corp.example.com")], nodes, {}, change)).toEqual([]);
  });

  test("without a key change the same finding says a later rotation would not complete", () => {
    const issues = byohKeyIssues(
      [host("w.corp")],
      byohNodes(decodeNodes(nodeList)),
      { "w.corp": "10.0.0.42" },
      undefined,
    );
    expect(issues[0].message).toContain("a later change of the WMCO key would never complete");
  });

  test("IPv4 literals resolve to themselves", async () => {
    expect(await resolveIpv4(["10.0.0.42"])).toEqual({ "10.0.0.42": "10.0.0.42" });
  });
});

describe("a key change during a WMCO upgrade", () => {
  // pkg/metadata/metadata.go `UpgradingLabel`: the node WMCO is rebuilding (one at a time, controllers/controllers.go).
  const nodes: { name: string; labels: Record<string, string> }[] = [
    { name: "win-a", labels: { "windowsmachineconfig.openshift.io/upgrading": "true" } },
    { name: "win-b", labels: {} },
  ];
  const change = { from: "SHA256:old", to: "SHA256:new" };
  test("is refused, naming the node WMCO is upgrading", () => {
    const issues = upgradeRotationIssues(nodes, change);
    expect(issues.map((i) => i.path)).toEqual(["privateKey"]);
    expect(issues[0].message).toMatch(/WMCO key change \(SHA256:old to SHA256:new\) did not start.*node win-a\b/);
  });
  test("no key change, or no node upgrading: nothing to say", () => {
    expect(upgradeRotationIssues(nodes, undefined)).toEqual([]);
    expect(upgradeRotationIssues([nodes[1]], change)).toEqual([]);
  });
  test("rotationIssues reads the label from the Nodes discovery decoded, and the current key only when it matters", async () => {
    const list = { items: nodes.map(({ name, labels }) => ({ metadata: { name, labels } })) };
    const cfg = { privateKey: { parsed: nextKey }, machineSets: [], byoh: [] };
    const r = await rotationIssues(cfg, decodeNodes(list), async () => oldKey.publicKey);
    expect(r.errors.map((i) => [i.path, i.message])).toEqual([["privateKey", expect.stringContaining("node win-a")]]);
    const unread = async () => Promise.reject(new Error("must not be read"));
    expect(await rotationIssues(cfg, decodeNodes({ items: [list.items[1]] }), unread)).toEqual({
      errors: [],
      warnings: [],
    });
  });
});
