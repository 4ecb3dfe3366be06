import { z } from "zod";

/** Red Hat's build of WMCO as OLM knows it. */
export const REDHAT_OPERATOR = {
  package: "windows-machine-config-operator",
  channel: "stable",
  source: "redhat-operators",
} as const;

/** The community (OKD) build: its own package, the `preview` channel and the community catalog. */
export const COMMUNITY_OPERATOR = {
  package: "community-windows-machine-config-operator",
  channel: "preview",
  source: "community-operators",
} as const;

const DEFAULT_OPERATOR_NAMESPACE = "openshift-windows-machine-config-operator";

const dns1123Label = z
  .string()
  .regex(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/, "must be a lowercase DNS-1123 label (letters, digits, '-')")
  .max(63);

const envName = z
  .string()
  .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "must be an environment variable name like SERVICES_LOG_FILE_SIZE");

/**
 * `windows-estate:operator`: how WMCO is installed through OLM. Every field is optional; the defaults install Red
 * Hat's build from `redhat-operators` on the `stable` channel with automatic approval.
 */
export const operatorSchema = z
  .strictObject({
    /** Namespace WMCO runs in (OwnNamespace install mode). Default `openshift-windows-machine-config-operator`. */
    namespace: dns1123Label.default(DEFAULT_OPERATOR_NAMESPACE),
    /** Install the community build (OKD): package `community-windows-machine-config-operator`, channel `preview`, catalog `community-operators`. Default false. */
    community: z.boolean().default(false),
    /** OLM package name. Default `windows-machine-config-operator`, or the community package when `community` is true. */
    package: z.string().min(1).optional(),
    /** Subscription channel. Default `stable` (`preview` for the community build). */
    channel: z.string().min(1).optional(),
    /** `Automatic` or `Manual`. With `Manual`, `pulumi up` stops and names the InstallPlan to approve. Default `Automatic`. */
    installPlanApproval: z.enum(["Automatic", "Manual"]).default("Automatic"),
    /** CatalogSource name. Default `redhat-operators` (`community-operators` for the community build). */
    source: z.string().min(1).optional(),
    /** Namespace of the CatalogSource. Default `openshift-marketplace`. */
    sourceNamespace: dns1123Label.default("openshift-marketplace"),
    /**
     * The first CSV OLM installs, e.g. `windows-machine-config-operator.v10.19.3`. A pin only with
     * `installPlanApproval: Manual`: with `Automatic`, OLM moves on to the channel head at once. Default: the channel
     * head.
     */
    startingCSV: z
      .string()
      .regex(
        /^[a-z0-9][-a-z0-9.]*\.v\d+\.\d+\.\d+\S*$/,
        "must name a CSV like windows-machine-config-operator.v10.19.3",
      )
      .optional(),
    /**
     * Extra operator environment (Subscription `spec.config.env`), e.g. `{ARGS: "--debugLogging"}` or the log
     * rotation settings `SERVICES_LOG_FILE_SIZE`, `SERVICES_LOG_FILE_AGE`, `SERVICES_LOG_FLUSH_INTERVAL` (WMCO 10.22+).
     * Changing it restarts the operator, which reconfigures the Windows nodes one by one.
     */
    env: z.record(envName, z.string()).default({}),
    /** How long `pulumi up` waits for the operator's CSV to reach `Succeeded`, in seconds. Default 900. */
    waitTimeoutSeconds: z.number().int().min(30).max(7200).default(900),
  })
  .transform((o) => {
    const build = o.community ? COMMUNITY_OPERATOR : REDHAT_OPERATOR;
    return {
      ...o,
      package: o.package ?? build.package,
      channel: o.channel ?? build.channel,
      source: o.source ?? build.source,
    };
  });

export type OperatorConfig = z.output<typeof operatorSchema>;
