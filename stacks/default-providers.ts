import { ConfigIssue } from "./config-issue";

export const DISABLE_DEFAULT_PROVIDERS = "pulumi:disable-default-providers";

/**
 * `pulumi:disable-default-providers: ["*"]` also denies the `pulumi-nodejs` provider that every dynamic resource
 * (the waits, the BYOH hosts, the AMI pin) runs under: the engine exempts only the package `pulumi`
 * (pulumi/pulumi pkg/resource/deploy/default_providers.go `shouldDenyRequest`). Said before anything is declared.
 */
export function defaultProviderIssue(raw: string | undefined): ConfigIssue | undefined {
  if (raw === undefined || raw === "") return undefined;
  const issue = (message: string): ConfigIssue => ({ key: DISABLE_DEFAULT_PROVIDERS, path: "", message });
  let list: unknown;
  try {
    list = JSON.parse(raw);
  } catch {
    return issue(`must be a list, e.g. ["kubernetes", "aws"]`);
  }
  if (Array.isArray(list) && list.some((s) => typeof s === "string" && s.trim() === "*"))
    return issue(
      `"*" also disables the pulumi-nodejs provider this program's dynamic resources need; list the packages ` +
        `instead: pulumi config set --path '${DISABLE_DEFAULT_PROVIDERS}[0]' kubernetes (and [1] aws)`,
    );
  return undefined;
}
