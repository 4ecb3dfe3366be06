import { z } from "zod";

const mirrorEntry = z.strictObject({
  /**
   * The repository or registry to mirror, e.g. `registry.redhat.io/ubi9` or `mcr.microsoft.com/oss/kubernetes/pause`.
   * With Windows nodes, no `*.` wildcard and, on OpenShift, no `:port`: the registry's `hosts.toml` goes into a
   * directory named after it (WMCO's spelling on OpenShift, containerd's `host_port_` on kubeadm), and Windows cannot
   * create one with `*` or `:` in its name (docs/wmco.md).
   */
  source: z.string().min(1),
  /** Mirrors in order of preference, e.g. `mirror.example.com:5000/oss/kubernetes/pause`. On Windows the mirror's path must end with the source's path. */
  mirrors: z.array(z.string().min(1)).default([]),
  /** `AllowContactingSource` (default) or `NeverContactSource`. On Windows one NeverContactSource entry applies to the whole registry. */
  mirrorSourcePolicy: z.enum(["AllowContactingSource", "NeverContactSource"]).optional(),
  /** Name of the rendered ImageDigestMirrorSet/ImageTagMirrorSet. Default: derived from the source, stable across runs. */
  name: z.string().min(1).optional(),
});

/**
 * `windows-estate:mirrors`: cluster-wide registry mirrors, rendered as `config.openshift.io/v1` ImageDigestMirrorSet
 * (`digest`) and ImageTagMirrorSet (`tag`) objects. WMCO turns them into containerd `hosts.toml` files on every
 * Windows node; the stack output `windowsRegistryConfig` shows those files before `pulumi up`.
 */
export const mirrorsSchema = z.strictObject({
  /** Pulls by digest (`image@sha256:...`). Preferred for Windows: WMCO mirrors by registry, and digests are unambiguous. */
  digest: z.array(mirrorEntry).default([]),
  /** Pulls by tag (`image:tag`). */
  tag: z.array(mirrorEntry).default([]),
});

export type MirrorsConfigInput = z.output<typeof mirrorsSchema>;
