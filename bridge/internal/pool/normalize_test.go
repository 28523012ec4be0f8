package pool

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpbridge/mcpbridge/bridge/internal/door"
	"github.com/mcpbridge/mcpbridge/internal/protocol"
	mcpbridgev1 "github.com/mcpbridge/mcpbridge/proto/mcpbridge/v1"
)

var parentDeadlines = Deadlines{Default: 30 * time.Second, Max: 10 * time.Minute}

// TestNormalizeDefaults: what Normalize fills in, per policy, and what
// it keeps.
func TestNormalizeDefaults(t *testing.T) {
	shared := ServerConfig{Command: "x", LogLevel: "warning", Roots: json.RawMessage(` [ {"uri" : "file:///w"} ] `),
		MaxDeadline: time.Minute, Tools: map[string]Deadlines{"slow": {Max: 5 * time.Minute}, "quick": {Default: time.Second}}}
	if err := Normalize(&shared, 1<<20, parentDeadlines); err != nil {
		t.Fatal(err)
	}
	if shared.Grace != DefaultGrace || shared.MaxRestarts != DefaultMaxRestarts || shared.RestartBackoff != DefaultRestartBackoff ||
		shared.MaxRestartBackoff != DefaultMaxRestartBackoff || shared.ServerRequestTimeout != DefaultServerRequestTimeout || shared.HandshakeTimeout <= 0 {
		t.Errorf("defaults: %+v", shared)
	}
	if LogLevel(&shared) != mcpbridgev1.LoggingLevel_LOGGING_LEVEL_WARNING {
		t.Errorf("LogLevel = %v, want warning", LogLevel(&shared))
	}
	if string(shared.Roots) != `[{"uri":"file:///w"}]` {
		t.Errorf("Roots = %s, want them compact", shared.Roots)
	}
	// The server's deadlines: its own max, the bridge's default within it;
	// a tool's: its own, else the server's.
	for _, tc := range []struct {
		tool string
		want Deadlines
	}{
		{"", Deadlines{30 * time.Second, time.Minute}},
		{"other", Deadlines{30 * time.Second, time.Minute}},
		{"slow", Deadlines{30 * time.Second, 5 * time.Minute}},
		{"quick", Deadlines{time.Second, time.Minute}},
	} {
		if got := DeadlinesOf(&shared, tc.tool); got != tc.want {
			t.Errorf("DeadlinesOf(%q) = %v, want %v", tc.tool, got, tc.want)
		}
	}
	short := ServerConfig{Command: "x", MaxDeadline: 10 * time.Second}
	if err := Normalize(&short, 1<<20, parentDeadlines); err != nil || short.DefaultDeadline != 10*time.Second {
		t.Errorf("a max below the bridge's default: %v, default %v; want the max", err, short.DefaultDeadline)
	}

	pool := ServerConfig{Command: "x", Policy: PolicyPool}
	if err := Normalize(&pool, 1<<20, parentDeadlines); err != nil || pool.Pool != (PoolConfig{Min: DefaultPoolMin, Max: DefaultPoolMin, IdleTimeout: DefaultPoolIdleTimeout}) {
		t.Errorf("pool defaults: %v, %+v", err, pool.Pool)
	}
	sess := ServerConfig{Command: "x", Policy: PolicySession, Session: SessionConfig{EnvFromMetadata: map[string]string{"TOKEN": "X-Token"}}}
	if err := Normalize(&sess, 1<<20, parentDeadlines); err != nil {
		t.Fatal(err)
	}
	if c := sess.Session; c.Max != DefaultMaxSessions || c.MaxPerPrincipal != 16 || c.IdleTimeout != DefaultSessionIdleTimeout || c.EnvFromMetadata["TOKEN"] != "x-token" {
		t.Errorf("session defaults: %+v", c)
	}
	one := ServerConfig{Command: "x", Policy: PolicySession, Session: SessionConfig{Max: 1}}
	if err := Normalize(&one, 1<<20, parentDeadlines); err != nil || one.Session.MaxPerPrincipal != 1 {
		t.Errorf("MaxPerPrincipal of Max 1 = %d, %v; want 1", one.Session.MaxPerPrincipal, err)
	}
}

// TestNormalizeRefusals: every refusal names its field.
func TestNormalizeRefusals(t *testing.T) {
	for _, tc := range []struct {
		sc    ServerConfig
		field string
		msg   string
	}{
		{ServerConfig{Command: "x", Env: []EnvVar{{Name: ""}}}, "Env[0]", "not an environment variable name"},
		{ServerConfig{Command: "x", Limits: door.Limits{Rate: -1}}, "Limits", "must not be negative"},
		{ServerConfig{Command: "x", HandshakeTimeout: -time.Second}, "HandshakeTimeout", "must not be negative"},
		{ServerConfig{Command: "x", RestartBackoff: time.Second, MaxRestartBackoff: time.Millisecond}, "MaxRestartBackoff", "shorter than the first backoff"},
		{ServerConfig{Command: "x", MaxRequestBytes: -1}, "MaxRequestBytes", "must not be negative"},
		{ServerConfig{Command: "x", Roots: json.RawMessage(`[`)}, "Roots", "JSON array"},
		{ServerConfig{Command: "x", DefaultDeadline: -1}, "DefaultDeadline", "negative"},
		{ServerConfig{Command: "x", DefaultDeadline: time.Hour}, "DefaultDeadline", "longer than the maximum"},
		{ServerConfig{Command: "x", Session: SessionConfig{Max: 1}}, "Session", "need the session policy"},
		{ServerConfig{Command: "x", Policy: PolicyPool, Pool: PoolConfig{Min: -1}}, "Pool", "must not be negative"},
		{ServerConfig{Command: "x", Policy: PolicySession, Session: SessionConfig{IdleTimeout: -1}}, "Session", "must not be negative"},
		{ServerConfig{Command: "x", Policy: PolicySession, Session: SessionConfig{EnvFromMetadata: map[string]string{"TOKEN": ""}}}, `Session.EnvFromMetadata["TOKEN"]`, "metadata key is empty"},
		{ServerConfig{Command: "x", Policy: PolicySession, Session: SessionConfig{EnvFromMetadata: map[string]string{"TOKEN": "Authorization"}}}, `Session.EnvFromMetadata["TOKEN"]`, "carries the caller's credentials"},
		{ServerConfig{Command: "x", Policy: PolicySession, Session: SessionConfig{EnvFromMetadata: map[string]string{"C": "cookie"}}}, `Session.EnvFromMetadata["C"]`, "never reach a child"},
		{ServerConfig{Command: "x", Policy: Policy(7)}, "Policy", "unknown policy 7"},
		{ServerConfig{Command: "x", Tunnel: TunnelMode(5)}, "Tunnel", "unknown tunnel mode 5"},
	} {
		err := Normalize(&tc.sc, 1<<20, parentDeadlines)
		fe, _ := err.(*FieldError)
		if fe == nil || fe.Field != tc.field || !strings.Contains(fe.Msg, tc.msg) || fe.Error() != tc.field+": "+fe.Msg {
			t.Errorf("Normalize(%+v) = %v; want %s: ...%s...", tc.sc, err, tc.field, tc.msg)
		}
	}
	if e := (&FieldError{Msg: "whole"}); e.Error() != "whole" {
		t.Errorf("a FieldError of the whole = %q", e.Error())
	}
}

// TestPolicyNames: the config file's names of policies and tunnel modes
// read back as what they name; others are refused.
func TestPolicyNames(t *testing.T) {
	for _, p := range []Policy{PolicyShared, PolicyPool, PolicySession} {
		if got, err := ParsePolicy(p.String()); err != nil || got != p {
			t.Errorf("ParsePolicy(%q) = %v, %v", p.String(), got, err)
		}
	}
	if _, err := ParsePolicy("round-robin"); err == nil || !strings.Contains(err.Error(), `unknown policy "round-robin"`) {
		t.Errorf("ParsePolicy(round-robin) = %v", err)
	}
	if s := Policy(9).String(); s != "Policy(9)" {
		t.Errorf("Policy(9) = %q", s)
	}
	for _, m := range []TunnelMode{TunnelPrivate, TunnelShared} {
		if got, err := ParseTunnelMode(m.String()); err != nil || got != m {
			t.Errorf("ParseTunnelMode(%q) = %v, %v", m.String(), got, err)
		}
	}
	if _, err := ParseTunnelMode("public"); err == nil {
		t.Errorf("ParseTunnelMode(public) accepted")
	}
	if s := TunnelMode(4).String(); s != "TunnelMode(4)" {
		t.Errorf("TunnelMode(4) = %q", s)
	}
}

// TestCommand: a child's environment is BaseEnv's variables of the
// bridge's (or all of them with InheritEnv), then Env, then a session's
// own values; its directory and stderr are the server's.
func TestCommand(t *testing.T) {
	t.Setenv("MCPBRIDGE_POOL_SECRET", "s3cret")
	t.Setenv("LANG", "C.UTF-8")
	var stderr strings.Builder
	sc := &ServerConfig{Command: "true", Dir: t.TempDir(), Env: []EnvVar{{Name: "A", Value: "1"}, {Name: "LANG", Unset: true}}}
	cmd := Command(sc, &stderr, []EnvVar{{Name: "A", Value: "session"}, {Name: "B", Value: "2"}})
	if cmd.Dir != sc.Dir || cmd.Stderr != &stderr || cmd.Err != nil {
		t.Errorf("Command: dir %q, stderr %v, err %v", cmd.Dir, cmd.Stderr, cmd.Err)
	}
	env := strings.Join(cmd.Env, "\n")
	for _, want := range []string{"PATH=" + os.Getenv("PATH"), "A=session", "B=2"} {
		if !slices.Contains(cmd.Env, want) {
			t.Errorf("the child's environment lacks %s:\n%s", want, env)
		}
	}
	for _, absent := range []string{"MCPBRIDGE_POOL_SECRET=", "LANG=", "A=1"} {
		if strings.Contains(env, absent) {
			t.Errorf("the child's environment has %s:\n%s", absent, env)
		}
	}
	sc.InheritEnv = true
	if env := Command(sc, &stderr, nil).Env; !slices.Contains(env, "MCPBRIDGE_POOL_SECRET=s3cret") {
		t.Errorf("InheritEnv did not pass the bridge's environment")
	}
}

// TestRunnable: why a command cannot be started, found before any start.
func TestRunnable(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "run.sh")
	plain := filepath.Join(dir, "plain.txt")
	for name, mode := range map[string]os.FileMode{script: 0o755, plain: 0o644} {
		if err := os.WriteFile(name, []byte("#!/bin/sh\n"), mode); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		sc   ServerConfig
		want string // "" runnable
	}{
		{ServerConfig{Command: "sh"}, ""},
		{ServerConfig{Command: script}, ""},
		{ServerConfig{Command: "./run.sh", Dir: dir}, ""},
		{ServerConfig{Command: "no-such-command-mcpbridge"}, `"no-such-command-mcpbridge" cannot be run: executable file not found`},
		{ServerConfig{Command: filepath.Join(dir, "absent")}, "cannot be run: "},
		{ServerConfig{Command: plain}, "cannot be run: permission denied"},
		{ServerConfig{Command: dir}, "cannot be run: "},
		{ServerConfig{Command: "./run.sh", Dir: script}, "is not a directory"},
		{ServerConfig{Command: "./absent", Dir: dir}, "cannot be run: "},
	} {
		err := Runnable(&tc.sc)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("Runnable(%s in %q) = %v, want nil", tc.sc.Command, tc.sc.Dir, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("Runnable(%s in %q) = %v, want %q", tc.sc.Command, tc.sc.Dir, err, tc.want)
		}
	}
}

// TestCapabilities: what the bridge declares to a child: its own
// default, or the server's, with roots when the bridge answers roots/list.
func TestCapabilities(t *testing.T) {
	for _, tc := range []struct {
		caps, roots, want string
	}{
		{"", "", DefaultCapabilities},
		{"", `[]`, DefaultCapabilities}, // roots already declared
		{`{"sampling":{}}`, "", `{"sampling":{}}`},
		{`{"sampling":{}}`, `[]`, `{"sampling":{},"roots":{}}`},
		{`[]`, `[]`, `[]`}, // not an object: left for Connect to refuse
	} {
		sc := &ServerConfig{}
		if tc.caps != "" {
			sc.Capabilities = json.RawMessage(tc.caps)
		}
		if tc.roots != "" {
			sc.Roots = json.RawMessage(tc.roots)
		}
		if got := Capabilities(sc); string(got) != tc.want {
			t.Errorf("Capabilities(%s, roots %s) = %s, want %s", tc.caps, tc.roots, got, tc.want)
		}
	}
}

// TestConnectConfig: a private child is negotiated with its client's own
// initialize: its capabilities (with roots when the bridge answers them),
// its client info, and its version first, then the server's other legacy
// versions.
func TestConnectConfig(t *testing.T) {
	hs := &Handshake{Version: protocol.Version20250618, Capabilities: json.RawMessage(`{"elicitation":{}}`), ClientInfo: json.RawMessage(`{"name":"host"}`)}
	for _, tc := range []struct {
		name     string
		versions []string
		roots    json.RawMessage
		hs       *Handshake
		wantVers []string
		wantCaps string
	}{
		{"the client's version first", nil, nil, hs,
			[]string{protocol.Version20250618, protocol.Version20251125}, `{"elicitation":{}}`},
		{"within the server's versions", []string{protocol.Version20260728, protocol.Version20250618}, json.RawMessage(`[]`), hs,
			[]string{protocol.Version20250618}, `{"elicitation":{},"roots":{}}`},
		{"a version the bridge does not speak", nil, nil, &Handshake{Version: "2024-11-05", Capabilities: hs.Capabilities, ClientInfo: hs.ClientInfo},
			[]string{protocol.Version20251125, protocol.Version20250618}, `{"elicitation":{}}`},
		{"a 2026 client's", nil, nil, &Handshake{Version: protocol.Version20260728, Capabilities: hs.Capabilities, ClientInfo: hs.ClientInfo},
			[]string{protocol.Version20251125, protocol.Version20250618}, `{"elicitation":{}}`},
	} {
		m := &Child{srv: &Server{cfg: &ServerConfig{Versions: tc.versions, Roots: tc.roots}}, handshake: tc.hs}
		cc := m.connectConfig()
		if !slices.Equal(cc.Versions, tc.wantVers) || string(cc.Capabilities) != tc.wantCaps || string(cc.ClientInfo) != `{"name":"host"}` {
			t.Errorf("%s: versions %v caps %s info %s; want %v %s", tc.name, cc.Versions, cc.Capabilities, cc.ClientInfo, tc.wantVers, tc.wantCaps)
		}
	}
	// Without a handshake: as the server says.
	sc := &ServerConfig{Versions: []string{protocol.Version20260728}, ClientInfo: json.RawMessage(`{"name":"bridge"}`)}
	cc := (&Child{srv: &Server{cfg: sc}}).connectConfig()
	if !slices.Equal(cc.Versions, sc.Versions) || string(cc.ClientInfo) != `{"name":"bridge"}` || string(cc.Capabilities) != DefaultCapabilities {
		t.Errorf("the server's own negotiation: %+v", cc)
	}
}

// TestHandshakeOf: only a well-formed initialize request is a handshake.
func TestHandshakeOf(t *testing.T) {
	hs := handshakeOf(initialize)
	if hs == nil || hs.Version != protocol.Version20250618 || string(hs.Capabilities) != `{"roots":{}}` || string(hs.ClientInfo) != `{"name":"host","version":"9"}` {
		t.Fatalf("handshakeOf(initialize) = %+v", hs)
	}
	for _, text := range []string{
		``, `not json`,
		`{"jsonrpc":"2.0","method":"initialize","params":{"capabilities":{},"clientInfo":{}}}`, // a notification
		`{"jsonrpc":"2.0","id":1,"method":"ping","params":{"capabilities":{},"clientInfo":{}}}`,
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":[],"clientInfo":{}}}`,
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{}}}`,
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":7,"capabilities":{},"clientInfo":{}}}`,
	} {
		if hs := handshakeOf(text); hs != nil {
			t.Errorf("handshakeOf(%s) = %+v, want nil", text, hs)
		}
	}
}

// TestSessionEnvNames: the variables a session may not take from
// metadata, whatever their case, and the names that are none.
func TestSessionEnvNames(t *testing.T) {
	for name, ok := range map[string]bool{
		"USER_TOKEN": true, "api_key": true,
		"LD_PRELOAD": false, "ld_library_path": false, "PYTHONPATH": false, "Path": false, "MCPBRIDGE_ANYTHING": false,
		"GIT_SSH_COMMAND": false, "": false, "A=B": false, "NUL\x00": false,
	} {
		if err := CheckSessionEnvName(name); (err == nil) != ok {
			t.Errorf("CheckSessionEnvName(%q) = %v", name, err)
		}
	}
	for v, want := range map[string]int{"plain": -1, "": -1, "tab\there": 3, "del\x7f": 3, "\x00": 0, "é ok": -1} {
		if got := controlChar(v); got != want {
			t.Errorf("controlChar(%q) = %d, want %d", v, got, want)
		}
	}
}
