// Command kube-apiserver is the upstream API server, unchanged: k8s.io/kubernetes/cmd/kube-apiserver/apiserver.go
// does exactly this (cli.Run of app.NewAPIServerCommand). It lives here only because a module outside
// k8s.io/kubernetes cannot build that main package with its staging replaces.
package main

import (
	"os"

	"k8s.io/component-base/cli"
	"k8s.io/kubernetes/cmd/kube-apiserver/app"
)

func main() {
	os.Exit(cli.Run(app.NewAPIServerCommand()))
}
