package bridge

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/mcpbridge/mcpbridge/internal/testkit"
	"github.com/mcpbridge/mcpbridge/stdio/mcp"
	"github.com/mcpbridge/mcpbridge/stdio/server"
)

// The "child" fixture is a small MCP server (package stdio/mcp served by
// server.Serve) that misbehaves on demand, for the supervisor tests. Its
// tools:
//
//   - echo {"message"}: returns the message.
//   - large {"bytes"}: returns a text of that many bytes (benchmarks, the
//     size limit).
//   - block: returns only when cancelled; it writes "fixture: blocking" to
//     stderr first, so a test knows the call is in flight, and
//     "fixture: cancelled" when its context ends.
//   - garbage: writes lines that are not JSON-RPC responses to its stdout
//     (not JSON, a JSON array, a response to an id nobody sent), then
//     returns "survived".
//   - closeout: closes its stdout and then hangs, ignoring cancellation, as
//     a process would that lost its output but not its life.
//   - crash {"code"}: exits with that status at once, mid-call.
//   - pids: returns {"pid":…, "grandchild":…}.
//
// Environment switches:
//
//   - FIXTURE_FAIL_START=1: print a diagnosis with a path on stderr and
//     exit 1 before serving (a server that cannot start).
//   - FIXTURE_FAIL_STARTS=<n>:<file>: the same for the first n starts,
//     counted in file; the later ones serve (a server that comes back).
//   - FIXTURE_GATE=<fifo>: read the named pipe to its end before serving,
//     so that a test decides when each start completes.
//   - FIXTURE_IGNORE_EOF=1: keep running after stdin reaches EOF.
//   - FIXTURE_IGNORE_TERM=1: ignore SIGTERM.
//   - FIXTURE_GRANDCHILD=1: start a "grandchild" fixture in the child's
//     process group, holding the child's stdout.
//   - FIXTURE_MAX_CONCURRENCY=<n>: requests run at once (stdio's default
//     otherwise), for tests with many calls in flight.
func init() {
	fixtures["child"] = runChildFixture
	fixtures["grandchild"] = runGrandchildFixture
}

// fixtureChild configures a fronted server that runs the "child" fixture
// with the given FIXTURE_* settings.
func fixtureChild(t testing.TB, name string, grace time.Duration, env ...string) ServerConfig {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	vars := envVars(testkit.FixtureEnv+"=child", testkit.QuickRaceExit())
	return ServerConfig{Name: name, Command: self, Env: append(vars, envVars(env...)...), Grace: grace}
}

// secretDiagnosis is what a failing fixture prints on stderr; it must
// never reach a gRPC client.
const secretDiagnosis = "fixture: cannot read /etc/mcpbridge-test/secret.key: permission denied"

func runChildFixture() int {
	out, err := server.TakeStdout()
	if err != nil {
		fmt.Fprintln(os.Stderr, "fixture:", err)
		return 2
	}
	if n, err := strconv.Atoi(os.Getenv("FIXTURE_STDERR_FLOOD")); err == nil {
		w := bufio.NewWriterSize(os.Stderr, 64<<10)
		for i := range n {
			fmt.Fprintf(w, "fixture: flood line %d\n", i)
		}
		w.Flush()
	}
	if os.Getenv("FIXTURE_FAIL_START") == "1" {
		fmt.Fprintln(os.Stderr, secretDiagnosis)
		return 1
	}
	if n, file, ok := strings.Cut(os.Getenv("FIXTURE_FAIL_STARTS"), ":"); ok {
		prev, _ := os.ReadFile(file)
		count := len(prev) + 1 // one byte per start
		if err := os.WriteFile(file, append(prev, 's'), 0o600); err != nil {
			fmt.Fprintln(os.Stderr, "fixture:", err)
			return 2
		}
		if limit, _ := strconv.Atoi(n); count <= limit {
			fmt.Fprintf(os.Stderr, "fixture: failing start %d of %s\n", count, n)
			return 1
		}
	}
	if os.Getenv("FIXTURE_MUTE") == "1" { // reads everything, answers nothing
		io.Copy(io.Discard, os.Stdin)
		return 0
	}
	if gate := os.Getenv("FIXTURE_GATE"); gate != "" {
		if _, err := os.ReadFile(gate); err != nil {
			fmt.Fprintln(os.Stderr, "fixture: gate:", err)
			return 2
		}
	}
	if os.Getenv("FIXTURE_IGNORE_TERM") == "1" {
		signal.Ignore(syscall.SIGTERM)
	}
	grandchild := 0
	if os.Getenv("FIXTURE_GRANDCHILD") == "1" {
		self, err := os.Executable()
		if err != nil {
			fmt.Fprintln(os.Stderr, "fixture:", err)
			return 2
		}
		cmd := exec.Command(self)
		cmd.Env = append(os.Environ(), testkit.FixtureEnv+"=grandchild")
		cmd.Stdout = out // holds the child's stdout, as a launcher's real server does
		cmd.Stderr = os.Stderr
		if err := cmd.Start(); err != nil {
			fmt.Fprintln(os.Stderr, "fixture: grandchild:", err)
			return 2
		}
		grandchild = cmd.Process.Pid
	}

	srv, err := mcp.NewServer(mcp.Implementation{Name: "bridge-fixture", Version: "1.0.0"}, mcp.Config{})
	if err != nil {
		fmt.Fprintln(os.Stderr, "fixture:", err)
		return 2
	}
	srv.AddTool(mcp.Tool{Name: "echo"}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.ToolResult, error) {
		var args struct{ Message string }
		if err := json.Unmarshal(req.Arguments, &args); err != nil {
			return nil, err
		}
		return mcp.TextResult(args.Message), nil
	})
	srv.AddTool(mcp.Tool{Name: "large"}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.ToolResult, error) {
		var args struct{ Bytes int }
		if err := json.Unmarshal(req.Arguments, &args); err != nil {
			return nil, err
		}
		return mcp.TextResult(strings.Repeat("x", args.Bytes)), nil
	})
	var blocking, cancelled atomic.Int64
	srv.AddTool(mcp.Tool{Name: "numbers"}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.ToolResult, error) {
		var args struct{ Count int }
		if err := json.Unmarshal(req.Arguments, &args); err != nil {
			return nil, err
		}
		// [0,0,...]: two bytes of JSON per number, about twelve as a
		// protobuf Struct value.
		n := json.RawMessage(`{"n":[` + strings.TrimSuffix(strings.Repeat("0,", args.Count), ",") + `]}`)
		return &mcp.ToolResult{Content: []mcp.Content{}, StructuredContent: n}, nil
	})
	srv.AddTool(mcp.Tool{Name: "block"}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.ToolResult, error) {
		blocking.Add(1)
		fmt.Fprintln(os.Stderr, "fixture: blocking")
		<-ctx.Done()
		cancelled.Add(1)
		fmt.Fprintln(os.Stderr, "fixture: cancelled")
		return nil, ctx.Err()
	})
	// counts says how many block calls started and were cancelled: the
	// stderr lines saying so are rate-limited in the bridge's log.
	srv.AddTool(mcp.Tool{Name: "counts"}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.ToolResult, error) {
		return mcp.TextResult(fmt.Sprintf(`{"blocking":%d,"cancelled":%d}`, blocking.Load(), cancelled.Load())), nil
	})
	srv.AddTool(mcp.Tool{Name: "garbage"}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.ToolResult, error) {
		// One small Write each: a pipe write under 4 KiB is never
		// interleaved with Serve's frames.
		for _, line := range []string{
			"this is not JSON\n",
			`["a","JSON","array"]` + "\n",
			`{"jsonrpc":"2.0","id":987654321,"result":{}}` + "\n",
		} {
			if _, err := out.Write([]byte(line)); err != nil {
				return nil, err
			}
		}
		return mcp.TextResult("survived"), nil
	})
	srv.AddTool(mcp.Tool{Name: "closeout"}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.ToolResult, error) {
		out.Close()
		fmt.Fprintln(os.Stderr, "fixture: stdout closed")
		time.Sleep(time.Hour) // until the supervisor signals the process
		return nil, nil
	})
	srv.AddTool(mcp.Tool{Name: "crash"}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.ToolResult, error) {
		var args struct{ Code int }
		_ = json.Unmarshal(req.Arguments, &args)
		os.Exit(args.Code)
		return nil, nil
	})
	srv.AddTool(mcp.Tool{Name: "pids"}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.ToolResult, error) {
		return mcp.TextResult(fmt.Sprintf(`{"pid":%d,"grandchild":%d}`, os.Getpid(), grandchild)), nil
	})
	var cfg server.Config
	if n, err := strconv.Atoi(os.Getenv("FIXTURE_MAX_CONCURRENCY")); err == nil {
		cfg.MaxConcurrency = n
	}
	if n, err := strconv.Atoi(os.Getenv("FIXTURE_MAX_LINE")); err == nil {
		cfg.MaxLineBytes = n
	}
	if err := server.Serve(context.Background(), srv, os.Stdin, out, cfg); err != nil {
		fmt.Fprintln(os.Stderr, "fixture: serve:", err)
	}
	if os.Getenv("FIXTURE_IGNORE_EOF") == "1" {
		time.Sleep(time.Hour)
	}
	return 0
}

// runGrandchildFixture lives until it is signalled; it inherits the
// child's process group and stdout.
func runGrandchildFixture() int {
	time.Sleep(time.Hour)
	return 0
}

// envVars turns "KEY=value" settings into environment changes.
func envVars(kv ...string) []EnvVar {
	vars := make([]EnvVar, 0, len(kv))
	for _, s := range kv {
		k, v, _ := strings.Cut(s, "=")
		vars = append(vars, EnvVar{Name: k, Value: v})
	}
	return vars
}
