/**
 * Outputs go to the engine as a protobuf Struct, which has no `undefined`: the dynamic-provider host's
 * `Struct.fromJavaScript` throws on it. Optional outputs are left out instead.
 */
export function defined<T extends object>(o: T): T {
  const out = { ...o };
  for (const k of Object.keys(out)) if (Reflect.get(out, k) === undefined) Reflect.deleteProperty(out, k);
  return out;
}
