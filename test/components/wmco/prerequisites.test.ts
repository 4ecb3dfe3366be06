import { hybridOverlayConfig, isClassE, networkIssues, proxySummary } from "../../../components/wmco/prerequisites";
import { validateObject } from "../../helpers/schemas";
import { decodeNetwork, decodeProxy } from "../../../components/cluster-objects";

// Objects as the API serves them (hand-built, each validated against its openshift/api schema). What WMCO refuses
// comes from pkg/cluster/config.go (`getNetworkType`, `ovnKubernetes.Validate`). Each is read through discovery's
// decoders (components/cluster-objects.ts), as discovery reads it.
const configNetwork = (cidr = "10.128.0.0/14", type = "OVNKubernetes") => ({
  apiVersion: "config.openshift.io/v1",
  kind: "Network",
  metadata: { name: "cluster" },
  spec: { networkType: type, clusterNetwork: [{ cidr, hostPrefix: 23 }], serviceNetwork: ["172.30.0.0/16"] },
});
const operatorNetwork = (hybrid?: Record<string, unknown>) => ({
  apiVersion: "operator.openshift.io/v1",
  kind: "Network",
  metadata: { name: "cluster" },
  spec: {
    defaultNetwork: { type: "OVNKubernetes", ovnKubernetesConfig: hybrid ? { hybridOverlayConfig: hybrid } : {} },
  },
});

test("the objects are valid for their schemas", () => {
  for (const o of [
    configNetwork(),
    operatorNetwork(),
    operatorNetwork({
      hybridClusterNetwork: [{ cidr: "10.132.0.0/14", hostPrefix: 23 }],
      hybridOverlayVXLANPort: 9898,
    }),
  ]) {
    expect(validateObject(o)).toBe("");
  }
});

test("no hybrid overlay: WMCO's refusal; the fix is at installation, never a patch (docs/wmco-prerequisites.md 'Supported Networking')", () => {
  const issues = networkIssues("Azure", decodeNetwork({ config: configNetwork(), operator: operatorNetwork() }));
  expect(issues).toHaveLength(1);
  expect(issues[0].message).toContain("not configured for OVN hybrid networking");
  // release-4.18 to master docs/wmco-prerequisites.md: the network configuration must be completed during the
  // installation of the cluster.
  expect(issues[0].message).toContain("to be configured when the cluster is installed");
  expect(issues[0].message).not.toMatch(/oc patch/);
  // OpenShift 'Configuring hybrid networking' example CIDR.
  expect(issues[0].message).toContain(`{"hybridClusterNetwork":[{"cidr":"10.132.0.0/14","hostPrefix":23}]}`);
  // An empty hybridClusterNetwork is refused too ("invalid OVN hybrid networking configuration").
  expect(
    networkIssues(
      "Azure",
      decodeNetwork({ config: configNetwork(), operator: operatorNetwork({ hybridClusterNetwork: [] }) }),
    ),
  ).toHaveLength(1);
});

test("vSphere needs a custom VXLAN port, set at installation too", () => {
  const hybrid = { hybridClusterNetwork: [{ cidr: "10.132.0.0/14", hostPrefix: 23 }] };
  const [vxlan] = networkIssues(
    "VSphere",
    decodeNetwork({ config: configNetwork(), operator: operatorNetwork(hybrid) }),
  );
  expect(vxlan.message).toMatch(
    /custom VXLAN port.*when the cluster is installed.*hybridOverlayVXLANPort set, e\.g\. 9898/,
  );
  expect(vxlan.message).not.toMatch(/oc patch/);
  expect(
    networkIssues(
      "VSphere",
      decodeNetwork({
        config: configNetwork(),
        operator: operatorNetwork({ ...hybrid, hybridOverlayVXLANPort: 4789 }),
      }),
    ),
  ).toHaveLength(1);
  expect(
    networkIssues(
      "VSphere",
      decodeNetwork({
        config: configNetwork(),
        operator: operatorNetwork({ ...hybrid, hybridOverlayVXLANPort: 9898 }),
      }),
    ),
  ).toEqual([]);
  expect(networkIssues("AWS", decodeNetwork({ config: configNetwork(), operator: operatorNetwork(hybrid) }))).toEqual(
    [],
  );
  expect(hybridOverlayConfig("VSphere")).toContain('"hybridOverlayVXLANPort":9898');
});

test("a class E cluster network is refused (OpenShift docs: class E CIDRs are not compatible with Windows nodes)", () => {
  const hybrid = { hybridClusterNetwork: [{ cidr: "10.132.0.0/14", hostPrefix: 23 }] };
  const issues = networkIssues(
    "AWS",
    decodeNetwork({ config: configNetwork("240.0.0.0/14"), operator: operatorNetwork(hybrid) }),
  );
  expect(issues.map((i) => i.message)).toEqual([expect.stringMatching(/240\.0\.0\.0\/14 is class E/)]);
  expect([
    isClassE("239.255.0.0/16"),
    isClassE("240.0.0.0/4"),
    isClassE("255.0.0.0/8"),
    isClassE("10.0.0.0/8"),
  ]).toEqual([false, true, true, false]);
});

test("a network type other than OVNKubernetes is refused (WMCO: network type not supported)", () => {
  expect(
    networkIssues(
      "AWS",
      decodeNetwork({ config: configNetwork("10.128.0.0/14", "OpenShiftSDN"), operator: operatorNetwork() }),
    )[0].message,
  ).toMatch(/OpenShiftSDN; WMCO supports only OVNKubernetes/);
});

test("the proxy as WMCO applies it, without credentials in its URLs", () => {
  const proxy = {
    apiVersion: "config.openshift.io/v1",
    kind: "Proxy",
    metadata: { name: "cluster" },
    spec: { httpProxy: "http://svc:s3cret@proxy.example.com:3128", trustedCA: { name: "user-ca-bundle" } },
    status: {
      httpProxy: "http://svc:s3cret@proxy.example.com:3128",
      httpsProxy: "http://proxy.example.com:3128",
      noProxy: ".cluster.local,10.0.0.0/16",
    },
  };
  expect(validateObject(proxy)).toBe("");
  expect(proxySummary(decodeProxy(proxy))).toEqual({
    httpProxy: "http://[credentials]@proxy.example.com:3128",
    httpsProxy: "http://proxy.example.com:3128",
    noProxy: ".cluster.local,10.0.0.0/16",
    trustedCA: "user-ca-bundle",
  });
  expect(
    proxySummary(
      decodeProxy({
        apiVersion: "config.openshift.io/v1",
        kind: "Proxy",
        metadata: { name: "cluster" },
        spec: {},
        status: {},
      }),
    ),
  ).toBeUndefined();
});
