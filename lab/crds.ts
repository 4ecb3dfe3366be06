import * as fs from "fs";
import * as path from "path";
import { crdsDir, writeAtomically } from "./cache";
import { moduleDir } from "./go";
import { LabError } from "./errors";

/**
 * The CustomResourceDefinitions the lab serves, each a file of the Go module that publishes it (versions pinned in
 * lab/tools/crds/go.mod and go.sum). Where openshift/api has feature-set variants, the `Default` one is what a
 * cluster without a feature gate set runs.
 */
export const CRD_FILES: readonly { module: string; file: string; tools?: string }[] = [
  // OLM: the CRDs of the OLM release the lab runs (lab/tools/olm), from its own manifests (deploy/chart/crds): the
  // five the program writes or reads and the three its operators also watch (olmconfigs, operatorconditions,
  // operators).
  ...[
    "catalogsources",
    "clusterserviceversions",
    "installplans",
    "olmconfigs",
    "operatorconditions",
    "operatorgroups",
    "operators",
    "subscriptions",
  ].map((k) => ({
    module: "github.com/operator-framework/operator-lifecycle-manager",
    file: `deploy/chart/crds/0000_50_olm_00-${k}.crd.yaml`,
    tools: "olm",
  })),
  // config.openshift.io
  ...[
    "0000_10_config-operator_01_infrastructures-Default.crd.yaml",
    "0000_10_config-operator_01_networks.crd.yaml",
    "0000_03_config-operator_01_proxies.crd.yaml",
    "0000_00_cluster-version-operator_01_clusterversions-Default.crd.yaml",
    "0000_10_config-operator_01_imagedigestmirrorsets.crd.yaml",
    "0000_10_config-operator_01_imagetagmirrorsets.crd.yaml",
    // OLM's operators read APIServer/cluster's TLS profile at start (operator-lifecycle-manager
    // pkg/lib/apiserver SetupAPIServerTLSConfig) when config.openshift.io is served.
    "0000_10_config-operator_01_apiservers-Default.crd.yaml",
    // DNS/cluster: machine-api's webhooks read it at start (lab/machine-api.ts).
    "0000_10_config-operator_01_dnses.crd.yaml",
  ].map((f) => ({ module: "github.com/openshift/api", file: `config/v1/zz_generated.crd-manifests/${f}` })),
  // machine.openshift.io
  ...[
    "0000_10_machine-api_01_machinesets-Default.crd.yaml",
    "0000_10_machine-api_01_machines-Default.crd.yaml",
    "0000_10_machine-api_01_machinehealthchecks.crd.yaml",
  ].map((f) => ({ module: "github.com/openshift/api", file: `machine/v1beta1/zz_generated.crd-manifests/${f}` })),
  // operator.openshift.io
  {
    module: "github.com/openshift/api",
    file: "operator/v1/zz_generated.crd-manifests/0000_70_network_01_networks.crd.yaml",
  },
];

const selection = CRD_FILES.map((c) => `${c.module}/${c.file}`);
const toolsModules = [...new Set(CRD_FILES.map((c) => c.tools ?? "crds"))].sort();

/** The folder of the collected CRD files (numbered in install order), or undefined when not collected yet. */
export function collectedCrds(): string | undefined {
  const dir = crdsDir(selection, toolsModules);
  return fs.existsSync(path.join(dir, "complete")) ? dir : undefined;
}

/** Copies the CRD files out of the module cache into the lab's cache (once per go.sum). */
export function collectCrds(): { dir: string; cached: boolean } {
  const done = collectedCrds();
  if (done) return { dir: done, cached: true };
  const dir = crdsDir(selection, toolsModules);
  const dirs = new Map<string, string>();
  CRD_FILES.forEach((c, i) => {
    if (!dirs.has(c.module)) dirs.set(c.module, moduleDir(c.tools ?? "crds", c.module));
    const source = path.join(dirs.get(c.module) ?? "", c.file);
    if (!fs.existsSync(source))
      throw new LabError(
        `${c.module} has no ${c.file} at the version lab/tools/${c.tools ?? "crds"}/go.mod pins: update CRD_FILES`,
      );
    writeAtomically(path.join(dir, `${String(i).padStart(2, "0")}-${path.basename(c.file)}`), fs.readFileSync(source));
  });
  writeAtomically(path.join(dir, "complete"), selection.join("\n") + "\n");
  return { dir, cached: false };
}
