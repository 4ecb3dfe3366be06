import { parse } from "smol-toml";
import {
  hostsTomlText,
  IDMS,
  ITMS,
  mirrorBase,
  MirrorSet,
  mirrorSetsOf,
  orgPath,
  pullSecretCredentials,
  redactHostsToml,
  registryDirectory,
  registryHost,
  renderHostsToml,
} from "../../../components/mirrors/hosts-toml";

// Expected texts marked "WMCO" are WMCO's own test expectations (pkg/registries TestGenerateConfig) as data; the
// merge expectations are from TestGetMergedMirrorSets; the rest are ours, derived from the same rules.
const WMCO_PULL_SECRET = `{"auths":{"mirror.example.com":{"auth":"dXNlcjpwYXNz"},"mirror.example.net":{"auth":"dXNlcm5hbWU6cGFzc3dvcmQ="}}}`;
const creds = pullSecretCredentials(WMCO_PULL_SECRET);

const idms = (...entries: { source: string; mirrors?: string[]; mirrorSourcePolicy?: string }[]): IDMS => ({ spec: { imageDigestMirrors: entries } });
const itms = (...entries: { source: string; mirrors?: string[]; mirrorSourcePolicy?: string }[]): ITMS => ({ spec: { imageTagMirrors: entries } });

function expectToml(text: string): void {
  if (text !== "") expect(() => parse(text)).not.toThrow();
}

describe("hosts.toml text (WMCO TestGenerateConfig)", () => {
  const three = (policy: string): MirrorSet => ({
    source: "registry.access.redhat.com",
    mirrors: [
      { host: "example.io/example", resolveTags: false },
      { host: "mirror.example.com/redhat", resolveTags: false },
      { host: "mirror.example.net", resolveTags: true },
    ],
    policy,
  });
  const threeBody = `
[host."https://example.io/v2/example"]
  capabilities = ["pull"]
  override_path = true

[host."https://mirror.example.com/v2/redhat"]
  capabilities = ["pull"]
  override_path = true
  [host."https://mirror.example.com/v2/redhat".header]
    authorization = "Basic dXNlcjpwYXNz"

[host."https://mirror.example.net/v2"]
  capabilities = ["pull", "resolve"]
  override_path = true
  [host."https://mirror.example.net/v2".header]
    authorization = "Basic dXNlcm5hbWU6cGFzc3dvcmQ="
`;
  test.each<[string, MirrorSet, string]>([
    ["empty mirrors", { source: "registry.access.redhat.com/ubi9", mirrors: [], policy: "AllowContactingSource" }, ""],
    [
      "basic one digest mirror",
      { source: "registry.access.redhat.com", mirrors: [{ host: "example.io/example", resolveTags: false }], policy: "AllowContactingSource" },
      `server = "https://registry.access.redhat.com/v2"\n\noverride_path = true\n\n[host."https://example.io/v2/example"]\n  capabilities = ["pull"]\n  override_path = true\n`,
    ],
    [
      "basic one tag mirror",
      { source: "registry.access.redhat.com", mirrors: [{ host: "example.io/example", resolveTags: true }], policy: "AllowContactingSource" },
      `server = "https://registry.access.redhat.com/v2"\n\noverride_path = true\n\n[host."https://example.io/v2/example"]\n  capabilities = ["pull", "resolve"]\n  override_path = true\n`,
    ],
    [
      "one digest mirror never contact source",
      { source: "registry.access.redhat.com", mirrors: [{ host: "example.io/example", resolveTags: false }], policy: "NeverContactSource" },
      `server = "https://example.io/v2/example"\n\noverride_path = true\n\n[host."https://example.io/v2/example"]\n  capabilities = ["pull"]\n  override_path = true\n`,
    ],
    [
      "tags mirror never contact source",
      { source: "registry.access.redhat.com", mirrors: [{ host: "example.io/example", resolveTags: true }], policy: "NeverContactSource" },
      `server = "https://example.io/v2/example"\n\noverride_path = true\n\n[host."https://example.io/v2/example"]\n  capabilities = ["pull", "resolve"]\n  override_path = true\n`,
    ],
    ["multiple mirrors", three("AllowContactingSource"), `server = "https://registry.access.redhat.com/v2"\n\noverride_path = true\n${threeBody}`],
    ["multiple mirrors never contact source", three("NeverContactSource"), `server = "https://example.io/v2/example"\n\noverride_path = true\n${threeBody}`],
  ])("WMCO: %s", (_n, set, expected) => {
    const text = hostsTomlText(set, creds);
    expect(text).toBe(expected);
    expectToml(text);
  });
});

describe("merging (WMCO TestGetMergedMirrorSets)", () => {
  test("no items", () => expect(mirrorSetsOf([], [])).toEqual([]));
  test("one IDMS item", () => {
    expect(mirrorSetsOf([idms({ source: "source1", mirrors: ["mirror1"], mirrorSourcePolicy: "AllowContactingSource" })], [])).toEqual([
      { source: "source1", mirrors: [{ host: "mirror1", resolveTags: false }], policy: "AllowContactingSource" },
    ]);
  });
  test("one ITMS item", () => {
    expect(mirrorSetsOf([], [itms({ source: "source2", mirrors: ["mirror2"], mirrorSourcePolicy: "AllowContactingSource" })])).toEqual([
      { source: "source2", mirrors: [{ host: "mirror2", resolveTags: true }], policy: "AllowContactingSource" },
    ]);
  });
  test("1 IDMS and 1 ITMS, a source with scheme and port", () => {
    expect(
      mirrorSetsOf([idms({ source: "https://source1.local:5000", mirrors: ["mirror1"], mirrorSourcePolicy: "AllowContactingSource" })], [itms({ source: "source2", mirrors: ["mirror2"], mirrorSourcePolicy: "AllowContactingSource" })]),
    ).toEqual([
      { source: "source1.local:5000", mirrors: [{ host: "mirror1", resolveTags: false }], policy: "AllowContactingSource" },
      { source: "source2", mirrors: [{ host: "mirror2", resolveTags: true }], policy: "AllowContactingSource" },
    ]);
  });
  test("mix of overlapping IDMS and 1 ITMS", () => {
    const out = mirrorSetsOf(
      [idms({ source: "vmc.ci.openshift.org/ci-op/pipeline", mirrors: ["devcluster.openshift.com:5000/pipeline"], mirrorSourcePolicy: "AllowContactingSource" })],
      [
        itms(
          { source: "docker://mcr.microsoft.com/oss/kubernetes/pause", mirrors: ["quay.io/testuser/oss/kubernetes/pause"], mirrorSourcePolicy: "AllowContactingSource" },
          { source: "mcr.microsoft.com/powershell", mirrors: ["quay.io/testuser/testnamespace/powershell"], mirrorSourcePolicy: "AllowContactingSource" },
          { source: "registry.k8s.io/sig-storage/csi-provisioner", mirrors: ["devcluster.openshift.com:5000/sig-storage/csi-provisioner"], mirrorSourcePolicy: "AllowContactingSource" },
          { source: "registry.access.redhat.com/ubi9/ubi-minimal", mirrors: ["devcluster.openshift.com:5000/ubi9/ubi-minimal"], mirrorSourcePolicy: "AllowContactingSource" },
          { source: "registry.access.redhat.com/ubi8/ubi-minimal", mirrors: ["random.io/ubi8/ubi-minimal"], mirrorSourcePolicy: "NeverContactSource" },
        ),
      ],
    );
    expect(out).toEqual([
      { source: "mcr.microsoft.com", mirrors: [{ host: "quay.io/testuser", resolveTags: true }, { host: "quay.io/testuser/testnamespace", resolveTags: true }], policy: "AllowContactingSource" },
      { source: "registry.access.redhat.com", mirrors: [{ host: "devcluster.openshift.com:5000", resolveTags: true }, { host: "random.io", resolveTags: true }], policy: "NeverContactSource" },
      { source: "registry.k8s.io", mirrors: [{ host: "devcluster.openshift.com:5000", resolveTags: true }], policy: "AllowContactingSource" },
      { source: "vmc.ci.openshift.org", mirrors: [{ host: "devcluster.openshift.com:5000", resolveTags: false }], policy: "AllowContactingSource" },
    ]);
  });
});

describe("mirror base, registry host and org path (WMCO TestExtractMirrorURL / TestExtractOrgPath)", () => {
  test.each([
    ["example.com/path/to/resource", "example.org/path/to/resource", "example.org"],
    ["example.com/path/to/resource/x", "example.com/path/to/resourceax", "example.com/path/to/resourceax"],
    ["mcr.microsoft.com/powershell:lts-nanoserver-ltsc2022", "quay.io/powershell:23", "quay.io/powershell:23"],
    ["mcr.microsoft.com/powershell:lts-nanoserver-ltsc2022", "quay.io/random_namespace/powershell:lts-nanoserver-ltsc2022", "quay.io/random_namespace"],
    ["mcr.microsoft.com/windows/servercore:ltsc2022", "quay.io/mohashai/random_namespace/windows/servercore:ltsc2022", "quay.io/mohashai/random_namespace"],
    ["foo1/fah/different/foo2", "foo1/fah/something/foo2", "foo1/fah/something"],
    ["foo1/fah/hello/different/foo2", "foo1/fah/something/foo2", "foo1/fah/something"],
    ["foo1/fah/different/foo2", "foo1/fah/hello/something/foo2", "foo1/fah/hello/something"],
  ])("mirrorBase(%s, %s) = %s", (s, m, e) => expect(mirrorBase(s, m)).toBe(e));
  test("a mirror equal to its source keeps its registry", () => expect(mirrorBase("example.com/path/to/resource", "example.com/path/to/resource")).toBe("example.com"));
  test.each([
    ["registry.local/org", "org"],
    ["registry.local/org/sub_org", "org/sub_org"],
    ["registry.local", ""],
    ["https://registry.local:8443/org", "org"],
  ])("orgPath(%s) = %s", (i, e) => expect(orgPath(i)).toBe(e));
  test.each([
    ["mcr.microsoft.com/oss/kubernetes/pause:3.9", "mcr.microsoft.com"],
    ["https://source1.local:5000", "source1.local:5000"],
    ["docker://quay.io/org/img", "quay.io"],
    ["10.0.0.1:5000/img", "10.0.0.1:5000"],
    ["localhost:5000", "localhost:5000"],
  ])("registryHost(%s) = %s", (i, e) => expect(registryHost(i)).toBe(e));
});

describe("whole files from cluster objects (ours)", () => {
  test("one file per registry, merged across sets, sorted, both capabilities", () => {
    const files = renderHostsToml({
      imageDigestMirrorSets: [idms({ source: "registry.redhat.io/ubi9", mirrors: ["mirror.local/rh/ubi9"] }), idms({ source: "registry.redhat.io/openshift4/ose-cli", mirrors: ["mirror.local/rh/openshift4/ose-cli", "backup.local/openshift4/ose-cli"] })],
      imageTagMirrorSets: [itms({ source: "quay.io/org/app", mirrors: ["mirror.local/quay/org/app"] })],
    });
    expect(Object.keys(files)).toEqual(["quay.io", "registry.redhat.io"]);
    expect(files["registry.redhat.io"]).toBe(
      `server = "https://registry.redhat.io/v2"\n\noverride_path = true\n\n[host."https://backup.local/v2"]\n  capabilities = ["pull"]\n  override_path = true\n\n[host."https://mirror.local/v2/rh"]\n  capabilities = ["pull"]\n  override_path = true\n`,
    );
    expect(files["quay.io"]).toContain(`capabilities = ["pull", "resolve"]`);
    for (const t of Object.values(files)) expectToml(t);
  });

  test("a host used for digests and tags resolves tags", () => {
    const files = renderHostsToml({ imageDigestMirrorSets: [idms({ source: "quay.io/a", mirrors: ["m.local/a"] })], imageTagMirrorSets: [itms({ source: "quay.io/b", mirrors: ["m.local/b"] })] });
    expect(files["quay.io"].match(/\[host\./g)).toHaveLength(1);
    expect(files["quay.io"]).toContain(`capabilities = ["pull", "resolve"]`);
  });

  test("a source with a port gets containerd's Windows directory name host_port_", () => {
    const files = renderHostsToml({ imageDigestMirrorSets: [idms({ source: "registry.local:5000/team/app", mirrors: ["mirror.local:6000/team/app"] })], imageTagMirrorSets: [] });
    expect(Object.keys(files)).toEqual(["registry.local_5000_"]);
    expect(files["registry.local_5000_"]).toBe(`server = "https://registry.local:5000/v2"\n\noverride_path = true\n\n[host."https://mirror.local:6000/v2"]\n  capabilities = ["pull"]\n  override_path = true\n`);
    expect(registryDirectory("quay.io")).toBe("quay.io");
  });

  test("an entry without mirrors still gets its (empty) file", () => {
    expect(renderHostsToml({ imageDigestMirrorSets: [idms({ source: "quay.io/x" })], imageTagMirrorSets: [] })).toEqual({ "quay.io": "" });
  });

  test("NeverContactSource anywhere in a registry applies to all of it, and the fallback is the first mirror after sorting", () => {
    const files = renderHostsToml({
      imageDigestMirrorSets: [
        idms({ source: "registry.redhat.io/a", mirrors: ["zeta.local/a"], mirrorSourcePolicy: "AllowContactingSource" }),
        idms({ source: "registry.redhat.io/b", mirrors: ["alpha.local/org/b"], mirrorSourcePolicy: "NeverContactSource" }),
      ],
      imageTagMirrorSets: [],
    });
    expect(files["registry.redhat.io"].split("\n")[0]).toBe(`server = "https://alpha.local/v2/org"`);
  });

  test("an unset policy processed first keeps the registry contactable (WMCO only replaces an explicit Allow)", () => {
    const files = renderHostsToml({
      imageDigestMirrorSets: [idms({ source: "registry.redhat.io/a", mirrors: ["m.local/a"] }), idms({ source: "registry.redhat.io/b", mirrors: ["m.local/b"], mirrorSourcePolicy: "NeverContactSource" })],
      imageTagMirrorSets: [],
    });
    expect(files["registry.redhat.io"].split("\n")[0]).toBe(`server = "https://registry.redhat.io/v2"`);
  });

  test("auth headers from username/password fields, keyed by the mirror's registry host only", () => {
    const pullSecret = JSON.stringify({ auths: { "mirror.local:5000": { username: "robot", password: "s3cret" } } });
    const files = renderHostsToml({ imageDigestMirrorSets: [idms({ source: "quay.io/org/app", mirrors: ["mirror.local:5000/quay/org/app"] })], imageTagMirrorSets: [], pullSecret });
    const token = Buffer.from("robot:s3cret").toString("base64");
    expect(files["quay.io"]).toContain(`  [host."https://mirror.local:5000/v2/quay".header]\n    authorization = "Basic ${token}"\n`);
    expect(redactHostsToml(files["quay.io"])).not.toContain(token);
    expect(redactHostsToml(files["quay.io"])).toContain(`authorization = "Basic <redacted>"`);
    expectToml(files["quay.io"]);
  });

  test("mirrors sort by bytes, as Go compares strings (upper case before lower case)", () => {
    const files = renderHostsToml({ imageDigestMirrorSets: [idms({ source: "q.io/a", mirrors: ["b.local/a", "B.local/a", "a.local/a"] })], imageTagMirrorSets: [] });
    const hosts = [...files["q.io"].matchAll(/\[host\."https:\/\/([^/]+)/g)].map((m) => m[1]);
    expect(hosts).toEqual(["B.local", "a.local", "b.local"]);
  });

  test("a pull secret whose auth is not user:password is refused clearly", () => {
    expect(() => pullSecretCredentials(JSON.stringify({ auths: { "x.io": { auth: Buffer.from("nocolon").toString("base64") } } }))).toThrow(/x.io is not base64\(username:password\)/);
  });
});
