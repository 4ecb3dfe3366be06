/**
 * A played cloud provider plugin for the previews of the stacks that create their BYOH VMs on AWS or Azure
 * (stacks/examples/Pulumi.byoh-aws.yaml, Pulumi.byoh-azure.yaml). The real pulumi-resource-aws and
 * pulumi-resource-azure-native are not built here (the lab builds only what the Kubernetes side needs, and plugin
 * download is off), so the real CLI would stop at "no resource plugin". Served with the SDK's public
 * `provider.main` (the same gRPC server a Node provider plugin uses), it answers Check with the inputs as given and
 * refuses Create: only `pulumi preview` runs against it. What it proves is the engine's side (providers,
 * dependencies, secrets in the plan), never what AWS or Azure would do with the request.
 *
 *   node -r ts-node/register/transpile-only provider.ts <package> <engine address>
 */
import * as pulumi from "@pulumi/pulumi";

const pkg = process.argv[2];
const provider: pulumi.provider.Provider = {
  version: "0.0.0-played",
  async check(_urn, _olds, news) {
    return { inputs: news };
  },
  async create(urn) {
    throw new Error(
      `the played ${pkg} plugin creates nothing (${urn}): it serves previews only (test/e2e/played-cloud)`,
    );
  },
};

void pulumi.provider.main(provider, process.argv.slice(3));
