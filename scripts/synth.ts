import { CONSOLE_IO } from "./options";
import { synth } from "./synth/main";

// Pulumi records where each resource is declared by capturing a stack trace, and ts-node's source-map support
// rewrites every one of them: over half of synth's time on a large estate. Synth prints no stack traces unless
// DEBUG is set, so V8's own formatting is enough.
if (!process.env.DEBUG) Reflect.deleteProperty(Error, "prepareStackTrace");

// A stack trace is a bug report, not a message: print what went wrong, and the trace only when asked.
synth(process.argv.slice(2), CONSOLE_IO)
  .then((code) => process.exit(code))
  .catch((e: Error) => {
    console.error(`synth failed: ${e.message}`);
    if (process.env.DEBUG) console.error(e.stack);
    process.exit(1);
  });
