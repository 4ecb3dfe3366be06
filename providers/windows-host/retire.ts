import type * as pulumi from "@pulumi/pulumi";
import { withPowerShell } from "../ssh/powershell-runner";
import { withSession } from "../ssh/session";
import { describeTarget, SshConnection } from "../ssh/types";
import { retireKeysScript } from "./scripts";

export interface RetiredKeysInputs {
  /** Access with the new WMCO key, pinned to the host key WindowsHost recorded. */
  connection: SshConnection;
  hostKey: string;
  /** The new WMCO public key: must stay authorized. */
  keep: string;
  /** Earlier WMCO public keys to remove. */
  retire: string[];
  __provider?: string;
}

async function retire(i: RetiredKeysInputs): Promise<{ retired: number }> {
  if (i.retire.length === 0) return { retired: 0 };
  const target = describeTarget(i.connection);
  // Through the runner's standard input, not as one command line: each retired RSA-4096 key adds about 2,700
  // characters to the script's -EncodedCommand, and from the third on cmd.exe (Win32-OpenSSH's default shell) refuses
  // the line (KB830473, providers/ssh/powershell.ts CMD_EXE_MAX_COMMAND_LINE).
  // Safe to run again if the relay's session is lost under it: removing keys that are already gone is a no-op (the
  // count it reports is then of this run only).
  const removed = await withSession(
    i.connection,
    i.hostKey,
    (s) =>
      withPowerShell(s, target, async (ps) => {
        const out = await ps.run("removing the old WMCO key", retireKeysScript(i.keep, i.retire));
        const m = /retired (\d+)/.exec(out);
        if (!m) throw new Error(`${target}: removing the old WMCO key failed: the script did not say what it removed`);
        return Number(m[1]);
      }),
    { retriesOnRelayLoss: 2 },
  );
  // The proof that the host is still reachable with the key WMCO now uses: a fresh login.
  await withSession(i.connection, i.hostKey, async () => undefined).catch((e: Error) => {
    throw new Error(`${target}: after removing the old key, logging in with the new WMCO key fails: ${e.message}`);
  });
  return { retired: removed };
}

/**
 * Removes retired WMCO keys from a BYOH host once WMCO has adopted the new one (the resource depends on that wait).
 * Idempotent: removing keys that are already gone is a no-op.
 */
export const retiredKeysProvider: pulumi.dynamic.ResourceProvider = {
  async diff(_id: string, olds: RetiredKeysInputs, news: RetiredKeysInputs) {
    const changes =
      JSON.stringify([olds.keep, olds.retire, olds.connection, olds.hostKey, olds.__provider]) !==
      JSON.stringify([news.keep, news.retire, news.connection, news.hostKey, news.__provider]);
    return { changes, replaces: [], deleteBeforeReplace: false };
  },
  async create(inputs: RetiredKeysInputs) {
    return { id: describeTarget(inputs.connection), outs: { ...inputs, ...(await retire(inputs)) } };
  },
  async update(_id: string, _olds: RetiredKeysInputs, news: RetiredKeysInputs) {
    return { outs: { ...news, ...(await retire(news)) } };
  },
};
