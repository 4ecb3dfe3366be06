import { errText, isConflict, say } from "./kube";
import type { Informer } from "./informer";

/**
 * A controller's start (controller-runtime's manager): its informers list and watch, and its queues, which held what
 * the lists added, are released once every cache has synced (`WaitForCacheSync`).
 */
export async function startSynced(informers: readonly Informer[], queues: readonly Queue[]): Promise<void> {
  for (const i of informers) i.start();
  await Promise.all(informers.map((i) => i.ready));
  for (const q of queues) q.release();
}

/** A controller's stop: no more watches, no more work. */
export function stopAll(informers: readonly Informer[], queues: readonly Queue[]): void {
  for (const i of informers) i.stop();
  for (const q of queues) q.stop();
}

/**
 * A keyed work queue (controller-runtime's reconcile loop): a key is handled by one call at a time, an add during a
 * call runs it again afterwards, a failure retries the key with exponential backoff (reset on success), and a
 * handler may ask to be called again after some milliseconds. Keys added before `release()` wait, as
 * controller-runtime's workers wait for the caches to sync (`WaitForCacheSync`).
 */
export class Queue {
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private readonly running = new Set<string>();
  private readonly dirty = new Set<string>();
  private readonly failures = new Map<string, number>();
  private readonly backlog = new Set<string>();
  private held = true;
  private stopped = false;

  constructor(
    private readonly player: string,
    private readonly what: string,
    private readonly handle: (key: string) => Promise<number | void>,
    private readonly maxBackoffMs = 15_000,
  ) {}

  add(key: string, delayMs = 0): void {
    if (this.stopped) return;
    if (this.held) {
      this.backlog.add(key);
      return;
    }
    const pending = this.timers.get(key);
    if (pending && delayMs > 0) return; // an earlier wake-up already covers it
    clearTimeout(pending);
    this.timers.set(
      key,
      setTimeout(() => {
        this.timers.delete(key);
        void this.run(key);
      }, delayMs),
    );
  }

  /** The caches are synced: handle what was added so far, and everything from now on. */
  release(): void {
    this.held = false;
    for (const key of this.backlog) this.add(key);
    this.backlog.clear();
  }

  stop(): void {
    this.stopped = true;
    for (const t of this.timers.values()) clearTimeout(t);
    this.timers.clear();
  }

  private async run(key: string): Promise<void> {
    if (this.stopped) return;
    if (this.running.has(key)) {
      this.dirty.add(key);
      return;
    }
    this.running.add(key);
    try {
      const again = await this.handle(key);
      this.failures.delete(key);
      if (typeof again === "number") this.add(key, again);
    } catch (e) {
      // A write against a stale cached copy: the watch brings the newer one; try again soon, quietly.
      if (isConflict(e)) {
        this.add(key, 200);
        return;
      }
      const n = (this.failures.get(key) ?? 0) + 1;
      this.failures.set(key, n);
      const delay = Math.min(this.maxBackoffMs, 250 * 2 ** Math.min(n, 8));
      say(
        this.player,
        `error reconciling ${this.what} ${key}: ${errText(e)}; retrying in ${(delay / 1000).toFixed(1)}s`,
      );
      this.add(key, delay);
    } finally {
      this.running.delete(key);
      if (this.dirty.delete(key)) this.add(key);
    }
  }
}
