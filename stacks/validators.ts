// Registers each concept's semantic checks with the loader; importing this module is enough. Each check runs
// only on keys whose shape already passed, so it can trust its types.
import { validateByoh } from "../components/byoh/validate";
import { discoveryEnabled, validateMachineSets } from "../components/machinesets/validate";
import { validateMirrors } from "../components/mirrors/validate";
import { registerValidator } from "./load";

registerValidator((cfg, ctx) => ({ errors: cfg.byoh ? validateByoh(cfg.byoh, ctx.secretKeys) : [] }));
registerValidator((cfg, ctx) =>
  cfg.cluster && cfg.machineSets
    ? validateMachineSets(cfg.cluster, cfg.machineSets, { discovery: discoveryEnabled(cfg.cluster, ctx.offline), offline: ctx.offline })
    : { errors: [] },
);
registerValidator((cfg) => (cfg.mirrors ? validateMirrors(cfg.mirrors) : { errors: [] }));
