/**
 * Waiting for a node to be back: Ready, with a kubelet heartbeat newer than the one seen before it went down. The
 * heartbeat is compared with the kubelet's own earlier value, never with our clock, so clock skew cannot pass or fail
 * it. Used after a reboot (rolling reboot) and after an upgrade (vanilla nodes).
 */
import { NodeApi } from "./drain-run";
import { readyCondition } from "./inventory";

const nodePath = (name: string) => `/api/v1/nodes/${encodeURIComponent(name)}`;

/** The Node as the API has it now; a node that is gone is an error naming it. */
export async function readNode(api: NodeApi, name: string): Promise<unknown> {
  const r = await api.request("GET", nodePath(name));
  if (r.status === 404) throw new Error(`node ${name} no longer exists; run pulumi up again to plan without it`);
  if (r.status !== 200) throw new Error(`reading node ${name} failed: the API answered ${r.status}`);
  return r.body;
}

/** The Ready condition's last heartbeat now ("" when there is none). */
export async function lastHeartbeat(api: NodeApi, name: string): Promise<string> {
  return readyCondition(await readNode(api, name)).heartbeat ?? "";
}

export async function waitForFreshReady(
  api: NodeApi,
  name: string,
  heartbeatBefore: string,
  o: { timeoutMs: number; pollMs: number; after: string },
): Promise<void> {
  const deadline = Date.now() + o.timeoutMs;
  for (;;) {
    const ready = readyCondition(await readNode(api, name));
    if (ready.status === "True" && (ready.heartbeat ?? "") > heartbeatBefore) return;
    if (Date.now() + o.pollMs > deadline)
      throw new Error(
        `not Ready with a fresh kubelet heartbeat within ${Math.round(o.timeoutMs / 1000)}s after ${o.after} (Ready=${ready.status ?? "unknown"}, last heartbeat ${ready.heartbeat ?? "none"}); it stays cordoned`,
      );
    await new Promise((r) => setTimeout(r, o.pollMs));
  }
}
