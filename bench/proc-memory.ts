/**
 * Peak memory of the processes a `pulumi` command starts, read from /proc while it runs: the kernel's high-water mark
 * of each process's resident set (`VmHWM` in /proc/<pid>/status, proc(5)), sampled, the highest seen per role. VmHWM
 * only grows, so a sample taken late in a process's life holds its peak; what it gains after the last sample before it
 * exits (one interval) is missed.
 */
import * as fs from "fs";

/** Which part of a Pulumi run a process is (by its command line), or undefined for one we do not report. */
export type Role = "language" | "plugin" | "kubernetes" | "cli";

/**
 * The role of a process from its /proc/<pid>/cmdline (NUL-separated). The Node language host
 * (`pulumi-language-nodejs`, Go) starts the program as `node … @pulumi/pulumi/cmd/run …`; the dynamic-provider
 * plugin is `node … @pulumi/pulumi/cmd/dynamic-provider` (the `pulumi-resource-pulumi-nodejs` script of
 * @pulumi/pulumi); pulumi-resource-kubernetes is its own binary.
 */
export function roleOf(cmdline: string): Role | undefined {
  const args = cmdline.split("\0").filter(Boolean);
  const joined = args.join(" ");
  if (/[/\\]cmd[/\\]dynamic-provider(?:[/\\ ]|$)/.test(joined)) return "plugin";
  if (/@pulumi[/\\]pulumi[/\\]cmd[/\\]run(?:[/\\ ]|$)/.test(joined)) return "language";
  const exe = (args[0] ?? "").split("/").pop() ?? "";
  if (exe === "pulumi-resource-kubernetes") return "kubernetes";
  if (exe === "pulumi") return "cli";
  return undefined;
}

/** VmHWM of a /proc/<pid>/status text, in kB, or undefined when it has none (a kernel thread, a zombie). */
export function peakKb(status: string): number | undefined {
  const m = /^VmHWM:\s+(\d+)\s+kB$/m.exec(status);
  return m ? Number(m[1]) : undefined;
}

/** Parent pid of a /proc/<pid>/stat text (field 4; the command name in field 2 may hold spaces and parentheses). */
export function parentOf(stat: string): number {
  return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
}

/**
 * CPU time a process has used so far, user and system (fields 14 and 15 of /proc/<pid>/stat), in clock ticks. On a
 * machine shared with other work, wall time measures the scheduler as much as the program; CPU time does not.
 */
export function cpuTicks(stat: string): number {
  const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  // After the command name, field 3 (state) is f[0]: utime (14) and stime (15) are f[11] and f[12].
  return Number(f[11]) + Number(f[12]);
}

/** The processes `root` started, and theirs, as /proc lists them now. */
export function descendants(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const d of fs.readdirSync("/proc"))
    if (/^\d+$/.test(d))
      try {
        const ppid = parentOf(fs.readFileSync(`/proc/${d}/stat`, "utf8"));
        children.set(ppid, [...(children.get(ppid) ?? []), Number(d)]);
      } catch {
        /* gone */
      }
  const out: number[] = [];
  const walk = (p: number) => {
    for (const c of children.get(p) ?? []) {
      out.push(c);
      walk(c);
    }
  };
  walk(root);
  return out;
}

/** Peak resident memory per role, in MB (0 when no process of that role was seen), and CPU seconds per role. */
export interface Peaks {
  mb: Record<Role, number>;
  cpu_s: Record<Role, number>;
}

/** Clock ticks per second (sysconf(_SC_CLK_TCK)): 100 on every Linux architecture Node runs on. */
const CLK_TCK = 100;

/**
 * Samples `root` and its descendants every `intervalMs` until `stop()`, which returns the highest VmHWM seen per role
 * (the largest process of that role when there are several).
 */
export function sampleTree(root: number, intervalMs = 200): { stop(): Peaks } {
  const kb: Record<Role, number> = { language: 0, plugin: 0, kubernetes: 0, cli: 0 };
  // The last CPU time seen of each process (it only grows); a process's time after the last sample is missed.
  const ticks = new Map<number, { role: Role; ticks: number }>();
  const sample = () => {
    for (const pid of [root, ...descendants(root)])
      try {
        // Read each time, not remembered: between fork and exec a child still shows its parent's command line.
        const role = roleOf(fs.readFileSync(`/proc/${pid}/cmdline`, "utf8"));
        if (!role) continue;
        kb[role] = Math.max(kb[role], peakKb(fs.readFileSync(`/proc/${pid}/status`, "utf8")) ?? 0);
        ticks.set(pid, { role, ticks: cpuTicks(fs.readFileSync(`/proc/${pid}/stat`, "utf8")) });
      } catch {
        /* gone between the listing and the read */
      }
  };
  sample();
  const timer = setInterval(sample, intervalMs);
  return {
    stop() {
      clearInterval(timer);
      const mb = (k: number) => Math.round(k / 102.4) / 10;
      const cpu: Record<Role, number> = { language: 0, plugin: 0, kubernetes: 0, cli: 0 };
      for (const t of ticks.values()) cpu[t.role] += t.ticks / CLK_TCK;
      const round = (x: number) => Math.round(x * 100) / 100;
      return {
        mb: { language: mb(kb.language), plugin: mb(kb.plugin), kubernetes: mb(kb.kubernetes), cli: mb(kb.cli) },
        cpu_s: {
          language: round(cpu.language),
          plugin: round(cpu.plugin),
          kubernetes: round(cpu.kubernetes),
          cli: round(cpu.cli),
        },
      };
    },
  };
}
