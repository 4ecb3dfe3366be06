/**
 * Reading JSON we did not write (API objects, probe output, pull secrets) without type assertions: each accessor
 * checks what it returns. Pure, dependency-free, and safe to capture in dynamic providers' serialized code.
 */
export type JsonObject = Record<string, unknown>;

export function isObject(v: unknown): v is JsonObject {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** The value at a path of object keys and array indexes, or undefined. */
export function get(o: unknown, ...path: (string | number)[]): unknown {
  let cur: unknown = o;
  for (const k of path) {
    if (typeof k === "number") {
      if (!Array.isArray(cur)) return undefined;
      cur = cur[k];
    } else {
      if (!isObject(cur)) return undefined;
      cur = cur[k];
    }
  }
  return cur;
}

/** A non-empty string, or undefined. */
export function str(v: unknown): string | undefined {
  return typeof v === "string" && v !== "" ? v : undefined;
}

/** An object, or undefined. */
export function obj(v: unknown): JsonObject | undefined {
  return isObject(v) ? v : undefined;
}

/** The objects of a list (other entries dropped); [] when it is not a list. */
export function objects(v: unknown): JsonObject[] {
  return Array.isArray(v) ? v.filter(isObject) : [];
}

/** The strings of a list (other entries dropped); [] when it is not a list. */
export function strings(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : [];
}

/** An object's string values (others dropped); {} when it is not an object. */
export function stringMap(v: unknown): Record<string, string> {
  return isObject(v)
    ? Object.fromEntries(Object.entries(v).filter((e): e is [string, string] => typeof e[1] === "string"))
    : {};
}

/** `JSON.parse` returning `unknown`, for the accessors above. */
export function parseJson(text: string): unknown {
  return JSON.parse(text);
}
