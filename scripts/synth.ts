import { synth } from "./synth/main";

// A stack trace is a bug report, not a message: print what went wrong, and the trace only when asked.
synth(process.argv.slice(2), { out: (l) => console.log(l), err: (l) => console.error(l) })
  .then((code) => process.exit(code))
  .catch((e: Error) => {
    console.error(`synth failed: ${e.message}`);
    if (process.env.DEBUG) console.error(e.stack);
    process.exit(1);
  });
