package bridge

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// New refuses a configuration it cannot run, before starting anything,
// with a *ConfigError that names the field.
func TestConfigErrors(t *testing.T) {
	ok := ServerConfig{Command: "true"}
	for _, tc := range []struct {
		name       string
		cfg        Config
		path, want string
	}{
		{"no servers", Config{}, "Servers", "bridge: Servers: no servers configured"},
		{"no command", Config{Servers: []ServerConfig{{Name: "a"}}}, "Servers[0].Command", `bridge: Servers[0].Command (server "a"): a command is required`},
		{"duplicate name", Config{Servers: []ServerConfig{ok, ok}}, "Servers[1].Name", `the name "" is already used by Servers[0]`},
		{"unknown version", Config{Servers: []ServerConfig{{Command: "true", Versions: []string{"2024-11-05"}}}}, "Servers[0].Versions[0]", `unsupported protocol version "2024-11-05" (supported: 2026-07-28, 2025-11-25, 2025-06-18)`},
		{"negative size", Config{Servers: []ServerConfig{ok}, MaxMessageBytes: -1}, "MaxMessageBytes", "bridge: MaxMessageBytes: must not be negative"},
		{"negative deadline", Config{Servers: []ServerConfig{ok}, DefaultDeadline: -time.Second}, "DefaultDeadline", "must not be negative"},
		{"negative limits", Config{Servers: []ServerConfig{ok}, Limits: Limits{Rate: -1}}, "Limits", "must not be negative"},
		{"negative grace", Config{Servers: []ServerConfig{{Command: "true", Grace: -1}}}, "Servers[0].Grace", "must not be negative"},
		{"default beyond max", Config{Servers: []ServerConfig{ok}, DefaultDeadline: time.Minute, MaxDeadline: time.Second}, "DefaultDeadline", "1m0s is longer than the maximum deadline 1s"},
		{"session env", Config{Servers: []ServerConfig{ok, {Name: "s", Command: "x", Policy: PolicySession, Session: SessionConfig{EnvFromMetadata: map[string]string{"PATH": "x-path"}}}}},
			`Servers[1].Session.EnvFromMetadata["PATH"]`, "PATH may not be set from request metadata"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := tc.cfg.Validate(); err == nil || err.Error() != mustNew(t, tc.cfg).Error() {
				t.Errorf("Validate = %v, want New's error", err)
			}
			err := mustNew(t, tc.cfg)
			var ce *ConfigError
			if !errors.As(err, &ce) || ce.Path != tc.path || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("New(%+v) = %v; want a ConfigError at %s containing %q", tc.cfg, err, tc.path, tc.want)
			}
		})
	}
}

// mustNew is New's error for a configuration it must refuse.
func mustNew(t *testing.T, cfg Config) error {
	t.Helper()
	svc, err := New(cfg)
	if err == nil {
		svc.Close()
		t.Fatalf("New(%+v) = nil error, want a refusal", cfg)
	}
	return err
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
		s.Grace != 5*time.Second || s.MaxRestarts != 5 || cfg.Logger == nil {
		t.Errorf("normalized zero Config = %+v, server %+v; want the documented defaults", cfg, s)
	}
	short := Config{Servers: []ServerConfig{{Command: "true"}}, MaxDeadline: 5 * time.Second}
	if err := short.normalize(); err != nil || short.DefaultDeadline != 5*time.Second {
		t.Errorf("MaxDeadline 5s: DefaultDeadline = %v, %v; want 5s", short.DefaultDeadline, err)
	}
}
