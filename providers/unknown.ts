import * as pulumi from "@pulumi/pulumi";

/**
 * Pulumi's marker for a value not known yet (during preview). It reaches dynamic providers as this literal
 * string, even for non-string fields (pulumi/pulumi#6310), so every check and diff must treat it as "changes".
 */
export const UNKNOWN: string = pulumi.runtime.unknownValue;

export const isUnknown = (v: unknown): boolean => v === UNKNOWN;
