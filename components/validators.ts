/**
 * Every domain check the config loader runs, in one list (`loadEstateConfig(raw, { validators: DOMAIN_VALIDATORS })`).
 * Each check runs only on keys whose shape already passed, so it can trust its types.
 */
import { discoveryEnabled, Validator } from "../stacks/load";
import type { ClusterConfig } from "../stacks/schema/cluster";
import { byohVersionIssues, validateByoh } from "./byoh/validate";
import { KnownWmco, pinnedWmco, validateMachineSets } from "./machinesets/validate";
import { validateMirrors } from "./mirrors/validate";
import { validateDay2 } from "./day2/validate";

/**
 * Which WMCO the support rules follow: a pinned `operator.startingCSV`; else, with discovery on, what the cluster runs
 * (checked at preview/up, components/machinesets/complete.ts); else the newest rules.
 */
function wmcoRules(
  cluster: ClusterConfig,
  csv: string | undefined,
  offline: boolean,
): KnownWmco | "cluster" | undefined {
  return pinnedWmco(csv) ?? (discoveryEnabled(cluster, offline) ? "cluster" : undefined);
}

const byoh: Validator = (cfg, ctx) => {
  if (!cfg.byoh) return { errors: [] };
  const rules = cfg.cluster ? wmcoRules(cfg.cluster, cfg.operator?.startingCSV, ctx.offline) : "cluster";
  return {
    errors: [
      ...validateByoh(cfg.byoh, ctx.secretKeys),
      ...(cfg.cluster && rules !== "cluster" ? byohVersionIssues(cfg.cluster.platform, cfg.byoh, rules) : []),
    ],
  };
};

const machineSets: Validator = (cfg, ctx) =>
  cfg.cluster && cfg.machineSets
    ? validateMachineSets(cfg.cluster, cfg.machineSets, {
        discovery: discoveryEnabled(cfg.cluster, ctx.offline),
        offline: ctx.offline,
        wmco: wmcoRules(cfg.cluster, cfg.operator?.startingCSV, ctx.offline),
      })
    : { errors: [] };

const mirrors: Validator = (cfg) => (cfg.mirrors ? validateMirrors(cfg.mirrors) : { errors: [] });

const day2: Validator = (cfg) => ({ errors: validateDay2(cfg.cluster, cfg.nodeAccess, cfg.reboot) });

export const DOMAIN_VALIDATORS: readonly Validator[] = [byoh, machineSets, mirrors, day2];
