/**
 * A bound on concurrent SSH connections per process: a fleet of resources runs in parallel in one provider host,
 * and an unbounded burst exhausts file descriptors and sshd's MaxStartups on bastions. A plain object from a
 * factory, not a class: this code is serialized into state, and serialized classes lose their field initializers.
 */
export interface Semaphore {
  readonly limit: number;
  acquire(): Promise<() => void>;
  inUse(): number;
}

export function createSemaphore(limit: number): Semaphore {
  let active = 0;
  const waiting: (() => void)[] = [];
  return {
    limit,
    async acquire() {
      if (active >= limit) await new Promise<void>((resolve) => waiting.push(resolve));
      active++;
      let released = false;
      return () => {
        if (released) return;
        released = true;
        active--;
        waiting.shift()?.();
      };
    },
    inUse: () => active,
  };
}

/** Default bound; `WINDOWS_ESTATE_SSH_MAX_CONNECTIONS` overrides it. */
export function connectionLimit(env: NodeJS.ProcessEnv = process.env): number {
  const n = Number(env.WINDOWS_ESTATE_SSH_MAX_CONNECTIONS);
  return Number.isInteger(n) && n > 0 ? n : 32;
}

/**
 * The one semaphore of this process, shared by every provider in it (NodeFiles, WindowsHost): providers are
 * serialized separately, so a module-level instance would be one per provider, not one per process.
 */
export function processSemaphore(): Semaphore {
  const key = Symbol.for("windows-estate.ssh.connections");
  const existing: Semaphore | undefined = Reflect.get(globalThis, key);
  if (existing) return existing;
  const s = createSemaphore(connectionLimit());
  Reflect.set(globalThis, key, s);
  return s;
}

/** What this process's SSH layer has done so far: successful logins (connections that authenticated). */
export interface SshCounters {
  logins: number;
}

/**
 * The counters of this process, shared by every provider in it (like the semaphore): what the round-trip tests read
 * to count an operation's logins on the client side, where each login is known when it happens.
 */
export function sshCounters(): SshCounters {
  const key = Symbol.for("windows-estate.ssh.counters");
  const existing: SshCounters | undefined = Reflect.get(globalThis, key);
  if (existing) return existing;
  const c: SshCounters = { logins: 0 };
  Reflect.set(globalThis, key, c);
  return c;
}

/**
 * `p`, or the error `timedOut` makes when `p` has not settled within `ms`; `onTimeout` runs first, to close what hangs.
 */
export function within<T>(ms: number, p: Promise<T>, timedOut: () => Error, onTimeout?: () => void): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const t = setTimeout(() => {
      onTimeout?.();
      reject(timedOut());
    }, ms);
    p.then(
      (v) => {
        clearTimeout(t);
        resolve(v);
      },
      (e) => {
        clearTimeout(t);
        reject(e);
      },
    );
  });
}
