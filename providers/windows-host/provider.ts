import type * as pulumi from "@pulumi/pulumi";
import { isUsablePin } from "../ssh/host-key";
import { PowerShell, withPowerShell } from "../ssh/powershell-runner";
import { withSession } from "../ssh/session";
import { isUnreachable } from "../../lib/errors";
import { describeTarget, SshConnection, connectionProblems } from "../ssh/types";
import { isUnknown, UNKNOWN } from "../unknown";
import {
  byohPrerequisites,
  HostProbe,
  hostProblems,
  parseProbe,
  prepareScript,
  preparationDrift,
  probeScript,
} from "./scripts";
import { versionOfBuild, WindowsServer } from "../../facts/wmco";
import { defined } from "../struct";

export interface WindowsHostInputs {
  /** How to reach the host the first time: the bootstrap credential, or the WMCO key itself. */
  connection: SshConnection;
  /** The WMCO public key (`authorized_keys` line) to authorize. */
  wmcoPublicKey: string;
  /** The WMCO private key: after preparation every access uses it, and create proves it works. */
  wmcoPrivateKey?: string;
  /** The Windows Server version the stack declares for this host; the host must run it. */
  expectedWindowsServer?: WindowsServer;
  /** The Node name WMCO gives the host where it is not its hostname (AWS: the private DNS name); see WindowsHostArgs. */
  nodeName?: string;
  /** The serialized provider the engine stores with the resource (set by the dynamic-provider host). */
  __provider?: string;
}

export interface WindowsHostOutputs extends WindowsHostInputs, HostProbe {
  windowsServer: string;
  hostKey: string;
  hostKeyFingerprint: string;
  /** Why the last refresh could not reach the host; absent when it could. */
  unreachable?: string;
  /** Earlier WMCO public keys still authorized beside the current one, until WMCO has adopted it (RetiredWmcoKeys). */
  retiringKeys?: string[];
  /** WMCO's BYOH prerequisites the host does not meet but that do not refuse it (a PTR record); WindowsHost warns. */
  prerequisiteWarnings: string[];
}

async function probe(ps: PowerShell, i: WindowsHostInputs, what = "the probe"): Promise<HostProbe> {
  return parseProbe(await ps.run(what, probeScript(i.wmcoPublicKey, i.connection.host)));
}

/** A probe as the outputs report it, with what follows from it: the Windows Server version, the warnings. */
const reported = (p: HostProbe, nodeName?: string) => ({
  ...p,
  windowsServer: versionOfBuild(p.osBuild) ?? "",
  prerequisiteWarnings: byohPrerequisites(p, nodeName).warnings,
});

/** After preparation, password logins are off: the WMCO key is the way in. */
function accessConnection(i: WindowsHostInputs): SshConnection {
  return i.wmcoPrivateKey ? { ...i.connection, privateKey: i.wmcoPrivateKey, password: undefined } : i.connection;
}

/**
 * Probe, prepare and check in one connection and one PowerShell process (its start-up is the cost that matters on
 * Windows); the decision to refuse a host is taken here, between the probe and any change.
 */
async function prepare(
  inputs: WindowsHostInputs,
  recordedHostKey: string | undefined,
  firstPreparation: boolean,
): Promise<WindowsHostOutputs> {
  const target = describeTarget(inputs.connection);
  // Safe to run again from the start if the relay's session is lost under it: the probe only reads, the preparation
  // converges (every update re-applies it), and the check reads again.
  const result = await withSession(
    inputs.connection,
    recordedHostKey,
    (s) =>
      withPowerShell(s, target, async (ps) => {
        const before = await probe(ps, inputs);
        const problems = hostProblems(before, { windowsServer: inputs.expectedWindowsServer, firstPreparation });
        if (problems.length > 0)
          throw new Error(`${target} cannot become a WMCO node: ${problems.join("; ")}. Nothing was changed.`);
        const out = await ps.run("preparing the host", prepareScript(inputs.wmcoPublicKey));
        if (!out.includes("prepared"))
          throw new Error(`preparing ${target} printed no confirmation: ${out.slice(-200)}`);
        const after = await probe(ps, inputs, "the check after preparation");
        const left = preparationDrift(after);
        if (left.length > 0) throw new Error(`${target} still differs after preparation: ${left.join(", ")}`);
        return {
          probe: after,
          sshdRestarted: out.includes("sshd restarted"),
          hostKey: recordedHostKey ?? s.hostKey,
          hostKeyFingerprint: s.hostKeyFingerprint,
        };
      }),
    { retriesOnRelayLoss: 2 },
  );
  // The proof WMCO needs: a fresh login with its own key, pinned to the same host key. This session already was one
  // when it logged in with that key and sshd was not restarted since (a restart with a broken config would only show
  // on the next login).
  const loggedInWithWmcoKey =
    inputs.wmcoPrivateKey !== undefined &&
    inputs.connection.privateKey === inputs.wmcoPrivateKey &&
    inputs.connection.password === undefined;
  if (inputs.wmcoPrivateKey && (!loggedInWithWmcoKey || result.sshdRestarted)) {
    await withSession(accessConnection(inputs), result.hostKey, async () => undefined).catch((e: Error) => {
      throw new Error(`${target} was prepared, but logging in with the WMCO key fails: ${e.message}`);
    });
  }
  return {
    ...inputs,
    ...reported(result.probe, inputs.nodeName),
    hostKey: result.hostKey,
    hostKeyFingerprint: result.hostKeyFingerprint,
  };
}

export function checkWindowsHost(news: WindowsHostInputs): pulumi.dynamic.CheckFailure[] {
  const f: pulumi.dynamic.CheckFailure[] = [];
  const c = news.connection;
  if (isUnknown(c)) return f;
  for (const reason of connectionProblems(c, isUsablePin, isUnknown)) f.push({ property: "connection", reason });
  if (
    news.wmcoPublicKey !== UNKNOWN &&
    !/^(ssh-(rsa|ed25519)|ecdsa-sha2-nistp\d+) AAAA[A-Za-z0-9+/]+=*$/.test(news.wmcoPublicKey ?? "")
  ) {
    f.push({ property: "wmcoPublicKey", reason: "must be one authorized_keys line without options or comment" });
  }
  return f;
}

/**
 * The WindowsHost dynamic provider: prepares a bring-your-own Windows host for WMCO and reports drift from that
 * state. Delete leaves the host as it is: WMCO still needs SSH access with its key to deconfigure the node once
 * it leaves the windows-instances ConfigMap.
 */
export const windowsHostProvider: pulumi.dynamic.ResourceProvider = {
  async check(_olds: WindowsHostInputs, news: WindowsHostInputs) {
    return { inputs: news, failures: checkWindowsHost(news) };
  },
  async diff(_id: string, olds: WindowsHostOutputs, news: WindowsHostInputs) {
    const replaces: string[] = [];
    const host = (c: SshConnection | undefined) => `${c?.host}:${c?.port ?? 22}`;
    if (host(olds.connection) !== host(news.connection) || news.connection?.host === UNKNOWN)
      replaces.push("connection");
    // A host the last refresh could not reach must be checked again by the next `up`.
    const drift = preparationDrift(olds).length > 0 || olds.unreachable !== undefined;
    const keyChanged =
      olds.wmcoPublicKey !== news.wmcoPublicKey ||
      olds.wmcoPrivateKey !== news.wmcoPrivateKey ||
      olds.expectedWindowsServer !== news.expectedWindowsServer ||
      olds.nodeName !== news.nodeName;
    const connectionChanged = JSON.stringify(olds.connection) !== JSON.stringify(news.connection);
    // New provider code (this program upgraded) re-applies the preparation, idempotently.
    const codeChanged = olds.__provider !== news.__provider;
    return {
      changes: replaces.length > 0 || drift || keyChanged || connectionChanged || codeChanged,
      replaces,
      deleteBeforeReplace: false,
    };
  },
  async create(inputs: WindowsHostInputs) {
    const outs = await prepare(inputs, undefined, true);
    return { id: describeTarget(inputs.connection), outs: defined({ ...outs, retiringKeys: [] }) };
  },
  async read(id: string, props?: WindowsHostOutputs) {
    if (!props) return { id, props: {} };
    const { unreachable: _before, ...last } = props;
    try {
      // A refresh looks, it does not wait out an outage: at most 30 s per host (an `up` keeps the full deadline).
      const conn = accessConnection(props);
      const p = await withSession(
        { ...conn, deadlineSeconds: Math.min(conn.deadlineSeconds ?? 120, 30) },
        props.hostKey,
        (s) => withPowerShell(s, describeTarget(props.connection), (ps) => probe(ps, props)),
        // A probe only reads.
        { retriesOnRelayLoss: 2 },
      );
      return { id, props: defined({ ...last, ...reported(p, props.nodeName) }) };
    } catch (e) {
      // One host down must not fail a scheduled refresh of the whole estate: keep the last known state and say
      // why. The next `pulumi up` sees `unreachable`, checks the host again and fails naming it if it is still down.
      // Only a host that could not be reached (flagged by the SSH layer); a refusal or a wrong answer still fails.
      if (!isUnreachable(e)) throw e;
      const why = e.message.slice(0, 300);
      console.error(
        `warning: ${describeTarget(props.connection)} is unreachable; refresh kept its last known state: ${why}`,
      );
      return { id, props: defined({ ...last, unreachable: why }) };
    }
  },
  async update(_id: string, olds: WindowsHostOutputs, news: WindowsHostInputs) {
    // A rotated WMCO key is authorized over the old key's access, so the host never locks WMCO out.
    const via = olds.wmcoPrivateKey ? { ...news, connection: accessConnection(olds) } : news;
    // Not a first preparation: WMCO may have joined the host since, with its own containerd and services.
    const outs = await prepare(via, olds.hostKey, false);
    // The old key stays authorized beside the new one until WMCO has adopted the new one; RetiredWmcoKeys removes it.
    const earlier = [olds.wmcoPublicKey, ...(olds.retiringKeys ?? [])].filter((k) => k && k !== news.wmcoPublicKey);
    const retiringKeys =
      olds.wmcoPublicKey !== news.wmcoPublicKey ? [...new Set(earlier)].slice(0, 5) : (olds.retiringKeys ?? []);
    return {
      outs: defined({ ...outs, connection: news.connection, wmcoPrivateKey: news.wmcoPrivateKey, retiringKeys }),
    };
  },
  async delete() {
    // Intentionally leaves the host prepared: see the provider's comment.
  },
};
