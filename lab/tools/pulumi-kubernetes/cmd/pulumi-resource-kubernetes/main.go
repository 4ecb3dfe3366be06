// Command pulumi-resource-kubernetes serves the upstream provider exactly as its own main does
// (provider/cmd/pulumi-resource-kubernetes/main.go: provider.Serve with the embedded schema and mapping).
// Upstream generates schema-embed.json and terraform-mapping-embed.json from the module's schema.json and
// terraform-mapping.json at release (generate.go); `npm run lab -- build` does the same step into this folder
// (the two files are not committed) before it builds.
package main

import (
	_ "embed"

	"github.com/pulumi/pulumi-kubernetes/provider/v4/pkg/provider"
	"github.com/pulumi/pulumi-kubernetes/provider/v4/pkg/version"
)

//go:embed schema-embed.json
var pulumiSchema []byte

//go:embed terraform-mapping-embed.json
var terraformMapping []byte

func main() {
	provider.Serve("kubernetes", version.Version, pulumiSchema, terraformMapping)
}
