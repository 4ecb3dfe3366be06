/** The message of anything thrown (an Error's message, or the value as text). */
export function messageOf(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/** The `code` of a Node.js system error (`ENOENT`, `ECONNREFUSED`), if it has one. */
export function codeOf(e: unknown): string | number | undefined {
  if (typeof e !== "object" || e === null || !("code" in e)) return undefined;
  const code = e.code;
  return typeof code === "string" || typeof code === "number" ? code : undefined;
}
