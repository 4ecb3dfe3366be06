// Command kube-controller-manager is the upstream controller manager, unchanged: as
// k8s.io/kubernetes/cmd/kube-controller-manager/controller-manager.go, cli.Run of app.NewControllerManagerCommand.
package main

import (
	"os"

	"k8s.io/component-base/cli"
	"k8s.io/kubernetes/cmd/kube-controller-manager/app"
)

func main() {
	os.Exit(cli.Run(app.NewControllerManagerCommand()))
}
