import { MirrorEntry, MirrorsConfig } from "../../../components/mirrors/mirror-sets";
import {
  clusterMirrorSetIssues,
  validateMirrors,
  windowsNamingProblem,
  wmcoUnwritableSource,
} from "../../../components/mirrors/validate";
import { clusterMirrorIssues } from "../../../components/mirrors/registry-mirrors";

const digest = (...entries: MirrorEntry[]): MirrorsConfig => ({ digest: entries, tag: [] });
const tag = (...entries: MirrorEntry[]): MirrorsConfig => ({ digest: [], tag: entries });
const e = (source: string, mirrors: string[] = [], extra: Partial<MirrorEntry> = {}): MirrorEntry => ({
  source,
  mirrors,
  ...extra,
});

/** The one warning at `path`; fails when there is none or more than one. */
function warningAt(m: MirrorsConfig, path: string): string {
  const hits = (validateMirrors(m).warnings ?? []).filter((i) => i.path === path);
  expect(hits).toHaveLength(1);
  return hits[0].message;
}

/** The one error at `path`; fails when there is none or more than one. */
function errorAt(m: MirrorsConfig, path: string): string {
  const hits = validateMirrors(m).errors.filter((i) => i.path === path);
  expect(hits).toHaveLength(1);
  return hits[0].message;
}

describe("malformed sources and mirrors (the API server's pattern)", () => {
  // One malformed value a row, in an otherwise good entry (quay.io/org/app mirrored at m.local/org/app): the key the
  // error names, the value there, the words.
  test.each([
    ["scheme in the source", "digest[0].source", "https://quay.io/org/app", /leave out the scheme/],
    ["tag in the source", "digest[0].source", "quay.io/org/app:1.0", /leave out the tag/],
    ["digest in the source", "tag[0].source", "quay.io/org/app@sha256:abc", /leave out the digest/],
    ["capitals in the source path", "digest[0].source", "quay.io/Org/app", /lowercase/],
    ["trailing slash", "digest[0].source", "quay.io/org/app/", /trailing \//],
    ["empty source", "digest[0].source", "", /not a registry or repository like registry.redhat.io\/ubi9/],
    ["scheme in a mirror", "digest[0].mirrors[1]", "docker://n.local/org/app", /leave out the scheme/],
    ["tag in a mirror", "tag[0].mirrors[0]", "m.local/org/app:1.0", /leave out the tag/],
    ["digest in a mirror", "digest[0].mirrors[0]", "m.local/org/app@sha256:abc", /leave out the digest/],
    ["host with an underscore", "digest[0].mirrors[0]", "m_local/org", /not a location like mirror.example.com:5000/],
  ])("%s", (_name, key, value, says) => {
    const good = "m.local/org/app";
    const entry = key.endsWith("source")
      ? e(value, [good])
      : e("quay.io/org/app", key.endsWith("[1]") ? [good, value] : [value]);
    expect(errorAt(key.startsWith("tag") ? tag(entry) : digest(entry), `mirrors.${key}`)).toMatch(says);
  });

  test("a malformed mirror is not also judged by the Windows naming rule", () => {
    expect(validateMirrors(digest(e("quay.io/org/app", ["m.local/other:1"]))).errors).toHaveLength(1);
  });

  test("well-formed configs pass: registries, repositories, ports, IPs, a mirror equal to its source", () => {
    const r = validateMirrors({
      digest: [
        e("quay.io", ["mirror.local/quay"]),
        e("mcr.microsoft.com/oss/kubernetes/pause", [
          "mirror.local:5000/win/oss/kubernetes/pause",
          "mcr.microsoft.com/oss/kubernetes/pause",
        ]),
        e("registry.redhat.io/ubi9/ubi-minimal", ["10.0.0.5:5000/ubi9/ubi-minimal"], {
          mirrorSourcePolicy: "AllowContactingSource",
          name: "ubi.minimal",
        }),
      ],
      tag: [
        e("quay.io", ["mirror.local/quay"]),
        e("docker.io/library/nginx", ["mirror.local/hub/library/nginx"], { mirrorSourcePolicy: "NeverContactSource" }),
      ],
    });
    expect(r.errors).toEqual([]);
  });
});

describe("duplicates", () => {
  test("the same source twice in one list", () => {
    const msg = errorAt(
      digest(e("quay.io/a", ["m.local/a"]), e("quay.io/a", ["n.local/a"])),
      "mirrors.digest[1].source",
    );
    expect(msg).toMatch(/quay.io\/a is listed twice \(also mirrors.digest\[0\]\); put all its mirrors in one entry/);
  });

  test("a repeated source is not reported a second time as a repeated derived name", () => {
    expect(validateMirrors(digest(e("quay.io/a", ["m.local/a"]), e("quay.io/a", ["n.local/a"]))).errors).toHaveLength(
      1,
    );
  });

  test("the same source in the digest and the tag list is fine (they become different kinds)", () => {
    expect(
      validateMirrors({ digest: [e("quay.io/a", ["m.local/a"])], tag: [e("quay.io/a", ["m.local/a"])] }).errors,
    ).toEqual([]);
  });

  test("the same mirror twice in one entry", () => {
    expect(
      errorAt(digest(e("quay.io/a", ["m.local/a", "n.local/a", "m.local/a"])), "mirrors.digest[0].mirrors[2]"),
    ).toMatch(/listed twice in this entry \(also mirrors\[0\]\); remove one/);
  });

  test("the same name twice", () => {
    const m = tag(e("quay.io/a", ["m.local/a"], { name: "x" }), e("quay.io/b", ["m.local/b"], { name: "x" }));
    expect(errorAt(m, "mirrors.tag[1].name")).toMatch(
      /object name x is already used by mirrors.tag\[0\]; set a distinct name/,
    );
  });

  test("two sources whose derived names collide", () => {
    const msg = errorAt(
      digest(e("quay.io/a-b", ["m.local/a-b"]), e("quay.io/a.b", ["m.local/a.b"])),
      "mirrors.digest[1].name",
    );
    expect(msg).toMatch(/windows-estate-digest-quay-io-a-b \(derived from the source\) is already used/);
  });

  test.each(["Not_OK", "-x", "x".repeat(254)])("an invalid name (%s)", (name) => {
    expect(errorAt(digest(e("quay.io/a", ["m.local/a"], { name })), "mirrors.digest[0].name")).toMatch(
      /lowercase letters, digits, '-' and '.', at most 253/,
    );
  });
});

describe("the Windows naming rule", () => {
  test("mcr.microsoft.com/oss/kubernetes/pause needs <mirror host>/<optional namespaces>/oss/kubernetes/pause", () => {
    const msg = errorAt(
      digest(e("mcr.microsoft.com/oss/kubernetes/pause", ["mirror.local/oss/kubernetes/pause", "mirror.local/pause"])),
      "mirrors.digest[0].mirrors[1]",
    );
    expect(msg).toContain("<mirror host>/<optional namespaces>/oss/kubernetes/pause");
    expect(msg).toContain("e.g. mirror.local/oss/kubernetes/pause");
    expect(msg).toContain("mcr.microsoft.com/oss/kubernetes/pause");
  });

  test.each([
    ["mirror.local/win/oss/kubernetes/pause", undefined],
    ["mirror.local:5000/a/b/oss/kubernetes/pause", undefined],
    ["mirror.local/oss/kubernetes/pause", undefined],
    ["mirror.local/kubernetes/pause", /must end with its path/],
    ["mirror.local/xoss/kubernetes/pause", /must end with its path/],
    ["mirror.local", /must end with its path/],
    ["mirror.local/mcr.microsoft.com/oss/kubernetes/pause", /strips the source registry mcr.microsoft.com/],
  ])("mirror %s", (mirror, expected) => {
    const problem = windowsNamingProblem("mcr.microsoft.com/oss/kubernetes/pause", mirror);
    if (expected === undefined) expect(problem).toBeUndefined();
    else expect(problem).toMatch(expected);
  });

  test("a mirror that repeats the source registry before its path: Windows would pull from the wrong place (a warning off mcr.microsoft.com)", () => {
    const msg = warningAt(tag(e("quay.io/org/app", ["mirror.local/quay.io/org/app"])), "mirrors.tag[0].mirrors[0]");
    expect(validateMirrors(tag(e("quay.io/org/app", ["mirror.local/quay.io/org/app"]))).errors).toEqual([]);
    expect(msg).toContain("pulls would go to mirror.local/org/app instead of mirror.local/quay.io/org/app");
    expect(msg).toContain("e.g. mirror.local/quay-io/org/app");
    // The suggestion must itself pass.
    expect(windowsNamingProblem("quay.io/org/app", "mirror.local/quay-io/org/app")).toBeUndefined();
  });

  test("the same for a whole-registry source", () => {
    expect(warningAt(digest(e("quay.io", ["mirror.local/quay.io"])), "mirrors.digest[0].mirrors[0]")).toContain(
      "pulls would go to mirror.local/<repository> instead of mirror.local/quay.io/<repository>",
    );
    expect(
      errorAt(digest(e("mcr.microsoft.com", ["mirror.local/mcr.microsoft.com"])), "mirrors.digest[0].mirrors[0]"),
    ).toContain("pulls would go to mirror.local/<repository> instead of mirror.local/mcr.microsoft.com/<repository>");
    expect(windowsNamingProblem("quay.io", "mirror.local/quay")).toBeUndefined();
  });

  test("the OKD docs' own ubi9repo example renders: its ubi mirrors break the rule only as warnings (a Linux image; IDMS is cluster-wide)", () => {
    const r = validateMirrors(
      digest(
        e(
          "registry.access.redhat.com/ubi9/ubi-minimal",
          ["example.io/example/ubi-minimal", "example.com/example2/ubi-minimal"],
          { mirrorSourcePolicy: "AllowContactingSource" },
        ),
        e("registry.redhat.io", ["mirror.example.com"], { mirrorSourcePolicy: "NeverContactSource" }),
        e("docker-mirror.internal", ["docker.io"], { mirrorSourcePolicy: "AllowContactingSource" }),
      ),
    );
    expect(r.errors).toEqual([]);
    const naming = (r.warnings ?? []).filter((w) => /must end with its path/.test(w.message));
    expect(naming.map((i) => i.path)).toEqual(["mirrors.digest[0].mirrors[0]", "mirrors.digest[0].mirrors[1]"]);
    expect(naming[0].message).toContain("ubi9/ubi-minimal");
    expect(naming[0].message).toContain("not an image Windows nodes pull through WMCO");
  });
});

describe("mirrorSourcePolicy", () => {
  test("NeverContactSource without mirrors would make every pull fail", () => {
    expect(
      errorAt(
        tag(e("quay.io/a", [], { mirrorSourcePolicy: "NeverContactSource" })),
        "mirrors.tag[0].mirrorSourcePolicy",
      ),
    ).toMatch(/nowhere to pull from.*add mirrors or drop the policy/);
  });

  test("values the schema would refuse are tolerated here (the zod schema reports them)", () => {
    const garbage = {
      source: "quay.io/a",
      mirrors: ["m.local/a"],
      mirrorSourcePolicy: "Sometimes",
    } as unknown as MirrorEntry;
    const other = { source: "quay.io/b", mirrors: ["m.local/b"], mirrorSourcePolicy: 42 } as unknown as MirrorEntry;
    expect(() =>
      validateMirrors(
        digest(garbage, other, e("quay.io/c", ["m.local/c"], { mirrorSourcePolicy: "NeverContactSource" })),
      ),
    ).not.toThrow();
    expect(validateMirrors(digest(garbage, other)).errors).toEqual([]);
  });
});

describe("warnings: where Windows nodes differ from what an entry asks", () => {
  test("one NeverContactSource entry makes the whole registry NeverContactSource, across both lists", () => {
    const r = validateMirrors({
      digest: [
        e("registry.redhat.io/ubi9", ["m.local/ubi9"], { mirrorSourcePolicy: "AllowContactingSource" }),
        e("registry.redhat.io/ubi8", ["m.local/ubi8"], { mirrorSourcePolicy: "NeverContactSource" }),
      ],
      tag: [e("registry.redhat.io/ubi7", ["m.local/ubi7"]), e("quay.io/x", ["m.local/x"])],
    });
    expect(r.errors).toEqual([]);
    expect(r.warnings.map((w) => w.path)).toEqual([
      "mirrors.digest[0].mirrorSourcePolicy",
      "mirrors.tag[0].mirrorSourcePolicy",
    ]);
    expect(r.warnings[0].message).toMatch(
      /every image of registry.redhat.io becomes NeverContactSource, including registry.redhat.io\/ubi9, because mirrors.digest\[1\] sets it/,
    );
    expect(r.warnings[1].message).toMatch(/including registry.redhat.io\/ubi7/);
  });

  test("an entry without mirrors next to a NeverContactSource entry of the same registry", () => {
    const r = validateMirrors(
      digest(
        e("registry.redhat.io/a"),
        e("registry.redhat.io/b", ["m.local/b"], { mirrorSourcePolicy: "NeverContactSource" }),
      ),
    );
    expect(r.errors).toEqual([]);
    expect(r.warnings).toEqual([
      {
        path: "mirrors.digest[0].mirrors",
        message: expect.stringMatching(
          /no fixed order.*NeverContactSource of mirrors.digest\[1\] is dropped for all of registry.redhat.io/,
        ),
      },
    ]);
  });

  test("no policy warnings when a registry agrees with itself or registries differ", () => {
    const r = validateMirrors({
      digest: [
        e("registry.redhat.io/a", ["m.local/a"], { mirrorSourcePolicy: "NeverContactSource" }),
        e("registry.redhat.io/b", ["m.local/b"], { mirrorSourcePolicy: "NeverContactSource" }),
      ],
      tag: [e("quay.io/a", ["m.local/a"]), e("quay.io/b")],
    });
    expect(r.warnings).toEqual([]);
  });

  test("errors and warnings are reported together", () => {
    const r = validateMirrors(
      digest(e("quay.io/a", ["m.local/a"]), e("quay.io/b", ["bad/"], { mirrorSourcePolicy: "NeverContactSource" })),
    );
    expect(r.errors.map((i) => i.path)).toEqual(["mirrors.digest[1].mirrors[0]"]);
    expect(r.warnings.map((i) => i.path)).toEqual(["mirrors.digest[0].mirrorSourcePolicy"]);
  });
});

// WMCO writes each source registry's file to `<ContainerdConfigDir>\<source>\hosts.toml` with the source as spelled
// (pkg/registries/registries.go GenerateConfigFiles: fmt.Sprintf("%s\\hosts.toml", ms.source); ms.source from
// extractRegistryHostname, which keeps the port), ContainerdConfigDir = K8sDir "C:\k" + "\containerd" + "\registries"
// (pkg/windows/windows.go), identical on release-4.18 to master. ':' and '*' are not allowed in a Windows file name
// (Win32 naming rules), and the write is a step of pkg/nodeconfig/nodeconfig.go Configure.
describe("sources WMCO cannot write on a Windows node", () => {
  test.each([
    ["quay.io/org/app", undefined],
    ["registry.local:5000/team/app", "'C:\\k\\containerd\\registries\\registry.local:5000\\hosts.toml' ':'"],
    ["10.0.0.1:5000", "'C:\\k\\containerd\\registries\\10.0.0.1:5000\\hosts.toml' ':'"],
    ["*.redhat.io", "'C:\\k\\containerd\\registries\\*.redhat.io\\hosts.toml' '*'"],
  ])("wmcoUnwritableSource(%j)", (source, expected) => {
    const why = wmcoUnwritableSource(source);
    if (expected === undefined) return expect(why).toBeUndefined();
    const [, file, char] = /^'(.*)' '(.)'$/.exec(expected) ?? [];
    expect(why).toContain(file);
    expect(why).toContain(`'${char}' cannot be part of a Windows file name`);
    expect(why).toContain("pkg/nodeconfig/nodeconfig.go Configure");
  });

  test("with Windows nodes, a digest source with a port is refused, naming the key, why and the fix", () => {
    const r = validateMirrors(
      digest(e("quay.io/a", ["m.local/a"]), e("registry.local:5000/team/app", ["m.local/team/app"])),
    );
    expect(r.warnings).toEqual([]);
    expect(r.errors).toEqual([
      {
        path: "mirrors.digest[1].source",
        message: expect.stringMatching(
          /^registry\.local:5000\/team\/app: WMCO writes .*C:\\k\\containerd\\registries\\registry\.local:5000\\hosts\.toml.*':' cannot be part of a Windows file name.*every Windows node.*pull and mirror these images under a registry name without a port/,
        ),
      },
    ]);
  });

  test("with Windows nodes, a tag source with a wildcard is refused, suggesting the registries it stands for", () => {
    const message = errorAt(
      tag(e("quay.io/a", ["m.local/a"]), e("*.redhat.io", ["m.local/rh"])),
      "mirrors.tag[1].source",
    );
    expect(message).toContain("'*' cannot be part of a Windows file name");
    expect(message).toContain("e.g. registry.redhat.io");
  });

  test("a port in a mirror (not the source) is fine: mirrors are written inside the file, not as directories", () => {
    expect(validateMirrors(digest(e("quay.io/org/app", ["mirror.local:5000/org/app"])))).toEqual({
      errors: [],
      warnings: [],
    });
  });

  test("an OpenShift stack without Windows nodes gets a warning: nothing fails until one joins", () => {
    const r = validateMirrors(digest(e("registry.local:5000/team/app", ["m.local/team/app"])), "wmco-no-nodes");
    expect(r.errors).toEqual([]);
    expect(r.warnings).toEqual([
      { path: "mirrors.digest[0].source", message: expect.stringContaining("no Windows node can join this cluster") },
    ]);
  });

  test("kubeadm nodes: a port is fine (this program writes containerd's host_port_ directory), a wildcard is not", () => {
    expect(validateMirrors(digest(e("registry.local:5000/team/app", ["m.local/team/app"])), "kubeadm")).toEqual({
      errors: [],
      warnings: [],
    });
    const r = validateMirrors(tag(e("*.redhat.io", ["m.local/rh"])), "kubeadm");
    expect(r.errors.map((i) => i.path)).toEqual(["mirrors.tag[0].source"]);
  });
});

describe("mirror sets already in the cluster (WMCO merges them all: GenerateConfigFiles lists every IDMS and ITMS)", () => {
  const idms = (name: string, ...sources: string[]) => ({
    metadata: { name },
    spec: { imageDigestMirrors: sources.map((source) => ({ source, mirrors: ["m.local/x"] })) },
  });
  const itms = (name: string, ...sources: string[]) => ({
    metadata: { name },
    spec: { imageTagMirrors: sources.map((source) => ({ source, mirrors: ["m.local/x"] })) },
  });

  test("another team's set with a port is an error naming its kind, name, entry and source", () => {
    const r = clusterMirrorSetIssues(
      { idms: [idms("fine", "quay.io/a"), idms("corp-mirrors", "quay.io/b", "registry.local:5000/team")], itms: [] },
      new Set(),
      true,
    );
    expect(r.warnings).toEqual([]);
    expect(r.errors).toEqual([
      {
        path: "cluster",
        message: expect.stringMatching(
          /^the cluster's ImageDigestMirrorSet corp-mirrors has source registry\.local:5000\/team \(spec\.imageDigestMirrors\[1\]\.source\): WMCO writes .*oc edit imagedigestmirrorset corp-mirrors/,
        ),
      },
    ]);
  });

  test("an ImageTagMirrorSet with a wildcard is named as one", () => {
    const r = clusterMirrorSetIssues({ idms: [], itms: [itms("wild", "*.example.com")] }, new Set(), true);
    expect(r.errors.map((i) => i.message)).toEqual([
      expect.stringContaining(
        "the cluster's ImageTagMirrorSet wild has source *.example.com (spec.imageTagMirrors[0].source)",
      ),
    ]);
  });

  test("without Windows nodes in the stack it is a warning; this stack's own sets are left to the config check", () => {
    const sets = { idms: [idms("corp", "registry.local:5000/team")], itms: [] };
    expect(clusterMirrorSetIssues(sets, new Set(), false).errors).toEqual([]);
    expect(clusterMirrorSetIssues(sets, new Set(), false).warnings).toHaveLength(1);
    expect(clusterMirrorSetIssues(sets, new Set(["corp"]), true)).toEqual({ errors: [], warnings: [] });
  });

  test("from the objects discovery read: a set with this stack's derived name is ours and skipped", () => {
    const mirrors = { digest: [e("registry.local:5000/team", ["m.local/team"])], tag: [] };
    const found = {
      idms: [idms("windows-estate-digest-registry-local-5000-team", "registry.local:5000/team")],
      itms: [],
    };
    const windows = { mirrors, machineSets: [{}], byoh: [] };
    expect(clusterMirrorIssues(windows, found).errors).toEqual([]);
    const other = { idms: [idms("theirs", "registry.local:5000/team")], itms: [] };
    expect(clusterMirrorIssues(windows, other).errors).toHaveLength(1);
    expect(clusterMirrorIssues({ ...windows, machineSets: [] }, other).warnings).toHaveLength(1);
    expect(clusterMirrorIssues(windows, undefined)).toEqual({ errors: [], warnings: [] });
  });
});
