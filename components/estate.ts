import * as pulumi from "@pulumi/pulumi";
import { EstateConfig } from "../stacks/load";
import { clusterAccess } from "./cluster-access";
import { WmcoPrivateKey } from "./key/private-key";
import { WmcoOperator } from "./operator/operator";

export interface WindowsEstateArgs {
  /** The stack's validated config (`loadEstateConfig`). */
  config: EstateConfig;
}

/**
 * The whole Windows estate of one cluster, wired in the order WMCO needs:
 * operator (running) → `cloud-private-key` → (WMCO writes `windows-user-data`) → MachineSets, BYOH hosts,
 * mirrors and RuntimeClasses.
 */
export class WindowsEstate extends pulumi.ComponentResource {
  readonly operatorNamespace: pulumi.Output<string>;
  readonly installedCSV: pulumi.Output<string | undefined>;
  readonly publicKey: pulumi.Output<string | undefined>;
  readonly publicKeyFingerprint: pulumi.Output<string | undefined>;

  constructor(name: string, args: WindowsEstateArgs, opts?: pulumi.ComponentResourceOptions) {
    super("windows-estate:index:WindowsEstate", name, {}, opts);
    const cfg = args.config;
    const access = clusterAccess(cfg.cluster);

    const operator = new WmcoOperator(`${name}-operator`, { operator: cfg.operator, access }, { parent: this });
    // The Secret waits for the running operator: WMCO only starts watching it once its CSV has succeeded, and a
    // Secret in a namespace that OLM is still setting up would race the OperatorGroup.
    const key = new WmcoPrivateKey(
      `${name}-key`,
      { namespace: operator.namespace, privateKey: cfg.privateKey },
      { parent: this, dependsOn: [operator] },
    );

    this.operatorNamespace = operator.namespace;
    this.installedCSV = operator.installedCSV;
    this.publicKey = key.publicKey;
    this.publicKeyFingerprint = key.fingerprint;
    this.registerOutputs({
      operatorNamespace: this.operatorNamespace,
      installedCSV: this.installedCSV,
      publicKey: this.publicKey,
      publicKeyFingerprint: this.publicKeyFingerprint,
    });
  }
}
