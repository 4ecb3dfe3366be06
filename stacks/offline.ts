/**
 * Synth runs without the Pulumi CLI, so it cannot decrypt `secure:` values in a stack file. It hands the program
 * this text instead (still marked secret), and the loader knows not to validate it as a key.
 */
export const UNDECRYPTED_SECRET = "[secure value: not decrypted offline]";

/** Set by `npm run synth`: no cluster, no cloud account. Discovery, waits and cloud lookups are off. */
export const OFFLINE_ENV = "WINDOWS_ESTATE_OFFLINE";

export function isOffline(env: NodeJS.ProcessEnv = process.env): boolean {
  return env[OFFLINE_ENV] === "1";
}
