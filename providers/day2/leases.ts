/**
 * Cluster-wide exclusion with `coordination.k8s.io/v1` Leases, for every process that disrupts Windows nodes: the day-2
 * lock (one Lease) and the upgrade slots (`maxUnavailable` Leases, one per node out of service). A Lease is taken with
 * optimistic concurrency (a create, or an update at the read resourceVersion: a 409 means another holder won), renewed
 * while held, and expired after its duration so a crashed holder never blocks for good. This is how client-go's leader
 * election holds a Lease (tools/leaderelection/leaderelection.go `tryAcquireOrRenew`), with N leases instead of one.
 */
import { apiError, KubeAnswer, KubeApi } from "../kube-wait/api";
import { get, obj, str } from "../../lib/json";

export interface SlotOptions {
  namespace: string;
  /** The Leases, any one of which will do: one for a lock, N for N slots. */
  names: readonly string[];
  /** Who holds it: names the stack, job or node, shown to whoever waits. */
  holder: string;
  /** What is waited for, in messages ("an upgrade slot", "the day-2 lock"). */
  what: string;
  /** Whether a Lease held as `current` is already ours (re-entrant), beside the exact holder. Default: exact. */
  ours?: (current: string) => boolean;
  /** Lease duration: a holder that stops renewing loses the slot after this long. */
  leaseSeconds: number;
  pollMs: number;
  /** How long to wait for a free slot before giving up. */
  timeoutMs: number;
  /**
   * Asked each time every slot was found held, with their holders' identities (Lease or `unleased`): a reason to give
   * up now rather than wait (they are all nodes whose upgrade failed in this run, which keep their slots until it
   * ends), thrown as the error. Default: wait until `timeoutMs`.
   */
  stop?: (holders: readonly string[]) => string | undefined;
  /**
   * Asked before each attempt: who is out of service without holding a Lease (a node whose upgrade a failed run left
   * unfinished after its Lease expired), each counting as a holder of one of the free slots. Default: nobody.
   */
  unleased?: () => Promise<readonly Unleased[]>;
  progress?: (line: string) => void;
}

/** Someone out of service without a Lease: their identity, as a Lease's holder would name them, and how a wait says it. */
export interface Unleased {
  holder: string;
  text: string;
}

/** Whether a Lease can be taken by `holder` now: free, expired, or already its own. */
export function slotFree(
  lease: unknown,
  holder: string,
  nowMs: number,
  ours: (current: string) => boolean = () => false,
): boolean {
  const current = str(get(lease, "spec", "holderIdentity"));
  if (!current || current === holder || ours(current)) return true;
  const renewed = Date.parse(str(get(lease, "spec", "renewTime")) ?? str(get(lease, "spec", "acquireTime")) ?? "");
  const duration = get(lease, "spec", "leaseDurationSeconds");
  if (!Number.isFinite(renewed) || typeof duration !== "number") return true;
  return renewed + duration * 1000 < nowMs;
}

/** MicroTime as the API serializes it (RFC 3339 with microseconds, apimachinery meta/v1 micro_time.go). */
function microTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, ".$1000Z");
}

function leaseBody(o: SlotOptions, name: string, holder: string, resourceVersion?: string) {
  const now = microTime(Date.now());
  return {
    apiVersion: "coordination.k8s.io/v1",
    kind: "Lease",
    metadata: { name, namespace: o.namespace, ...(resourceVersion ? { resourceVersion } : {}) },
    spec: { holderIdentity: holder, leaseDurationSeconds: o.leaseSeconds, acquireTime: now, renewTime: now },
  };
}

/** A held Lease: renewed in the background until released, or abandoned to expire. */
export interface HeldSlot {
  name: string;
  release(): Promise<void>;
  /** Stops renewing without releasing: the Lease expires after its duration (after a failure). */
  abandon(): void;
}

/** Takes one Lease, waiting (polling, within `timeoutMs`) while all are held by others; names the holders if it cannot. */
export async function acquireLease(api: KubeApi, o: SlotOptions): Promise<HeldSlot> {
  const base = `/apis/coordination.k8s.io/v1/namespaces/${encodeURIComponent(o.namespace)}/leases`;
  const deadline = Date.now() + o.timeoutMs;
  // One this holder still holds (a run that failed holding it, run again) is taken back before any free one: taking
  // another would leave it held, counting against everyone's slots until it expired.
  const own = o.names.length > 1 ? await heldBy(api, base, o) : undefined;
  const names = own ? [own, ...o.names.filter((n) => n !== own)] : o.names;
  let said = "";
  for (;;) {
    const unleased = o.unleased ? await o.unleased() : [];
    const holders: string[] = unleased.map((u) => u.holder);
    // Free slots left for those out of service without a Lease; a slot already ours is never one of them.
    let spare = unleased.length;
    for (const name of names) {
      const path = `${base}/${encodeURIComponent(name)}`;
      const current = await api.request("GET", path);
      const free =
        current.status === 404 || (current.status === 200 && slotFree(current.body, o.holder, Date.now(), o.ours));
      const ours = current.status === 200 && str(get(current.body, "spec", "holderIdentity")) === o.holder;
      if (free && !ours && spare > 0) {
        spare--;
        continue;
      }
      let taken: KubeAnswer;
      if (current.status === 404) taken = await api.request("POST", base, leaseBody(o, name, o.holder));
      else if (free)
        taken = await api.request(
          "PUT",
          path,
          leaseBody(o, name, o.holder, str(get(current.body, "metadata", "resourceVersion"))),
        );
      else if (current.status === 200) {
        holders.push(str(get(current.body, "spec", "holderIdentity")) ?? "?");
        continue;
      } else throw apiError(`reading Lease ${o.namespace}/${name}`, current);
      // 409: another holder created or updated it first; name it, and try the next slot.
      if (taken.status === 409) {
        const now = await api.request("GET", path);
        holders.push(str(get(now.body, "spec", "holderIdentity")) ?? "another holder");
        continue;
      }
      if (taken.status >= 300) throw apiError(`taking Lease ${o.namespace}/${name}`, taken);
      return held(api, o, name, path);
    }
    const stop = o.stop?.(holders);
    if (stop !== undefined) throw new Error(stop);
    // Named in words: those without a Lease by what `unleased` says of them, the others by their Lease's holder.
    const named = [...unleased.map((u) => u.text), ...holders.slice(unleased.length)].join(", ");
    const where = `${o.namespace}/${o.names.length === 1 ? o.names[0] : o.names.join(", ")}`;
    if (Date.now() > deadline)
      throw new Error(
        `${o.what} did not come free within ${Math.round(o.timeoutMs / 1000)}s: held by ${named} (Lease ${where}); it frees when that holder finishes, or ${o.names.length === 1 ? "its" : "each"} lease expires if the holder stopped`,
      );
    const line = `waiting for ${o.what} (held by ${named})`;
    if (line !== said) o.progress?.(line);
    said = line;
    await new Promise((r) => setTimeout(r, o.pollMs));
  }
}

/** The first of the Leases whose holder is exactly `o.holder` (unexpired or not), if any. */
async function heldBy(api: KubeApi, base: string, o: SlotOptions): Promise<string | undefined> {
  for (const name of o.names) {
    const r = await api.request("GET", `${base}/${encodeURIComponent(name)}`);
    if (r.status === 200 && str(get(r.body, "spec", "holderIdentity")) === o.holder) return name;
  }
  return undefined;
}

function held(api: KubeApi, o: SlotOptions, name: string, path: string): HeldSlot {
  // Renewed at a third of its duration, as client-go renews well within its lease; a failed renewal is retried at the
  // next tick (the slot is lost only if the holder stops for a whole duration).
  const renew = async () => {
    const current = await api.request("GET", path).catch(() => undefined);
    if (current?.status !== 200 || str(get(current.body, "spec", "holderIdentity")) !== o.holder) return;
    const spec = { ...obj(get(current.body, "spec")), renewTime: microTime(Date.now()) };
    await api.request("PUT", path, { ...obj(current.body), spec }).catch(() => undefined);
  };
  const timer = setInterval(() => void renew(), (o.leaseSeconds * 1000) / 3);
  timer.unref();
  return {
    name,
    abandon: () => clearInterval(timer),
    async release() {
      clearInterval(timer);
      const current = await api.request("GET", path);
      const holder = str(get(current.body, "spec", "holderIdentity"));
      // Ours to release: our own, or (re-entrant) taken over by the same owner since.
      if (current.status !== 200 || !holder || (holder !== o.holder && !o.ours?.(holder))) return;
      // Released as client-go releases on cancel: no holder, so the next taker need not wait for expiry.
      const spec = { ...obj(get(current.body, "spec")), holderIdentity: "" };
      const r = await api.request("PUT", path, { ...obj(current.body), spec });
      if (r.status >= 300 && r.status !== 409) throw apiError(`releasing Lease ${o.namespace}/${name}`, r);
    },
  };
}
