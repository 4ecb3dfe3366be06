import { ConfigIssue, joinPath } from "../../stacks/config-issue";
import { Platform } from "../../stacks/schema/cluster";
import { MachineSetConfig } from "../../stacks/schema/machinesets";
import { MACHINE_API_NAMESPACE } from "../../facts/wmco";

/**
 * The Secret in openshift-machine-api each platform's MachineSets name as `credentialsSecret` unless the config names
 * another (vSphere, Nutanix): the ones the cloud credential operator writes, and machine-api's defaulting webhook
 * fills in (machine-api-operator pkg/webhooks/machine_webhook.go `defaultAWSCredentialsSecret` and the others).
 */
const DEFAULT_CREDENTIALS_SECRET: Partial<Record<Platform, string>> = {
  AWS: "aws-cloud-credentials",
  Azure: "azure-cloud-credentials",
  GCP: "gcp-cloud-credentials",
  VSphere: "vsphere-cloud-credentials",
  Nutanix: "nutanix-credentials",
};

/** The platforms whose sets may name another credentials Secret, and the config key that holds it. */
const CONFIGURABLE: Partial<Record<Platform, "vsphere" | "nutanix">> = { VSphere: "vsphere", Nutanix: "nutanix" };

/** The credentials Secret a set's providerSpec names (aws.ts, azure.ts, gcp.ts, vsphere.ts, nutanix.ts). */
export function credentialsSecretOf(platform: Platform, set: MachineSetConfig): string | undefined {
  const key = CONFIGURABLE[platform];
  return (key && set[key]?.credentialsSecret) ?? DEFAULT_CREDENTIALS_SECRET[platform];
}

/**
 * A set whose credentials Secret does not exist: machine-api's validating webhook admits it with only a warning
 * (machine_webhook.go `credentialsSecretExists`: "not found. Expected CredentialsSecret to exist"), and the
 * machine controller then cannot create its instances; the program says so at preview, naming the Secret.
 */
export function missingCredentialsWarnings(
  platform: Platform,
  sets: readonly MachineSetConfig[],
  exists: (secret: string) => boolean,
): ConfigIssue[] {
  return sets.flatMap((set, i) => {
    const secret = credentialsSecretOf(platform, set);
    if (secret === undefined || exists(secret)) return [];
    const key = CONFIGURABLE[platform];
    return [
      {
        path: joinPath(["machineSets", i]),
        message:
          `the credentials Secret ${MACHINE_API_NAMESPACE}/${secret} does not exist: machine-api admits the MachineSet ` +
          `with a warning only, and its Machines cannot be created until the Secret exists ` +
          (key
            ? `(create it, or set machineSets[${i}].${key}.credentialsSecret to the Secret that holds the credentials)`
            : "(the cloud credential operator creates it: check its CredentialsRequest for the machine API)"),
      },
    ];
  });
}
