package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/pulumi/pulumi/sdk/v3/go/common/resource/plugin"
	"github.com/pulumi/pulumi/sdk/v3/go/common/util/logging"
	"github.com/pulumi/pulumi/sdk/v3/go/common/workspace"
	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
)

// GetRequiredPackages lists the resource plugins the program's node packages ask for: those whose
// package.json has "pulumi": {"resource": true} (upstream: GetRequiredPackages and getPackagesFromDir).
// Errors met on the way are only logged, as upstream does. GetRequiredPlugins is left unimplemented, as
// upstream does, so the CLI uses this method.
func (h *nodeHost) GetRequiredPackages(
	_ context.Context, req *pulumirpc.GetRequiredPackagesRequest,
) (*pulumirpc.GetRequiredPackagesResponse, error) {
	s := &packageScan{visited: map[string]bool{}, pulumiVersions: map[string]string{}}
	s.walkProgramDir(req.GetInfo().GetProgramDirectory())
	if err := errors.Join(s.errs...); err != nil {
		logging.V(3).Infof("one or more errors while discovering plugins: %s", err)
	}
	s.warnIncompatiblePulumi()
	return &pulumirpc.GetRequiredPackagesResponse{Packages: s.packages}, nil
}

// packageScan finds the pulumi resource packages below a program directory.
//
// Upstream walks every directory below the program directory and reads every package.json inside a
// node_modules. To stay fast on big trees this scan reads package.json only where node resolves packages:
// node_modules/<name>, node_modules/@scope/<name> and node_modules/.pnpm/<entry>, then their nested
// node_modules. Like upstream it follows symbolic links once, and does not descend into policy packs (their
// plugins are not the program's).
type packageScan struct {
	visited        map[string]bool
	packages       []*pulumirpc.PackageDependency
	pulumiVersions map[string]string // package.json path -> version of each @pulumi/pulumi found
	errs           []error
}

// resolveDir resolves links in dir and reports whether it is a directory not seen before as kind. The program
// tree and the packages are told apart so that a local package (node_modules/x -> ../x) is read as one.
func (s *packageScan) resolveDir(dir, kind string) (string, bool) {
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		s.errs = append(s.errs, fmt.Errorf("resolving %s: %w", dir, err))
		return "", false
	}
	if real, err = filepath.Abs(real); err != nil {
		s.errs = append(s.errs, err)
		return "", false
	}
	if s.visited[kind+":"+real] {
		return "", false
	}
	fi, err := os.Stat(real)
	if err != nil || !fi.IsDir() {
		return "", false
	}
	s.visited[kind+":"+real] = true
	return real, true
}

// readDirOnce resolves dir (resolveDir) and lists it, recording an error that keeps it from being read.
func (s *packageScan) readDirOnce(dir, kind string) (string, []os.DirEntry, bool) {
	dir, ok := s.resolveDir(dir, kind)
	if !ok {
		return "", nil, false
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		s.errs = append(s.errs, fmt.Errorf("reading plugin dir %s: %w", dir, err))
		return "", nil, false
	}
	return dir, entries, true
}

// walkProgramDir looks for node_modules directories below dir, outside of node_modules.
func (s *packageScan) walkProgramDir(dir string) {
	dir, entries, ok := s.readDirOnce(dir, "program")
	if !ok {
		return
	}
	for _, e := range entries {
		path := filepath.Join(dir, e.Name())
		switch {
		case e.Name() == ".git":
			continue
		case e.Name() == "node_modules":
			s.walkNodeModules(path)
		case e.IsDir() || e.Type()&os.ModeSymlink != 0:
			if policyPack, err := workspace.DetectPolicyPackPathAt(path); err != nil {
				s.errs = append(s.errs, err)
			} else if policyPack == "" {
				s.walkProgramDir(path)
			}
		}
	}
}

// walkNodeModules reads the packages of one node_modules directory.
func (s *packageScan) walkNodeModules(dir string) {
	dir, entries, ok := s.readDirOnce(dir, "packages")
	if !ok {
		return
	}
	for _, e := range entries {
		name := e.Name()
		path := filepath.Join(dir, name)
		switch {
		case strings.HasPrefix(name, "@") || name == ".pnpm":
			// A scope, or pnpm's store: every entry in it is a package directory.
			scoped, err := os.ReadDir(path)
			if err != nil {
				s.errs = append(s.errs, err)
				continue
			}
			for _, p := range scoped {
				s.readPackage(filepath.Join(path, p.Name()))
			}
		case strings.HasPrefix(name, "."):
			// .bin, .package-lock.json, .cache and the like.
		default:
			s.readPackage(path)
		}
	}
}

// readPackage reads dir/package.json, if any, then the packages nested in dir/node_modules.
func (s *packageScan) readPackage(dir string) {
	dir, ok := s.resolveDir(dir, "package")
	if !ok {
		return
	}
	pkgJSON := filepath.Join(dir, "package.json")
	if b, err := os.ReadFile(pkgJSON); err == nil {
		s.addPackage(pkgJSON, b)
	} else if !errors.Is(err, os.ErrNotExist) {
		s.errs = append(s.errs, fmt.Errorf("reading package.json %s: %w", pkgJSON, err))
	}
	if fi, err := os.Stat(filepath.Join(dir, "node_modules")); err == nil && fi.IsDir() {
		s.walkNodeModules(filepath.Join(dir, "node_modules"))
	}
}

// packageJSON holds the fields of a package.json this host reads (upstream: packageJSON).
type packageJSON struct {
	Name    string                  `json:"name"`
	Version string                  `json:"version"`
	Pulumi  plugin.PulumiPluginJSON `json:"pulumi"`
}

// addPackage records the plugin a package.json asks for (upstream: getPackageInfo, getPluginName,
// getPluginVersion).
func (s *packageScan) addPackage(path string, b []byte) {
	var info packageJSON
	if err := json.Unmarshal(b, &info); err != nil {
		s.errs = append(s.errs, fmt.Errorf("unmarshaling package.json %s: %w", path, err))
		return
	}
	if info.Name == "@pulumi/pulumi" {
		s.pulumiVersions[path] = info.Version
	}
	if !info.Pulumi.Resource {
		return
	}

	// The plugin is named in the "pulumi" section, else after a @pulumi/ package; other scopes must name it.
	name := info.Pulumi.Name
	if name == "" {
		var isPulumi bool
		if name, isPulumi = strings.CutPrefix(info.Name, "@pulumi/"); !isPulumi || name == "" {
			s.errs = append(s.errs, fmt.Errorf("%s: third-party plugin package %q must set \"name\" in its "+
				"\"pulumi\" section", path, info.Name))
			return
		}
	}
	version := info.Pulumi.Version
	if version == "" {
		version = info.Version
	}
	if version == "" {
		s.errs = append(s.errs, fmt.Errorf("%s: missing expected \"version\" property", path))
		return
	}
	if !strings.HasPrefix(version, "v") {
		version = "v" + version
	}

	dep := &pulumirpc.PackageDependency{
		Name:    name,
		Kind:    "resource",
		Version: version,
		Server:  info.Pulumi.Server,
	}
	if p := info.Pulumi.Parameterization; p != nil {
		dep.Parameterization = &pulumirpc.PackageParameterization{Name: p.Name, Version: p.Version, Value: p.Value}
	}
	s.packages = append(s.packages, dep)
}

// warnIncompatiblePulumi tells the user when copies of @pulumi/pulumi of different major versions are
// installed (upstream: the check in GetRequiredPackages with compatibleVersions, for versions >= 1).
func (s *packageScan) warnIncompatiblePulumi() {
	var firstPath, firstMajor string
	for path, v := range s.pulumiVersions {
		major, _, _ := strings.Cut(strings.TrimPrefix(v, "v"), ".")
		if firstPath == "" {
			firstPath, firstMajor = path, major
			continue
		}
		if major != firstMajor {
			fmt.Fprintf(os.Stderr, "Found incompatible versions of @pulumi/pulumi. "+
				"Differing major versions are not supported.\n  Version %s referenced at %s\n"+
				"  Version %s referenced at %s\n", s.pulumiVersions[firstPath], firstPath, v, path)
			return
		}
	}
}
