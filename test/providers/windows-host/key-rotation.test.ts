import * as fs from "fs";
import { WindowsHost } from "../../../providers/windows-host";
import { RetiredWmcoKeys, WmcoKeyAdopted } from "../../../providers/key-rotation";
import { pubKeyHash } from "../../../providers/day2/key-adopted";
import { withSession } from "../../../providers/ssh/session";
import { serializedProviderOf } from "../../helpers/dynamic-host";
import { validateObject } from "../../helpers/schemas";
import { providerRigPerFile } from "../../helpers/provider-rig";
import { newEd25519Key, RSA_4096_PUBLIC_KEYS } from "../../helpers/fixture-keys";
import { labWindows, LabWindows } from "../../lab/lab-windows";
import { powershellCommand } from "../../../providers/ssh/powershell";
import { retireKeysScript } from "../../../providers/windows-host/scripts";

const win = require("../../lab/windows-51");

// Key rotation on BYOH hosts, each step as the engine runs it (the real dynamic-provider plugin): WindowsHost
// authorizes the new key beside the old one; WmcoKeyAdopted waits for WMCO (BYOH Nodes' pub-key-hash, then
// windows-user-data, served by the API stand-in the way WMCO's secret controller changes them); RetiredWmcoKeys
// removes the old key. The lab hosts' sshd reads exactly the keys the simulated PowerShell keeps, so every login
// below is a real SSH authentication. What only Windows proves: administrators_authorized_keys and its ACL.
jest.setTimeout(120_000);

const URN = (t: string, n: string) => `urn:pulumi:test::windows-estate::pulumi-nodejs:dynamic:Resource::${t}-${n}`;
const OLD = newEd25519Key();
const NEW = newEd25519Key();

const { kube, plugin } = providerRigPerFile(() => labs);
let labs: LabWindows[] = [];
const text: Record<string, string> = {};
const hostState: Record<string, unknown>[] = [];
/** WMCO's progress in the stand-in: how far it has got with the new key. */
let wmco: "old" | "annotated" | "done" = "old";

const byohNode = (i: number, key: string) => ({
  apiVersion: "v1",
  kind: "Node",
  metadata: {
    name: `win-rot-${i}`,
    labels: { "kubernetes.io/os": "windows", "windowsmachineconfig.openshift.io/byoh": "true" },
    annotations: { "windowsmachineconfig.openshift.io/pub-key-hash": pubKeyHash(key) },
  },
  status: { addresses: [{ type: "InternalIP", address: `127.0.0.${41 + i}` }] },
});

/** The three BYOH Nodes as WMCO has annotated them so far. */
const byohNodes = () => ({
  status: 200,
  body: {
    apiVersion: "v1",
    kind: "NodeList",
    metadata: {},
    items: [0, 1, 2].map((i) => byohNode(i, wmco === "old" ? OLD.pub : NEW.pub)),
  },
});

beforeAll(async () => {
  labs = await Promise.all(
    [0, 1, 2].map(async (i) => {
      const w = await labWindows(`127.0.0.${41 + i}`, `win-rot-${i}`);
      // The host trusts the old WMCO key, and the simulated key list is sshd's own file.
      fs.writeFileSync(w.host.authorizedKeysFile, OLD.pub + "\n");
      const s = JSON.parse(fs.readFileSync(w.state, "utf8"));
      fs.writeFileSync(
        w.state,
        JSON.stringify({ ...s, authorizedKeys: [OLD.pub], authorizedKeysFile: w.host.authorizedKeysFile }),
      );
      return w;
    }),
  );
  kube.route("/api/v1/nodes", byohNodes);
  kube.route("/api/v1/namespaces/openshift-machine-api/secrets/windows-user-data", () => ({
    status: 200,
    body: {
      apiVersion: "v1",
      kind: "Secret",
      metadata: { name: "windows-user-data", namespace: "openshift-machine-api" },
      data: {
        userData: Buffer.from(`<powershell>\n$key = '${wmco === "done" ? NEW.pub : OLD.pub}'\n</powershell>`).toString(
          "base64",
        ),
      },
    },
  }));
  const conn = { host: "x", user: "u", privateKey: "k", hostKey: "SHA256:x" };
  text.host = (await serializedProviderOf(() => new WindowsHost("h", { connection: conn, wmcoPublicKey: "k" }))).text;
  text.adopted = (await serializedProviderOf(() => new WmcoKeyAdopted("a", { publicKey: "k" }))).text;
  text.retired = (
    await serializedProviderOf(
      () => new RetiredWmcoKeys("r", { connection: conn, hostKey: "k", keep: "k", retire: [] }),
    )
  ).text;
});

const connection = (l: LabWindows, priv: string) => ({
  host: l.host.host,
  port: 22,
  user: l.host.user,
  privateKey: priv,
  hostKey: l.host.hostKeyLine,
  deadlineSeconds: 3,
});
const hostInputs = (l: LabWindows, k: { priv: string; pub: string }) => ({
  connection: connection(l, k.priv),
  wmcoPublicKey: k.pub,
  wmcoPrivateKey: k.priv,
  __provider: text.host,
});

/** Whether a real SSH login with this key succeeds on the lab host. */
async function logsIn(l: LabWindows, priv: string): Promise<boolean> {
  return withSession(
    { ...connection(l, priv), pathStyle: "posix", deadlineSeconds: 2 },
    undefined,
    async () => true,
  ).catch(() => false);
}
/** What sshd would accept right now: never empty. */
const authorized = (l: LabWindows) => fs.readFileSync(l.host.authorizedKeysFile, "utf8").trim().split("\n");

test("the Node objects WMCO's stand-in serves are valid core/v1 Nodes", () => {
  expect(validateObject(byohNode(0, OLD.pub), { closed: true })).toBe("");
});

test("rotation: new key authorized beside the old, WMCO adopts it, the old key leaves; every host stays reachable", async () => {
  // Prepared with the old key.
  for (const l of labs) hostState.push((await plugin.create(URN("host", l.host.host), hostInputs(l, OLD))).outputs);
  for (const l of labs) expect(authorized(l)).toEqual([OLD.pub]);

  // 1. Each host authorizes the new key beside the old one (logging in with the old one), then proves the new one.
  for (const [i, l] of labs.entries()) {
    const outs = await plugin.update(URN("host", l.host.host), "id", hostState[i], hostInputs(l, NEW));
    expect(outs.retiringKeys).toEqual([OLD.pub]);
    hostState[i] = outs;
    expect(authorized(l)).toEqual([OLD.pub, NEW.pub]);
    expect([await logsIn(l, OLD.priv), await logsIn(l, NEW.priv)]).toEqual([true, true]);
  }

  // 2. (cloud-private-key changes here.) 3. The wait holds until WMCO has annotated the nodes and rewritten the user
  // data: the stand-in gets there on the third and fifth look.
  let looks = 0;
  kube.route("/api/v1/nodes", () => {
    looks++;
    if (looks >= 3) wmco = looks >= 5 ? "done" : "annotated";
    return byohNodes();
  });
  await plugin.create(URN("adopted", "x"), {
    publicKey: NEW.pub,
    kubeconfig: kube.kubeconfig(),
    timeoutSeconds: 30,
    intervalSeconds: 0.05,
    __provider: text.adopted,
  });
  expect(wmco).toBe("done");
  expect(looks).toBe(5);
  expect(plugin.stderr.join("")).toMatch(/windows-user-data does not carry the new public key yet/);

  // 4. The old key leaves each host; the new one still logs in, the old one no longer does.
  for (const l of labs) {
    const r = await plugin.create(URN("retired", l.host.host), {
      connection: connection(l, NEW.priv),
      hostKey: l.host.hostKeyLine,
      keep: NEW.pub,
      retire: [OLD.pub],
      __provider: text.retired,
    });
    expect(r.outputs.retired).toBe(1);
    expect(authorized(l)).toEqual([NEW.pub]);
    expect([await logsIn(l, NEW.priv), await logsIn(l, OLD.priv)]).toEqual([true, false]);
  }
});

test("WMCO that never adopts the key: the wait fails naming what is missing, and the old key stays", async () => {
  wmco = "old";
  kube.route("/api/v1/nodes", () => ({
    status: 200,
    body: { apiVersion: "v1", kind: "NodeList", metadata: {}, items: [byohNode(0, OLD.pub)] },
  }));
  await expect(
    plugin.create(URN("adopted", "y"), {
      publicKey: NEW.pub,
      kubeconfig: kube.kubeconfig(),
      timeoutSeconds: 0.3,
      intervalSeconds: 0.05,
      __provider: text.adopted,
    }),
  ).rejects.toThrow(
    /WMCO has not adopted the new key within 0.3s: BYOH node win-rot-0 still has the old pub-key-hash; .*windows-user-data does not carry the new public key yet\. The old key stays authorized/,
  );
});

test("removing old keys never leaves a host without the new key: refused when the new key is not authorized", async () => {
  const l = labs[0];
  // The host holds only NEW now; asking to keep OLD (not authorized) and retire NEW must change nothing.
  await expect(
    plugin.create(URN("retired", "z"), {
      connection: connection(l, NEW.priv),
      hostKey: l.host.hostKeyLine,
      keep: OLD.pub,
      retire: [NEW.pub],
      __provider: text.retired,
    }),
  ).rejects.toThrow(
    /127\.0\.0\.41:22: removing the old WMCO key failed: the key to keep is not authorized; nothing was removed/,
  );
  expect(authorized(l)).toEqual([NEW.pub]);
});

test("three retired RSA-4096 keys are removed: the script goes over the runner's stdin, not a command line cmd.exe refuses", async () => {
  // Each retired RSA-4096 key adds about 2,700 characters to an -EncodedCommand line; cmd.exe (Win32-OpenSSH's default
  // shell) takes at most 8,191 (KB830473), which the stand-in enforces (transport.cmd-line-limit).
  expect(win.rule("transport.cmd-line-limit").rows).toContain(10);
  const l = labs[1];
  // Committed test-only keys (test/fixtures/keys): only their length matters here, not that they are fresh.
  const rsa = RSA_4096_PUBLIC_KEYS.slice(0, 3);
  expect(powershellCommand(retireKeysScript(NEW.pub, rsa)).length).toBeGreaterThan(win.CMD_EXE_MAX_COMMAND_LINE);
  const s = JSON.parse(fs.readFileSync(l.state, "utf8"));
  fs.writeFileSync(l.state, JSON.stringify({ ...s, authorizedKeys: [NEW.pub, ...rsa] }));
  fs.writeFileSync(l.host.authorizedKeysFile, [NEW.pub, ...rsa].map((k) => k + "\n").join(""));
  const r = await plugin.create(URN("retired", "rsa"), {
    connection: connection(l, NEW.priv),
    hostKey: l.host.hostKeyLine,
    keep: NEW.pub,
    retire: rsa,
    __provider: text.retired,
  });
  expect(r.outputs.retired).toBe(3);
  expect(authorized(l)).toEqual([NEW.pub]);
  // cmd.exe refused nothing on that host; each PowerShell runner ended on its empty line.
  expect(
    new Set(
      fs
        .readFileSync(l.state + ".transport.log", "utf8")
        .trim()
        .split("\n"),
    ),
  ).toEqual(new Set(["runner ended: empty line"]));
});
