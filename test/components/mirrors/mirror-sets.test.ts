import { parse } from "smol-toml";
import { renderHostsToml } from "../../../components/mirrors/hosts-toml";
import {
  buildDigestMirrorSets,
  buildTagMirrorSets,
  emittedPolicy,
  MirrorEntry,
  mirrorSetName,
  MirrorsConfig,
} from "../../../components/mirrors/mirror-sets";
import { validateAgainstSchema } from "../../helpers/schemas";

const IDMS_SCHEMA = "config.openshift.io_v1_ImageDigestMirrorSet.schema.json";
const ITMS_SCHEMA = "config.openshift.io_v1_ImageTagMirrorSet.schema.json";
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

const config: MirrorsConfig = {
  digest: [
    { source: "mcr.microsoft.com/oss/kubernetes/pause", mirrors: ["mirror.example.com:5000/win/oss/kubernetes/pause"] },
    {
      source: "registry.redhat.io/ubi9",
      mirrors: ["mirror.example.com:5000/rh/ubi9"],
      mirrorSourcePolicy: "NeverContactSource",
      name: "ubi9",
    },
    {
      source: "registry.local:5000",
      mirrors: ["mirror.example.com:5000/local"],
      mirrorSourcePolicy: "AllowContactingSource",
    },
    { source: "quay.io/no-mirrors-yet", mirrors: [] },
  ],
  tag: [
    { source: "quay.io/org/app", mirrors: ["mirror.example.com:5000/quay/org/app", "backup.example.com/quay/org/app"] },
  ],
};

describe("ImageDigestMirrorSet / ImageTagMirrorSet objects", () => {
  const idms = buildDigestMirrorSets(config);
  const itms = buildTagMirrorSets(config);

  test("one object per entry, each valid against its schema, also closed to unknown fields", () => {
    expect(idms).toHaveLength(config.digest.length);
    expect(itms).toHaveLength(config.tag.length);
    for (const o of idms) {
      expect(validateAgainstSchema(o, IDMS_SCHEMA)).toBe("");
      expect(validateAgainstSchema(o, IDMS_SCHEMA, { closed: true })).toBe("");
    }
    for (const o of itms) expect(validateAgainstSchema(o, ITMS_SCHEMA, { closed: true })).toBe("");
  });

  test("apiVersion, kind and the managed-by label (the schemas do not constrain them)", () => {
    for (const o of [...idms, ...itms]) {
      expect(o.apiVersion).toBe("config.openshift.io/v1");
      expect(o.metadata.labels).toEqual({ "app.kubernetes.io/managed-by": "windows-estate" });
    }
    expect(new Set(idms.map((o) => o.kind))).toEqual(new Set(["ImageDigestMirrorSet"]));
    expect(itms[0].kind).toBe("ImageTagMirrorSet");
  });

  test("the entry lands in the kind's own field, sources and mirrors as given", () => {
    const ubi9 = idms.find((o) => o.metadata.name === "ubi9");
    expect(ubi9?.spec).toEqual({
      imageDigestMirrors: [
        {
          source: "registry.redhat.io/ubi9",
          mirrors: ["mirror.example.com:5000/rh/ubi9"],
          mirrorSourcePolicy: "NeverContactSource",
        },
      ],
    });
    expect(itms[0].spec.imageTagMirrors[0].mirrors).toEqual([
      "mirror.example.com:5000/quay/org/app",
      "backup.example.com/quay/org/app",
    ]);
  });

  test("an entry with mirrors always carries a policy (unset becomes AllowContactingSource); one without mirrors carries none", () => {
    const policyOf = (source: string) =>
      [...idms.map((o) => o.spec.imageDigestMirrors[0]), ...itms.map((o) => o.spec.imageTagMirrors[0])].find(
        (e) => e.source === source,
      );
    expect(policyOf("mcr.microsoft.com/oss/kubernetes/pause")?.mirrorSourcePolicy).toBe("AllowContactingSource");
    expect(policyOf("quay.io/org/app")?.mirrorSourcePolicy).toBe("AllowContactingSource");
    expect(policyOf("registry.redhat.io/ubi9")?.mirrorSourcePolicy).toBe("NeverContactSource");
    expect(policyOf("quay.io/no-mirrors-yet")).not.toHaveProperty("mirrorSourcePolicy");
    expect(emittedPolicy({ mirrors: [], mirrorSourcePolicy: "NeverContactSource" })).toBe("NeverContactSource");
  });

  test("objects are sorted by name (byte order)", () => {
    const names = idms.map((o) => o.metadata.name);
    expect(names).toEqual([...names].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b))));
  });

  test("negative controls: the schema check can fail", () => {
    const bad = structuredClone(idms[0]) as unknown as { spec: { imageDigestMirrors: Record<string, unknown>[] } };
    bad.spec.imageDigestMirrors[0].mirrorSourcePolicy = "Sometimes";
    expect(validateAgainstSchema(bad, IDMS_SCHEMA)).toMatch(/allowed values/);
    const typo = structuredClone(idms[0]) as unknown as { spec: { imageDigestMirrors: Record<string, unknown>[] } };
    typo.spec.imageDigestMirrors[0].mirror = ["x.io/a"];
    expect(validateAgainstSchema(typo, IDMS_SCHEMA)).toBe("");
    expect(validateAgainstSchema(typo, IDMS_SCHEMA, { closed: true })).toMatch(/additional properties/);
    const scheme = structuredClone(itms[0]);
    scheme.spec.imageTagMirrors[0].source = "https://quay.io/org/app";
    expect(validateAgainstSchema(scheme, ITMS_SCHEMA)).toMatch(/pattern/);
  });
});

describe("object names", () => {
  test("a given name is used as is", () =>
    expect(mirrorSetName("digest", { source: "quay.io/a", name: "my-mirrors" })).toBe("my-mirrors"));

  test.each([
    [
      "digest",
      "mcr.microsoft.com/oss/kubernetes/pause",
      "windows-estate-digest-mcr-microsoft-com-oss-kubernetes-pause",
    ],
    ["tag", "quay.io/org/app", "windows-estate-tag-quay-io-org-app"],
    ["digest", "registry.local:5000", "windows-estate-digest-registry-local-5000"],
    ["digest", "*.redhat.io", "windows-estate-digest-redhat-io"],
    ["digest", "https://quay.io/org", "windows-estate-digest-quay-io-org"],
  ] as const)("derived from the %s source %s", (kind, source, expected) => {
    expect(mirrorSetName(kind, { source })).toBe(expected);
  });

  test("long sources keep a DNS-1123 name within 63 characters that still tells them apart", () => {
    const long = `registry.example.com/${"a".repeat(80)}`;
    const name = mirrorSetName("digest", { source: long });
    expect(name.length).toBeLessThanOrEqual(63);
    expect(name).toMatch(DNS_SUBDOMAIN);
    expect(name).toMatch(/^windows-estate-digest-registry-example-com-a+-[0-9a-f]{8}$/);
    expect(mirrorSetName("digest", { source: `${long}b` })).not.toBe(name);
  });

  test("derived names are valid object names for any well-formed source", () => {
    for (const source of ["a", "A.B.C:1/x__y/z-1", "quay.io/a.b-c_d/e", `x.io/${"ab/".repeat(60)}c`]) {
      const name = mirrorSetName("tag", { source });
      expect(name).toMatch(DNS_SUBDOMAIN);
      expect(name.length).toBeLessThanOrEqual(63);
    }
  });

  test("a name depends on its own entry only: adding or reordering entries renames nothing", () => {
    const before = buildDigestMirrorSets(config).map((o) => o.metadata.name);
    const more: MirrorsConfig = {
      digest: [
        { source: "docker.io/library/nginx", mirrors: ["m.local/hub/library/nginx"] },
        ...[...config.digest].reverse(),
      ],
      tag: [],
    };
    const after = buildDigestMirrorSets(more).map((o) => o.metadata.name);
    expect(after).toEqual(expect.arrayContaining(before));
    expect(after).toHaveLength(before.length + 1);
  });
});

describe("objects to Windows registry files", () => {
  const entries: MirrorEntry[] = [
    { source: "registry.redhat.io/ubi9", mirrors: ["m.local/rh/ubi9"] },
    {
      source: "registry.redhat.io/ubi8",
      mirrors: ["m.local/rh/ubi8"],
      mirrorSourcePolicy: "NeverContactSource",
      name: "a-first-by-name",
    },
    { source: "registry.redhat.io/openshift4", mirrors: ["m.local/rh/openshift4"], name: "zz-last-by-name" },
  ];

  test("the files do not depend on the order WMCO happens to read our objects in", () => {
    const idms = buildDigestMirrorSets({ digest: entries, tag: [] });
    const forward = renderHostsToml({ imageDigestMirrorSets: idms, imageTagMirrorSets: [] });
    const backward = renderHostsToml({ imageDigestMirrorSets: [...idms].reverse(), imageTagMirrorSets: [] });
    expect(backward).toEqual(forward);
    const view = parse(forward["registry.redhat.io"]) as { server: string };
    expect(view.server).toBe("https://m.local/v2/rh");
  });
});
