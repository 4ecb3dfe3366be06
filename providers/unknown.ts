/**
 * Pulumi's marker for a value not known yet (during preview). It reaches dynamic providers as this literal
 * string, even for non-string fields (pulumi/pulumi#6310), so every check and diff must treat it as "changes".
 */
export const UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";

export const isUnknown = (v: unknown): boolean => v === UNKNOWN;
