import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import { MirrorsConfigInput } from "../../stacks/schema/mirrors";
import { IDMS, ITMS, redactHostsToml, registryHost, renderHostsToml } from "./hosts-toml";
import { decodeMirrorSets } from "../cluster-objects";
import { buildDigestMirrorSets, buildTagMirrorSets } from "./mirror-sets";
import { WMCO_REGISTRIES_DIR } from "../../facts/wmco";
import { clusterMirrorSetIssues } from "./validate";
import { ConfigIssue } from "../../stacks/config-issue";

/** Where WMCO points containerd's registry configuration on every Windows node (the kubeadm nodes use the same). */
export const REGISTRIES_DIR = WMCO_REGISTRIES_DIR;

export interface WindowsRegistryMirrorsArgs {
  /** The validated `windows-estate:mirrors`. */
  mirrors: MirrorsConfigInput;
  /**
   * Registries the cluster's pull secret (`openshift-config/pull-secret`) holds credentials for. WMCO writes a
   * Basic-auth header for mirrors on those registries; the shown files carry it redacted. Default: none known.
   */
  registriesWithCredentials?: readonly string[];
  /**
   * Every IDMS/ITMS already in the cluster (discovery at `pulumi preview/up`). WMCO merges them all into each node's
   * files (pkg/registries `GenerateConfigFiles`), so the shown files include them. Objects with this stack's names are
   * taken from this stack. Undefined offline: the files then cover this stack's sets only, and say so.
   */
  clusterMirrorSets?: { idms: readonly unknown[]; itms: readonly unknown[] };
}

/**
 * At preview/up: the cluster's mirror sets WMCO cannot write on a Windows node (clusterMirrorSetIssues), leaving out
 * the sets this stack declares (its config was checked at load, and its declaration replaces them). An error while the
 * stack has MachineSets or BYOH hosts, a warning otherwise.
 */
export function clusterMirrorIssues(
  cfg: { mirrors: MirrorsConfigInput; machineSets: readonly unknown[]; byoh: readonly unknown[] },
  found: { idms: readonly IDMS[]; itms: readonly ITMS[] } | undefined,
): { errors: ConfigIssue[]; warnings: ConfigIssue[] } {
  if (!found) return { errors: [], warnings: [] };
  const ours = new Set(
    [...buildDigestMirrorSets(cfg.mirrors), ...buildTagMirrorSets(cfg.mirrors)].map((o) => o.metadata.name),
  );
  return clusterMirrorSetIssues(found, ours, cfg.machineSets.length + cfg.byoh.length > 0);
}

/** Which sets a registry directory's file comes from: `this stack: <name>` or `cluster: <name>`. */
function mirrorSources(
  ours: { idms: IDMS[]; itms: ITMS[] },
  theirs: { idms: IDMS[]; itms: ITMS[] },
): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  const add = (who: string, set: IDMS | ITMS) => {
    const entries =
      "imageDigestMirrors" in set.spec
        ? set.spec.imageDigestMirrors
        : "imageTagMirrors" in set.spec
          ? set.spec.imageTagMirrors
          : [];
    for (const e of entries ?? []) {
      if (!e.mirrors?.length) continue;
      // One directory per registry host, named as WMCO names it: the host as spelled, port included (registryHost).
      const dir = registryHost(e.source);
      const label = `${who}: ${set.metadata?.name}`;
      if (!(out[dir] ??= []).includes(label)) out[dir].push(label);
    }
  };
  for (const s of [...ours.idms, ...ours.itms]) add("this stack", s);
  for (const s of [...theirs.idms, ...theirs.itms]) add("cluster", s);
  return out;
}

/**
 * The cluster's ImageDigestMirrorSets and ImageTagMirrorSets, and the `hosts.toml` files WMCO will derive from
 * them on every Windows node, computed here so a pull request shows them before anything is applied.
 */
export class WindowsRegistryMirrors extends pulumi.ComponentResource {
  /** Registry directory → hosts.toml text, credentials redacted. */
  readonly windowsRegistryConfig: Record<string, string>;
  /** Full Windows path → file text, credentials redacted (what synth writes under windows-node-files/). */
  readonly windowsNodeFiles: Record<string, string>;
  /** Registry directory → the mirror sets its file comes from, and what the files cover. */
  readonly windowsRegistrySources: { scope: string; byRegistry: Record<string, string[]> };

  constructor(name: string, args: WindowsRegistryMirrorsArgs, opts?: pulumi.ComponentResourceOptions) {
    super("windows-estate:index:WindowsRegistryMirrors", name, {}, opts);
    const idms = buildDigestMirrorSets(args.mirrors);
    const itms = buildTagMirrorSets(args.mirrors);
    for (const o of [...idms, ...itms])
      new k8s.apiextensions.CustomResource(`${name}-${o.metadata.name}`, { ...o }, { parent: this });

    // Credentials never enter the program: a stand-in for each registry with credentials yields the same text,
    // which is then redacted.
    const standIn = JSON.stringify({
      auths: Object.fromEntries(
        (args.registriesWithCredentials ?? []).map((r) => [
          r,
          { auth: Buffer.from("user:password").toString("base64") },
        ]),
      ),
    });
    const ours = new Set([...idms, ...itms].map((o) => o.metadata.name));
    const cluster = decodeMirrorSets(args.clusterMirrorSets ?? { idms: [], itms: [] });
    const notOurs = (o: IDMS | ITMS) => !ours.has(o.metadata?.name ?? "");
    const theirs = { idms: cluster.idms.filter(notOurs), itms: cluster.itms.filter(notOurs) };
    const files = renderHostsToml({
      imageDigestMirrorSets: [...idms, ...theirs.idms],
      imageTagMirrorSets: [...itms, ...theirs.itms],
      pullSecret: standIn,
    });
    this.windowsRegistrySources = {
      scope: args.clusterMirrorSets
        ? "every ImageDigestMirrorSet and ImageTagMirrorSet in the cluster, merged as WMCO merges them"
        : "this stack's mirror sets only: offline, the cluster's other ImageDigestMirrorSets/ImageTagMirrorSets are not read",
      byRegistry: mirrorSources({ idms, itms }, theirs),
    };
    this.windowsRegistryConfig = Object.fromEntries(
      Object.entries(files).map(([dir, text]) => [dir, redactHostsToml(text)]),
    );
    this.windowsNodeFiles = Object.fromEntries(
      Object.entries(this.windowsRegistryConfig).map(([dir, text]) => [`${REGISTRIES_DIR}\\${dir}\\hosts.toml`, text]),
    );
    this.registerOutputs({
      windowsRegistryConfig: this.windowsRegistryConfig,
      windowsRegistrySources: this.windowsRegistrySources,
    });
  }
}
