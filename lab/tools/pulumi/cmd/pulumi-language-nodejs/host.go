package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/protobuf/types/known/emptypb"

	"github.com/pulumi/pulumi/sdk/v3/go/common/util/logging"
	"github.com/pulumi/pulumi/sdk/v3/go/common/util/rpcutil"
	"github.com/pulumi/pulumi/sdk/v3/nodejs/npm"
	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
)

// nodeHost implements pulumirpc.LanguageRuntimeServer (upstream: nodeLanguageHost). Methods it does not
// define come from UnimplementedLanguageRuntimeServer and answer codes.Unimplemented.
type nodeHost struct {
	pulumirpc.UnimplementedLanguageRuntimeServer

	tracing  string
	defaults map[string]any // runtime options given as flags

	mu            sync.Mutex
	engineAddress string

	// cancelCtx ends running programs when the CLI calls Cancel (upstream: cancelCtx/cancelFunc).
	cancelCtx  context.Context
	cancelFunc context.CancelFunc
}

func newHost(f hostFlags) *nodeHost {
	ctx, cancel := context.WithCancel(context.Background())
	return &nodeHost{
		tracing:       f.tracing,
		defaults:      f.options,
		engineAddress: f.engineAddress,
		cancelCtx:     ctx,
		cancelFunc:    cancel,
	}
}

func (h *nodeHost) engine() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.engineAddress
}

// nodeOptions are the runtime options of Pulumi.yaml (upstream: nodeOptions).
type nodeOptions struct {
	typescript     bool   // run the program through ts-node (default true)
	tsconfig       string // tsconfig.json for ts-node
	nodeargs       string // extra node arguments, split like a shell does
	packagemanager npm.PackageManagerType
}

// parseOptions reads the runtime options the CLI sends in ProgramInfo, over those given as flags
// (upstream: parseOptions).
func (h *nodeHost) parseOptions(info *pulumirpc.ProgramInfo) (nodeOptions, error) {
	raw := map[string]any{}
	for k, v := range h.defaults {
		raw[k] = v
	}
	if info != nil && info.GetOptions() != nil {
		for k, v := range info.GetOptions().AsMap() {
			raw[k] = v
		}
	}

	opts := nodeOptions{typescript: true, packagemanager: npm.AutoPackageManager}
	var ok bool
	if v, has := raw["typescript"]; has {
		if opts.typescript, ok = v.(bool); !ok {
			return opts, errors.New("typescript option must be a boolean")
		}
	}
	if v, has := raw["tsconfig"]; has {
		if opts.tsconfig, ok = v.(string); !ok {
			return opts, errors.New("tsconfigpath option must be a string")
		}
	}
	if v, has := raw["nodeargs"]; has {
		if opts.nodeargs, ok = v.(string); !ok {
			return opts, errors.New("nodeargs option must be a string")
		}
	}
	if v, has := raw["packagemanager"]; has {
		pm, ok := v.(string)
		if !ok {
			return opts, errors.New("packagemanager option must be a string")
		}
		switch t := npm.PackageManagerType(pm); t {
		case "":
		case npm.AutoPackageManager, npm.NpmPackageManager, npm.YarnPackageManager, npm.PnpmPackageManager,
			npm.BunPackageManager:
			opts.packagemanager = t
		default:
			return opts, fmt.Errorf("packagemanager option must be one of auto, npm, yarn, pnpm or bun, got %q", pm)
		}
	}
	return opts, nil
}

// GetPluginInfo reports the plugin's version (upstream: GetPluginInfo).
func (h *nodeHost) GetPluginInfo(context.Context, *emptypb.Empty) (*pulumirpc.PluginInfo, error) {
	return &pulumirpc.PluginInfo{Version: pluginVersion()}, nil
}

// Handshake records the engine address when the CLI attaches to a running host (PULUMI_DEBUG_LANGUAGES)
// and watches the engine's health, as upstream Handshake does.
func (h *nodeHost) Handshake(
	_ context.Context, req *pulumirpc.LanguageHandshakeRequest,
) (*pulumirpc.LanguageHandshakeResponse, error) {
	h.mu.Lock()
	h.engineAddress = req.GetEngineAddress()
	h.mu.Unlock()

	ctx, cancel := signal.NotifyContext(context.Background(), os.Interrupt)
	if err := rpcutil.Healthcheck(ctx, req.GetEngineAddress(), 5*time.Minute, cancel); err != nil {
		cancel()
		return nil, fmt.Errorf("could not start health check host RPC server: %w", err)
	}
	return &pulumirpc.LanguageHandshakeResponse{}, nil
}

// Cancel stops the programs this host runs (upstream: Cancel).
func (h *nodeHost) Cancel(context.Context, *emptypb.Empty) (*emptypb.Empty, error) {
	h.cancelFunc()
	return &emptypb.Empty{}, nil
}

// RuntimeOptionsPrompts asks nothing. Upstream offers a packagemanager prompt to `pulumi new`; this
// project's Pulumi.yaml files are written by hand.
func (h *nodeHost) RuntimeOptionsPrompts(
	context.Context, *pulumirpc.RuntimeOptionsRequest,
) (*pulumirpc.RuntimeOptionsResponse, error) {
	return &pulumirpc.RuntimeOptionsResponse{}, nil
}

// Template has nothing to do for Node.js templates (upstream: Template).
func (h *nodeHost) Template(context.Context, *pulumirpc.TemplateRequest) (*pulumirpc.TemplateResponse, error) {
	return &pulumirpc.TemplateResponse{}, nil
}

// About names node, its version and the package manager (upstream: About).
func (h *nodeHost) About(ctx context.Context, req *pulumirpc.AboutRequest) (*pulumirpc.AboutResponse, error) {
	opts, err := h.parseOptions(req.GetInfo())
	if err != nil {
		return nil, fmt.Errorf("failed to parse options: %w", err)
	}
	pm, err := npm.ResolvePackageManager(opts.packagemanager, req.GetInfo().GetProgramDirectory())
	if err != nil {
		return nil, fmt.Errorf("could not resolve packagemanager: %w", err)
	}
	nodeBin, err := exec.LookPath("node")
	if err != nil {
		return nil, fmt.Errorf("could not find executable %q: %w", "node", err)
	}
	resp := &pulumirpc.AboutResponse{
		Executable: nodeBin,
		Metadata:   map[string]string{"packagemanager": pm.Name()},
	}
	// Like upstream, a version that cannot be read is left out rather than failing the call.
	if out, err := exec.CommandContext(ctx, nodeBin, "--version").Output(); err == nil {
		resp.Version = strings.TrimSpace(string(out))
	}
	if v, err := pm.Version(); err == nil {
		resp.Metadata["packagemanagerVersion"] = v.String()
	}
	return resp, nil
}

// GetProgramDependencies lists the program's packages through its package manager
// (upstream: GetProgramDependencies).
func (h *nodeHost) GetProgramDependencies(
	ctx context.Context, req *pulumirpc.GetProgramDependenciesRequest,
) (*pulumirpc.GetProgramDependenciesResponse, error) {
	opts, err := h.parseOptions(req.GetInfo())
	if err != nil {
		return nil, fmt.Errorf("failed to parse options: %w", err)
	}
	dir := req.GetInfo().GetProgramDirectory()
	pm, err := npm.ResolvePackageManager(opts.packagemanager, dir)
	if err != nil {
		return nil, fmt.Errorf("failed to determine package manager: %w", err)
	}
	packages, err := pm.ListPackages(ctx, dir, req.GetTransitiveDependencies())
	if err != nil {
		return nil, fmt.Errorf("failed to get node dependencies: %w", err)
	}
	deps := make([]*pulumirpc.DependencyInfo, 0, len(packages))
	for _, p := range packages {
		deps = append(deps, &pulumirpc.DependencyInfo{Name: p.Name, Version: p.Version})
	}
	return &pulumirpc.GetProgramDependenciesResponse{Dependencies: deps}, nil
}

// InstallDependencies installs the program's packages with its package manager, streaming the output back
// (upstream: InstallDependencies and installShared). Two differences: the fnm-based node version switch
// (UseLanguageVersionTools) is not done, and a node_modules that is a symbolic link is left alone, because
// an install through it would rewrite (and prune) the tree it points to.
func (h *nodeHost) InstallDependencies(
	req *pulumirpc.InstallDependenciesRequest, server pulumirpc.LanguageRuntime_InstallDependenciesServer,
) error {
	closer, stdout, stderr, err := rpcutil.MakeInstallDependenciesStreams(server, req.GetIsTerminal())
	if err != nil {
		return err
	}
	defer closer.Close()

	if req.GetUseLanguageVersionTools() {
		fmt.Fprintln(stdout, "Note: this language host does not switch Node.js versions; using node from $PATH.")
	}
	fmt.Fprint(stdout, "Installing dependencies...\n\n")

	root := req.GetInfo().GetProgramDirectory()
	if ws, err := npm.FindWorkspaceRoot(root); err == nil {
		fmt.Fprintf(stdout, "Detected workspace root at %s\n", ws)
		root = ws
	} else if !errors.Is(err, npm.ErrNotInWorkspace) {
		return fmt.Errorf("failure while trying to find workspace root: %w", err)
	}

	opts, err := h.parseOptions(req.GetInfo())
	if err != nil {
		return fmt.Errorf("failed to parse options: %w", err)
	}

	nodeModules := filepath.Join(root, "node_modules")
	if fi, err := os.Lstat(nodeModules); err == nil && fi.Mode()&os.ModeSymlink != 0 {
		target, _ := os.Readlink(nodeModules)
		fmt.Fprintf(stdout, "Skipping install: %s is a link to %s, whose dependencies are managed there.\n",
			nodeModules, target)
	} else if _, err := npm.Install(server.Context(), opts.packagemanager, root, false, stdout, stderr); err != nil {
		return err
	}

	fmt.Fprint(stdout, "Finished installing dependencies\n\n")
	return closer.Close()
}

// connectToEngine dials the engine, for the StartDebugging call (upstream: connectToEngine).
func (h *nodeHost) connectToEngine() (pulumirpc.EngineClient, *grpc.ClientConn, error) {
	addr := h.engine()
	if addr == "" {
		return nil, nil, errors.New("when debugging or running explicitly, must call Handshake before Run")
	}
	conn, err := grpc.NewClient(addr, append(rpcutil.TracingInterceptorDialOptions(),
		grpc.WithTransportCredentials(insecure.NewCredentials()), rpcutil.GrpcChannelOptions())...)
	if err != nil {
		return nil, nil, fmt.Errorf("language host could not make connection to engine: %w", err)
	}
	return pulumirpc.NewEngineClient(conn), conn, nil
}

// logCommand logs a command line at verbosity 5, as upstream does before it spawns node.
func logCommand(cmd *exec.Cmd) {
	if logging.V(5).Enabled() {
		logging.V(5).Infof("Language host launching process: %s", strings.Join(cmd.Args, " "))
	}
}
