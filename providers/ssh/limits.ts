/**
 * One value per process, shared by every provider in it (NodeFiles, WindowsHost): providers are serialized
 * separately, so a module-level instance would be one per provider, not one per process.
 */
function perProcess<T>(name: string, make: () => T): T {
  const key = Symbol.for(`windows-estate.ssh.${name}`);
  const existing: T | undefined = Reflect.get(globalThis, key);
  if (existing) return existing;
  const made = make();
  Reflect.set(globalThis, key, made);
  return made;
}

/**
 * The bound on concurrent SSH connections of this process: a fleet of resources runs in parallel in one provider
 * host, and an unbounded burst exhausts file descriptors and sshd's MaxStartups on bastions. 32 unless
 * `WINDOWS_ESTATE_SSH_MAX_CONNECTIONS` says otherwise. A plain object from a factory, not a class: this code is
 * serialized into state, and serialized classes lose their field initializers.
 */
export function processSemaphore(): { acquire(): Promise<() => void> } {
  return perProcess("connections", () => {
    const n = Number(process.env.WINDOWS_ESTATE_SSH_MAX_CONNECTIONS);
    const limit = Number.isInteger(n) && n > 0 ? n : 32;
    let active = 0;
    const waiting: (() => void)[] = [];
    return {
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
    };
  });
}

/**
 * What this process's SSH layer has done so far (one count for the process, like the semaphore): successful logins,
 * connections that authenticated. The round-trip tests read it to count an operation's logins on the client side,
 * where each login is known when it happens.
 */
export function sshCounters(): { logins: number } {
  return perProcess("counters", () => ({ logins: 0 }));
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
    p.finally(() => clearTimeout(t)).then(resolve, reject);
  });
}
