package main

import (
	"os"
	"path/filepath"
	"testing"
)

func TestParseFlags(t *testing.T) {
	t.Parallel()
	f := parseFlags([]string{
		"--logtostderr", "-v=9", "--tracing", "http://127.0.0.1:9411", "--no-such-flag",
		"-typescript=false", "-nodeargs", "--max-old-space-size=4096", "127.0.0.1:4242",
	})
	if !f.logToStderr || f.verbose != 9 || f.tracing != "http://127.0.0.1:9411" {
		t.Errorf("logging/tracing flags: %+v", f)
	}
	if f.engineAddress != "127.0.0.1:4242" {
		t.Errorf("engine address = %q", f.engineAddress)
	}
	if f.options["typescript"] != false || f.options["nodeargs"] != "--max-old-space-size=4096" {
		t.Errorf("options = %v", f.options)
	}
	if len(f.ignored) != 1 || f.ignored[0] != "--no-such-flag" {
		t.Errorf("ignored = %v", f.ignored)
	}
}

func TestConfigJSON(t *testing.T) {
	t.Parallel()
	got, err := configJSON(map[string]string{"proj:foo": "bar", "aws:region": "eu-west-1"})
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"aws:config:region":"eu-west-1","proj:config:foo":"bar"}`; got != want {
		t.Errorf("configJSON = %s, want %s", got, want)
	}
}

func TestPackageScan(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(rel, content string) {
		path := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("package.json", `{"name":"prog","pulumi":{"resource":true}}`) // the program itself: not a plugin
	write("node_modules/@pulumi/aws/package.json", `{"name":"@pulumi/aws","version":"7.1.0","pulumi":{"resource":true}}`)
	write("node_modules/@pulumi/pulumi/package.json", `{"name":"@pulumi/pulumi","version":"3.248.0"}`)
	write("node_modules/x/node_modules/@acme/y/package.json",
		`{"name":"@acme/y","version":"1.0.0","pulumi":{"resource":true,"name":"acme","server":"https://example.com"}}`)
	write("node_modules/z/package.json", `{"name":"z","version":"1.0.0","pulumi":{"resource":true}}`) // unnamed
	write("policy/PulumiPolicy.yaml", "runtime: nodejs\n")
	write("policy/node_modules/@pulumi/gcp/package.json", `{"name":"@pulumi/gcp","version":"8.0.0","pulumi":{"resource":true}}`)
	write("local/package.json", `{"name":"@pulumi/local","version":"0.1.0","pulumi":{"resource":true}}`)
	if err := os.Symlink("../local", filepath.Join(dir, "node_modules", "local")); err != nil {
		t.Fatal(err)
	}

	s := &packageScan{visited: map[string]bool{}, pulumiVersions: map[string]string{}}
	s.walkProgramDir(dir)
	got := map[string]string{}
	for _, p := range s.packages {
		got[p.Name] = p.Version + " " + p.Server
	}
	want := map[string]string{"aws": "v7.1.0 ", "acme": "v1.0.0 https://example.com", "local": "v0.1.0 "}
	if len(got) != len(want) {
		t.Errorf("packages = %v, want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("package %s = %q, want %q", k, got[k], v)
		}
	}
	if len(s.errs) != 1 {
		t.Errorf("want one error (the unnamed third-party plugin), got %v", s.errs)
	}
	if len(s.pulumiVersions) != 1 {
		t.Errorf("pulumiVersions = %v", s.pulumiVersions)
	}
}
