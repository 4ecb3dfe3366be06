import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import { PrivateKeyConfig } from "../../stacks/load";
import { buildPrivateKeySecret, PRIVATE_KEY_SECRET_NAME } from "./secret";

export interface WmcoPrivateKeyArgs {
  /** Namespace WMCO runs in; the Secret must live there. */
  namespace: pulumi.Input<string>;
  /**
   * The validated WMCO private key (from `windows-estate:privateKey` or `privateKeyPath`). It is handed to
   * Pulumi only as a secret. Passphrase-protected, DSA and weak RSA keys never get here: the loader refuses them.
   */
  privateKey: PrivateKeyConfig;
  /**
   * Declare the `cloud-private-key` Secret. Default true. False in render mode without `cluster.renderKeySecret`:
   * the Kubernetes provider writes rendered Secrets in plaintext, so the key is left out and the program says how
   * to create the Secret instead.
   */
  declareSecret?: boolean;
}

/**
 * The `cloud-private-key` Secret WMCO uses to reach every Windows node over SSH. WMCO derives
 * `openshift-machine-api/windows-user-data` from it; this component never creates that Secret, WMCO owns it.
 */
export class WmcoPrivateKey extends pulumi.ComponentResource {
  /** The public half as one `authorized_keys` line (plain: it is public). */
  readonly publicKey: pulumi.Output<string | undefined>;
  /** `SHA256:` fingerprint of the public key, as `ssh-keygen -l` prints it. */
  readonly fingerprint: pulumi.Output<string | undefined>;
  /** The private key, only ever as a secret, for resources that must log in to hosts with it. */
  readonly privateKeyPem: pulumi.Output<string>;
  /** Name of the Secret (`cloud-private-key`). */
  readonly secretName: pulumi.Output<string>;

  constructor(name: string, args: WmcoPrivateKeyArgs, opts?: pulumi.ComponentResourceOptions) {
    super("windows-estate:index:WmcoPrivateKey", name, {}, opts);
    this.privateKeyPem = pulumi.secret(args.privateKey.pem);
    if (args.declareSecret === false) {
      pulumi.log.warn(
        `${PRIVATE_KEY_SECRET_NAME} is not rendered: rendered Secrets are plaintext files. Create it in the cluster yourself ` +
          `(oc create secret generic ${PRIVATE_KEY_SECRET_NAME} -n <operator namespace> --from-file=private-key.pem=<key file>), ` +
          "or set windows-estate:cluster.renderKeySecret: true to render it anyway.",
        this,
      );
      this.secretName = pulumi.output(PRIVATE_KEY_SECRET_NAME);
    } else {
      const secret = new k8s.core.v1.Secret(
        `${name}-secret`,
        buildPrivateKeySecret(args.namespace, this.privateKeyPem),
        // A component's dependsOn does not reach its children; the Secret itself must wait for the running operator.
        { parent: this, dependsOn: opts?.dependsOn },
      );
      this.secretName = secret.metadata.name;
    }
    this.publicKey = pulumi.output(args.privateKey.parsed?.publicKey);
    this.fingerprint = pulumi.output(args.privateKey.parsed?.fingerprint);
    this.registerOutputs({ publicKey: this.publicKey, fingerprint: this.fingerprint, secretName: this.secretName });
  }
}
