import * as path from "path";

/** The folder of the lab's Go modules (lab/tools). */
export const TOOLS_DIR = path.join(__dirname, "tools");

/** One program the lab builds from a Go module, stamped with its real version at link time. */
export interface Program {
  /** The executable's name, as it goes on PATH. */
  name: string;
  /** The Go module folder under lab/tools that builds it. */
  module: string;
  /** `go build` target inside that module. */
  target: string;
  /** What it is and at which version (printed while building). */
  what: string;
  /** `-X` link stamps: the variables upstream's release builds set, so each reports its real version. */
  stamps: Record<string, string>;
  /** Build tags (`go build -tags`), as upstream's release build sets them. */
  tags?: readonly string[];
  /** A step before `go build` (the provider's embedded schema); given the module's folder. */
  prepare?: "kubernetes-schema";
  /** A tool the e2e suite runs on its own (a linter), not part of a running lab: `start` does not need it. */
  standalone?: true;
}

export const PULUMI_VERSION = "v3.248.0";
export const KUBERNETES_VERSION = "v1.36.3";
/**
 * pulumi-language-yaml's version (github.com/pulumi/pulumi-yaml, lab/tools/pulumi-yaml/go.mod). The CLI's release
 * ships v1.37.0 beside it, but the module proxy refuses the pulumi/pulumi pkg/v3 v3.247.0 that v1.37.0 needs (and it
 * does not compile against v3.248.0); v1.25.0 lacks the Link call of `pulumi package add` (docs/lab.md).
 */
export const PULUMI_YAML_VERSION = "v1.38.1";
/**
 * The provider's version. The module proxy serves pulumi-kubernetes' provider module only at the commit of
 * 2026-01-15 (f47bc2d6f199), after release 4.24.1. The proxy names it v4.0.0-<time>-<commit>; stamped here as
 * 4.24.2-0.<time>-<commit>, the pseudo-version Go gives a commit after a v4.24.1 tag, so that it sorts where it is. @pulumi/kubernetes in package-lock.json is 4.34.2: the CLI warns that the
 * plugin is older than the SDK asks for (docs/lab.md).
 */
export const KUBERNETES_PROVIDER_VERSION = "4.24.2-0.20260115033456-f47bc2d6f199";
/** OLM's release (github.com/operator-framework/operator-lifecycle-manager, lab/tools/olm/go.mod). */
export const OLM_VERSION = "v0.41.0";
/** opm's version: the operator-registry release OLM_VERSION's go.mod pins (lab/tools/olm/go.mod). */
export const OPM_VERSION = "v1.64.0";
/** machine-api-operator's commit (github.com/openshift/machine-api-operator, lab/tools/machine-api/go.mod). */
export const MACHINE_API_OPERATOR_VERSION = "v0.2.1-0.20260226113419-88465550a74b";
/** actionlint (github.com/rhysd/actionlint, lab/tools/actionlint/go.mod): the e2e suite lints every workflow with it. */
export const ACTIONLINT_VERSION = "v1.7.12";

const kubeStamps: Record<string, string> = {
  // hack/lib/version.sh kube::version::ldflags sets these; without gitVersion /version says v0.0.0-master and
  // pulumi-kubernetes refuses the server.
  "k8s.io/component-base/version.gitVersion": KUBERNETES_VERSION,
  "k8s.io/component-base/version.gitMajor": KUBERNETES_VERSION.replace(/^v(\d+)\..*$/, "$1"),
  "k8s.io/component-base/version.gitMinor": KUBERNETES_VERSION.replace(/^v\d+\.(\d+)\..*$/, "$1"),
  "k8s.io/component-base/version.gitTreeState": "clean",
};

/** Everything `npm run lab -- build` builds, in build order (the ones the others wait on least come first). */
export const PROGRAMS: readonly Program[] = [
  {
    name: "etcd",
    module: "etcd",
    target: "./cmd/etcd",
    what: "etcd (go.etcd.io/etcd/server/v3)",
    stamps: {},
  },
  ...(["kube-apiserver", "kube-controller-manager", "kube-scheduler"] as const).map((name) => ({
    name,
    module: "kubernetes",
    target: `./cmd/${name}`,
    what: `${name} ${KUBERNETES_VERSION}`,
    stamps: kubeStamps,
  })),
  {
    name: "pulumi",
    module: "pulumi",
    target: "github.com/pulumi/pulumi/pkg/v3/cmd/pulumi",
    what: `Pulumi CLI ${PULUMI_VERSION}`,
    // pkg/v3 reads its version from sdk/v3/go/common/version.Version (the release build's -X).
    stamps: { "github.com/pulumi/pulumi/sdk/v3/go/common/version.Version": PULUMI_VERSION },
  },
  {
    name: "pulumi-language-nodejs",
    module: "pulumi",
    target: "./cmd/pulumi-language-nodejs",
    what: `Node language host (this project's, for CLI ${PULUMI_VERSION})`,
    stamps: { "github.com/pulumi/pulumi/sdk/v3/go/common/version.Version": PULUMI_VERSION },
  },
  {
    name: "pulumi-language-yaml",
    module: "pulumi-yaml",
    target: "github.com/pulumi/pulumi-yaml/cmd/pulumi-language-yaml",
    what: `YAML language host pulumi-language-yaml ${PULUMI_YAML_VERSION}`,
    // pulumi-yaml's .goreleaser.yml sets this -X to the tag; `pulumi about` reports it (`language  yaml  1.38.1`).
    stamps: { "github.com/pulumi/pulumi-yaml/pkg/version.Version": PULUMI_YAML_VERSION },
  },
  {
    name: "pulumi-resource-kubernetes",
    module: "pulumi-kubernetes",
    target: "./cmd/pulumi-resource-kubernetes",
    what: `pulumi-resource-kubernetes ${KUBERNETES_PROVIDER_VERSION}`,
    stamps: { "github.com/pulumi/pulumi-kubernetes/provider/v4/pkg/version.Version": KUBERNETES_PROVIDER_VERSION },
    prepare: "kubernetes-schema",
  },
  // machine-api-operator's MachineSet controller and Machine/MachineSet webhooks (lab/machine-api.ts), and the strict
  // decoder of rendered MachineSets the e2e suite runs, from one module: they share openshift/api and its compile.
  {
    name: "machineset",
    module: "machine-api",
    target: "github.com/openshift/machine-api-operator/cmd/machineset",
    what: `machine-api-operator machineset ${MACHINE_API_OPERATOR_VERSION}`,
    // hack/go-build.sh sets pkg/version.Raw (VERSION_OVERRIDE, else `git describe`); here the module's version.
    stamps: { "github.com/openshift/machine-api-operator/pkg/version.Raw": MACHINE_API_OPERATOR_VERSION },
  },
  {
    name: "machineset-check",
    module: "machine-api",
    target: "./cmd/machineset-check",
    what: "machineset-check (strict decoding against openshift/api, this project's)",
    stamps: {},
    standalone: true,
  },
  // OLM's Makefile sets this -X (GO_BUILD_LDFLAGS, VERSION_PATH) and builds with GO_BUILD_TAGS = json1; `olm --version`
  // and `catalog --version` print the version.
  ...(["olm", "catalog"] as const).map((name) => ({
    name,
    module: "olm",
    target: `github.com/operator-framework/operator-lifecycle-manager/cmd/${name}`,
    what: `OLM ${OLM_VERSION} ${name} operator`,
    stamps: { "github.com/operator-framework/operator-lifecycle-manager/pkg/version.OLMVersion": OLM_VERSION },
    tags: ["json1"],
  })),
  {
    name: "opm",
    module: "olm",
    target: "github.com/operator-framework/operator-registry/cmd/opm",
    what: `opm ${OPM_VERSION} (operator-registry)`,
    // operator-registry's Makefile builds opm with TAGS (json1,containers_image_openpgp) and sets
    // cmd/opm/version.opmVersion by -X; `opm version` prints it.
    stamps: { "github.com/operator-framework/operator-registry/cmd/opm/version.opmVersion": OPM_VERSION },
    tags: ["json1", "containers_image_openpgp"],
  },
  {
    name: "actionlint",
    module: "actionlint",
    target: "github.com/rhysd/actionlint/cmd/actionlint",
    what: `actionlint ${ACTIONLINT_VERSION}`,
    // actionlint's .goreleaser.yaml sets this -X to the release's version (goreleaser's {{.Version}}, the tag
    // without its v); `actionlint -version` prints it.
    stamps: { "github.com/rhysd/actionlint.version": ACTIONLINT_VERSION.replace(/^v/, "") },
    standalone: true,
  },
];

export function programNamed(name: string): Program {
  const p = PROGRAMS.find((x) => x.name === name);
  if (!p) throw new Error(`no lab program named ${name}`);
  return p;
}
