/**
 * The zod pieces every decoder of API objects is made of (components/cluster-objects.ts for discovery,
 * providers/day2/inventory.ts for Nodes): each field as the API documents it, a field of another type read as absent,
 * as a cluster we do not know may send one, so a check says what it could not find instead of failing on a shape.
 */
import { z } from "zod";
import { isObject } from "./json";

/** A non-empty string, else absent (what `lib/json.ts str` reads). */
export const text = z.string().min(1).optional().catch(undefined);
/** A string, "" included (an Azure zone of "" says "no zone"). */
export const anyText = z.string().optional().catch(undefined);
/** An object of these fields (each decoding on its own), a value of another type read as `{}`. */
export const fields = <S extends z.ZodRawShape>(shape: S) =>
  z.preprocess((v) => (isObject(v) ? v : {}), z.object(shape));
/** An object of these fields, else absent. */
export const loose = <S extends z.ZodRawShape>(shape: S) => z.object(shape).optional().catch(undefined);
/** The entries that decode, others dropped. */
function decodeEach<T extends z.ZodType>(item: T, xs: readonly unknown[]): z.output<T>[] {
  return xs.flatMap((x) => {
    const r = item.safeParse(x);
    return r.success ? [r.data] : [];
  });
}
/** The entries of a list that decode (others dropped); [] when it is not a list. */
export const listOf = <T extends z.ZodType>(item: T) =>
  z
    .array(z.unknown())
    .catch([])
    .transform((xs) => decodeEach(item, xs));
/** The objects of a list that decode (other entries, objects or not, dropped); [] when it is not a list. */
export const objectsOf = <T extends z.ZodType>(item: T) =>
  z
    .array(z.unknown())
    .catch([])
    .transform((xs) => decodeEach(item, xs.filter(isObject)));
/** An object's string values (others dropped); {} when it is not an object. */
export const stringMap = z
  .record(z.string(), z.unknown())
  .catch({})
  .transform((o) =>
    Object.fromEntries(Object.entries(o).filter((e): e is [string, string] => typeof e[1] === "string")),
  );
/** The `items` of a list from the API, each decoded as `item` (entries that are not objects dropped). */
export const itemsOf = <T extends z.ZodType>(item: T) => fields({ items: objectsOf(item) });
