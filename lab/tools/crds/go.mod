// Where the lab's CustomResourceDefinitions come from: the Go modules that publish them. Nothing is built here;
// `npm run lab -- build` downloads this module (verified against go.sum) and copies its CRD YAML. OLM's CRDs come
// from the OLM release the lab runs (lab/tools/olm).
module windows-estate/lab/tools/crds

go 1.26

// config.openshift.io, machine.openshift.io and operator.openshift.io CRDs (zz_generated.crd-manifests):
// a commit of 2025-10-15, when OpenShift 4.20 was current (the proxy refuses branch names).
require github.com/openshift/api v0.0.0-20251015095338-264e80a2b6e7

require (
	github.com/fxamacker/cbor/v2 v2.9.0 // indirect
	github.com/go-logr/logr v1.4.3 // indirect
	github.com/gogo/protobuf v1.3.2 // indirect
	github.com/json-iterator/go v1.1.12 // indirect
	github.com/kr/text v0.2.0 // indirect
	github.com/modern-go/concurrent v0.0.0-20180306012644-bacd9c7ef1dd // indirect
	github.com/modern-go/reflect2 v1.0.3-0.20250322232337-35a7c28c31ee // indirect
	github.com/x448/float16 v0.8.4 // indirect
	go.yaml.in/yaml/v2 v2.4.2 // indirect
	golang.org/x/net v0.41.0 // indirect
	golang.org/x/text v0.26.0 // indirect
	gopkg.in/inf.v0 v0.9.1 // indirect
	k8s.io/api v0.34.1 // indirect
	k8s.io/apimachinery v0.34.1 // indirect
	k8s.io/klog/v2 v2.130.1 // indirect
	k8s.io/utils v0.0.0-20250604170112-4c0f3b243397 // indirect
	sigs.k8s.io/json v0.0.0-20241014173422-cfa47c3a1cc8 // indirect
	sigs.k8s.io/randfill v1.0.0 // indirect
	sigs.k8s.io/structured-merge-diff/v6 v6.3.0 // indirect
)
