package pool

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpbridge/mcpbridge/internal/testkit"
	"github.com/mcpbridge/mcpbridge/stdio/reaper"
)

// TestMain runs the fixtures (fixture_test.go) and checks for leaks.
func TestMain(m *testing.M) {
	reaper.Main() // the test binary is the reaper of the children its tests start
	fixtures.Main(m)
}

// A server's Env applies in order over the bridge's environment: Unset
// removes a name, and the last entry for a name wins.
func TestChildEnv(t *testing.T) {
	base := []string{"PATH=/bin", "FOO=from-bridge", "KEEP=1"}
	got := childEnv(base, []EnvVar{{Name: "FOO", Unset: true}, {Name: "BAR", Value: "0"}, {Name: "BAR", Value: "1"}, {Name: "NEW", Value: "x=y"}})
	want := []string{"PATH=/bin", "KEEP=1", "BAR=1", "NEW=x=y"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("childEnv (-want +got):\n%s", diff)
	}
	if got := childEnv(base, nil); !slices.Equal(got, base) {
		t.Errorf("childEnv without changes = %q, want the base", got)
	}
}

// TestRefusedSessionEnvDocumented: docs/security.md lists every name a
// session's environment may not take from metadata.
func TestRefusedSessionEnvDocumented(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join(testkit.ModuleRoot(t), "docs", "security.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range refusedSessionEnv {
		if !strings.Contains(string(doc), "`"+name+"`") {
			t.Errorf("docs/security.md does not list `%s`", name)
		}
	}
}

// TestNormalizeFieldPaths: each refusal names the field at fault, as Go
// spells it from the ServerConfig; a valid server gets its defaults.
func TestNormalizeFieldPaths(t *testing.T) {
	parent := Deadlines{Default: 30e9, Max: 600e9}
	ok := ServerConfig{Command: "x"}
	if err := Normalize(&ok, 1<<20, parent); err != nil || ok.maxLineBytes != 1<<20 || ok.Grace != DefaultGrace || ok.DefaultDeadline != parent.Default {
		t.Fatalf("Normalize(ok) = %v, %+v; want the defaults", err, ok)
	}
	for _, tc := range []struct {
		sc    ServerConfig
		field string
	}{
		{ServerConfig{}, "Command"},
		{ServerConfig{Command: "x", Env: []EnvVar{{Name: "A"}, {Name: "B=C"}}}, "Env[1]"},
		{ServerConfig{Command: "x", Versions: []string{"2024-11-05"}}, "Versions[0]"},
		{ServerConfig{Command: "x", Grace: -1}, "Grace"},
		{ServerConfig{Command: "x", LogLevel: "loud"}, "LogLevel"},
		{ServerConfig{Command: "x", Roots: []byte(`{}`)}, "Roots"},
		{ServerConfig{Command: "x", Tools: map[string]Deadlines{"slow": {Default: 2e9, Max: 1e9}}}, `Tools["slow"]`},
		{ServerConfig{Command: "x", Pool: PoolConfig{Min: 2}}, "Pool"},
		{ServerConfig{Command: "x", Policy: PolicyPool, Pool: PoolConfig{Min: 3, Max: 2}}, "Pool.Max"},
		{ServerConfig{Command: "x", Policy: PolicySession, Session: SessionConfig{Max: 2, MaxPerPrincipal: 3}}, "Session.MaxPerPrincipal"},
		{ServerConfig{Command: "x", Policy: PolicySession, Session: SessionConfig{EnvFromMetadata: map[string]string{"LD_PRELOAD": "x-p"}}}, `Session.EnvFromMetadata["LD_PRELOAD"]`},
	} {
		err := Normalize(&tc.sc, 1<<20, parent)
		fe, _ := err.(*FieldError)
		if fe == nil || fe.Field != tc.field {
			t.Errorf("Normalize(%+v) = %v; want a FieldError at %s", tc.sc, err, tc.field)
		}
	}
}
