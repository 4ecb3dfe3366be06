/**
 * The lab's one kind of failure: a sentence naming the cause and the fix, printed on one line with a non-zero exit.
 * Anything else reaching the top is a bug in the lab and is printed with its stack.
 */
export class LabError extends Error {
  constructor(
    message: string,
    /** Exit code: 2 for a wrong command line, 1 for everything else. */
    readonly exitCode = 1,
  ) {
    super(message);
    this.name = "LabError";
  }
}
