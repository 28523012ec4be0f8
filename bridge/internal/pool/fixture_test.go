package pool

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpbridge/mcpbridge/bridge/internal/supervisor"
	"github.com/mcpbridge/mcpbridge/internal/protocol"
	"github.com/mcpbridge/mcpbridge/internal/testkit"
	"github.com/mcpbridge/mcpbridge/stdio/mcp"
	"github.com/mcpbridge/mcpbridge/stdio/server"
)

// fixtures are the programs a test can run as a child.
var fixtures = testkit.Fixtures{"server": runServerFixture}

// Environment of the "server" fixture.
const (
	// dieFileEnv names a file: while it exists, the fixture writes
	// "dying" to stderr and exits 3 at its start.
	dieFileEnv = "POOL_DIE_FILE"
	// modernOnlyEnv, "1", serves 2026-07-28 only: initialize is refused.
	modernOnlyEnv = "POOL_MODERN_ONLY"
)

// The "server" fixture is a stdio MCP server on the project's runtime
// that writes two lines to stderr as it starts (one prose, one a logfmt
// record) and has the tools pid (its process id), env {name} (a
// variable's value, or "<unset>") and exit {code} (exits at once,
// answering nothing).
func runServerFixture() int {
	if f := os.Getenv(dieFileEnv); f != "" {
		if _, err := os.Stat(f); err == nil {
			fmt.Fprintln(os.Stderr, "dying")
			return 3
		}
	}
	out, err := server.TakeStdout()
	if err != nil {
		return 2
	}
	fmt.Fprintf(os.Stderr, "pool child %d starting\n", os.Getpid())
	fmt.Fprintln(os.Stderr, `level=INFO msg="fixture up" tools=3`)
	cfg := mcp.Config{}
	if os.Getenv(modernOnlyEnv) == "1" {
		cfg.Versions = []string{protocol.Version20260728}
	}
	srv, err := mcp.NewServer(mcp.Implementation{Name: "pool-child", Version: "1.0.0"}, cfg)
	if err != nil {
		return 2
	}
	srv.AddTool(mcp.Tool{Name: "pid"}, func(context.Context, *mcp.CallToolRequest) (*mcp.ToolResult, error) {
		return mcp.TextResult(strconv.Itoa(os.Getpid())), nil
	})
	srv.AddTool(mcp.Tool{Name: "env"}, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.ToolResult, error) {
		var args struct{ Name string }
		_ = json.Unmarshal(req.Arguments, &args)
		if v, ok := os.LookupEnv(args.Name); ok {
			return mcp.TextResult(v), nil
		}
		return mcp.TextResult("<unset>"), nil
	})
	srv.AddTool(mcp.Tool{Name: "exit"}, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.ToolResult, error) {
		var args struct{ Code int }
		_ = json.Unmarshal(req.Arguments, &args)
		os.Exit(args.Code)
		return nil, nil
	})
	if err := server.Serve(context.Background(), srv, os.Stdin, out, server.Config{}); err != nil {
		return 1
	}
	return 0
}

// wait bounds every wait of these tests; it is not a delay.
const wait = 30 * time.Second

// fixtureConfig is a normalized server config that runs the fixture
// (without a reaper unless reaped), adjusted by edit before Normalize.
func fixtureConfig(t *testing.T, name string, edit func(*ServerConfig), env ...string) *ServerConfig {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	sc := &ServerConfig{Name: name, Command: exe, Grace: 2 * time.Second, DisableReaper: true,
		Env: []EnvVar{{Name: testkit.FixtureEnv, Value: "server"}, {Name: "GORACE", Value: strings.TrimPrefix(testkit.QuickRaceExit(), "GORACE=")}}}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		sc.Env = append(sc.Env, EnvVar{Name: k, Value: v})
	}
	if edit != nil {
		edit(sc)
	}
	if err := Normalize(sc, 1<<20, Deadlines{Default: 30 * time.Second, Max: time.Minute}); err != nil {
		t.Fatal(err)
	}
	return sc
}

// health records the health a server reports, as lines "name serving".
type health struct {
	testkit.Lines
	mu   sync.Mutex
	last map[string]bool
}

func (h *health) report(server string, serving bool) {
	h.mu.Lock()
	if h.last == nil {
		h.last = map[string]bool{}
	}
	h.last[server] = serving
	h.mu.Unlock()
	h.Add(fmt.Sprintf("%s %v", server, serving))
}

func (h *health) serving(server string) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.last[server]
}

// started is a running server, its log and its health reports; Cleanup
// stops it.
type started struct {
	*Server
	log    *testkit.Lines
	health *health
}

func start(t *testing.T, sc *ServerConfig) started {
	t.Helper()
	s := started{log: &testkit.Lines{}, health: &health{}}
	s.Server = New(sc, Options{Logger: s.log.Logger(), Secure: func() bool { return false }, Health: s.health.report})
	t.Cleanup(s.Stop)
	return s
}

// waitState waits, within wait, until child m is in state.
func waitState(t *testing.T, m *Child, state supervisor.State) supervisor.Status[*Process] {
	t.Helper()
	timeout := time.NewTimer(wait)
	defer timeout.Stop()
	for {
		st := m.Status()
		if st.State == state {
			return st
		}
		select {
		case <-st.Changed:
		case <-timeout.C:
			t.Fatalf("child %s is %v, not %v, after %v", m.id, st.State, state, wait)
		}
	}
}

// ctxWait is a context bounded by wait.
func ctxWait(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	t.Cleanup(cancel)
	return ctx
}

// toolText calls a tool of the fixture on process c and returns its text.
func toolText(t *testing.T, c *Process, tool, args string) string {
	t.Helper()
	res, err := c.Call(ctxWait(t), "tools/call", json.RawMessage(`{"name":"`+tool+`","arguments":`+args+`}`), nil)
	if err != nil {
		t.Fatalf("%s %s: %v", tool, args, err)
	}
	var tr struct{ Content []struct{ Text string } }
	if err := json.Unmarshal(res, &tr); err != nil || len(tr.Content) != 1 {
		t.Fatalf("%s: result %s", tool, res)
	}
	return tr.Content[0].Text
}

// waitFor waits, within wait, until cond holds, looking every 10 ms: for
// what no channel announces (a child's process reaped, its stderr copied).
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(wait)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %v", what, wait)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
