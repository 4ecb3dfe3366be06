/**
 * What a V8 CPU profile (`node --cpu-prof`, the `.cpuprofile` JSON of the DevTools protocol's Profiler.Profile) spent
 * its time in: self time per function, summed over the profile's nodes, largest first, and self time per package
 * (the path under node_modules, or the project), so the cost curve can say which code grows with N.
 */
import { execFileSync } from "child_process";
import * as fs from "fs";
import * as path from "path";

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}
export interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** Where a script is: its package under node_modules (`@scope/name`), `node:` internals, or the project's own. */
export function packageOf(url: string): string {
  if (url === "") return "(V8: GC, idle, native)";
  if (url.startsWith("node:")) return "node";
  const m = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  return m ? m[1] : "(project)";
}

/** Self time in ms per key, largest first. */
function selfTime(p: CpuProfile, key: (n: ProfileNode) => string): [string, number][] {
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const ms = new Map<string, number>();
  p.samples.forEach((id, i) => {
    const n = byId.get(id);
    if (!n) return;
    const k = key(n);
    ms.set(k, (ms.get(k) ?? 0) + (p.timeDeltas[i] ?? 0) / 1000);
  });
  return [...ms].sort((a, b) => b[1] - a[1]);
}

/** The `top` functions by self time, as `name (file:line)` and ms. */
export function topFunctions(p: CpuProfile, top = 15): [string, number][] {
  return selfTime(p, (n) => {
    const f = n.callFrame;
    return `${f.functionName || "(anonymous)"} (${f.url.replace(/^.*node_modules\//, "") || "native"}:${f.lineNumber + 1})`;
  }).slice(0, top);
}

export function topPackages(p: CpuProfile, top = 10): [string, number][] {
  return selfTime(p, (n) => packageOf(n.callFrame.url)).slice(0, top);
}

/** Every .cpuprofile under `dir` (the curve's --cpu-prof folders), summarised as lines. */
export function summariseProfiles(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  const out: string[] = [];
  for (const sub of fs.readdirSync(dir).sort())
    for (const f of fs.readdirSync(path.join(dir, sub)).filter((x) => x.endsWith(".cpuprofile"))) {
      const p: CpuProfile = JSON.parse(fs.readFileSync(path.join(dir, sub, f), "utf8"));
      const total = p.timeDeltas.reduce((a, b) => a + b, 0) / 1000;
      out.push(`${sub}/${f}: ${Math.round(total)} ms sampled`);
      out.push(
        `  by package: ${topPackages(p)
          .map(([k, ms]) => `${k} ${Math.round(ms)}`)
          .join(", ")}`,
      );
      for (const [k, ms] of topFunctions(p, 8)) out.push(`  ${Math.round(ms)} ms ${k}`);
    }
  return out;
}

/**
 * The CLI's Go CPU profiles (`pulumi --profiling`, files `cli-<op>.<pid>.cpu`) as `go tool pprof -top` prints them,
 * its first `top` functions by flat time; nothing when Go is not installed (the profiles stay for a later look).
 */
export function summariseCliProfiles(dir: string, top = 12): string[] {
  if (!fs.existsSync(dir)) return [];
  const out: string[] = [];
  for (const sub of fs.readdirSync(dir).sort())
    for (const f of fs.readdirSync(path.join(dir, sub)).filter((x) => x.endsWith(".cpu"))) {
      const file = path.join(dir, sub, f);
      try {
        const text = execFileSync("go", ["tool", "pprof", "-top", `-nodecount=${top}`, file], {
          encoding: "utf8",
          stdio: ["ignore", "pipe", "ignore"],
          timeout: 120_000,
        });
        out.push(
          `${sub}/${f}:`,
          ...text
            .split("\n")
            .filter((l) => /^\s*[\d.]+m?s\s/.test(l) || l.startsWith("Showing"))
            .map((l) => `  ${l.trim()}`),
        );
      } catch {
        out.push(
          `${sub}/${f}: not summarised (\`go tool pprof\` did not run); read it with go tool pprof -top ${file}`,
        );
      }
    }
  return out;
}
