package configfile

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/mcpbridge/mcpbridge/bridge"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

const good = `# three servers, one per policy
listen: 127.0.0.1:0
default_deadline: 20s
servers:
  - name: demo
    command: [mcpbridge, demo]
    policy: shared
    tunnel: shared
    tools:
      progress: {default_deadline: 1m, max_deadline: 5m}
  - name: sdk
    command: [go-sdk-server, -flag]
    env: {TOKEN: abc, DROP_ME: null}
    protocol: 2025-11-25
    policy: pool
    pool: {min: 2, max: 4}
    client_capabilities: {sampling: {}}
    roots: []
  - name: everything
    command: [npx, server-everything]
    inherit_env: true
    policy: session
    session: {max: 10, max_per_principal: 4, idle_timeout: 1m, env_from_metadata: {API_KEY: X-Api-Key}}
    restart: {max_restarts: 3, max_backoff: 5s, grace: 2s}
`

func TestParseGood(t *testing.T) {
	cfg, f, err := Parse("good.yaml", []byte(good))
	if err != nil {
		t.Fatal(err)
	}
	if f.Listen != "127.0.0.1:0" || cfg.DefaultDeadline != 20*time.Second || len(cfg.Servers) != 3 {
		t.Fatalf("Parse = %+v, %+v", cfg, f)
	}
	demo, sdk, every := cfg.Servers[0], cfg.Servers[1], cfg.Servers[2]
	if demo.Command != "mcpbridge" || demo.Args[0] != "demo" || demo.Policy != bridge.PolicyShared || demo.Tunnel != bridge.TunnelShared ||
		demo.Tools["progress"] != (bridge.Deadlines{Default: time.Minute, Max: 5 * time.Minute}) {
		t.Errorf("demo = %+v", demo)
	}
	if sdk.Policy != bridge.PolicyPool || sdk.Pool.Min != 2 || sdk.Pool.Max != 4 || sdk.Versions[0] != "2025-11-25" ||
		string(sdk.Capabilities) != `{"sampling":{}}` || string(sdk.Roots) != `[]` {
		t.Errorf("sdk = %+v", sdk)
	}
	if len(sdk.Env) != 2 || sdk.Env[0] != (bridge.EnvVar{Name: "DROP_ME", Unset: true}) || sdk.Env[1] != (bridge.EnvVar{Name: "TOKEN", Value: "abc"}) {
		t.Errorf("sdk env = %+v", sdk.Env)
	}
	if every.Policy != bridge.PolicySession || !every.InheritEnv || every.Session.Max != 10 || every.Session.MaxPerPrincipal != 4 || every.MaxRestarts != 3 ||
		every.Session.EnvFromMetadata["API_KEY"] != "X-Api-Key" {
		t.Errorf("everything = %+v", every)
	}
	if demo.Roots != nil {
		t.Errorf("demo roots = %s, want unset", demo.Roots)
	}
}

// Each bad file is refused with the file, the line and the field.
func TestParseErrors(t *testing.T) {
	cases := []struct{ name, text, want string }{
		{"unknown key", "servers:\n  - name: a\n    comand: [x]\n", "bad.yaml:3: field comand not found"},
		{"wrong type", "servers:\n  - name: a\n    command: x\n", "bad.yaml:3: cannot unmarshal"},
		{"syntax", "servers: [\n", "bad.yaml:"},
		{"no servers", "listen: x:1\n", "bad.yaml:1: servers: at least one server is required"},
		{"no command", "servers:\n  - name: a\n", "bad.yaml:2: servers[0].command: a command is required"},
		{"duplicate", "servers:\n  - name: a\n    command: [x]\n  - name: a\n    command: [y]\n", `bad.yaml:4: servers[1].name: the name "a" is already used by Servers[0]`},
		{"unnamed", "servers:\n  - command: [x]\n  - name: b\n    command: [y]\n", "bad.yaml:2: servers[0].name: every server needs a name"},
		{"protocol", "servers:\n  - name: a\n    command: [x]\n    protocol: 2024-01-01\n", `bad.yaml:4: servers[0].protocol: "2024-01-01" is not auto`},
		{"policy", "servers:\n  - name: a\n    command: [x]\n    policy: pooled\n", `bad.yaml:4: servers[0].policy: unknown policy "pooled"`},
		{"tunnel", "servers:\n  - name: a\n    command: [x]\n    tunnel: sometimes\n", `bad.yaml:4: servers[0].tunnel: unknown tunnel mode "sometimes" (want private or shared)`},
		{"pool without policy", "servers:\n  - name: a\n    command: [x]\n    pool: {min: 2}\n", "bad.yaml:4: servers[0].pool: pool settings need the pool policy"},
		{"session per principal", "servers:\n  - name: a\n    command: [x]\n    policy: session\n    session: {max: 2, max_per_principal: 3}\n", `bad.yaml:5: servers[0].session.max_per_principal: 3 is above the session max 2`},
		{"bridge check", "servers:\n  - name: a\n    command: [x]\n    policy: pool\n    pool: {min: 3, max: 2}\n", `bad.yaml:5: servers[0].pool.max: 2 is below the pool's min 3`},
		{"duration", "servers:\n  - name: a\n    command: [x]\n    max_deadline: soon\n", "bad.yaml:4: cannot unmarshal"},
		{"log level", "servers:\n  - name: a\n    command: [x]\n    log_level: loud\n", `bad.yaml:4: servers[0].log_level: unknown level "loud"`},
		{"grace", "servers:\n  - name: a\n    command: [x]\n    restart:\n      grace: -1s\n", "bad.yaml:5: servers[0].restart.grace: must not be negative"},
		{"tool deadlines", "servers:\n  - name: a\n    command: [x]\n    tools:\n      slow: {default_deadline: 2m, max_deadline: 1m}\n", "bad.yaml:5: servers[0].tools.slow: the default deadline 2m0s is longer than the maximum 1m0s"},
		{"env name", "servers:\n  - name: a\n    command: [x]\n    env:\n      GOOD: 1\n      A=B: 2\n", `bad.yaml:6: servers[0].env.A=B: "A=B" is not an environment variable name`},
		{"negative limits", "limits: {rate: -1}\nservers:\n  - command: [x]\n", "bad.yaml:1: limits: must not be negative"},
		{"rules without auth", "rules:\n  - principals: [a]\n    servers: [\"*\"]\nservers:\n  - command: [x]\n", "bad.yaml:1: rules: rules need an auth section"},
		{"rule for nobody", "auth: {mtls: true}\nrules:\n  - servers: [\"*\"]\nservers:\n  - command: [x]\n", "bad.yaml:3: rules[0]: the rule names no principal"},
		{"short key hash", "auth:\n  api_keys:\n    - {principal: a, sha256: abc}\nservers:\n  - command: [x]\n", "bad.yaml:3: auth.api_keys[0]: an API key needs"},
		{"jwt without audience", "auth:\n  jwt: {jwks_file: k.json, issuer: i}\nservers:\n  - command: [x]\n", "bad.yaml:2: auth.jwt: jwt needs"},
		{"reflection", "reflection: maybe\nservers:\n  - command: [x]\n", `bad.yaml:1: reflection: "maybe" is not auto, on or off`},
		{"env from metadata", "servers:\n  - name: a\n    command: [x]\n    policy: session\n    session:\n      max: 2\n      env_from_metadata:\n        TOKEN: x-token\n        LD_PRELOAD: x-preload\n",
			"bad.yaml:9: servers[0].session.env_from_metadata.LD_PRELOAD: LD_PRELOAD may not be set from request metadata"},
		{"env from metadata, a prefix", "servers:\n  - name: a\n    command: [x]\n    policy: session\n    session: {env_from_metadata: {PythonPath: x-path}}\n",
			"bad.yaml:5: servers[0].session.env_from_metadata.PythonPath: PythonPath may not be set from request metadata: a caller would choose what the child loads or runs (PYTHON* is refused)"},
		{"aggregate with a command", "servers:\n  - name: a\n    command: [x]\n  - name: all\n    command: [y]\n    aggregate: {servers: [a]}\n",
			"bad.yaml:6: servers[1].aggregate: an aggregate has no command"},
		{"aggregate of nothing known", "servers:\n  - name: a\n    command: [x]\n  - name: all\n    aggregate:\n      servers: [a, b]\n",
			`bad.yaml:6: servers[1].aggregate.servers[1]: no server is named "b"`},
		{"aggregate of an aggregate", "servers:\n  - name: a\n    command: [x]\n  - name: one\n    aggregate: {servers: [a]}\n  - name: two\n    aggregate: {servers: [one]}\n",
			`bad.yaml:7: servers[2].aggregate.servers[0]: "one" is an aggregate: members are servers`},
		{"aggregate conflicts", "servers:\n  - name: a\n    command: [x]\n  - name: all\n    aggregate:\n      servers: [a]\n      conflicts: first\n",
			`bad.yaml:7: servers[1].aggregate.conflicts: unknown conflicts "first"`},
		{"aggregate prefix", "servers:\n  - name: a\n    command: [x]\n  - name: all\n    aggregate:\n      servers: [a]\n      prefix: x_\n",
			`bad.yaml:7: servers[1].aggregate.prefix: "x_" does not hold {server}`},
		{"aggregate name", "servers:\n  - name: a\n    command: [x]\n  - name: a\n    aggregate: {servers: [a]}\n",
			`bad.yaml:4: servers[1].name: the name "a" is already used by Servers[0]`},
		{"aggregate renames", "servers:\n  - name: a\n    command: [x]\n  - name: all\n    aggregate:\n      servers: [a]\n      tools:\n        overrides: {a_x: {name: y}, a_z: {name: y}}\n",
			`bad.yaml:8: servers[1].aggregate.tools.overrides: "a_x" and "a_z" are both renamed "y"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := Parse("bad.yaml", []byte(tc.text))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Parse = %v, want an error containing %q", err, tc.want)
			}
		})
	}
}

func TestParseAccess(t *testing.T) {
	text := "auth:\n  api_keys:\n    - {principal: alice, sha256: " + strings.Repeat("ab", 32) + ", groups: [ops]}\n" +
		"  jwt: {jwks_url: \"https://id.example/jwks\", issuer: \"https://id.example\", audience: mcpbridge, leeway: 1m}\n  mtls: true\n" +
		"rules:\n  - {groups: [ops], servers: [\"*\"], tools: [\"read_*\"]}\nservers:\n  - command: [x]\n"
	cfg, f, err := Parse("ok.yaml", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	ac := f.AccessConfig()
	if len(ac.APIKeys) != 1 || ac.APIKeys[0].Groups[0] != "ops" || ac.JWT.Leeway != time.Minute || !ac.MTLS {
		t.Errorf("AccessConfig = %+v", ac)
	}
	if len(cfg.Rules) != 1 || cfg.Rules[0].Tools[0] != "read_*" {
		t.Errorf("Rules = %+v", cfg.Rules)
	}
}

// TestParseRuleWarnings: a rule that leaves tools, resources or prompts
// out grants none of them, and the file loads with a located warning that
// says so; an explicit empty list is taken as meant.
func TestParseRuleWarnings(t *testing.T) {
	text := "auth:\n  api_keys:\n    - {principal: a, sha256: " + strings.Repeat("ab", 32) + "}\n" +
		"rules:\n" +
		"  - {principals: [a], servers: [\"*\"], tools: [echo]}\n" +
		"  - {principals: [a], servers: [\"*\"], tools: [\"*\"], resources: [\"*\"], prompts: []}\n" +
		"  - principals: [a]\n    servers: [x]\n" +
		"servers:\n  - command: [x]\n"
	_, f, err := Parse("ok.yaml", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		`ok.yaml:5: rules[0]: the rule names no resources or prompts: it grants none of them (write resources: ["*"] to grant every one)`,
		`ok.yaml:7: rules[2]: the rule names no tools, resources or prompts: it grants none of them (write tools: ["*"] to grant every one)`,
	}
	if got := f.Warnings(); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("Warnings =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if _, f, _ := Parse("good.yaml", []byte(good)); len(f.Warnings()) != 0 {
		t.Errorf("a file without rules warns %q", f.Warnings())
	}
}

func TestLoadMissingFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "none.yaml")
	if _, _, err := Load(path); err == nil || !strings.HasPrefix(err.Error(), path+": ") {
		t.Errorf("Load = %v, want an error naming %s", err, path)
	}
	// good's commands are names, not installed here: Load, unlike
	// Parse, checks that each can be run.
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	runnable := strings.NewReplacer("[mcpbridge,", "["+self+",", "[go-sdk-server,", "["+self+",", "[npx,", "["+self+",").Replace(good)
	if err := os.WriteFile(path, []byte(runnable), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, _, err := Load(path); err != nil {
		t.Errorf("Load = %v", err)
	}
}

// TestLoadRefusesAMissingExecutable: a server whose command cannot be run
// here is a mistake in the file, located like any other: a bare name not
// on PATH, a path that is not there, one relative to the server's dir,
// a directory.
func TestLoadRefusesAMissingExecutable(t *testing.T) {
	dir := t.TempDir()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "here"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		server, want string // want "" for a file that loads
	}{
		{"command: [mcpbridge-test-no-such-command]", `:5: servers[1].command: "mcpbridge-test-no-such-command" cannot be run: executable file not found in $PATH`},
		{"command: [/nonexistent/mcp-server, --flag]", `:5: servers[1].command: "/nonexistent/mcp-server" cannot be run: stat /nonexistent/mcp-server: no such file or directory`},
		{"command: [./here]\n    dir: " + dir, ""},
		{"command: [./missing]\n    dir: " + dir, `:5: servers[1].command: "./missing" cannot be run: stat ` + filepath.Join(dir, "missing") + ": no such file or directory"},
		{"command: [" + dir + "]", `:5: servers[1].command: "` + dir + `" cannot be run: is a directory`},
	} {
		path := filepath.Join(t.TempDir(), "c.yaml")
		text := "servers:\n  - name: ok\n    command: [" + self + "]\n  - name: other\n    " + tc.server + "\n"
		if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		_, _, err := Load(path)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("Load(%s) = %v, want it loaded", tc.server, err)
		case tc.want != "" && (err == nil || err.Error() != path+tc.want):
			t.Errorf("Load(%s) = %v, want %s", tc.server, err, path+tc.want)
		}
		if _, _, err := Parse(path, []byte(text)); err != nil {
			t.Errorf("Parse(%s) = %v; Parse does not look at the system", tc.server, err)
		}
	}
}

// An aggregate is a server with an aggregate section and no command: it
// becomes one of the bridge's Aggregates, its filters and overrides as
// written.
func TestParseAggregate(t *testing.T) {
	cfg, _, err := Parse("agg.yaml", []byte(`servers:
  - name: demo
    command: [x]
  - name: conf
    command: [y]
  - name: all
    aggregate:
      servers: [conf, demo]
      conflicts: priority
      tools:
        exclude: [slow]
        overrides: {echo: {name: say, description: Says it.}}
`))
	if err != nil {
		t.Fatal(err)
	}
	if len(cfg.Servers) != 2 || len(cfg.Aggregates) != 1 {
		t.Fatalf("%d servers and %d aggregates, want 2 and 1", len(cfg.Servers), len(cfg.Aggregates))
	}
	a := cfg.Aggregates[0]
	if a.Name != "all" || !slices.Equal(a.Members, []string{"conf", "demo"}) || a.Conflicts != bridge.ConflictsPriority ||
		!slices.Equal(a.Tools.Exclude, []string{"slow"}) || a.Tools.Overrides["echo"] != (bridge.AggregateOverride{Name: "say", Description: "Says it."}) {
		t.Errorf("the aggregate = %+v", a)
	}
}
