import type { SessionOptions } from "../../../providers/ssh/session";
import { SshConnection } from "../../../providers/ssh/types";

// Which steps may run again after a session through the cluster relay is lost under them (withSession's
// retriesOnRelayLoss; what a retry does is tested in cluster-tunnel-stream.test.ts): the steps that only read or that
// converge, and never a restart, a join, a removal from the cluster or a patch run. withSession is replaced here by a
// recorder that stops every step before it touches a host.
const mockAsked: (SessionOptions | undefined)[] = [];
jest.mock("../../../providers/ssh/session", () => ({
  withSession: async (_c: unknown, _key: unknown, _fn: unknown, options?: SessionOptions) => {
    mockAsked.push(options);
    throw new Error("stopped by the recorder");
  },
}));

import { windowsHostProvider } from "../../../providers/windows-host/provider";
import { retiredKeysProvider } from "../../../providers/windows-host/retire";
import { nodeFilesProvider } from "../../../providers/node-files/provider";
import { vanillaNodeProvider } from "../../../providers/vanilla-node/provider";
import { rebootHost, REBOOT_DEFAULTS } from "../../../providers/day2/reboot";

const connection: SshConnection = { host: "10.0.0.5", user: "Administrator", privateKey: "k", hostKey: "SHA256:x" };
const KEY = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIH0e6vLr8kqJm4J0b1g1u3m7h2fQ0W1T3rj4y7bC8d2e";

/** What the step asked withSession for (the first session it opens). */
async function asked(step: () => Promise<unknown>): Promise<SessionOptions | undefined> {
  mockAsked.length = 0;
  await expect(step()).rejects.toThrow("stopped by the recorder");
  expect(mockAsked.length).toBeGreaterThan(0);
  return mockAsked[0];
}

const RETRIED = { retriesOnRelayLoss: 2 };

test.each([
  ["WindowsHost create: probe, prepare, check", () => windowsHostProvider.create!({ connection, wmcoPublicKey: KEY })],
  [
    "WindowsHost update: the same, re-applied",
    () =>
      windowsHostProvider.update!(
        "id",
        { connection, wmcoPublicKey: KEY, hostKey: KEY } as never,
        { connection, wmcoPublicKey: KEY } as never,
      ),
  ],
  [
    "WindowsHost refresh: a probe",
    () => windowsHostProvider.read!("id", { connection, wmcoPublicKey: KEY, hostKey: KEY } as never),
  ],
  [
    "RetiredWmcoKeys: removing old keys",
    () => retiredKeysProvider.create!({ connection, hostKey: KEY, keep: KEY, retire: ["ssh-rsa AAAA"] }),
  ],
  ["NodeFiles create: converge", () => nodeFilesProvider.create!({ connection, directory: "C:\\k\\x", files: {} })],
  [
    "NodeFiles refresh: checksums",
    () => nodeFilesProvider.read!("id", { connection, directory: "C:\\k\\x", files: {}, hostKey: KEY } as never),
  ],
  [
    "NodeFiles delete: remove the directory",
    () => nodeFilesProvider.delete!("id", { connection, directory: "C:\\k\\x", files: {}, hostKey: KEY } as never),
  ],
  ["VanillaNode refresh: a probe", () => vanillaNodeProvider.read!("id", { connection, hostKey: KEY } as never)],
])("%s runs again on a lost relay session", async (_what, step) => {
  expect(await asked(step)).toEqual(RETRIED);
});

test.each([
  ["a reboot (Restart-Computer)", () => rebootHost(connection, KEY, "win-1", REBOOT_DEFAULTS)],
  [
    "VanillaNode create (install, kubeadm join)",
    () =>
      vanillaNodeProvider.create!({
        connection,
        downloads: [],
        vxlanPort: 4789,
        containerdConfigPath: "C:\\k\\c.toml",
        joinConfigPath: "C:\\k\\join.yaml",
        joinConfig: "x",
      } as never),
  ],
  [
    "VanillaNode delete (drain, kubeadm reset)",
    () => vanillaNodeProvider.delete!("id", { connection, hostKey: KEY, nodeName: "win-1" } as never),
  ],
])("%s is never run again by withSession", async (_what, step) => {
  expect((await asked(step))?.retriesOnRelayLoss ?? 0).toBe(0);
});
