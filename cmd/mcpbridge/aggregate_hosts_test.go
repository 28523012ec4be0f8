//go:build linux

package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/internal/testkit"
)

// The official SDK clients as hosts of an aggregate (docs/aggregation.md,
// "Hosts"): "all" merges the demo (its tunnels shared, so that its child's
// death ends the member's session) and server-everything, both prefixed.
// Each host, at /mcp/all and through `mcpbridge connect --server all`,
// lists the merged tools, calls a tool of each member, gets progress,
// cancels a call, answers an elicitation from each member, gets a
// subscription's update, kills the demo's child (everything keeps
// answering, list_changed arrives, the demo comes back), and sees a member
// that a reload adds.

// aggregateHosts is the bridge the hosts use and how to reload it.
type aggregateHosts struct {
	b    *bridgeProcess
	path string
	argv []string // server-everything
}

func (a *aggregateHosts) config(withDemo2 bool) string {
	demo := yamlList([]string{mcpbridgeBin, "demo", "-tick", "200ms"})
	members, demo2 := "[demo, everything]", ""
	if withDemo2 {
		members = "[demo, everything, demo2]"
		demo2 = "  - name: demo2\n    command: " + demo + "\n"
	}
	return fmt.Sprintf(`servers:
  - name: demo
    command: %s
    tunnel: shared
  - name: everything
    command: %s
%s  - name: all
    aggregate:
      servers: %s
`, demo, yamlList(a.argv), demo2, members)
}

func startAggregateHosts(t *testing.T) *aggregateHosts {
	a := &aggregateHosts{argv: testkit.ServerEverything(t)}
	a.path = writeConfig(t, "", a.config(false))
	a.b = startBridge(t, nil, "--http-listen", "127.0.0.1:0", "--config", a.path)
	return a
}

// reload writes the configuration with or without demo2 and reloads the
// bridge, waiting for it to say so.
func (a *aggregateHosts) reload(t *testing.T, withDemo2 bool) {
	t.Helper()
	n := strings.Count(a.b.log.String(), "configuration reloaded")
	writeConfig(t, a.path, a.config(withDemo2))
	if err := a.b.cmd.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), testTimeout)
	defer cancel()
	a.b.log.WaitCount(ctx, t, n+1, "configuration reloaded")
}

// paths are where a host reaches the aggregate: an URL or a command.
func (a *aggregateHosts) paths(t *testing.T) []struct {
	name string
	argv []string
} {
	return []struct {
		name string
		argv []string
	}{
		{"/mcp", []string{"http://" + httpAddr(t, a.b) + "/mcp/all"}},
		{"connect", []string{mcpbridgeBin, "connect", "--addr", a.b.addr, "--server", "all"}},
	}
}

// aggregateHostOps are the operations every host run must report, in
// order.
var aggregateHostOps = []string{
	"tools/list", "tools/call demo_echo", "tools/call everything_echo", "tools/call demo_progress with progress",
	"tools/call cancelled", "tools/call after the cancellation", "elicitation from demo", "elicitation from everything",
	"notifications/resources/updated", "a member killed", "the killed member back", "a member added by a reload",
}

func TestAggregateHostsTypeScript(t *testing.T) {
	script := hostScript(t)
	a := startAggregateHosts(t)
	for _, p := range a.paths(t) {
		t.Run(p.name, func(t *testing.T) {
			defer a.reload(t, false)
			ctx, cancel := context.WithTimeout(t.Context(), 3*testTimeout)
			defer cancel()
			cmd := exec.CommandContext(ctx, script[0], append([]string{filepath.Join(filepath.Dir(script[1]), "aggregate-host.mjs")}, p.argv...)...)
			stderr := &testkit.SyncBuffer{}
			cmd.Stderr = stderr
			stdin, err := cmd.StdinPipe()
			if err != nil {
				t.Fatal(err)
			}
			stdout, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			var ops []string
			sc := bufio.NewScanner(stdout)
			sc.Buffer(make([]byte, 1<<20), 1<<20)
			for sc.Scan() {
				var line hostLine
				if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
					t.Fatalf("aggregate-host.mjs printed %q: %v", sc.Bytes(), err)
				}
				if line.Op == "reload" {
					a.reload(t, true)
					io.WriteString(stdin, "reloaded\n")
					continue
				}
				ops = append(ops, line.Op)
				if line.Check != "" {
					t.Errorf("%s: %s; the host got %s", line.Op, line.Check, line.Result)
				}
			}
			if err := cmd.Wait(); err != nil {
				t.Errorf("aggregate-host.mjs: %v\n%s", err, stderr)
			}
			if !slices.Equal(ops[1:], aggregateHostOps) {
				t.Errorf("the host reported %q, want initialize/serverInfo then %q", ops, aggregateHostOps)
			}
		})
	}
}

func TestAggregateHostsGoSDK(t *testing.T) {
	a := startAggregateHosts(t)
	for _, v := range goHostVersions {
		for _, p := range a.paths(t) {
			t.Run(v.name+p.name, func(t *testing.T) {
				defer a.reload(t, false)
				ops := runGoAggregateHost(t, a, p.argv, v.version)
				if !slices.Equal(ops, aggregateHostOps) {
					t.Errorf("the host did %q, want %q", ops, aggregateHostOps)
				}
			})
		}
	}
}

// runGoAggregateHost is aggregate-host.mjs's scenario with the Go SDK
// client, at protocol version (empty: the SDK's latest). Each operation
// that goes wrong is an error of t; it returns the operations it did.
func runGoAggregateHost(t *testing.T, a *aggregateHosts, argv []string, version string) []string {
	ctx, cancel := context.WithTimeout(t.Context(), 3*testTimeout)
	defer cancel()
	var ops []string
	check := func(op string, ok bool, format string, args ...any) {
		ops = append(ops, op)
		if !ok {
			t.Errorf("%s: %s", op, fmt.Sprintf(format, args...))
		}
	}
	progress := newInbox[*sdk.ProgressNotificationParams]()
	updated := newInbox[string]()
	elicits := newInbox[*sdk.ElicitParams]()
	changed := newInbox[int]()
	client := sdk.NewClient(&sdk.Implementation{Name: "mcpbridge-aggregate-host", Version: "1.0.0"}, &sdk.ClientOptions{
		ElicitationHandler: func(_ context.Context, req *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
			elicits.add(req.Params)
			content := map[string]any{"name": "Ada Lovelace", "check": true, "integer": 42}
			if s, ok := req.Params.RequestedSchema.(map[string]any); ok {
				if props, _ := s["properties"].(map[string]any); props["answer"] != nil {
					content = map[string]any{"answer": "Ada"}
				}
			}
			return &sdk.ElicitResult{Action: "accept", Content: content}, nil
		},
		ProgressNotificationHandler: func(_ context.Context, req *sdk.ProgressNotificationClientRequest) { progress.add(req.Params) },
		ResourceUpdatedHandler:      func(_ context.Context, req *sdk.ResourceUpdatedNotificationRequest) { updated.add(req.Params.URI) },
		ToolListChangedHandler:      func(context.Context, *sdk.ToolListChangedRequest) { changed.add(1) },
	})
	var cs *sdk.ClientSession
	if strings.HasPrefix(argv[0], "http") {
		var err error
		cs, err = client.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: argv[0]}, &sdk.ClientSessionOptions{ProtocolVersion: version})
		if err != nil {
			t.Fatalf("the Go SDK client at %s: %v", argv[0], err)
		}
		t.Cleanup(func() { _ = cs.Close() })
	} else {
		cs = connectGoHost(ctx, t, client, argv, version)
	}
	call := func(name string, args map[string]any, meta sdk.Meta) (*sdk.CallToolResult, error) {
		p := &sdk.CallToolParams{Name: name, Arguments: args}
		if meta != nil {
			p.Meta = meta
		}
		return cs.CallTool(ctx, p)
	}
	toolNames := func() []string {
		var names []string
		for tool, err := range cs.Tools(ctx, nil) {
			if err != nil {
				t.Errorf("tools/list: %v", err)
				break
			}
			names = append(names, tool.Name)
		}
		return names
	}

	names := toolNames()
	want := []string{"demo_echo", "demo_progress", "everything_echo", "everything_trigger-long-running-operation"}
	check("tools/list", !slices.Contains(names, "echo") && func() bool {
		for _, w := range want {
			if !slices.Contains(names, w) {
				return false
			}
		}
		return true
	}(), "%q, want %q and no unprefixed name", names, want)

	res, err := call("demo_echo", map[string]any{"message": "to demo"}, nil)
	check("tools/call demo_echo", err == nil && sdkText(res) == "to demo", "%s, %v", hostJSON(res), err)
	res, err = call("everything_echo", map[string]any{"message": "to everything"}, nil)
	check("tools/call everything_echo", err == nil && sdkText(res) == "Echo: to everything", "%s, %v", hostJSON(res), err)

	res, err = call("demo_progress", map[string]any{"seconds": 0.3, "steps": 3}, sdk.Meta{"progressToken": "progress-1"})
	reports, werr := progress.wait(ctx, 3, func(p *sdk.ProgressNotificationParams) bool { return p.ProgressToken == "progress-1" })
	check("tools/call demo_progress with progress", err == nil && werr == nil, "%s, %v; reports %s (%v)", hostJSON(res), err, hostJSON(reports), werr)

	callCtx, cancelCall := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() {
		_, err := cs.CallTool(callCtx, &sdk.CallToolParams{Name: "everything_trigger-long-running-operation",
			Arguments: map[string]any{"duration": 60, "steps": 120}, Meta: sdk.Meta{"progressToken": "cancel-1"}})
		done <- err
	}()
	_, werr = progress.wait(ctx, 1, func(p *sdk.ProgressNotificationParams) bool { return p.ProgressToken == "cancel-1" })
	cancelCall()
	select {
	case err = <-done:
	case <-time.After(waitLimit):
		err = errors.New("(the cancelled call did not return)")
	}
	check("tools/call cancelled", werr == nil && errors.Is(err, context.Canceled), "first report %v; returned %v", werr, err)
	res, err = call("everything_echo", map[string]any{"message": "after"}, nil)
	check("tools/call after the cancellation", err == nil && sdkText(res) == "Echo: after", "%s, %v", hostJSON(res), err)

	res, err = call("demo_ask", map[string]any{"question": "Your name?"}, nil)
	check("elicitation from demo", err == nil && strings.Contains(sdkText(res), "Ada") && len(elicits.items) == 1, "%s, %v; %d elicitations", hostJSON(res), err, len(elicits.items))
	res, err = call("everything_trigger-elicitation-request", map[string]any{}, nil)
	check("elicitation from everything", err == nil && !res.IsError && len(elicits.items) == 2, "%s, %v; %d elicitations", hostJSON(res), err, len(elicits.items))

	err = cs.Subscribe(ctx, &sdk.SubscribeParams{URI: "demo://counter"})
	got, werr := updated.wait(ctx, 1, func(uri string) bool { return uri == "demo://counter" })
	check("notifications/resources/updated", err == nil && werr == nil, "subscribe: %v; updates %q (%v)", err, got, werr)
	if err == nil {
		_ = cs.Unsubscribe(ctx, &sdk.UnsubscribeParams{URI: "demo://counter"})
	}

	before := len(changed.items)
	_, _ = call("demo_exit", map[string]any{"code": 3}, nil)
	_, werr = changed.wait(ctx, before+1, func(int) bool { return true })
	res, err = call("everything_echo", map[string]any{"message": "still here"}, nil)
	check("a member killed", werr == nil && err == nil && sdkText(res) == "Echo: still here", "list_changed %v; everything_echo %s, %v", werr, hostJSON(res), err)
	back := false
	for i := 0; i < 100 && !back; i++ {
		res, err = call("demo_echo", map[string]any{"message": "back"}, nil)
		if back = err == nil && sdkText(res) == "back"; !back {
			time.Sleep(200 * time.Millisecond)
		}
	}
	check("the killed member back", back, "demo_echo never answered again: %s, %v", hostJSON(res), err)

	before = len(changed.items)
	a.reload(t, true)
	_, werr = changed.wait(ctx, before+1, func(int) bool { return true })
	names = toolNames()
	res, err = call("demo2_echo", map[string]any{"message": "to demo2"}, nil)
	check("a member added by a reload", werr == nil && slices.Contains(names, "demo2_echo") && err == nil && sdkText(res) == "to demo2",
		"list_changed %v; listed %v; demo2_echo %s, %v", werr, slices.Contains(names, "demo2_echo"), hostJSON(res), err)
	return ops
}
