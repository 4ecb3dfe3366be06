import { messageOf } from "../lib/errors";

/** Where a script writes: its output and its errors. */
export interface Io {
  out: (line: string) => void;
  err: (line: string) => void;
}

export const CONSOLE_IO: Io = { out: (l) => console.log(l), err: (l) => console.error(l) };

/**
 * A script's options as `parse` reads them (util.parseArgs, strict): the values, or the exit code when there is
 * nothing more to do: 2 after naming a wrong option with the usage, 0 after printing the usage for --help.
 */
export function scriptOptions<V extends { help?: boolean }>(
  name: string,
  usage: string,
  parse: () => V,
  io: Io = CONSOLE_IO,
): V | number {
  let values: V;
  try {
    values = parse();
  } catch (e) {
    io.err(`${name}: ${messageOf(e)}\n${usage}`);
    return 2;
  }
  if (values.help) {
    io.out(usage);
    return 0;
  }
  return values;
}
