import * as fs from "fs";
import { cpuTicks, descendants, parentOf, peakKb, roleOf, sampleTree } from "../../bench/proc-memory";

describe("peak memory from /proc", () => {
  it("reads VmHWM in kB from a status file, and nothing from one without it", () => {
    const status = "Name:\tnode\nVmPeak:\t 1234567 kB\nVmHWM:\t  204800 kB\nVmRSS:\t  150000 kB\n";
    expect(peakKb(status)).toBe(204800);
    expect(peakKb("Name:\tkthreadd\nState:\tS (sleeping)\n")).toBeUndefined();
  });

  it("reads the parent pid after the command name, whatever it holds", () => {
    expect(parentOf("4242 (node) S 17 4242 4242 0 -1")).toBe(17);
    expect(parentOf("4243 (a (b) c) R 99 1 1 0")).toBe(99);
  });

  it("reads user plus system CPU ticks (fields 14 and 15) after the command name", () => {
    // pid (comm) state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime cutime …
    expect(cpuTicks("77 (node (x)) S 1 77 77 0 -1 4194304 100 0 0 0 250 31 9 9 20 0")).toBe(281);
  });

  it("tells the language host, the dynamic-provider plugin, the Kubernetes provider and the CLI apart", () => {
    const nul = (...a: string[]) => a.join("\0") + "\0";
    expect(roleOf(nul("/usr/bin/node", "/p/node_modules/@pulumi/pulumi/cmd/run", "--monitor", "127.0.0.1:1"))).toBe(
      "language",
    );
    expect(roleOf(nul("node", "/p/node_modules/@pulumi/pulumi/cmd/dynamic-provider", "127.0.0.1:2"))).toBe("plugin");
    expect(roleOf(nul("/c/pulumi-resource-kubernetes-x/pulumi-resource-kubernetes", "127.0.0.1:3"))).toBe("kubernetes");
    expect(roleOf(nul("/c/pulumi-a/pulumi", "preview"))).toBe("cli");
    expect(roleOf(nul("/c/pulumi-language-nodejs", "127.0.0.1:4"))).toBeUndefined();
    expect(roleOf(nul("node", "/p/node_modules/@pulumi/pulumi/cmd/run-policy-pack"))).toBeUndefined();
  });

  it("finds this process's children and samples their peak", async () => {
    // A child that exists for the test: this jest worker's own pid is its parent.
    const { spawn } = require("child_process") as typeof import("child_process");
    const child = spawn(process.execPath, ["-e", "setTimeout(() => {}, 5000)"], { stdio: "ignore" });
    try {
      await new Promise((r) => child.once("spawn", r));
      expect(descendants(process.pid)).toContain(child.pid);
      expect(fs.existsSync(`/proc/${child.pid}/status`)).toBe(true);
      // No process under the child has a reported role: every peak is 0.
      const none = { language: 0, plugin: 0, kubernetes: 0, cli: 0 };
      expect(sampleTree(child.pid ?? 0).stop()).toEqual({ mb: none, cpu_s: none });
    } finally {
      child.kill();
    }
  });
});
