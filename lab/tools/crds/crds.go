// Package crds only anchors the two modules in go.mod so that `go mod tidy` keeps them and go.sum pins their
// contents; the lab reads their CRD YAML from the module cache.
package crds

import (
	_ "github.com/openshift/api/config/v1"
	_ "github.com/operator-framework/api/crds"
)
