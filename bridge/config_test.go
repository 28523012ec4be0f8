package bridge

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// New refuses a configuration it cannot run, before starting anything,
// with an error that names the setting.
func TestConfigErrors(t *testing.T) {
	ok := ServerConfig{Command: "true"}
	for _, tc := range []struct {
		name string
		cfg  Config
		want string
	}{
		{"no servers", Config{}, "no servers"},
		{"no command", Config{Servers: []ServerConfig{{Name: "a"}}}, `server "a" has no command`},
		{"duplicate name", Config{Servers: []ServerConfig{ok, ok}}, `server name "" is used twice`},
		{"unknown version", Config{Servers: []ServerConfig{{Command: "true", Versions: []string{"2024-11-05"}}}}, `unsupported protocol version "2024-11-05" (supported: 2026-07-28, 2025-11-25, 2025-06-18)`},
		{"negative size", Config{Servers: []ServerConfig{ok}, MaxMessageBytes: -1}, "MaxMessageBytes is negative"},
		{"negative deadline", Config{Servers: []ServerConfig{ok}, DefaultDeadline: -time.Second}, "DefaultDeadline is negative"},
		{"negative grace", Config{Servers: []ServerConfig{{Command: "true", Grace: -1}}}, "Grace is negative"},
		{"default beyond max", Config{Servers: []ServerConfig{ok}, DefaultDeadline: time.Minute, MaxDeadline: time.Second}, "DefaultDeadline 1m0s is longer than MaxDeadline 1s"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			svc, err := New(tc.cfg)
			if err == nil {
				svc.Close()
				t.Fatalf("New(%+v) = nil error, want %q", tc.cfg, tc.want)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("New(%+v) = %v, want an error containing %q", tc.cfg, err, tc.want)
			}
		})
	}
}

// The zero Config means the defaults; a short MaxDeadline also shortens
// the default deadline.
func TestConfigDefaults(t *testing.T) {
	cfg := Config{Servers: []ServerConfig{{Command: "true"}}}
	if err := cfg.normalize(); err != nil {
		t.Fatal(err)
	}
	s := cfg.Servers[0]
	if cfg.MaxMessageBytes != 16<<20 || cfg.DefaultDeadline != 30*time.Second || cfg.MaxDeadline != 10*time.Minute ||
		s.Grace != 5*time.Second || s.MaxRestarts != 5 || s.maxLineBytes != 16<<20 || cfg.Logger == nil {
		t.Errorf("normalized zero Config = %+v, server %+v; want the documented defaults", cfg, s)
	}
	short := Config{Servers: []ServerConfig{{Command: "true"}}, MaxDeadline: 5 * time.Second}
	if err := short.normalize(); err != nil || short.DefaultDeadline != 5*time.Second {
		t.Errorf("MaxDeadline 5s: DefaultDeadline = %v, %v; want 5s", short.DefaultDeadline, err)
	}
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
