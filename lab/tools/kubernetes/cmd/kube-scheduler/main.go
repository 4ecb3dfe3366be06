// Command kube-scheduler is the upstream scheduler: as k8s.io/kubernetes/cmd/kube-scheduler/scheduler.go, cli.Run of
// app.NewSchedulerCommand with its metrics registrations. Only its JSON log format's registration is left out, which
// would pull go.uber.org/zap into this module for a format the lab does not use.
package main

import (
	"os"

	"k8s.io/component-base/cli"
	_ "k8s.io/component-base/metrics/prometheus/clientgo"
	_ "k8s.io/component-base/metrics/prometheus/version"
	"k8s.io/kubernetes/cmd/kube-scheduler/app"
)

func main() {
	os.Exit(cli.Run(app.NewSchedulerCommand()))
}
