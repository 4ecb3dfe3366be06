import { buildDigestMirrorSets, buildTagMirrorSets, mirrorSetName } from "../../../components/mirrors/mirror-sets";
import { validateMirrors } from "../../../components/mirrors/validate";
import { mirrorsSchema } from "../../../stacks/schema/mirrors";
import { validateObject } from "../../helpers/schemas";

const cfg = (raw: unknown) => mirrorsSchema.parse(raw);

describe("IDMS/ITMS objects", () => {
  const m = cfg({
    digest: [
      { source: "mcr.microsoft.com/oss/kubernetes/pause", mirrors: ["mirror.example.com:5000/win/oss/kubernetes/pause"] },
      { source: "registry.redhat.io/ubi9", mirrors: ["mirror.example.com:5000/rh/ubi9"], mirrorSourcePolicy: "NeverContactSource", name: "ubi9" },
    ],
    tag: [{ source: "quay.io/org/app", mirrors: ["mirror.example.com:5000/quay/org/app"] }],
  });

  test("valid against the schemas, closed to unknown fields", () => {
    for (const o of [...buildDigestMirrorSets(m), ...buildTagMirrorSets(m)]) expect(validateObject(o, { closed: true })).toBe("");
  });

  test("names are stable: given, or derived from the source alone, sorted as the API lists them", () => {
    expect(buildDigestMirrorSets(m).map((o) => o.metadata.name)).toEqual(["ubi9", "windows-estate-digest-mcr-microsoft-com-oss-kubernetes-pause"]);
    const long = { source: `registry.example.com/${"a".repeat(80)}`, mirrors: [] };
    const name = mirrorSetName("digest", long);
    expect(name.length).toBeLessThanOrEqual(63);
    expect(name).toBe(mirrorSetName("digest", long));
    expect(name).not.toBe(mirrorSetName("digest", { ...long, source: long.source + "b" }));
  });

  test("a bad object fails the schema (the check can fail)", () => {
    const [o] = buildDigestMirrorSets(m);
    (o.spec.imageDigestMirrors[0] as { mirrorSourcePolicy?: string }).mirrorSourcePolicy = "Sometimes";
    expect(validateObject(o)).toMatch(/allowed values/);
  });
});

describe("validateMirrors", () => {
  const errorsOf = (raw: unknown) => validateMirrors(cfg(raw)).errors;
  test.each([
    ["scheme in the source", { digest: [{ source: "https://quay.io/org", mirrors: [] }] }, "mirrors.digest[0].source", /leave out the scheme/],
    ["tag in the mirror", { tag: [{ source: "quay.io/org/app", mirrors: ["m.local/org/app:1.0"] }] }, "mirrors.tag[0].mirrors[0]", /leave out the tag/],
    ["Windows naming rule", { digest: [{ source: "mcr.microsoft.com/oss/kubernetes/pause", mirrors: ["mirror.local/pause"] }] }, "mirrors.digest[0].mirrors[0]", /<mirror host>\/<optional namespaces>\/oss\/kubernetes\/pause/],
    ["duplicate source", { digest: [{ source: "quay.io/a", mirrors: ["m.local/a"] }, { source: "quay.io/a", mirrors: ["n.local/a"] }] }, "mirrors.digest[1].source", /listed twice/],
    ["duplicate mirror", { digest: [{ source: "quay.io/a", mirrors: ["m.local/a", "m.local/a"] }] }, "mirrors.digest[0].mirrors[1]", /listed twice/],
    ["never contact without mirrors", { digest: [{ source: "quay.io/a", mirrorSourcePolicy: "NeverContactSource" }] }, "mirrors.digest[0].mirrorSourcePolicy", /nowhere to pull/],
    ["duplicate names", { digest: [{ source: "quay.io/a", mirrors: ["m.local/a"], name: "x" }, { source: "quay.io/b", mirrors: ["m.local/b"], name: "x" }] }, "mirrors.digest[1].name", /used twice/],
    ["bad name", { digest: [{ source: "quay.io/a", mirrors: ["m.local/a"], name: "Not_OK" }] }, "mirrors.digest[0].name", /DNS subdomain/],
  ])("%s", (_n, raw, path, says) => {
    const errors = errorsOf(raw);
    expect(errors.map((e) => e.path)).toContain(path);
    expect(errors.find((e) => e.path === path)?.message).toMatch(says);
  });

  test("good configs, including registry-wide mirrors, pass", () => {
    expect(errorsOf({ digest: [{ source: "quay.io", mirrors: ["mirror.local/quay"] }, { source: "mcr.microsoft.com/oss/kubernetes/pause", mirrors: ["mirror.local/oss/kubernetes/pause"] }] })).toEqual([]);
  });

  test("warns when one NeverContactSource entry makes a whole registry NeverContactSource on Windows", () => {
    const r = validateMirrors(
      cfg({
        digest: [
          { source: "registry.redhat.io/ubi9", mirrors: ["m.local/ubi9"], mirrorSourcePolicy: "AllowContactingSource" },
          { source: "registry.redhat.io/ubi8", mirrors: ["m.local/ubi8"], mirrorSourcePolicy: "NeverContactSource" },
        ],
      }),
    );
    expect(r.errors).toEqual([]);
    expect(r.warnings).toEqual([expect.objectContaining({ path: "mirrors.digest[0].mirrorSourcePolicy", message: expect.stringMatching(/every image of registry.redhat.io becomes NeverContactSource/) })]);
  });

  test("warns when an unset policy keeps a NeverContactSource entry from taking effect", () => {
    const r = validateMirrors(cfg({ digest: [{ source: "registry.redhat.io/a", mirrors: ["m.local/a"] }, { source: "registry.redhat.io/b", mirrors: ["m.local/b"], mirrorSourcePolicy: "NeverContactSource" }] }));
    expect(r.warnings.map((w) => w.path)).toContain("mirrors.digest[1].mirrorSourcePolicy");
  });

  test("wildcard sources warn that Windows nodes cannot use them", () => {
    const r = validateMirrors(cfg({ digest: [{ source: "*.redhat.io", mirrors: ["m.local/rh"] }] }));
    expect(r.warnings[0]).toMatchObject({ path: "mirrors.digest[0].source", message: expect.stringMatching(/Linux nodes only/) });
  });
});
