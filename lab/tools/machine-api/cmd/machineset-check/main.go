// machineset-check decodes MachineSets strictly against openshift/api's Go types, at the version machine-api-operator
// builds with (go.mod of this module). The real create drops unknown fields silently: the defaulting webhook decodes
// providerSpec.value into the platform's type and marshals it back (machine-api-operator pkg/webhooks/
// machineset_webhook.go `Default`, machine_webhook.go `defaultAWS` and the like), and the API server prunes what the
// CRD's schema does not name. So a misspelt or wrongly cased key never fails there: it is only lost. This checker
// makes it an error.
//
//	machineset-check < sets.json
//
// Input: one JSON value, a MachineSet, an array of them or a List (items). Each MachineSet is decoded into
// github.com/openshift/api/machine/v1beta1.MachineSet and its spec.template.spec.providerSpec.value into the type its
// kind names (machine/v1beta1 for AWS, Azure, GCP and vSphere; machine/v1 for Nutanix) with sigs.k8s.io/json
// UnmarshalStrict: case-sensitive, unknown and duplicate fields are errors (the decoder the API server uses for
// strict field validation). Output: one line per problem, `<set>: <path>: <error>`, then exit 1; nothing and exit
// 0 when every set decodes cleanly; exit 2 for input that is not JSON.
package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sort"

	machinev1 "github.com/openshift/api/machine/v1"
	machinev1beta1 "github.com/openshift/api/machine/v1beta1"
	sigsjson "sigs.k8s.io/json"
)

// providerTypes: the kind a providerSpec.value declares, and the Go type machine-api decodes it into (the
// webhooks' per-platform `default*`/`validate*` functions in pkg/webhooks/machine_webhook.go).
var providerTypes = map[string]func() any{
	"AWSMachineProviderConfig":     func() any { return &machinev1beta1.AWSMachineProviderConfig{} },
	"AzureMachineProviderSpec":     func() any { return &machinev1beta1.AzureMachineProviderSpec{} },
	"GCPMachineProviderSpec":       func() any { return &machinev1beta1.GCPMachineProviderSpec{} },
	"VSphereMachineProviderSpec":   func() any { return &machinev1beta1.VSphereMachineProviderSpec{} },
	"NutanixMachineProviderConfig": func() any { return &machinev1.NutanixMachineProviderConfig{} },
}

func sets(data []byte) ([]json.RawMessage, error) {
	data = bytes.TrimSpace(data)
	if len(data) > 0 && data[0] == '[' {
		var list []json.RawMessage
		err := json.Unmarshal(data, &list)
		return list, err
	}
	var probe struct {
		Items []json.RawMessage `json:"items"`
		Kind  string            `json:"kind"`
	}
	if err := json.Unmarshal(data, &probe); err != nil {
		return nil, err
	}
	if probe.Kind != "MachineSet" && probe.Items != nil {
		return probe.Items, nil
	}
	return []json.RawMessage{data}, nil
}

func check(raw json.RawMessage) (string, []string) {
	var ms machinev1beta1.MachineSet
	strict, err := sigsjson.UnmarshalStrict(raw, &ms)
	name := ms.Name
	if name == "" {
		name = "(unnamed MachineSet)"
	}
	var problems []string
	if err != nil {
		return name, []string{fmt.Sprintf("MachineSet: %v", err)}
	}
	for _, e := range strict {
		problems = append(problems, fmt.Sprintf("MachineSet: %v", e))
	}
	if ms.Kind != "MachineSet" {
		problems = append(problems, fmt.Sprintf("kind: %q, not MachineSet", ms.Kind))
	}
	value := ms.Spec.Template.Spec.ProviderSpec.Value
	if value == nil || len(value.Raw) == 0 {
		return name, append(problems, "spec.template.spec.providerSpec.value: missing")
	}
	var meta struct {
		Kind string `json:"kind"`
	}
	if err := json.Unmarshal(value.Raw, &meta); err != nil {
		return name, append(problems, fmt.Sprintf("spec.template.spec.providerSpec.value: %v", err))
	}
	newType, ok := providerTypes[meta.Kind]
	if !ok {
		return name, append(problems, fmt.Sprintf("spec.template.spec.providerSpec.value: kind %q is none of machine-api's provider types", meta.Kind))
	}
	strict, err = sigsjson.UnmarshalStrict(value.Raw, newType())
	if err != nil {
		return name, append(problems, fmt.Sprintf("spec.template.spec.providerSpec.value (%s): %v", meta.Kind, err))
	}
	for _, e := range strict {
		problems = append(problems, fmt.Sprintf("spec.template.spec.providerSpec.value (%s): %v", meta.Kind, e))
	}
	return name, problems
}

func main() {
	data, err := io.ReadAll(os.Stdin)
	if err == nil {
		var list []json.RawMessage
		list, err = sets(data)
		if err == nil {
			bad := 0
			for _, raw := range list {
				name, problems := check(raw)
				sort.Strings(problems)
				for _, p := range problems {
					fmt.Printf("%s: %s\n", name, p)
				}
				bad += len(problems)
			}
			if bad > 0 {
				os.Exit(1)
			}
			return
		}
	}
	fmt.Fprintf(os.Stderr, "machineset-check: %v\n", err)
	os.Exit(2)
}
