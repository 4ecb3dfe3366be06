// Registers each concept's semantic checks with the loader; importing this module is enough. Each check runs
// only on keys whose shape already passed, so it can trust its types.
import { byohVersionIssues, validateByoh } from "../components/byoh/validate";
import { discoveryEnabled, validateMachineSets } from "../components/machinesets/validate";
import { parseWmcoVersion } from "../components/wmco/facts";
import { validateMirrors } from "../components/mirrors/validate";
import { registerValidator } from "./load";

registerValidator((cfg, ctx) => ({
  errors: cfg.byoh
    ? [
        ...validateByoh(cfg.byoh, ctx.secretKeys),
        ...(cfg.cluster && wmcoRules(cfg.cluster, cfg.operator?.startingCSV, ctx.offline) !== "cluster"
          ? byohVersionIssues(cfg.cluster.platform, cfg.byoh, pinnedWmco(cfg.operator?.startingCSV))
          : []),
      ]
    : [],
}));
registerValidator((cfg, ctx) =>
  cfg.cluster && cfg.machineSets
    ? validateMachineSets(cfg.cluster, cfg.machineSets, {
        discovery: discoveryEnabled(cfg.cluster, ctx.offline),
        offline: ctx.offline,
        wmco: wmcoRules(cfg.cluster, cfg.operator?.startingCSV, ctx.offline),
      })
    : { errors: [] },
);
registerValidator((cfg) => (cfg.mirrors ? validateMirrors(cfg.mirrors) : { errors: [] }));

/** The WMCO release a pinned `operator.startingCSV` names; without a pin the cluster decides at preview/up. */
function pinnedWmco(csv: string | undefined) {
  const version = parseWmcoVersion(csv);
  return version ? { version, source: `operator.startingCSV ${csv}` } : undefined;
}

/**
 * Which WMCO the support rules follow: a pinned `operator.startingCSV`; else, with discovery on, what the cluster runs
 * (checked at preview/up); else the newest rules.
 */
function wmcoRules(cluster: Parameters<typeof discoveryEnabled>[0], csv: string | undefined, offline: boolean) {
  return pinnedWmco(csv) ?? (discoveryEnabled(cluster, offline) ? ("cluster" as const) : undefined);
}
