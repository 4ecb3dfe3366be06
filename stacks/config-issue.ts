import { NAMESPACE } from "./schema";

/**
 * One problem found in a stack's `windows-estate:*` configuration, or in a component's args (the same keys).
 *
 * `path` is relative to the config namespace and uses the same notation users type in
 * `pulumi config set --path`, e.g. `machineSets[0].azure.vmSize`; each audience names it its own way when it is
 * printed (formatIssue). `message` says what is wrong and what is allowed or how to fix it, as a stack's user reads it.
 */
export interface ConfigIssue {
  path: string;
  message: string;
  /**
   * The message as a library user reads it, when it differs: it names other keys, or its hint is a stack-config
   * command (`worded` makes both from one text).
   */
  argsMessage?: string;
  /**
   * The full config key when the problem is not under `windows-estate:` (a mistyped namespace such as
   * `windows_estate:byoh`, or `pulumi:disable-default-providers`); printed instead of `windows-estate:<path>`.
   */
  key?: string;
}

/**
 * Who reads the problems: a stack's user, through the program (keys as `windows-estate:<path>`, hints in
 * `pulumi config set` terms), or a library user (keys by their path in the args, headed by the component).
 */
export interface Audience {
  /** True for a stack's user. */
  readonly stack: boolean;
  /** What the problems are of: `the stack configuration`, or the component (`WindowsEstate estate`). */
  readonly who: string;
  /** How this audience names a key (a path under the namespace). */
  key(path: string): string;
}

/** A stack's user: `windows-estate:reboot.token`. */
export const STACK_AUDIENCE: Audience = {
  stack: true,
  who: "the stack configuration",
  key: (path) => `${NAMESPACE}:${path}`,
};

/** A library user of `component` (`WindowsEstate estate`): `reboot.token`. */
export function argsAudience(component: string): Audience {
  return { stack: false, who: component, key: (path) => path };
}

/** A message for each audience from one text that names keys (and gives hints) through the audience. */
export function worded(text: (a: Audience) => string): Pick<ConfigIssue, "message" | "argsMessage"> {
  const message = text(STACK_AUDIENCE);
  const args = text(argsAudience(""));
  return args === message ? { message } : { message, argsMessage: args };
}

/** One issue as `audience` reads it: its key, then the message (errors and warnings alike). */
export function formatIssue(i: ConfigIssue, audience: Audience = STACK_AUDIENCE): string {
  return `${i.key ?? audience.key(i.path)}: ${audience.stack ? i.message : (i.argsMessage ?? i.message)}`;
}

/** Every problem, headed for `audience`. */
export function formatIssues(issues: readonly ConfigIssue[], audience: Audience = STACK_AUDIENCE): string {
  const n = `${issues.length} problem${issues.length === 1 ? "" : "s"}`;
  const lines = issues.map((i) => `\n  ${formatIssue(i, audience)}`);
  return `${audience.who}${audience.stack ? ` has ${n}:` : `: the args have ${n}:`}${lines.join("")}`;
}

/** The issues without repeats: one of each path and message, in first-seen order. */
export function uniqueIssues(issues: readonly ConfigIssue[]): ConfigIssue[] {
  return [...new Map(issues.map((i) => [`${i.path}:${i.message}`, i])).values()];
}

/** Joins path segments the way `pulumi config set --path` spells them: `a.b[0].c`. */
export function joinPath(segments: ReadonlyArray<string | number>): string {
  let out = "";
  for (const s of segments) {
    if (typeof s === "number") out += `[${s}]`;
    else if (/^[A-Za-z_][A-Za-z0-9_]*$/.test(s)) out += out === "" ? s : `.${s}`;
    else out += `[${JSON.stringify(s)}]`;
  }
  return out;
}
