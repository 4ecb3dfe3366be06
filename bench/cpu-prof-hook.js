// Loaded with `node --require` (through NODE_OPTIONS, which refuses --cpu-prof itself) into every Node process a
// `pulumi` command starts when the cost curve profiles (bench/curve.ts): the language host running the program and
// the dynamic-provider plugin. V8's profiler runs from the start and the profile is written, as --cpu-prof writes it,
// to $BENCH_CPU_PROF_DIR/<role>.<pid>.cpuprofile when the process exits or is told to stop (the engine ends its plugins
// with a signal).
"use strict";
const fs = require("fs");
const inspector = require("inspector");
const path = require("path");

// Only the two processes the curve reports (as bench/proc-memory.ts roleOf tells them), not the npm and node
// commands the language host runs on the way.
const script = process.argv[1] || "";
const role = /[/\\]cmd[/\\]dynamic-provider([/\\]|$)/.test(script)
  ? "plugin"
  : /@pulumi[/\\]pulumi[/\\]cmd[/\\]run([/\\]|$)/.test(script)
    ? "language"
    : undefined;
const dir = process.env.BENCH_CPU_PROF_DIR;
if (dir && role) {
  const session = new inspector.Session();
  session.connect();
  session.post("Profiler.enable");
  session.post("Profiler.setSamplingInterval", { interval: 1000 });
  session.post("Profiler.start");
  let written = false;
  // The in-process session answers synchronously, so this completes inside an exit handler.
  const write = () => {
    if (written) return;
    written = true;
    session.post("Profiler.stop", (err, result) => {
      if (err) return;
      fs.mkdirSync(dir, { recursive: true });
      fs.writeFileSync(path.join(dir, `${role}.${process.pid}.cpuprofile`), JSON.stringify(result.profile));
    });
  };
  process.on("exit", write);
  for (const signal of ["SIGTERM", "SIGINT"])
    process.once(signal, () => {
      write();
      process.exit(128 + (signal === "SIGTERM" ? 15 : 2));
    });
}
