package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/google/shlex"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/pulumi/pulumi/sdk/v3"
	"github.com/pulumi/pulumi/sdk/v3/go/common/apitype"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource/config"
	"github.com/pulumi/pulumi/sdk/v3/go/common/util/contract"
	"github.com/pulumi/pulumi/sdk/v3/go/common/util/logging"
	"github.com/pulumi/pulumi/sdk/v3/go/common/util/rpcutil"
	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
)

const (
	// runModule is the @pulumi/pulumi script that runs a program; PULUMI_LANGUAGE_NODEJS_RUN_PATH overrides it
	// (upstream: defaultRunPath).
	runModule = "@pulumi/pulumi/cmd/run"

	// exitAfterUserActionableMessage is the exit code @pulumi/pulumi's cmd/run uses once it has shown the user
	// the error; the CLI then shows nothing more (upstream: nodeJSProcessExitedAfterShowingUserActionableMessage).
	exitAfterUserActionableMessage = 32

	// debugPort is the port node's --inspect-brk prefers (upstream: preferredPort).
	debugPort = 9229
)

// Run runs the program: node <nodeargs> <@pulumi/pulumi/cmd/run> <flags> <entry point> <args>, with the
// configuration in PULUMI_CONFIG, the child writing to this host's stdout and stderr, which the CLI shows
// (upstream: Run, execRuntime, constructArguments, constructConfig, constructConfigSecretKeys).
//
// Upstream puts a forwarding ResourceMonitor proxy and a pair of fifos for synchronous invokes between node
// and the engine. @pulumi/pulumi 3.248.0 no longer makes synchronous invokes, and its gRPC client already
// identifies itself as Node.js (requestFromNodeJS in pkg/resource/deploy/source_eval.go), so the program
// talks to the engine's monitor directly.
func (h *nodeHost) Run(ctx context.Context, req *pulumirpc.RunRequest) (*pulumirpc.RunResponse, error) {
	engineAddress := h.engine()
	if engineAddress == "" {
		return nil, errors.New("when debugging or running explicitly, must call Handshake before Run")
	}
	fail := func(err error) (*pulumirpc.RunResponse, error) {
		return &pulumirpc.RunResponse{Error: err.Error()}, nil
	}

	info := req.GetInfo()
	programDir := info.GetProgramDirectory()
	if programDir == "" {
		programDir = req.GetPwd()
	}
	entryPoint := info.GetEntryPoint()
	if entryPoint == "" {
		entryPoint = req.GetProgram()
	}
	if entryPoint == "" {
		entryPoint = "."
	}

	opts, err := h.parseOptions(info)
	if err != nil {
		return fail(err)
	}
	nodeBin, err := exec.LookPath("node")
	if err != nil {
		return fail(fmt.Errorf("could not find node on the $PATH: %w", err))
	}
	runPath := os.Getenv("PULUMI_LANGUAGE_NODEJS_RUN_PATH")
	if runPath == "" {
		runPath = runModule
	}
	if runPath, err = resolveModule(ctx, nodeBin, programDir, runPath, "pulumi install"); err != nil {
		return fail(err)
	}

	cfg, err := configJSON(req.GetConfig())
	if err != nil {
		return fail(fmt.Errorf("failed to serialize configuration: %w", err))
	}
	secretKeys := req.GetConfigSecretKeys()
	if secretKeys == nil {
		secretKeys = []string{}
	}
	secretKeysJSON, err := json.Marshal(secretKeys)
	if err != nil {
		return fail(fmt.Errorf("failed to serialize configuration secret keys: %w", err))
	}
	env := append(os.Environ(), "PULUMI_CONFIG="+cfg, "PULUMI_CONFIG_SECRET_KEYS="+string(secretKeysJSON))
	env = append(env, typescriptEnv(opts)...)

	args, err := shlex.Split(opts.nodeargs)
	if err != nil {
		return fail(err)
	}
	var port int
	if req.GetAttachDebugger() {
		var debugArgs []string
		if port, debugArgs, err = debuggerArgs(); err != nil {
			return fail(err)
		}
		args = append(args, debugArgs...)
	}
	args = append(args, runPath)
	flag := func(name, value string) {
		if value != "" {
			args = append(args, "--"+name, value)
		}
	}
	flag("monitor", req.GetMonitorAddress())
	flag("engine", engineAddress)
	flag("organization", req.GetOrganization())
	flag("project", req.GetProject())
	flag("root-directory", info.GetRootDirectory())
	flag("stack", req.GetStack())
	flag("pwd", programDir)
	if req.GetDryRun() {
		args = append(args, "--dry-run")
	}
	flag("parallel", strconv.Itoa(int(req.GetParallel())))
	flag("tracing", h.tracing)
	args = append(args, entryPoint)
	args = append(args, req.GetArgs()...)

	// The program stops (SIGINT, then SIGKILL 5s later) if the CLI calls Cancel or drops this call.
	cmdCtx, cmdCancel := context.WithCancel(h.cancelCtx)
	defer cmdCancel()
	stopWatching := context.AfterFunc(ctx, cmdCancel)
	defer stopWatching()
	cmd := exec.CommandContext(cmdCtx, nodeBin, args...)
	cmd.Cancel = func() error {
		if err := cmd.Process.Signal(os.Interrupt); err != nil {
			return cmd.Process.Kill()
		}
		return nil
	}
	cmd.WaitDelay = 5 * time.Second
	cmd.Env = env
	// Node may switch the descriptors it is given to non-blocking mode, so they are not handed over directly:
	// wrapping them makes os/exec copy the output through pipes (upstream: runWithOutput).
	oom := &oomWatcher{w: os.Stderr}
	cmd.Stdout = struct{ io.Writer }{os.Stdout}
	cmd.Stderr = oom
	logCommand(cmd)

	err = runCommand(ctx, h, cmd, req.GetAttachDebugger(), port, "Pulumi: Program (nodejs)")
	contract.IgnoreError(os.Stdout.Sync())
	contract.IgnoreError(os.Stderr.Sync())
	if err == nil {
		return &pulumirpc.RunResponse{}, nil
	}
	var exitErr *exec.ExitError
	if !errors.As(err, &exitErr) {
		return fail(fmt.Errorf("Problem executing program (could not run language executor): %w", err))
	}
	switch code := exitErr.ExitCode(); code {
	case 0:
		return fail(fmt.Errorf("Program exited unexpectedly: %w", exitErr))
	case exitAfterUserActionableMessage:
		// The program already told the user what went wrong: bail without another message.
		return &pulumirpc.RunResponse{Bail: true}, nil
	default:
		msg := fmt.Sprintf("Program exited with non-zero exit code: %d", code)
		if oom.seen {
			msg += ". " + oomAdvice
		}
		return &pulumirpc.RunResponse{Error: msg}, nil
	}
}

// RunPlugin runs a plugin or policy pack written for node, streaming its output back to the CLI
// (upstream: RunPlugin). Policy packs go through @pulumi/pulumi/cmd/run-policy-pack behind the SDK's
// PolicyProxy, which first takes the stack configuration from the CLI and passes it on in the environment;
// other plugins run through @pulumi/pulumi/cmd/run-plugin in the CLI's working directory.
//
// One difference: the nodeargs option is given to node (before the script), where upstream passes it after
// the script, to the script.
func (h *nodeHost) RunPlugin(
	req *pulumirpc.RunPluginRequest, server pulumirpc.LanguageRuntime_RunPluginServer,
) error {
	ctx := server.Context()
	info := req.GetInfo()
	programDir := info.GetProgramDirectory()
	logging.V(5).Infof("Attempting to run nodejs plugin in %s", programDir)

	closer, stdout, stderr, err := rpcutil.MakeRunPluginStreams(server, false)
	if err != nil {
		return err
	}
	defer closer.Close()

	nodeBin, err := exec.LookPath("node")
	if err != nil {
		return err
	}
	opts, err := h.parseOptions(info)
	if err != nil {
		return err
	}
	env := append(req.GetEnv(), typescriptEnv(opts)...)

	isPolicyPack := req.GetKind() == string(apitype.AnalyzerPlugin)
	runPath := "@pulumi/pulumi/cmd/run-policy-pack"
	if !isPolicyPack {
		if runPath = os.Getenv("PULUMI_LANGUAGE_NODEJS_RUN_PATH"); runPath == "" {
			runPath = "@pulumi/pulumi/cmd/run-plugin"
		}
	}
	if runPath, err = resolveModule(ctx, nodeBin, programDir, runPath, "npm install in "+programDir); err != nil {
		return err
	}

	args, err := shlex.Split(opts.nodeargs)
	if err != nil {
		return err
	}
	var port int
	if req.GetAttachDebugger() {
		var debugArgs []string
		if port, debugArgs, err = debuggerArgs(); err != nil {
			return err
		}
		args = append(args, debugArgs...)
	}
	args = append(args, runPath)
	// A policy pack takes the program directory last, any other plugin first.
	if isPolicyPack {
		args = append(append(args, req.GetArgs()...), programDir)
	} else {
		args = append(append(args, programDir), req.GetArgs()...)
	}

	var proxy *sdk.PolicyProxy
	if isPolicyPack {
		// The proxy prints its own port on our stdout, for the CLI, and waits for the stack configuration.
		if proxy, stdout, err = sdk.NewPolicyProxy(ctx, stdout); err != nil {
			return fmt.Errorf("could not start policy pack proxy: %w", err)
		}
		stack, err := proxy.AwaitConfiguration(ctx)
		if err != nil {
			return fmt.Errorf("could not get stack configuration: %w", err)
		}
		if stack != nil {
			setenv := func(k, v string) {
				if v != "" {
					env = append(env, k+"="+v)
				}
			}
			setenv("PULUMI_NODEJS_ORGANIZATION", stack.GetOrganization())
			setenv("PULUMI_NODEJS_PROJECT", stack.GetProject())
			setenv("PULUMI_NODEJS_STACK", stack.GetStack())
			setenv("PULUMI_NODEJS_DRY_RUN", strconv.FormatBool(stack.GetDryRun()))
			if stack.GetConfig() != nil {
				b, err := json.Marshal(stack.GetConfig())
				if err != nil {
					return fmt.Errorf("could not marshal stack configuration: %w", err)
				}
				setenv("PULUMI_CONFIG", string(b))
			}
		}
	}

	cmd := exec.CommandContext(ctx, nodeBin, args...)
	// Policy packs have always run in their own directory, other plugins in the CLI's.
	cmd.Dir = req.GetPwd()
	if isPolicyPack {
		cmd.Dir = programDir
	}
	cmd.Env = env
	cmd.Stdout, cmd.Stderr = stdout, stderr
	logCommand(cmd)

	if proxy != nil {
		// Attach waits for the policy pack to print its port, proxies to it and returns when it exits.
		err = runCommandWith(ctx, h, cmd, req.GetAttachDebugger(), port, "Pulumi: Plugin ("+req.GetName()+")",
			func() error { return proxy.Attach(ctx, cmd) })
	} else {
		err = runCommand(ctx, h, cmd, req.GetAttachDebugger(), port, "Pulumi: Plugin ("+req.GetName()+")")
	}
	if err != nil {
		var exitErr *exec.ExitError
		if errors.As(err, &exitErr) {
			return fmt.Errorf("Program exited with non-zero exit code: %d", exitErr.ExitCode())
		}
		return fmt.Errorf("Problem executing plugin program (could not run language executor): %w", err)
	}
	return closer.Close()
}

// runCommand starts cmd, hands it to the debugger if asked to, and waits for it.
func runCommand(ctx context.Context, h *nodeHost, cmd *exec.Cmd, debug bool, port int, name string) error {
	return runCommandWith(ctx, h, cmd, debug, port, name, cmd.Wait)
}

// runCommandWith starts cmd, hands it to the debugger if asked to, then calls wait.
func runCommandWith(
	ctx context.Context, h *nodeHost, cmd *exec.Cmd, debug bool, port int, name string, wait func() error,
) error {
	if err := cmd.Start(); err != nil {
		return err
	}
	if debug {
		if err := h.startDebugging(ctx, cmd, port, name); err != nil {
			contract.IgnoreError(cmd.Process.Kill())
			contract.IgnoreError(cmd.Wait())
			return err
		}
	}
	return wait()
}

// resolveModule finds the file node loads for module mod from dir, so that the program's own copy of
// @pulumi/pulumi runs it (upstream: locateModule).
func resolveModule(ctx context.Context, nodeBin, dir, mod, installHint string) (string, error) {
	modJSON, err := json.Marshal(mod)
	if err != nil {
		return "", err
	}
	// One line: some node shims mangle multi-line -e arguments (see upstream locateModule).
	script := "try { console.log(require.resolve(" + string(modJSON) + ")); } catch (e) { " +
		"console.error(e.code === 'MODULE_NOT_FOUND' ? " +
		"'It looks like the Pulumi SDK has not been installed. Have you run " + installHint + "?' : e.message); " +
		"process.exit(1); }"
	cmd := exec.CommandContext(ctx, nodeBin, "-e", script)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		if msg := strings.TrimSpace(stderr.String()); msg != "" {
			return "", errors.New(msg)
		}
		return "", fmt.Errorf("could not locate %s: %w", mod, err)
	}
	return strings.TrimSpace(string(out)), nil
}

// configJSON renders the stack configuration for PULUMI_CONFIG. Keys take the old "<namespace>:config:<name>"
// form, which every @pulumi/pulumi version reads (upstream: constructConfig).
func configJSON(cfg map[string]string) (string, error) {
	out := make(map[string]string, len(cfg))
	for k, v := range cfg {
		key, err := config.ParseKey(k)
		if err != nil {
			return "", err
		}
		out[key.Namespace()+":config:"+key.Name()] = v
	}
	b, err := json.Marshal(out)
	return string(b), err
}

// typescriptEnv tells @pulumi/pulumi whether to register ts-node, and with which tsconfig.
func typescriptEnv(opts nodeOptions) []string {
	var env []string
	if opts.typescript {
		env = append(env, "PULUMI_NODEJS_TYPESCRIPT=true")
	}
	if opts.tsconfig != "" {
		env = append(env, "PULUMI_NODEJS_TSCONFIG_PATH="+opts.tsconfig)
	}
	return env
}

// debuggerArgs picks a port for node's inspector, 9229 when it is free (upstream: getDebuggerSetup).
func debuggerArgs() (int, []string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(debugPort))
	if err != nil {
		if l, err = net.Listen("tcp", "127.0.0.1:0"); err != nil {
			return 0, nil, fmt.Errorf("failed to find available port for debugger: %w", err)
		}
	}
	port := l.Addr().(*net.TCPAddr).Port
	contract.IgnoreClose(l)
	return port, []string{fmt.Sprintf("--inspect-brk=%d", port), "--inspect-publish-uid=http"}, nil
}

// startDebugging asks the engine to have the user's debugger attach to the node process
// (upstream: startDebugging).
func (h *nodeHost) startDebugging(ctx context.Context, cmd *exec.Cmd, port int, name string) error {
	engine, conn, err := h.connectToEngine()
	if err != nil {
		return err
	}
	defer contract.IgnoreClose(conn)

	cfg := map[string]any{
		"name":             name,
		"type":             "node",
		"request":          "attach",
		"processId":        cmd.Process.Pid,
		"continueOnAttach": true,
		"skipFiles":        []any{"<node_internals>/**"},
	}
	message := fmt.Sprintf("on process id %d", cmd.Process.Pid)
	if port != debugPort {
		cfg["port"] = port
		message += fmt.Sprintf(" and port %d", port)
	}
	debugConfig, err := structpb.NewStruct(cfg)
	if err != nil {
		return err
	}
	if _, err := engine.StartDebugging(ctx, &pulumirpc.StartDebuggingRequest{
		Config: debugConfig, Message: message,
	}); err != nil {
		return fmt.Errorf("unable to start debugging: %w", err)
	}
	return nil
}

// oomAdvice is added to the error of a program that seems to have run out of memory (upstream: oomSniffer).
const oomAdvice = "Detected a possible out of memory error. Consider increasing the memory available to the " +
	"nodejs process by setting the `nodeargs` runtime option in Pulumi.yaml to " +
	"`nodeargs: --max-old-space-size=<size>` where `<size>` is the maximum memory in megabytes that can be " +
	"allocated to nodejs. See https://www.pulumi.com/docs/concepts/projects/project-file/#runtime-options"

// oomMarkers are lines node's V8 prints when it runs out of heap (upstream: oomSniffer.Scan).
var oomMarkers = []string{
	"<--- Last few GCs --->",
	"Check failed: needs_context && current_scope_ == closure_scope_",
}

// oomWatcher passes writes through to w and notes whether one of oomMarkers went by.
type oomWatcher struct {
	w    io.Writer
	tail []byte // the end of the output so far, to find a marker split across writes
	seen bool
}

func (o *oomWatcher) Write(p []byte) (int, error) {
	if !o.seen {
		buf := append(o.tail, p...)
		for _, m := range oomMarkers {
			if bytes.Contains(buf, []byte(m)) {
				o.seen = true
			}
		}
		const keep = 128
		if len(buf) > keep {
			buf = buf[len(buf)-keep:]
		}
		o.tail = append(o.tail[:0], buf...)
	}
	return o.w.Write(p)
}
