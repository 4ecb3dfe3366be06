/**
 * A played cloud provider plugin for the stacks that create their BYOH VMs on AWS or Azure
 * (stacks/examples/Pulumi.byoh-aws.yaml, Pulumi.byoh-azure.yaml). The real pulumi-resource-aws and
 * pulumi-resource-azure-native are not built here (the lab builds only what the Kubernetes side needs, and plugin
 * download is off), so the real CLI would stop at "no resource plugin". Served with the SDK's public
 * `provider.main` (the same gRPC server a Node provider plugin uses), it plays what the real providers document of
 * the resources the program declares, and what the cloud answers; what it proves is the engine's side (providers,
 * dependencies, secrets, `ignoreChanges`, what a change plans), never what AWS or Azure would build.
 *
 * - Create: the inputs, with what the cloud assigns (an EC2 instance's `privateIp` and `privateDns`, a NIC's private
 *   address).
 * - Diff: every input that differs is a change; an update, except the properties the real provider replaces for
 *   (aws_instance's ForceNew `ami`, `subnetId`, `keyName`). A `userData` change is an update that stops and starts
 *   the instance (@pulumi/aws ec2.Instance: "Updates to this field will trigger a stop/start of the EC2 instance by
 *   default"); azure-native plans a VirtualMachine change as an update (no forceNew rule for compute,
 *   provider/pkg/gen/replacement.go).
 * - Update: Azure refuses a `osProfile.customData` change with 409 PropertyChangeNotAllowed (azure-native
 *   compute.OSProfileArgs customData: "This property cannot be updated after the VM is created").
 * - Invoke `azure-native:network:getLoadBalancer`: a balancer named as asked, with one IPv4 and one IPv6 pool (an
 *   OpenShift cluster's public load balancer).
 *
 * Every call is appended to `$PLAYED_CLOUD_LOG` (one JSON line: method, type, name, changed inputs) when set.
 *
 *   node -r ts-node/register/transpile-only provider.ts <package> <engine address>
 */
import * as fs from "fs";
import * as pulumi from "@pulumi/pulumi";

const pkg = process.argv[2];
/** aws_instance's ForceNew arguments among those the program sets (terraform-provider-aws instance.go). */
const REPLACES: Record<string, string[]> = { "aws:ec2/instance:Instance": ["ami", "subnetId", "keyName"] };

/** The resource type of a URN (its type segment ends with it, after the parents' types and a `$`). */
const typeOf = (urn: string) => (urn.split("::")[2] ?? "").split("$").pop() ?? "";
const nameOf = (urn: string) => urn.split("::")[3] ?? "";
const log = (entry: Record<string, unknown>) => {
  if (process.env.PLAYED_CLOUD_LOG) fs.appendFileSync(process.env.PLAYED_CLOUD_LOG, JSON.stringify(entry) + "\n");
};
/** Plain values for comparison: secrets and other wrappers of the wire format are compared by their JSON. */
const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
const changedInputs = (olds: Record<string, unknown>, news: Record<string, unknown>) =>
  Object.keys(news)
    .filter((k) => !same(olds[k], news[k]))
    .sort();

let serial = 0;
/** What the cloud assigns at create. */
function assigned(type: string, inputs: Record<string, unknown>): Record<string, unknown> {
  serial++;
  const ip = `10.0.${Math.floor(serial / 200) + 1}.${(serial % 200) + 10}`;
  if (type === "aws:ec2/instance:Instance")
    return {
      privateIp: ip,
      privateDns: `ip-${ip.replace(/\./g, "-")}.played.compute.internal`,
      arn: `arn:aws:ec2:played:000000000000:instance/i-${serial.toString(16).padStart(17, "0")}`,
    };
  if (type === "azure-native:network:NetworkInterface")
    return {
      ipConfigurations: (Array.isArray(inputs.ipConfigurations) ? inputs.ipConfigurations : []).map((c, i) =>
        i === 0 && typeof c === "object" && c !== null ? { ...c, privateIPAddress: ip } : c,
      ),
    };
  return {};
}

const provider: pulumi.provider.Provider = {
  version: "0.0.0-played",
  async check(_urn, _olds, news) {
    return { inputs: news };
  },
  async diff(_id, urn, olds, news) {
    const changed = changedInputs(olds, news);
    const replaces = changed.filter((k) => (REPLACES[typeOf(urn)] ?? []).includes(k));
    log({ method: "diff", type: typeOf(urn), name: nameOf(urn), changed });
    return { changes: changed.length > 0, replaces, deleteBeforeReplace: false };
  },
  async create(urn, inputs) {
    const type = typeOf(urn);
    log({ method: "create", type, name: nameOf(urn) });
    return { id: `${nameOf(urn)}-played`, outs: { ...inputs, ...assigned(type, inputs) } };
  },
  async read(id, _urn, props) {
    return { id, props };
  },
  async update(_id, urn, olds, news) {
    const type = typeOf(urn);
    const changed = changedInputs(olds, news);
    log({ method: "update", type, name: nameOf(urn), changed });
    if (type === "azure-native:compute:VirtualMachine") {
      const before = (olds.osProfile ?? {}) as Record<string, unknown>;
      const after = (news.osProfile ?? {}) as Record<string, unknown>;
      if (!same(before.customData, after.customData))
        throw new Error(
          'Code="PropertyChangeNotAllowed" Message="Changing property \'customData\' is not allowed." Target="customData" (the played Azure)',
        );
    }
    return { outs: { ...olds, ...news } };
  },
  async delete(_id, urn) {
    log({ method: "delete", type: typeOf(urn), name: nameOf(urn) });
  },
  async invoke(token, inputs) {
    log({ method: "invoke", token });
    if (token === "azure-native:network:getLoadBalancer") {
      const name = String(inputs.loadBalancerName);
      const id = `/subscriptions/played/resourceGroups/${String(inputs.resourceGroupName)}/providers/Microsoft.Network/loadBalancers/${name}`;
      return {
        outputs: {
          name,
          id,
          backendAddressPools: [
            { id: `${id}/backendAddressPools/${name}`, name },
            { id: `${id}/backendAddressPools/${name}-v6`, name: `${name}-v6` },
          ],
        },
      };
    }
    throw new Error(`the played ${pkg} plugin does not answer ${token} (test/e2e/played-cloud)`);
  },
};

void pulumi.provider.main(provider, process.argv.slice(3));
