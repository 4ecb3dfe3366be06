/**
 * Every domain check the config loader runs, in one list (`loadEstateConfig(raw, { validators: DOMAIN_VALIDATORS })`).
 * Each check runs only on keys whose shape already passed, so it can trust its types.
 */
import { discoveryEnabled, Validator } from "../stacks/load";
import { worded } from "../stacks/config-issue";
import { asOpenShift, isVanilla, OpenShiftClusterConfig } from "../stacks/schema/cluster";
import type { OperatorConfig } from "../stacks/schema/operator";
import { validateVanilla } from "./vanilla/validate";
import { validateByoh } from "./byoh/validate";
import { KnownWmco, pinnedWmco, validateMachineSets, versionIssues } from "./machinesets/validate";
import { MirrorWriter, validateMirrors } from "./mirrors/validate";
import { validateDay2, validatePatching } from "./day2/validate";
import { hostedRunnerIssues } from "./provisioning/runner-reach";
import { clouds } from "./provisioning/validate-clouds";
import { templateKeyIssues, unstatedTemplateKeys } from "./key/rotation";

/**
 * Which WMCO the support rules follow: `operator.startingCSV` with `installPlanApproval: Manual` (with Automatic OLM
 * moves past it at once: components/wmco/release.ts); else, with discovery on, what the cluster runs (checked at
 * preview/up, components/machinesets/complete.ts); else the newest rules.
 */
function wmcoRules(
  cluster: OpenShiftClusterConfig,
  operator: OperatorConfig | undefined,
  offline: boolean,
): KnownWmco | "cluster" | undefined {
  return pinnedWmco(operator) ?? (discoveryEnabled(cluster, offline) ? "cluster" : undefined);
}

// The WMCO checks run on OpenShift stacks only (a Kubernetes stack with these keys is refused by the loader).
const byoh: Validator = (cfg, ctx) => {
  if (!cfg.byoh || (cfg.cluster && isVanilla(cfg.cluster.platform))) return { errors: [] };
  const cluster = cfg.cluster && asOpenShift(cfg.cluster);
  const rules = cluster ? wmcoRules(cluster, cfg.operator, ctx.offline) : "cluster";
  return {
    errors: [
      ...validateByoh(cfg.byoh, ctx.secretKeys),
      ...cfg.byoh.flatMap((h, i) =>
        (h.aws && !h.aws.region && !cfg.cluster?.region) || (h.azure && !h.azure.location && !cfg.cluster?.region)
          ? [
              {
                path: `byoh[${i}].${h.aws ? "aws.region" : "azure.location"}`,
                message: "is needed to create the VM: set it, or cluster.region",
              },
            ]
          : [],
      ),
      ...(cluster && rules !== "cluster"
        ? cfg.byoh.flatMap((h, i) =>
            versionIssues(cluster.platform, `byoh[${i}].windowsServer`, h.windowsServer, rules),
          )
        : []),
    ],
  };
};

const machineSets: Validator = (cfg, ctx) => {
  const cluster = cfg.cluster && asOpenShift(cfg.cluster);
  return cluster && cfg.machineSets
    ? validateMachineSets(cluster, cfg.machineSets, {
        discovery: discoveryEnabled(cluster, ctx.offline),
        offline: ctx.offline,
        wmco: wmcoRules(cluster, cfg.operator, ctx.offline),
      })
    : { errors: [] };
};

// vSphere Machines authorize the template's key, never the user data's: the stack's key must be one it holds. Without
// discovery at preview/up (whatever synth's own offline run does) a key change goes unseen: warned where unstated.
const templateKeys: Validator = (cfg, ctx) => {
  const cluster = cfg.cluster && asOpenShift(cfg.cluster);
  return {
    errors: cfg.machineSets ? templateKeyIssues(cfg.machineSets, ctx.wmcoKey) : [],
    warnings:
      cfg.machineSets && cluster
        ? unstatedTemplateKeys(cfg.machineSets, ctx.wmcoKey, discoveryEnabled(cluster, false))
        : [],
  };
};

const vanilla: Validator = (cfg, ctx) => {
  if (!cfg.cluster || !isVanilla(cfg.cluster.platform)) return { errors: [] };
  const checked = validateVanilla(cfg.kubernetes, cfg.nodes ?? [], cfg.mirrors, ctx.secretKeys);
  return {
    warnings: checked.warnings,
    errors: [
      ...checked.errors,
      // Said rather than ignored: the rollout reaches nodes the WMCO way (users, pins) and is not wired here yet.
      ...(cfg.reboot
        ? [
            {
              path: "reboot",
              ...worded(
                (a) =>
                  `rolling reboots are not available on cluster.platform Kubernetes yet (they reach nodes the WMCO way); remove ${a.key("reboot")}`,
              ),
            },
          ]
        : []),
    ],
  };
};

/** Render mode talks to no cluster: a kubeconfig or context beside it is a contradiction the provider would refuse. */
const cluster: Validator = (cfg) => ({
  errors:
    cfg.cluster?.render === undefined
      ? []
      : (["kubeconfig", "context"] as const)
          .filter((k) => cfg.cluster?.[k] !== undefined)
          .map((k) => ({
            path: `cluster.${k}`,
            message: `cannot be set with cluster.render (render mode writes YAML and talks to no cluster): remove one of them`,
          })),
});

// Who writes the Windows nodes' hosts.toml decides which sources are refused (components/mirrors/validate.ts).
const mirrors: Validator = (cfg) => (cfg.mirrors ? validateMirrors(cfg.mirrors, mirrorWriter(cfg)) : { errors: [] });

/** WMCO, with or without Windows nodes in this stack, or this program on a Kubernetes stack. */
function mirrorWriter(cfg: Parameters<Validator>[0]): MirrorWriter {
  if (cfg.cluster && isVanilla(cfg.cluster.platform)) return "kubeadm";
  return (cfg.machineSets?.length ?? 0) + (cfg.byoh?.length ?? 0) > 0 ? "wmco" : "wmco-no-nodes";
}

const day2: Validator = (cfg) => ({
  errors: [...validateDay2(cfg.cluster, cfg.nodeAccess, cfg.reboot), ...validatePatching(cfg.cluster, cfg.patching)],
});

// Where `pulumi up` runs decides what it can reach: a GitHub-hosted runner cannot reach the private addresses of the
// VMs a stack creates. Never offline: synth runs on hosted runners too and reaches nothing.
const runnerReach: Validator = (cfg, ctx) => ({ errors: ctx.offline ? [] : hostedRunnerIssues(cfg, process.env) });

export const DOMAIN_VALIDATORS: readonly Validator[] = [
  cluster,
  byoh,
  machineSets,
  templateKeys,
  mirrors,
  day2,
  vanilla,
  runnerReach,
  clouds,
];
