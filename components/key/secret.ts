import * as pulumi from "@pulumi/pulumi";
import { MANAGED_BY } from "../operator/builders";

/** Names WMCO looks for (pkg/secrets: PrivateKeySecret / PrivateKeySecretKey). */
export const PRIVATE_KEY_SECRET_NAME = "cloud-private-key";
const PRIVATE_KEY_DATA_KEY = "private-key.pem";

/**
 * The Secret that WMCO reads its SSH key from; the key stays an Output so its secretness survives. The arguments are
 * a plain object with Inputs inside, never one Output of the whole: @pulumi/kubernetes' Secret wraps `args.data` in
 * `pulumi.secret`, and an Output's lifted `data` property is an Output of undefined, which the provider refuses as
 * "malformed RPC secret: missing value for data" (seen with the real provider through the lab).
 */
export function buildPrivateKeySecret(namespace: pulumi.Input<string>, pem: pulumi.Input<string>) {
  return {
    apiVersion: "v1" as const,
    kind: "Secret" as const,
    metadata: { name: PRIVATE_KEY_SECRET_NAME, namespace, labels: { ...MANAGED_BY } },
    type: "Opaque",
    stringData: { [PRIVATE_KEY_DATA_KEY]: pem },
  };
}
