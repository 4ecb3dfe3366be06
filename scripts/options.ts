import { parseArgs, ParseArgsConfig } from "util";
import { messageOf } from "../lib/errors";

/** Where a script writes: its output and its errors. */
export interface Io {
  out: (line: string) => void;
  err: (line: string) => void;
}

type Options = NonNullable<ParseArgsConfig["options"]>;

const strictly = <O extends Options>(argv: string[], options: O) =>
  parseArgs({ args: argv, options, strict: true, allowPositionals: false }).values;

export const CONSOLE_IO: Io = { out: (l) => console.log(l), err: (l) => console.error(l) };

/**
 * A script's `options` read from `argv` (util.parseArgs, strict, no positionals; `help` among them): the values, or
 * the exit code when there is nothing more to do: 2 after naming a wrong option with the usage, 0 after printing the
 * usage for --help. (test/scripts/help.test.ts reads the options from this call.)
 */
export function scriptOptions<O extends Options>(
  name: string,
  usage: string,
  argv: string[],
  options: O,
  io: Io = CONSOLE_IO,
): ReturnType<typeof strictly<O>> | number {
  let values;
  try {
    values = strictly(argv, options);
  } catch (e) {
    io.err(`${name}: ${messageOf(e)}\n${usage}`);
    return 2;
  }
  if ("help" in values && values.help === true) {
    io.out(usage);
    return 0;
  }
  return values;
}
