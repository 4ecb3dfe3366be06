/**
 * windows-estate as a library: the components a platform team declares in its own Pulumi program, and what Pulumi's
 * component provider offers every other language (PulumiPlugin.yaml; `pulumi package add`). Their args are the keys
 * of a stack's `windows-estate:` config, generated from the same schemas (components/args.ts; docs/library.md).
 *
 * Only the multi-language components are exported here: Pulumi's component provider host serves every component
 * class this module exports (@pulumi/pulumi cmd/run-plugin `getPulumiComponents`). The parts, for TypeScript users
 * who want one piece alone, are in `windows-estate/parts` (library/parts.ts).
 */
export { WindowsEstate } from "../components/estate";
export type { ClusterProxy, RebootSummary, RegistrySources } from "../components/estate";
export type { ByohHostSummary, MachineSetSummary } from "../components/estate-declare";
export { VanillaEstate } from "../components/vanilla/estate";
export * from "../components/args";
