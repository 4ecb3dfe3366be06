import { parse } from "yaml";
import * as fs from "fs";
import * as path from "path";
import { validateVanilla } from "../../../components/vanilla/validate";
import { mirrorsSchema } from "../../../stacks/schema/mirrors";
import { renderHostsToml } from "../../../components/mirrors/hosts-toml";
import { buildDigestMirrorSets, buildTagMirrorSets } from "../../../components/mirrors/mirror-sets";

// containerd pulls the sandbox image by tag: the node's config.toml names registry.k8s.io/pause:<tag>
// (components/vanilla/node-plan.ts, facts PAUSE_IMAGE), and a digest-only mirror has no `resolve` capability
// (containerd docs/hosts.md: "resolve" turns a tag into a digest; WMCO renders IDMS mirrors as pull only).
const warningsFor = (mirrors: unknown) => validateVanilla(undefined, [], mirrorsSchema.parse(mirrors)).warnings;

test("a digest-only mirror of the pause image is named: the nodes pull it by tag and would never use that mirror", () => {
  const pause = { source: "registry.k8s.io/pause", mirrors: ["mirror.example.com/k8s/pause"] };
  expect(warningsFor({ digest: [pause] })).toEqual([
    {
      path: "mirrors.digest[0].source",
      message:
        "registry.k8s.io/pause is mirrored for pulls by digest only, but containerd pulls the sandbox image registry.k8s.io/pause:3.10.2 by its tag, so the nodes never use this mirror for it; list it under mirrors.tag as well",
    },
  ]);
  // A registry-wide digest mirror covers it too; a tag mirror (or both) is what works.
  expect(warningsFor({ digest: [{ ...pause, source: "registry.k8s.io" }] })).toHaveLength(1);
  expect(warningsFor({ tag: [pause] })).toEqual([]);
  expect(warningsFor({ digest: [pause], tag: [pause] })).toEqual([]);
  expect(warningsFor({ digest: [{ ...pause, source: "registry.k8s.io/pause-other" }] })).toEqual([]);
});

test("the kubeadm example mirrors the pause image so a tag pull resolves through the mirror", () => {
  const file = path.join(__dirname, "..", "..", "..", "stacks", "examples", "Pulumi.kubeadm.yaml");
  const mirrors = mirrorsSchema.parse(parse(fs.readFileSync(file, "utf8")).config["windows-estate:mirrors"]);
  expect(validateVanilla(undefined, [], mirrors).warnings).toEqual([]);
  const toml = renderHostsToml({
    imageDigestMirrorSets: buildDigestMirrorSets(mirrors),
    imageTagMirrorSets: buildTagMirrorSets(mirrors),
  })["registry.k8s.io"];
  expect(toml).toContain('capabilities = ["pull", "resolve"]');
});
