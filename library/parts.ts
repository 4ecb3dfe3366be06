/**
 * The estate's parts, for TypeScript programs that want one piece alone (TypeScript only: their args are the
 * validated config types, not the plain args of components/args.ts). Each takes its typed args and `{ parent }`,
 * `providers` like any component; WindowsEstate (library/index.ts) wires them in the order WMCO needs.
 */
export { WmcoOperator } from "../components/operator/operator";
export type { WmcoOperatorArgs } from "../components/operator/operator";
export { WmcoPrivateKey } from "../components/key/private-key";
export type { WmcoPrivateKeyArgs } from "../components/key/private-key";
export { WindowsMachineSet } from "../components/machinesets/machineset";
export type { WindowsMachineSetArgs } from "../components/machinesets/machineset";
export { WindowsRegistryMirrors } from "../components/mirrors/registry-mirrors";
export type { WindowsRegistryMirrorsArgs } from "../components/mirrors/registry-mirrors";
export { ByohHosts } from "../components/byoh/byoh-hosts";
export type { ByohHostsArgs } from "../components/byoh/byoh-hosts";
export { WindowsRuntimeClasses } from "../components/scheduling/runtime-classes";
export type { WindowsRuntimeClassesArgs } from "../components/scheduling/runtime-classes";
export { declareEstate } from "../components/estate-declare";
export { declareVanilla } from "../components/vanilla/declare";
export { loadAnyConfig, loadEstateConfig } from "../stacks/load";
export type { EstateConfig, VanillaEstateConfig } from "../stacks/load";
export { DOMAIN_VALIDATORS } from "../components/validators";
export { kubernetesProvider } from "../components/cluster-access";
