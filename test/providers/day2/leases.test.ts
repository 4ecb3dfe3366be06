import { acquireLease, slotFree } from "../../../providers/day2/leases";
import { holderIdentity, holderStack, joinDay2Lock } from "../../../providers/day2/day2-lock";
import type { KubeApi } from "../../../providers/kube-wait/api";
import { DAY2_LOCK } from "../../../facts/day2";

// When a slot's Lease may be taken, as client-go's leader election decides it for one Lease
// (tools/leaderelection/leaderelection.go tryAcquireOrRenew: free when unheld, ours, or not renewed within its duration).
const lease = (holderIdentity: string, renewTime: string, leaseDurationSeconds = 60) => ({
  spec: { holderIdentity, renewTime, leaseDurationSeconds },
});
const now = Date.parse("2026-11-26T01:00:00.000000Z");

test("an unheld slot (released: no holder) is free", () => {
  expect(slotFree(lease("", "2026-11-26T00:59:59.000000Z"), "node a", now)).toBe(true);
  expect(slotFree({ spec: {} }, "node a", now)).toBe(true);
});

test("a slot held by someone else is taken only once its lease has run out", () => {
  expect(slotFree(lease("node b", "2026-11-26T00:59:30.000000Z"), "node a", now)).toBe(false);
  expect(slotFree(lease("node b", "2026-11-26T00:58:59.000000Z"), "node a", now)).toBe(true);
});

test("a node takes back a slot it still holds (an upgrade that failed and runs again)", () => {
  expect(slotFree(lease("node a", "2026-11-26T00:59:59.000000Z"), "node a", now)).toBe(true);
});

test("the day-2 lock is re-entrant for the same stack (its jobs run one after another) and for no other", () => {
  const mine = holderIdentity({ stack: "windows-estate/prod", job: "rolling reboot" });
  const sameStack = (current: string) => holderStack(current) === "windows-estate/prod";
  const held = (h: string) => lease(h, "2026-11-26T00:59:59.000000Z");
  expect(slotFree(held(holderIdentity({ stack: "windows-estate/prod", job: "patching" })), mine, now, sameStack)).toBe(
    true,
  );
  expect(
    slotFree(held(holderIdentity({ stack: "windows-estate/staging", job: "patching" })), mine, now, sameStack),
  ).toBe(false);
  // Another program's Lease of the same name is never taken as ours.
  expect(slotFree(held("kured"), mine, now, sameStack)).toBe(false);
});

/**
 * Leases as the API server keeps them, in memory: create (409 when it exists), read, and update at the read
 * resourceVersion (409 when another write came first), as the coordination.k8s.io storage does.
 */
function leaseApi(): KubeApi & { holder(name: string): string | undefined } {
  const base = "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases";
  const store = new Map<string, { metadata: { name: string; resourceVersion: string }; spec: object }>();
  let version = 0;
  const save = (body: unknown) => {
    const b = body as { metadata: { name: string }; spec: object };
    const saved = { ...b, metadata: { ...b.metadata, resourceVersion: String(++version) } };
    store.set(b.metadata.name, saved);
    return saved;
  };
  return {
    server: "https://leases.test",
    get: async () => ({ status: 404, body: undefined }) as never,
    holder: (name) => (store.get(name)?.spec as { holderIdentity?: string } | undefined)?.holderIdentity,
    async request(method, path, body) {
      if (method === "POST" && path === base) {
        const name = (body as { metadata: { name: string } }).metadata.name;
        return store.has(name) ? { status: 409, body: {} } : { status: 201, body: save(body) };
      }
      const name = decodeURIComponent(path.slice(base.length + 1));
      const current = store.get(name);
      if (method === "GET") return current ? { status: 200, body: current } : { status: 404, body: {} };
      if (method === "PUT") {
        const rv = (body as { metadata: { resourceVersion?: string } }).metadata.resourceVersion;
        if (!current || rv !== current.metadata.resourceVersion) return { status: 409, body: {} };
        return { status: 200, body: save(body) };
      }
      return { status: 405, body: {} };
    },
  } as KubeApi & { holder(name: string): string | undefined };
}

const slotOptions = (holder: string) => ({
  namespace: "kube-system",
  names: ["slot-0", "slot-1", "slot-2"],
  holder,
  what: "an upgrade slot",
  leaseSeconds: 300,
  pollMs: 1,
  timeoutMs: 1,
});

test("a holder that still holds a slot (its run failed, now run again) takes that one back, not a free one before it", async () => {
  const api = leaseApi();
  const a = await acquireLease(api, slotOptions("node a"));
  const c = await acquireLease(api, slotOptions("node c"));
  const b = await acquireLease(api, slotOptions("node b"));
  expect([a.name, c.name, b.name]).toEqual(["slot-0", "slot-1", "slot-2"]);
  a.abandon();
  c.abandon();
  await a.release(); // node a finished; node b's run failed holding slot-2, and node c's slot-1
  const again = await acquireLease(api, slotOptions("node b"));
  expect(again.name).toBe("slot-2");
  await again.release();
  expect(["slot-0", "slot-1", "slot-2"].map((n) => api.holder(n))).toEqual(["", "node c", ""]);
  b.abandon();
});

test("the day-2 lock shared by a stack's concurrent jobs stays held until the last leaves, one still waiting for its slot included", async () => {
  const api = leaseApi();
  const lock = { stack: "windows-estate/share", job: "vanilla upgrade" };
  // Sharing never waits for the lock to come free (it would wait for ever here: the first holder leaves only after
  // all three joined); the deadline only bounds the retries of a write that lost a race (409) on a loaded machine.
  const o = { pollMs: 1, timeoutMs: 5_000 };
  // Three nodes of one up join; the first is done while the other two hold no slot yet (waiting for one).
  const [first, second, third] = await Promise.all([1, 2, 3].map(() => joinDay2Lock(api, lock, o)));
  await first.leave(async () => false);
  expect(api.holder(DAY2_LOCK.name)).toBe(holderIdentity(lock));
  await second.leave(async () => false);
  expect(api.holder(DAY2_LOCK.name)).toBe(holderIdentity(lock));
  // The last one releases it, unless a slot of the stack is still held elsewhere.
  await third.leave(async () => false);
  expect(api.holder(DAY2_LOCK.name)).toBe("");
  const again = await joinDay2Lock(api, lock, o);
  await again.leave(async () => true);
  expect(api.holder(DAY2_LOCK.name)).toBe(holderIdentity(lock));
});

test("a job that fails never leaves: its siblings leave the lock to expire", async () => {
  const api = leaseApi();
  const lock = { stack: "windows-estate/failing", job: "vanilla upgrade" };
  const o = { pollMs: 1, timeoutMs: 1 };
  await joinDay2Lock(api, lock, o); // fails, never leaves
  const ok = await joinDay2Lock(api, lock, o);
  await ok.leave(async () => false);
  expect(api.holder(DAY2_LOCK.name)).toBe(holderIdentity(lock));
});

test("a waiter is asked whether to stop only when every slot is held, with their holders, and gives up with its reason", async () => {
  const api = leaseApi();
  const one = { ...slotOptions("node a"), names: ["slot-0"], timeoutMs: 60_000 };
  const reason = "every slot is held by node b, which failed in this run";
  const asked: (readonly string[])[] = [];
  // A free slot is taken without asking.
  const free = await acquireLease(api, { ...one, holder: "node b", stop: (h) => (asked.push(h), reason) });
  expect([free.name, asked]).toEqual(["slot-0", []]);
  // Held by another: waiting (polled every 1 ms, for up to a minute) ends at the first poll told to stop.
  const stop = (holders: readonly string[]) => (asked.push(holders) > 3 ? reason : undefined);
  await expect(acquireLease(api, { ...one, stop })).rejects.toThrow(reason);
  expect(asked).toEqual([["node b"], ["node b"], ["node b"], ["node b"]]);
  expect(api.holder("slot-0")).toBe("node b");
  free.abandon();
});

test("a node out of service without a Lease takes one free slot from the next taker; a slot already ours is never given up", async () => {
  const api = leaseApi();
  const two = { ...slotOptions("node a"), names: ["slot-0", "slot-1"] };
  const unleased = async () => [{ holder: "node x", text: "node x (its upgrade was begun and not finished)" }];
  // Two free slots, one of them left for node x: node a takes the other.
  const a = await acquireLease(api, { ...two, unleased });
  expect(a.name).toBe("slot-1");
  // One free slot left, and it is node x's: node b waits and names both holders.
  await expect(acquireLease(api, { ...two, holder: "node b", unleased })).rejects.toThrow(
    "an upgrade slot did not come free within 0s: held by node x (its upgrade was begun and not finished), node a",
  );
  expect(api.holder("slot-0")).toBeUndefined();
  // Node a, run again while it holds slot-1, takes it back whatever is out of service.
  const again = await acquireLease(api, {
    ...two,
    unleased: async () => ["node x", "node y"].map((h) => ({ holder: h, text: h })),
  });
  expect(again.name).toBe("slot-1");
  a.abandon();
  again.abandon();
});
