/** Small measuring helpers for the benchmark: medians, timings, ratios, peak memory while something runs. */

export const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** Seconds with millisecond precision. */
export const secs = (ms: number): number => Math.round(ms) / 1000;

/** A ratio rounded to two decimals. */
export const ratio = (a: number, b: number): number => Math.round((a / b) * 100) / 100;

export async function timed<T>(fn: () => Promise<T>): Promise<[number, T]> {
  const t = process.hrtime.bigint();
  const r = await fn();
  return [Number(process.hrtime.bigint() - t) / 1e6, r];
}

/**
 * Runs `fn` while sampling this process's resident memory every 10 ms; returns the peak growth over the RSS before
 * it started, in MB (after a GC when the process runs with --expose-gc, so that garbage from earlier work does not
 * count).
 */
export async function peakGrowthMb<T>(fn: () => Promise<T>): Promise<[number, T]> {
  const gc: unknown = Reflect.get(globalThis, "gc");
  if (typeof gc === "function") gc();
  const base = process.memoryUsage().rss;
  let peak = base;
  const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 10);
  try {
    const r = await fn();
    peak = Math.max(peak, process.memoryUsage().rss);
    return [(peak - base) / 2 ** 20, r];
  } finally {
    clearInterval(timer);
  }
}
