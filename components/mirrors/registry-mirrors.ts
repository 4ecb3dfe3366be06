import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import { MirrorsConfigInput } from "../../stacks/schema/mirrors";
import { redactHostsToml, renderHostsToml } from "./hosts-toml";
import { buildDigestMirrorSets, buildTagMirrorSets } from "./mirror-sets";

/** Where WMCO points containerd's registry configuration on every Windows node. */
export const REGISTRIES_DIR = "C:\\k\\containerd\\registries";

export interface WindowsRegistryMirrorsArgs {
  /** The validated `windows-estate:mirrors`. */
  mirrors: MirrorsConfigInput;
  /**
   * Registries the cluster's pull secret (`openshift-config/pull-secret`) holds credentials for. WMCO writes a
   * Basic-auth header for mirrors on those registries; the shown files carry it redacted. Default: none known.
   */
  registriesWithCredentials?: readonly string[];
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

  constructor(name: string, args: WindowsRegistryMirrorsArgs, opts?: pulumi.ComponentResourceOptions) {
    super("windows-estate:index:WindowsRegistryMirrors", name, {}, opts);
    const idms = buildDigestMirrorSets(args.mirrors);
    const itms = buildTagMirrorSets(args.mirrors);
    for (const o of [...idms, ...itms]) new k8s.apiextensions.CustomResource(`${name}-${o.metadata.name}`, { ...o }, { parent: this });

    // Credentials never enter the program: a stand-in for each registry with credentials yields the same text,
    // which is then redacted.
    const standIn = JSON.stringify({ auths: Object.fromEntries((args.registriesWithCredentials ?? []).map((r) => [r, { auth: Buffer.from("user:password").toString("base64") }])) });
    const files = renderHostsToml({ imageDigestMirrorSets: idms, imageTagMirrorSets: itms, pullSecret: standIn });
    this.windowsRegistryConfig = Object.fromEntries(Object.entries(files).map(([dir, text]) => [dir, redactHostsToml(text)]));
    this.windowsNodeFiles = Object.fromEntries(Object.entries(this.windowsRegistryConfig).map(([dir, text]) => [`${REGISTRIES_DIR}\\${dir}\\hosts.toml`, text]));
    this.registerOutputs({ windowsRegistryConfig: this.windowsRegistryConfig });
  }
}
