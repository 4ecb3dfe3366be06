import { fbcObjects, labCatalogs, wmcoChannel } from "../../lab/catalog";
import { KUBERNETES_VERSION } from "../../lab/programs";
import { acceptedKubernetesMinors, parseWmcoVersion } from "../../facts/wmco";

// The lab's catalog must be one a cluster on the lab's Kubernetes could have: every WMCO release it offers runs on
// that minor (facts/wmco.ts), the newest is the channel head, and an older one is there to upgrade from.
const labMinor = Number(KUBERNETES_VERSION.replace(/^v/, "").split(".")[1]);

test("every WMCO release in the lab's catalogs runs on the lab's Kubernetes minor, and its minKubeVersion says so", () => {
  for (const catalog of labCatalogs(KUBERNETES_VERSION))
    for (const pkg of catalog.packages)
      for (const entries of Object.values(pkg.channels))
        for (const b of entries) {
          const wmco = parseWmcoVersion(b.name);
          const minors = wmco && acceptedKubernetesMinors(wmco);
          expect(minors).toBeDefined();
          expect(labMinor).toBeGreaterThanOrEqual(minors?.min ?? Infinity);
          expect(labMinor).toBeLessThanOrEqual(minors?.max ?? -Infinity);
          expect(b.minKubeVersion).toBe(`1.${minors?.min}.0`);
        }
});

test("on Kubernetes 1.36 the stable channel is 10.22.0 then 11.0.0: the head replaces and skips the one before", () => {
  expect(labMinor).toBe(36);
  expect(wmcoChannel("windows-machine-config-operator", "v1.36.3")).toEqual([
    {
      name: "windows-machine-config-operator.v10.22.0",
      version: "10.22.0",
      replaces: undefined,
      skipRange: ">=10.21.0 <10.22.0",
      minKubeVersion: "1.35.0",
    },
    {
      name: "windows-machine-config-operator.v11.0.0",
      version: "11.0.0",
      replaces: "windows-machine-config-operator.v10.22.0",
      skipRange: ">=10.22.0 <11.0.0",
      minKubeVersion: "1.36.0",
    },
  ]);
  // A minor no WMCO release runs on gives an empty channel, not a wrong one.
  expect(wmcoChannel("windows-machine-config-operator", "v1.30.0")).toEqual([]);
});

test("the FBC: package, channel and one bundle per entry, each with its CSV inline and no image", () => {
  const [redhat] = labCatalogs(KUBERNETES_VERSION);
  const objects = fbcObjects(redhat);
  expect(objects.map((o) => `${String(o.schema)} ${String(o.name)}`)).toEqual([
    "olm.package windows-machine-config-operator",
    "olm.channel stable",
    "olm.bundle windows-machine-config-operator.v10.22.0",
    "olm.bundle windows-machine-config-operator.v11.0.0",
  ]);
  const head = objects[3] as { image: string; properties: { type: string; value: Record<string, unknown> }[] };
  expect(head.image).toBe("");
  expect(head.properties.find((p) => p.type === "olm.package")?.value).toEqual({
    packageName: "windows-machine-config-operator",
    version: "11.0.0",
  });
  const data = String(head.properties.find((p) => p.type === "olm.bundle.object")?.value.data);
  const csv = JSON.parse(Buffer.from(data, "base64").toString("utf8")) as {
    metadata: { name: string; annotations: Record<string, string> };
    spec: { replaces: string; minKubeVersion: string; install: { spec: { deployments: { name: string }[] } } };
  };
  expect(csv.metadata.name).toBe("windows-machine-config-operator.v11.0.0");
  expect(csv.metadata.annotations["olm.skipRange"]).toBe(">=10.22.0 <11.0.0");
  expect(csv.spec.replaces).toBe("windows-machine-config-operator.v10.22.0");
  expect(csv.spec.minKubeVersion).toBe("1.36.0");
  expect(csv.spec.install.spec.deployments.map((d) => d.name)).toEqual(["windows-machine-config-operator"]);
});
