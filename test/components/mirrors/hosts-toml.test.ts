import { parse } from "smol-toml";
import {
  hostsTomlText,
  IDMS,
  ImageMirrors,
  ITMS,
  mergeMirrors,
  mergeMirrorSets,
  mirrorBase,
  MirrorSet,
  mirrorSetsOf,
  orgPath,
  pullSecretCredentials,
  redactHostsToml,
  registryDirectory,
  registryHost,
  renderHostsToml,
  stripSharedSuffix,
} from "../../../components/mirrors/hosts-toml";

// Where the data comes from:
//   "WMCO ..."  expectations of openshift/windows-machine-config-operator pkg/registries/registries_test.go
//               (snapshot 0be4b9cc), copied as data: TestGenerateConfig texts are verbatim (three of them as edits
//               of a fourth that give them letter for letter), the mirror sets of TestGetMergedMirrorSets /
//               TestMergeMirrorSets / TestMergeMirrors / TestExtractMirrorURL / TestExtractOrgPath likewise.
//   "OKD docs"  the ubi9repo example of the OKD documentation, "Using Windows containers with a mirror registry".
//   the rest    ours, derived from the rules of pkg/registries/registries.go.

const WMCO_PULL_SECRET = `{"auths":{"mirror.example.com":{"auth":"dXNlcjpwYXNz"},"mirror.example.net":{"auth":"dXNlcm5hbWU6cGFzc3dvcmQ="}}}`;

const idms = (...entries: ImageMirrors[]): IDMS => ({ spec: { imageDigestMirrors: entries } });
const itms = (...entries: ImageMirrors[]): ITMS => ({ spec: { imageTagMirrors: entries } });

interface HostView {
  capabilities: string[];
  override_path: boolean;
  header?: { authorization: string };
}

/** Parses a rendered file as TOML (as containerd will) and returns what containerd reads from it. */
function parsed(text: string): { server: string; override_path: boolean; host: Record<string, HostView> } {
  return parse(text) as unknown as { server: string; override_path: boolean; host: Record<string, HostView> };
}

/** Every non-empty file of a render must be valid TOML. */
function expectAllToml(files: Record<string, string>): void {
  for (const text of Object.values(files)) if (text !== "") expect(() => parse(text)).not.toThrow();
}

const file = (server: string, ...hosts: string[]) => `server = "${server}"\n\noverride_path = true\n${hosts.join("")}`;
const host = (url: string, resolve: boolean, auth?: string) =>
  `\n[host."${url}"]\n  capabilities = ${resolve ? `["pull", "resolve"]` : `["pull"]`}\n  override_path = true\n` +
  (auth ? `  [host."${url}".header]\n    authorization = "Basic ${auth}"\n` : "");

describe("WMCO TestGenerateConfig: the exact text of one registry's file", () => {
  const creds = pullSecretCredentials(WMCO_PULL_SECRET);
  const threeMirrors = [
    { host: "example.io/example", resolveTags: false },
    { host: "mirror.example.com/redhat", resolveTags: false },
    { host: "mirror.example.net", resolveTags: true },
  ];
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
  // Upstream's one-mirror texts differ only where the policy and the kind of mirror reach: its "basic one digest
  // mirror" text verbatim, and its other three as those edits of it (which give them letter for letter).
  const oneMirror = `server = "https://registry.access.redhat.com/v2"

override_path = true

[host."https://example.io/v2/example"]
  capabilities = ["pull"]
  override_path = true
`;
  const edit = (from: string, to: string) => (text: string) => {
    if (!text.includes(from)) throw new Error(`no ${from} in ${text}`);
    return text.replace(from, to);
  };
  /** NeverContactSource: the server is the first mirror. */
  const never = edit('server = "https://registry.access.redhat.com/v2"', 'server = "https://example.io/v2/example"');
  /** A tag mirror (ITMS) resolves tags too. */
  const tags = edit('capabilities = ["pull"]', 'capabilities = ["pull", "resolve"]');
  const set = (mirrors: MirrorSet["mirrors"], policy: string): MirrorSet => ({
    source: "registry.access.redhat.com",
    mirrors,
    policy,
  });
  const one = (resolveTags: boolean, policy: string) => set([{ host: "example.io/example", resolveTags }], policy);
  const three = `server = "https://registry.access.redhat.com/v2"\n\noverride_path = true\n${threeBody}`;
  test.each<[string, MirrorSet, string]>([
    ["empty mirrors", { source: "registry.access.redhat.com/ubi9", mirrors: [], policy: "AllowContactingSource" }, ""],
    ["basic one digest mirror", one(false, "AllowContactingSource"), oneMirror],
    ["basic one tag mirror", one(true, "AllowContactingSource"), tags(oneMirror)],
    ["one digest mirror never contact source", one(false, "NeverContactSource"), never(oneMirror)],
    ["tags mirror never contact source", one(true, "NeverContactSource"), never(tags(oneMirror))],
    ["multiple mirrors", set(threeMirrors, "AllowContactingSource"), three],
    ["multiple mirrors never contact source", set(threeMirrors, "NeverContactSource"), never(three)],
  ])("%s", (_name, mirrorSet, expected) => {
    const text = hostsTomlText(mirrorSet, creds);
    expect(text).toBe(expected);
    if (text !== "") expect(parsed(text).server).toBe(expected.split('"')[1]);
  });

  // The same verbatim texts, reached from cluster objects through the whole pipeline (reduction, merge, sort, auth).
  test("multiple mirrors, from one IDMS and one ITMS of registry.access.redhat.com/ubi9", () => {
    const files = renderHostsToml({
      imageDigestMirrorSets: [
        idms({
          source: "registry.access.redhat.com/ubi9",
          mirrors: ["mirror.example.com/redhat/ubi9", "example.io/example/ubi9"],
          mirrorSourcePolicy: "AllowContactingSource",
        }),
      ],
      imageTagMirrorSets: [
        itms({
          source: "registry.access.redhat.com/ubi9",
          mirrors: ["mirror.example.net/ubi9"],
          mirrorSourcePolicy: "AllowContactingSource",
        }),
      ],
      pullSecret: WMCO_PULL_SECRET,
    });
    expect(files).toEqual({
      "registry.access.redhat.com": three,
    });
    const view = parsed(files["registry.access.redhat.com"]);
    expect(Object.keys(view.host)).toEqual([
      "https://example.io/v2/example",
      "https://mirror.example.com/v2/redhat",
      "https://mirror.example.net/v2",
    ]);
    expect(view.host["https://mirror.example.net/v2"].header?.authorization).toBe("Basic dXNlcm5hbWU6cGFzc3dvcmQ=");
  });

  test("one tag mirror never contact source, from an ITMS", () => {
    const files = renderHostsToml({
      imageDigestMirrorSets: [],
      imageTagMirrorSets: [
        itms({
          source: "registry.access.redhat.com/ubi9/ubi-minimal",
          mirrors: ["example.io/example/ubi9/ubi-minimal"],
          mirrorSourcePolicy: "NeverContactSource",
        }),
      ],
    });
    expect(files["registry.access.redhat.com"]).toBe(
      file("https://example.io/v2/example", host("https://example.io/v2/example", true)),
    );
  });
});

describe("WMCO TestGetMergedMirrorSets: cluster objects to merged sets", () => {
  test("no items", () => {
    expect(mirrorSetsOf([], [])).toEqual([]);
    expect(renderHostsToml({ imageDigestMirrorSets: [], imageTagMirrorSets: [] })).toEqual({});
  });

  // Upstream's items each name one mirror and AllowContactingSource.
  const item = (source: string, mirror: string): ImageMirrors => ({
    source,
    mirrors: [mirror],
    mirrorSourcePolicy: "AllowContactingSource",
  });
  const merged = (source: string, host: string, resolveTags: boolean): MirrorSet => ({
    source,
    mirrors: [{ host, resolveTags }],
    policy: "AllowContactingSource",
  });

  test("one IDMS item", () => {
    expect(mirrorSetsOf([idms(item("source1", "mirror1"))], [])).toEqual([merged("source1", "mirror1", false)]);
  });

  test("one ITMS item", () => {
    expect(mirrorSetsOf([], [itms(item("source2", "mirror2"))])).toEqual([merged("source2", "mirror2", true)]);
  });

  const oneAndOne = {
    imageDigestMirrorSets: [idms(item("https://source1.local:5000", "mirror1"))],
    imageTagMirrorSets: [itms(item("source2", "mirror2"))],
  };

  test("1 IDMS and 1 ITMS (a source with scheme and port)", () => {
    expect(mirrorSetsOf(oneAndOne.imageDigestMirrorSets, oneAndOne.imageTagMirrorSets)).toEqual([
      merged("source1.local:5000", "mirror1", false),
      merged("source2", "mirror2", true),
    ]);
  });

  test("1 IDMS and 1 ITMS, as files: the port stays in the directory name, the scheme disappears", () => {
    const files = renderHostsToml(oneAndOne);
    // GenerateConfigFiles keys each file `fmt.Sprintf("%s\\hosts.toml", ms.source)`: the source host as spelled.
    expect(files).toEqual({
      "source1.local:5000": file("https://source1.local:5000/v2", host("https://mirror1/v2", false)),
      source2: file("https://source2/v2", host("https://mirror2/v2", true)),
    });
    expectAllToml(files);
  });

  const overlapping = {
    imageDigestMirrorSets: [
      idms({
        source: "vmc.ci.openshift.org/ci-op/pipeline",
        mirrors: ["devcluster.openshift.com:5000/pipeline"],
        mirrorSourcePolicy: "AllowContactingSource",
      }),
    ],
    imageTagMirrorSets: [
      itms(
        {
          source: "docker://mcr.microsoft.com/oss/kubernetes/pause",
          mirrors: ["quay.io/testuser/oss/kubernetes/pause"],
          mirrorSourcePolicy: "AllowContactingSource",
        },
        {
          source: "mcr.microsoft.com/powershell",
          mirrors: ["quay.io/testuser/testnamespace/powershell"],
          mirrorSourcePolicy: "AllowContactingSource",
        },
        {
          source: "registry.k8s.io/sig-storage/csi-provisioner",
          mirrors: ["devcluster.openshift.com:5000/sig-storage/csi-provisioner"],
          mirrorSourcePolicy: "AllowContactingSource",
        },
        {
          source: "registry.access.redhat.com/ubi9/ubi-minimal",
          mirrors: ["devcluster.openshift.com:5000/ubi9/ubi-minimal"],
          mirrorSourcePolicy: "AllowContactingSource",
        },
        {
          source: "registry.access.redhat.com/ubi8/ubi-minimal",
          mirrors: ["random.io/ubi8/ubi-minimal"],
          mirrorSourcePolicy: "NeverContactSource",
        },
      ),
    ],
  };

  test("mix of overlapping IDMS and 1 ITMS", () => {
    expect(mirrorSetsOf(overlapping.imageDigestMirrorSets, overlapping.imageTagMirrorSets)).toEqual([
      {
        source: "mcr.microsoft.com",
        mirrors: [
          { host: "quay.io/testuser", resolveTags: true },
          { host: "quay.io/testuser/testnamespace", resolveTags: true },
        ],
        policy: "AllowContactingSource",
      },
      {
        source: "registry.access.redhat.com",
        mirrors: [
          { host: "devcluster.openshift.com:5000", resolveTags: true },
          { host: "random.io", resolveTags: true },
        ],
        policy: "NeverContactSource",
      },
      {
        source: "registry.k8s.io",
        mirrors: [{ host: "devcluster.openshift.com:5000", resolveTags: true }],
        policy: "AllowContactingSource",
      },
      {
        source: "vmc.ci.openshift.org",
        mirrors: [{ host: "devcluster.openshift.com:5000", resolveTags: false }],
        policy: "AllowContactingSource",
      },
    ]);
  });

  test("mix of overlapping IDMS and 1 ITMS, as files (text derived from the rules)", () => {
    const files = renderHostsToml(overlapping);
    expect(Object.keys(files)).toEqual([
      "mcr.microsoft.com",
      "registry.access.redhat.com",
      "registry.k8s.io",
      "vmc.ci.openshift.org",
    ]);
    expect(files["mcr.microsoft.com"]).toBe(
      file(
        "https://mcr.microsoft.com/v2",
        host("https://quay.io/v2/testuser", true),
        host("https://quay.io/v2/testuser/testnamespace", true),
      ),
    );
    expect(files["registry.access.redhat.com"]).toBe(
      file(
        "https://devcluster.openshift.com:5000/v2",
        host("https://devcluster.openshift.com:5000/v2", true),
        host("https://random.io/v2", true),
      ),
    );
    expect(files["vmc.ci.openshift.org"]).toBe(
      file("https://vmc.ci.openshift.org/v2", host("https://devcluster.openshift.com:5000/v2", false)),
    );
    expectAllToml(files);
  });
});

describe("WMCO TestMergeMirrorSets: merging sets that share a source", () => {
  /** A set of `source` with `policy` and its mirrors as [host, resolveTags]. */
  const set = (source: string, policy: string, ...mirrors: [string, boolean][]): MirrorSet => ({
    source,
    mirrors: mirrors.map(([h, r]) => ({ host: h, resolveTags: r })),
    policy,
  });
  const ubi = "registry.access.redhat.com/ubi9/ubi-minimal";
  const ocp = "quay.io/openshift-release-dev/ocp-release";

  test("empty", () => expect(mergeMirrorSets([])).toEqual([]));

  test("same source but different mirrors: unioned and sorted by host", () => {
    const out = mergeMirrorSets([
      set(ubi, "", ["example.io/example/ubi-minimal", false], ["example.com/example/ubi-minimal", true]),
      set(ubi, "", ["mirror.example.net/image", false], ["mirror.example.com/redhat", true]),
    ]);
    expect(out).toEqual([
      set(
        ubi,
        "",
        ["example.com/example/ubi-minimal", true],
        ["example.io/example/ubi-minimal", false],
        ["mirror.example.com/redhat", true],
        ["mirror.example.net/image", false],
      ),
    ]);
  });

  test("same source: NeverContactSource first is kept, Allow merged with Allow stays Allow", () => {
    const out = mergeMirrorSets([
      set(ubi, "NeverContactSource"),
      set(ubi, "AllowContactingSource"),
      set(ocp, "AllowContactingSource"),
      set(ocp, "AllowContactingSource"),
    ]);
    expect(out).toEqual([set(ocp, "AllowContactingSource"), set(ubi, "NeverContactSource")]);
  });

  test("same source and duplicated mirrors: one entry per host, resolving tags wins", () => {
    const out = mergeMirrorSets([
      set(ubi, "", ["mirror.example.net/image", false], ["mirror.example.com/redhat", false]),
      set(ubi, "", ["mirror.example.net/image", false], ["mirror.example.com/redhat", true]),
    ]);
    expect(out).toEqual([set(ubi, "", ["mirror.example.com/redhat", true], ["mirror.example.net/image", false])]);
  });

  test("different sources: sorted by source", () => {
    const out = mergeMirrorSets([
      set(ubi, "", ["mirror.example.com/redhat", false], ["mirror.example.net/image", false]),
      set(ocp, "", ["mirror.registry.com:443/ocp/release", false]),
    ]);
    expect(out.map((s) => s.source)).toEqual([ocp, ubi]);
  });
});

describe("WMCO TestMergeMirrors: union by host", () => {
  const m = (host: string, resolveTags: boolean) => ({ host, resolveTags });
  test.each([
    ["no mirrors", [], [], []],
    ["one empty slice", [m("openshift.com", false)], [], [m("openshift.com", false)]],
    ["duplicate mirror", [m("openshift.com", false)], [m("openshift.com", false)], [m("openshift.com", false)]],
    [
      "duplicate host but different resolveTags",
      [m("openshift.com", false)],
      [m("openshift.com", true)],
      [m("openshift.com", true)],
    ],
    [
      "different mirrors",
      [m("redhat.com", false)],
      [m("openshift.com", true)],
      [m("redhat.com", false), m("openshift.com", true)],
    ],
    [
      "multiple mirrors",
      [m("redhat.com", false), m("openshift.com", true), m("example.test.io", true)],
      [m("openshift.com", true), m("example.test.io", true)],
      [m("redhat.com", false), m("openshift.com", true), m("example.test.io", true)],
    ],
  ])("%s", (_name, a, b, expected) => {
    const out = mergeMirrors(a, b);
    // WMCO's result order is unspecified (a Go map); only the members count.
    expect(out).toHaveLength(expected.length);
    expect(out).toEqual(expect.arrayContaining(expected));
  });

  test("tag resolution wins whichever side brings it", () =>
    expect(mergeMirrors([m("a", true)], [m("a", false)])).toEqual([m("a", true)]));
});

describe("WMCO TestExtractMirrorURL / TestExtractOrgPath, and the host rule", () => {
  test.each([
    ["exact match", "example.com/path/to/resource", "example.com/path/to/resource", ""],
    ["different domain", "example.com/path/to/resource", "example.org/path/to/resource", "example.org"],
    [
      "last letter equal but no namespace match",
      "example.com/path/to/resource/x",
      "example.com/path/to/resourceax",
      "example.com/path/to/resourceax",
    ],
    [
      "different tags",
      "mcr.microsoft.com/powershell:lts-nanoserver-ltsc2022",
      "quay.io/powershell:23",
      "quay.io/powershell:23",
    ],
    [
      "different domain with tag",
      "mcr.microsoft.com/powershell:lts-nanoserver-ltsc2022",
      "quay.io/powershell:lts-nanoserver-ltsc2022",
      "quay.io",
    ],
    [
      "1 leading namespace",
      "mcr.microsoft.com/powershell:lts-nanoserver-ltsc2022",
      "quay.io/random_namespace/powershell:lts-nanoserver-ltsc2022",
      "quay.io/random_namespace",
    ],
    [
      "2 leading namespaces",
      "mcr.microsoft.com/windows/servercore:ltsc2022",
      "quay.io/mohashai/random_namespace/windows/servercore:ltsc2022",
      "quay.io/mohashai/random_namespace",
    ],
    ["matching higher level namespace", "foo1/fah/different/foo2", "foo1/fah/something/foo2", "foo1/fah/something"],
    [
      "matching higher level namespace with longer source",
      "foo1/fah/hello/different/foo2",
      "foo1/fah/something/foo2",
      "foo1/fah/something",
    ],
    [
      "matching higher level namespace with longer mirror",
      "foo1/fah/different/foo2",
      "foo1/fah/hello/something/foo2",
      "foo1/fah/hello/something",
    ],
  ])("stripSharedSuffix: %s", (_name, source, mirror, expected) =>
    expect(stripSharedSuffix(source, mirror)).toBe(expected),
  );

  test("a mirror equal to its source keeps its registry instead of an empty host", () => {
    expect(mirrorBase("example.com/path/to/resource", "example.com/path/to/resource")).toBe("example.com");
    expect(mirrorBase("mcr.microsoft.com/oss/kubernetes/pause", "quay.io/testuser/oss/kubernetes/pause")).toBe(
      "quay.io/testuser",
    );
  });

  test.each([
    ["registry.local/org", "org"],
    ["registry.local/org/sub_org", "org/sub_org"],
    ["registry.local", ""],
    ["https://registry.local:8443/org", "org"],
    ["mirror.local:5000/team/a", "team/a"],
    // Go's strings.SplitN(s, "", 2) peels off the first character when the host is empty.
    ["/org", "org"],
    ["///org", "/org"],
    ["", ""],
  ])("orgPath(%j) = %j", (input, expected) => expect(orgPath(input)).toBe(expected));

  test.each([
    ["mcr.microsoft.com/oss/kubernetes/pause:3.9", "mcr.microsoft.com"],
    ["https://source1.local:5000", "source1.local:5000"],
    ["docker://quay.io/org/img", "quay.io"],
    ["https://user:secret@quay.io:443/org", "quay.io:443"],
    ["https://[fd00::1]:5000/org", "fd00::1:5000"],
    ["//quay.io/org", "quay.io"],
    ["10.0.0.1:5000/img", "10.0.0.1:5000"],
    ["localhost:5000", "localhost:5000"],
    ["*.redhat.io", "*.redhat.io"],
    // Go's url.Parse rejects a non-numeric port, so WMCO falls back to the text before the first '/'.
    ["https://quay.io:abc/org", "https:"],
  ])("registryHost(%j) = %j", (input, expected) => expect(registryHost(input)).toBe(expected));

  test.each([
    ["quay.io", "quay.io"],
    ["registry.local:5000", "registry.local_5000_"],
    ["10.0.0.1:5000", "10.0.0.1_5000_"],
  ])(
    "registryDirectory(%j) = %j (containerd's first lookup, for the files kubeadm nodes get from us)",
    (input, expected) => expect(registryDirectory(input)).toBe(expected),
  );
});

describe("OKD docs: the ubi9repo ImageDigestMirrorSet", () => {
  // The docs print pre-2025 files and name the directories after mirrors; WMCO names them after each source
  // registry. Expected texts here are derived from WMCO's code, not from the docs' printout.
  const ubi9repo = idms(
    {
      source: "registry.access.redhat.com/ubi9/ubi-minimal",
      mirrors: ["example.io/example/ubi-minimal", "example.com/example2/ubi-minimal"],
      mirrorSourcePolicy: "AllowContactingSource",
    },
    { source: "registry.redhat.io", mirrors: ["mirror.example.com"], mirrorSourcePolicy: "NeverContactSource" },
    { source: "docker-mirror.internal", mirrors: ["docker.io"], mirrorSourcePolicy: "AllowContactingSource" },
  );

  const files = renderHostsToml({ imageDigestMirrorSets: [ubi9repo], imageTagMirrorSets: [] });

  test("one directory per source registry, mirrors sorted, NeverContactSource falls back to the mirror", () => {
    expect(files).toEqual({
      "docker-mirror.internal": file("https://docker-mirror.internal/v2", host("https://docker.io/v2", false)),
      "registry.access.redhat.com": file(
        "https://registry.access.redhat.com/v2",
        host("https://example.com/v2/example2", false),
        host("https://example.io/v2/example", false),
      ),
      "registry.redhat.io": file("https://mirror.example.com/v2", host("https://mirror.example.com/v2", false)),
    });
    expectAllToml(files);
  });

  test("its ubi mirrors break the Windows naming rule: containerd would look under example.io/example/ubi9/ubi-minimal", () => {
    const view = parsed(files["registry.access.redhat.com"]);
    // containerd appends the image path (ubi9/ubi-minimal) to this base; the docs' mirror holds the image one level up.
    expect(Object.keys(view.host)).toContain("https://example.io/v2/example");
  });
});

describe("whole files from cluster objects (ours)", () => {
  /** The files of these ImageDigestMirrorSets alone. */
  const digestOnly = (...sets: IDMS[]) => renderHostsToml({ imageDigestMirrorSets: sets, imageTagMirrorSets: [] });
  /** An IDMS of one registry.redhat.io repository with one mirror, and a policy if given. */
  const rh = (repository: string, mirror: string, policy?: string): IDMS =>
    idms({
      source: `registry.redhat.io/${repository}`,
      mirrors: [mirror],
      ...(policy && { mirrorSourcePolicy: policy }),
    });
  /** It closes the whole registry. */
  const neverB = rh("b", "m.local/b", "NeverContactSource");

  test("one file per registry, merged across sets, sorted, both capabilities", () => {
    const files = renderHostsToml({
      imageDigestMirrorSets: [
        idms({ source: "registry.redhat.io/ubi9", mirrors: ["mirror.local/rh/ubi9"] }),
        idms({
          source: "registry.redhat.io/openshift4/ose-cli",
          mirrors: ["mirror.local/rh/openshift4/ose-cli", "backup.local/openshift4/ose-cli"],
        }),
      ],
      imageTagMirrorSets: [itms({ source: "quay.io/org/app", mirrors: ["mirror.local/quay/org/app"] })],
    });
    expect(files).toEqual({
      "quay.io": file("https://quay.io/v2", host("https://mirror.local/v2/quay", true)),
      "registry.redhat.io": file(
        "https://registry.redhat.io/v2",
        host("https://backup.local/v2", false),
        host("https://mirror.local/v2/rh", false),
      ),
    });
    expectAllToml(files);
  });

  test("a mirror host used for digests and for tags appears once and resolves tags", () => {
    const files = renderHostsToml({
      imageDigestMirrorSets: [idms({ source: "quay.io/a", mirrors: ["m.local/a"] })],
      imageTagMirrorSets: [itms({ source: "quay.io/b", mirrors: ["m.local/b"] })],
    });
    expect(files["quay.io"]).toBe(file("https://quay.io/v2", host("https://m.local/v2", true)));
  });

  test("a source with a port keeps it in the directory name, as WMCO writes it (never host_port_); mirrors keep host:port", () => {
    const files = digestOnly(
      idms({ source: "registry.local:5000/team/app", mirrors: ["mirror.local:6000/win/team/app"] }),
    );
    expect(files).toEqual({
      "registry.local:5000": file("https://registry.local:5000/v2", host("https://mirror.local:6000/v2/win", false)),
    });
    expectAllToml(files);
  });

  test("a wildcard source is a directory named *.host, as WMCO writes it", () => {
    const files = digestOnly(idms({ source: "*.redhat.io", mirrors: ["mirror.local/rh"] }));
    expect(Object.keys(files)).toEqual(["*.redhat.io"]);
  });

  test("an entry without mirrors still gets its (empty) file", () => {
    expect(digestOnly(idms({ source: "quay.io/x" }), idms({ source: "quay.io/y", mirrors: [] }))).toEqual({
      "quay.io": "",
    });
  });

  test("a mirror equal to its source points at the source registry itself", () => {
    const files = digestOnly(idms({ source: "quay.io/org/app", mirrors: ["mirror.local/org/app", "quay.io/org/app"] }));
    expect(files["quay.io"]).toBe(
      file("https://quay.io/v2", host("https://mirror.local/v2", false), host("https://quay.io/v2", false)),
    );
  });

  test("NeverContactSource anywhere in a registry applies to all of it; the fallback is the first mirror after sorting, with its org path", () => {
    const files = digestOnly(
      rh("a", "zeta.local/a", "AllowContactingSource"),
      rh("b", "alpha.local:5000/org/b", "NeverContactSource"),
    );
    expect(parsed(files["registry.redhat.io"]).server).toBe("https://alpha.local:5000/v2/org");
  });

  test("NeverContactSource in an ITMS also closes the registry for digest mirrors of an IDMS", () => {
    const files = renderHostsToml({
      imageDigestMirrorSets: [
        idms({ source: "quay.io/a", mirrors: ["m.local/a"], mirrorSourcePolicy: "AllowContactingSource" }),
      ],
      imageTagMirrorSets: [
        itms({ source: "quay.io/b", mirrors: ["n.local/b"], mirrorSourcePolicy: "NeverContactSource" }),
      ],
    });
    expect(files["quay.io"]).toBe(
      file("https://m.local/v2", host("https://m.local/v2", false), host("https://n.local/v2", true)),
    );
  });

  test("a set without a policy read first cancels a later NeverContactSource, so WMCO's unordered reads decide", () => {
    const unset = rh("a", "m.local/a");
    const first = digestOnly(unset, neverB);
    const second = digestOnly(neverB, unset);
    expect(parsed(first["registry.redhat.io"]).server).toBe("https://registry.redhat.io/v2");
    expect(parsed(second["registry.redhat.io"]).server).toBe("https://m.local/v2");
  });

  test("an explicit AllowContactingSource does not depend on order", () => {
    const allow = rh("a", "m.local/a", "AllowContactingSource");
    const a = digestOnly(allow, neverB);
    const b = digestOnly(neverB, allow);
    expect(a).toEqual(b);
    expect(parsed(a["registry.redhat.io"]).server).toBe("https://m.local/v2");
  });

  test("mirrors sort by bytes, as Go compares strings (upper case before lower case)", () => {
    const files = digestOnly(idms({ source: "q.io/a", mirrors: ["b.local/a", "B.local/a", "a.local/a"] }));
    expect(Object.keys(parsed(files["q.io"]).host)).toEqual([
      "https://B.local/v2",
      "https://a.local/v2",
      "https://b.local/v2",
    ]);
  });

  test("registries sort by bytes too", () => {
    const files = digestOnly(
      idms(
        { source: "b.io/x", mirrors: ["m/x"] },
        { source: "A.io/x", mirrors: ["m/x"] },
        { source: "a.io/x", mirrors: ["m/x"] },
      ),
    );
    expect(Object.keys(files)).toEqual(["A.io", "a.io", "b.io"]);
  });

  test("two mirrors of one entry that reduce to the same base give a duplicate table, as WMCO writes it, which TOML rejects", () => {
    // quay.io/org/app → m.local/org/app and m.local/app both reduce to m.local (the second breaks the Windows naming
    // rule, which validateMirrors refuses). WMCO does not deduplicate a lone entry's mirrors.
    const text = digestOnly(idms({ source: "quay.io/org/app", mirrors: ["m.local/org/app", "m.local/app"] }))[
      "quay.io"
    ];
    expect(text).toBe(file("https://quay.io/v2", host("https://m.local/v2", false), host("https://m.local/v2", false)));
    expect(() => parse(text)).toThrow(/redefine/);
  });
});

describe("credentials from the pull secret", () => {
  const DEFAULT_MIRROR = "mirror.local:5000/quay/org/app";
  /** quay.io's file for quay.io/org/app mirrored at `mirrors` (default one on mirror.local:5000). */
  const render = (pullSecret: string, ...mirrors: string[]) =>
    renderHostsToml({
      imageDigestMirrorSets: [
        idms({ source: "quay.io/org/app", mirrors: mirrors.length ? mirrors : [DEFAULT_MIRROR] }),
      ],
      imageTagMirrorSets: [],
      pullSecret,
    })["quay.io"];
  const authOf = (text: string) => Object.values(parsed(text).host)[0].header?.authorization;
  const b64 = (s: string | Buffer) => Buffer.from(s).toString("base64");

  test("username and password fields", () => {
    expect(
      authOf(render(JSON.stringify({ auths: { "mirror.local:5000": { username: "robot", password: "s3cret" } } }))),
    ).toBe(`Basic ${b64("robot:s3cret")}`);
  });

  test("the auth field wins over username and password", () => {
    expect(
      authOf(
        render(JSON.stringify({ auths: { "mirror.local:5000": { auth: b64("a:b"), username: "x", password: "y" } } })),
      ),
    ).toBe(`Basic ${b64("a:b")}`);
  });

  test("unpadded base64 is accepted, and re-encoded with padding", () => {
    expect(
      authOf(render(JSON.stringify({ auths: { "mirror.local:5000": { auth: "dXNlcm5hbWU6cGFzc3dvcmQ" } } }))),
    ).toBe("Basic dXNlcm5hbWU6cGFzc3dvcmQ=");
  });

  test("bytes that are not UTF-8 pass through unchanged", () => {
    const raw = Buffer.from([0x75, 0x3a, 0xff, 0xfe]);
    expect(authOf(render(JSON.stringify({ auths: { "mirror.local:5000": { auth: b64(raw) } } })))).toBe(
      `Basic ${b64(raw)}`,
    );
  });

  test("keys are matched to the mirror's registry host exactly: no path, port required", () => {
    const secret = JSON.stringify({
      auths: {
        "mirror.local": { username: "u", password: "p" },
        "mirror.local:5000/quay": { username: "u", password: "p" },
      },
    });
    expect(authOf(render(secret))).toBeUndefined();
    expect(authOf(render(secret, "mirror.local/quay/org/app"))).toBe(`Basic ${b64("u:p")}`);
  });

  test("field names match regardless of case, as Go's JSON decoding does", () => {
    expect(authOf(render(JSON.stringify({ Auths: { "mirror.local:5000": { Username: "u", PASSWORD: "p" } } })))).toBe(
      `Basic ${b64("u:p")}`,
    );
  });

  test("a null entry still yields a (blank) header", () => {
    expect(authOf(render(`{"auths":{"mirror.local:5000":null}}`))).toBe(`Basic ${b64(":")}`);
  });

  test("no pull secret: no headers", () => {
    const text = renderHostsToml({
      imageDigestMirrorSets: [idms({ source: "quay.io/a", mirrors: ["m.local/a"] })],
      imageTagMirrorSets: [],
    })["quay.io"];
    expect(text).not.toContain("authorization");
  });

  test.each([
    ["not JSON", "{auths:", /not valid JSON/],
    ["empty text", "", /not valid JSON/],
    ["not an object", "[]", /not a JSON object/],
    ["auths not an object", `{"auths":"x"}`, /auths is not an object/],
    ["entry not an object", `{"auths":{"r":"x"}}`, /auths\["r"\] is not an object/],
    ["username not a string", `{"auths":{"r":{"username":5}}}`, /username is not a string/],
    ["email not a string", `{"auths":{"r":{"email":true}}}`, /email is not a string/],
    ["HttpHeaders value not a string", `{"auths":{},"HttpHeaders":{"X":1}}`, /HttpHeaders/],
    [
      "auth without a colon",
      JSON.stringify({ auths: { "x.io": { auth: Buffer.from("nocolon").toString("base64") } } }),
      /x.io"\]\.auth is not base64\(username:password\)/,
    ],
    // Node's decoder would skip the '!' silently; Go's refuses it.
    ["auth with a stray character", `{"auths":{"r":{"auth":"dXNlcjpw!YXNz"}}}`, /auth is not valid base64/],
    ["auth padded wrongly", `{"auths":{"r":{"auth":"dXNlcjpwYXNz="}}}`, /auth is not valid base64/],
  ])("a pull secret WMCO cannot read is refused (%s)", (_name, secret, says) => {
    expect(() => pullSecretCredentials(secret)).toThrow(says);
    expect(() => renderHostsToml({ imageDigestMirrorSets: [], imageTagMirrorSets: [], pullSecret: secret })).toThrow(
      says,
    );
  });

  test("redaction replaces every credential and keeps the file valid TOML", () => {
    const text = render(WMCO_PULL_SECRET, "mirror.example.com/quay/org/app", "mirror.example.net/quay/org/app");
    const shown = redactHostsToml(text);
    expect(shown).not.toMatch(/dXNlcjpwYXNz|dXNlcm5hbWU6cGFzc3dvcmQ=/);
    const view = parsed(shown);
    expect(Object.values(view.host).map((h) => h.header?.authorization)).toEqual([
      "Basic <redacted>",
      "Basic <redacted>",
    ]);
    const bare = text.replace(/authorization.*\n/g, "");
    expect(redactHostsToml(bare)).toBe(bare);
  });
});
