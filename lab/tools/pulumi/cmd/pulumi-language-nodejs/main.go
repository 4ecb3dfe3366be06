// Command pulumi-language-nodejs is this project's own, smaller Node.js language host for the Pulumi CLI
// v3.248.0. The Go module proxy here refuses github.com/pulumi/pulumi/sdk/nodejs/cmd/pulumi-language-nodejs/v3,
// yet the CLI needs a pulumi-language-nodejs on PATH to run a `runtime: nodejs` project and Node policy packs.
//
// It is written after, not copied from, the upstream host at the v3.248.0 commit
// (github.com/pulumi/pulumi, commit dc7edd58bc13, sdk/nodejs/cmd/pulumi-language-nodejs/main.go; "upstream"
// in the comments below names that file and its functions). Like upstream it serves the LanguageRuntime gRPC
// service on a free loopback port, prints that port first on stdout, and runs programs and plugins through the
// scripts of the program's own @pulumi/pulumi package (cmd/run, cmd/run-plugin, cmd/run-policy-pack).
//
// Left out on purpose: the bun runtime, program generation and packing (GenerateProject, GenerateProgram,
// GeneratePackage, Pack, Link) and the deprecated GetRequiredPlugins; they answer codes.Unimplemented.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"time"

	"google.golang.org/grpc"

	"github.com/pulumi/pulumi/sdk/v3"
	"github.com/pulumi/pulumi/sdk/v3/go/common/util/cmdutil"
	"github.com/pulumi/pulumi/sdk/v3/go/common/util/logging"
	"github.com/pulumi/pulumi/sdk/v3/go/common/util/rpcutil"
	"github.com/pulumi/pulumi/sdk/v3/go/common/version"
	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
)

// hostFlags are the command-line settings of the host.
type hostFlags struct {
	tracing     string
	runtime     string
	logToStderr bool
	verbose     int
	showVersion bool

	// options holds runtime options given as (legacy) flags such as -typescript=false or -nodeargs=...;
	// Pulumi.yaml's runtime options, sent with every request, take precedence over them.
	options map[string]any

	// ignored lists the flags this host does not know; they are logged once logging is set up.
	ignored []string

	// engineAddress is the first positional argument: the CLI passes the engine's gRPC address last
	// (buildArgsForNewPlugin in sdk/go/common/resource/plugin/langruntime_plugin.go).
	engineAddress string
}

// pluginVersion is the version GetPluginInfo and -version report: the one linked in with
// -X .../sdk/v3/go/common/version.Version, else that of the sdk/v3 module this host is built with (3.248.0).
func pluginVersion() string {
	if v := strings.TrimPrefix(version.Version, "v"); v != "" {
		return v
	}
	return sdk.Version.String()
}

// parseFlags reads the host's command line. The CLI passes --logtostderr, -v=<n> and --tracing <url> before
// the engine address (buildPluginArguments in sdk/go/common/resource/plugin/plugin.go); older CLIs passed the
// runtime options as flags. Upstream main() declares -tracing, -runtime and -version; a flag this host does not
// know is logged and skipped instead of ending the process.
func parseFlags(args []string) hostFlags {
	var f hostFlags
	fs := flag.NewFlagSet("pulumi-language-nodejs", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(&f.tracing, "tracing", "", "Emit tracing to a Zipkin-compatible tracing endpoint")
	fs.StringVar(&f.runtime, "runtime", "nodejs", "The JavaScript runtime; only nodejs is supported")
	fs.BoolVar(&f.logToStderr, "logtostderr", false, "Log to stderr instead of to files")
	fs.IntVar(&f.verbose, "v", 0, "Enable verbose logging at this level")
	fs.BoolVar(&f.showVersion, "version", false, "Print the plugin version and exit")
	fs.String("root", "", "Project root directory (ignored; sent with each request)")
	fs.String("binary", "", "Prebuilt program to run (ignored)")
	typescript := fs.Bool("typescript", true, "Run the program through ts-node")
	tsconfig := fs.String("tsconfig", "", "Path of the tsconfig.json to use")
	nodeargs := fs.String("nodeargs", "", "Extra arguments for node")
	packagemanager := fs.String("packagemanager", "", "npm, yarn, pnpm, bun or auto")

	// Keep the flags the set knows (with their value when it is the next argument), the rest are positional.
	var known, positional []string
	for i := 0; i < len(args); i++ {
		arg := args[i]
		if arg == "--" {
			positional = append(positional, args[i+1:]...)
			break
		}
		if len(arg) < 2 || arg[0] != '-' {
			positional = append(positional, arg)
			continue
		}
		name, _, hasValue := strings.Cut(strings.TrimLeft(arg, "-"), "=")
		fl := fs.Lookup(name)
		if fl == nil {
			f.ignored = append(f.ignored, arg)
			continue
		}
		known = append(known, arg)
		if b, ok := fl.Value.(interface{ IsBoolFlag() bool }); !hasValue && !(ok && b.IsBoolFlag()) &&
			i+1 < len(args) {
			i++
			known = append(known, args[i])
		}
	}
	if err := fs.Parse(known); err != nil {
		fmt.Fprintf(os.Stderr, "pulumi-language-nodejs: ignoring bad flags: %v\n", err)
	}

	f.options = map[string]any{}
	fs.Visit(func(fl *flag.Flag) {
		switch fl.Name {
		case "typescript":
			f.options["typescript"] = *typescript
		case "tsconfig":
			f.options["tsconfig"] = *tsconfig
		case "nodeargs":
			f.options["nodeargs"] = *nodeargs
		case "packagemanager":
			f.options["packagemanager"] = *packagemanager
		}
	})
	if len(positional) > 0 {
		f.engineAddress = positional[0]
	}
	return f
}

// main follows upstream main(): parse the flags, watch the engine's health, serve LanguageRuntime on a free
// port, print the port and wait until the server stops.
func main() {
	f := parseFlags(os.Args[1:])
	if f.showVersion {
		fmt.Println(pluginVersion())
		return
	}

	logging.InitLogging(f.logToStderr, f.verbose, false)
	for _, arg := range f.ignored {
		logging.V(3).Infof("ignoring unknown flag %q", arg)
	}
	cmdutil.InitTracing("pulumi-language-nodejs", "pulumi-language-nodejs", f.tracing)
	if f.runtime != "nodejs" {
		cmdutil.Exit(fmt.Errorf("unsupported runtime: %s (this host only runs nodejs)", f.runtime))
	}

	// Stop serving on an interrupt, or when the engine stops answering its health checks.
	ctx, cancel := signal.NotifyContext(context.Background(), os.Interrupt)
	defer cancel()
	stop := make(chan bool)
	go func() {
		<-ctx.Done()
		close(stop)
	}()
	if f.engineAddress != "" {
		if err := rpcutil.Healthcheck(ctx, f.engineAddress, 5*time.Minute, cancel); err != nil {
			cmdutil.Exit(fmt.Errorf("could not start health check host RPC server: %w", err))
		}
	}

	host := newHost(f)
	handle, err := rpcutil.ServeWithOptions(rpcutil.ServeOptions{
		Cancel: stop,
		Init: func(srv *grpc.Server) error {
			pulumirpc.RegisterLanguageRuntimeServer(srv, host)
			return nil
		},
		Options: rpcutil.TracingServerInterceptorOptions(nil),
	})
	if err != nil {
		cmdutil.Exit(fmt.Errorf("could not start language host RPC server: %w", err))
	}

	// The CLI reads the port from the first line of our stdout.
	fmt.Printf("%d\n", handle.Port)

	if err := <-handle.Done; err != nil {
		cmdutil.Exit(fmt.Errorf("language host RPC stopped serving: %w", err))
	}
}
