// Package crds only anchors openshift/api in go.mod so that `go mod tidy` keeps it and go.sum pins its contents;
// the lab reads its CRD YAML from the module cache (OLM's CRDs come from lab/tools/olm).
package crds

import _ "github.com/openshift/api/config/v1"
