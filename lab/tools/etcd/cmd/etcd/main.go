// Command etcd is upstream etcd's server: the root module's main.go (go.etcd.io/etcd/v3) only calls
// etcdmain.Main, and that module is not a dependency this wrapper can take, so it does the same here.
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() {
	etcdmain.Main(os.Args)
}
