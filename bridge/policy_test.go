package bridge

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/mcpbridge/mcpbridge/internal/testkit"
	mcpbridgev1 "github.com/mcpbridge/mcpbridge/proto/mcpbridge/v1"
	"github.com/mcpbridge/mcpbridge/stdio/mcp"
	"github.com/mcpbridge/mcpbridge/stdio/server"
)

// The "policy" fixture is a server on the project's runtime with the
// tools pid (its process id), instance (pid/start time: pids are reused),
// env {name} (a variable's value, or "<unset>"), hold {ms} (counted as it
// starts; waits that long, or until cancelled, then answers its pid),
// secret (counted) and count {name} (how often a counted tool ran), and
// the resources
// test://public and test://private.
func init() { fixtures["policy"] = runPolicyFixture }

func runPolicyFixture() int {
	out, err := server.TakeStdout()
	if err != nil {
		return 2
	}
	if b, err := os.ReadFile(os.Getenv(policyStartDelay)); err == nil {
		if d, err := time.ParseDuration(strings.TrimSpace(string(b))); err == nil {
			time.Sleep(d) // a slow start: nothing read meanwhile
		}
	}
	srv, err := mcp.NewServer(mcp.Implementation{Name: "policy-fixture", Version: "1.0.0"}, mcp.Config{})
	if err != nil {
		return 2
	}
	pid := mcp.TextResult(strconv.Itoa(os.Getpid()))
	// A process's identity beyond its pid, which the system reuses.
	instance := mcp.TextResult(strconv.Itoa(os.Getpid()) + "/" + strconv.FormatInt(time.Now().UnixNano(), 36))
	srv.AddTool(mcp.Tool{Name: "pid"}, func(context.Context, *mcp.CallToolRequest) (*mcp.ToolResult, error) { return pid, nil })
	srv.AddTool(mcp.Tool{Name: "instance"}, func(context.Context, *mcp.CallToolRequest) (*mcp.ToolResult, error) { return instance, nil })
	srv.AddTool(mcp.Tool{Name: "env"}, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.ToolResult, error) {
		var args struct{ Name string }
		_ = json.Unmarshal(req.Arguments, &args)
		if v, ok := os.LookupEnv(args.Name); ok {
			return mcp.TextResult(v), nil
		}
		return mcp.TextResult("<unset>"), nil
	})
	// count {name}: how many times tool name ran in this process.
	var ranMu sync.Mutex
	ran := map[string]int{}
	counted := func(name string) {
		ranMu.Lock()
		ran[name]++
		ranMu.Unlock()
	}
	srv.AddTool(mcp.Tool{Name: "count"}, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.ToolResult, error) {
		var args struct{ Name string }
		_ = json.Unmarshal(req.Arguments, &args)
		ranMu.Lock()
		defer ranMu.Unlock()
		return mcp.TextResult(strconv.Itoa(ran[args.Name])), nil
	})
	srv.AddTool(mcp.Tool{Name: "secret"}, func(context.Context, *mcp.CallToolRequest) (*mcp.ToolResult, error) {
		counted("secret")
		return mcp.TextResult("the secret"), nil
	})
	srv.AddResource(mcp.Resource{URI: "test://public", Name: "public"}, mcp.TextResource("public"))
	srv.AddResource(mcp.Resource{URI: "test://private", Name: "private"}, mcp.TextResource("private"))
	srv.AddTool(mcp.Tool{Name: "hold"}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.ToolResult, error) {
		var args struct{ MS int }
		_ = json.Unmarshal(req.Arguments, &args)
		counted("hold")
		t := time.NewTimer(time.Duration(args.MS) * time.Millisecond)
		defer t.Stop()
		select {
		case <-t.C:
		case <-ctx.Done():
		}
		return pid, nil
	})
	if err := server.Serve(context.Background(), srv, os.Stdin, out, server.Config{}); err != nil {
		return 1
	}
	return 0
}

// policyStartDelay names a file: while it holds a duration, the policy
// fixture waits that long at its start before it reads anything.
const policyStartDelay = "POLICY_START_DELAY"

// policyServer fronts the policy fixture under a policy.
func policyServer(tb testing.TB, name string, p Policy) ServerConfig {
	sc := fixtureServer(tb, name, "policy")
	sc.Policy = p
	return sc
}

// toolPid calls a tool of the policy fixture that answers a pid.
func toolPid(ctx context.Context, bc mcpbridgev1.BridgeServiceClient, server, tool, args string) (int, error) {
	res, err := bc.CallTool(ctx, &mcpbridgev1.CallToolRequest{Server: server, Name: tool, Arguments: argsStruct(args)})
	if err != nil {
		return 0, err
	}
	return strconv.Atoi(res.GetContent()[0].GetText().GetText())
}

func argsStruct(args string) *structpb.Struct {
	if args == "" {
		return nil
	}
	st := &structpb.Struct{}
	if err := st.UnmarshalJSON([]byte(args)); err != nil {
		panic(err)
	}
	return st
}

// TestPoolSpreadsCalls: four calls in flight at once on a pool of four go
// to four different children.
func TestPoolSpreadsCalls(t *testing.T) {
	t.Parallel()
	sc := policyServer(t, "p", PolicyPool)
	sc.Pool = PoolConfig{Min: 4}
	b := startStreamsBridge(t, sc)
	ctx := testCtx(t)
	waitChildren(ctx, t, b.client, "p", 4)
	pids := make(chan int, 4)
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			pid, err := toolPid(ctx, b.client, "p", "hold", `{"ms":300}`)
			if err != nil {
				t.Error(err)
			}
			pids <- pid
		})
	}
	wg.Wait()
	close(pids)
	seen := map[int]bool{}
	for pid := range pids {
		seen[pid] = true
	}
	if len(seen) != 4 {
		t.Errorf("4 concurrent calls ran on %d children, want 4: %v", len(seen), seen)
	}
}

// waitChildren waits until server has n children, all READY, and returns
// their pids.
func waitChildren(ctx context.Context, t *testing.T, bc mcpbridgev1.BridgeServiceClient, server string, n int) []int {
	t.Helper()
	var pids []int
	settle(ctx, t, func() error {
		var all int
		pids, all = readyPids(ctx, bc, server)
		if len(pids) != n || all != n {
			return fmt.Errorf("%d of %d children ready, want %d", len(pids), all, n)
		}
		return nil
	})
	return pids
}

// TestPoolSurvivesAKill: under load from 16 callers, SIGKILL one child of
// a pool of four. Only calls on that child fail (UNAVAILABLE, naming its
// pid); every call on the other three succeeds; the pool replaces it.
func TestPoolSurvivesAKill(t *testing.T) {
	t.Parallel()
	sc := policyServer(t, "p", PolicyPool)
	sc.Pool = PoolConfig{Min: 4}
	b := startStreamsBridge(t, sc)
	ctx := testCtx(t)
	pids := waitChildren(ctx, t, b.client, "p", 4)
	victim := pids[0]
	loadCtx, stopLoad := context.WithCancel(ctx)
	var ok, failed atomic.Int64
	var wrong atomic.Value
	var wg sync.WaitGroup
	for range 16 {
		wg.Go(func() {
			for loadCtx.Err() == nil {
				_, err := toolPid(loadCtx, b.client, "p", "hold", `{"ms":20}`)
				switch {
				case err == nil:
					ok.Add(1)
				case loadCtx.Err() != nil:
				case status.Code(err) == codes.Unavailable && errorPid(err) == victim:
					failed.Add(1)
				default:
					wrong.Store(err.Error())
				}
			}
		})
	}
	atLeast(ctx, t, &ok, 200) // under load before the kill
	if victim <= 0 {
		t.Fatal("no victim pid")
	}
	if err := syscall.Kill(victim, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	// The pool replaces the child; the load goes on meanwhile.
	settle(ctx, t, func() error {
		now, _ := readyPids(ctx, b.client, "p")
		if len(now) != 4 || slices.Contains(now, victim) {
			return fmt.Errorf("children %v, want 4 without %d", now, victim)
		}
		return nil
	})
	atLeast(ctx, t, &ok, ok.Load()+200) // the load goes on after the kill
	stopLoad()
	wg.Wait()
	if w := wrong.Load(); w != nil {
		t.Errorf("a call failed that did not run on the killed child: %v", w)
	}
	t.Logf("%d calls succeeded; %d in flight on the killed child failed", ok.Load(), failed.Load())
	if failed.Load() > 16 {
		t.Errorf("%d calls failed, more than the 16 callers could have had on the killed child", failed.Load())
	}
}

// atLeast waits until counter reaches n, polled as settle does.
func atLeast(ctx context.Context, t *testing.T, counter *atomic.Int64, n int64) {
	t.Helper()
	settle(ctx, t, func() error {
		if got := counter.Load(); got < n {
			return fmt.Errorf("%d calls, want at least %d", got, n)
		}
		return nil
	})
}

// readyPids returns the pids of the server's READY children, and how many
// children it has.
func readyPids(ctx context.Context, bc mcpbridgev1.BridgeServiceClient, server string) (pids []int, all int) {
	resp, err := bc.GetServer(ctx, &mcpbridgev1.GetServerRequest{Server: server})
	if err != nil {
		return nil, 0
	}
	for _, c := range resp.GetChildren() {
		if c.GetState() == mcpbridgev1.ChildState_CHILD_STATE_READY {
			pids = append(pids, int(c.GetPid()))
		}
	}
	return pids, len(resp.GetChildren())
}

// errorPid is the pid in a status's ErrorInfo, 0 without one.
func errorPid(err error) int {
	st, _ := status.FromError(err)
	for _, d := range st.Details() {
		if info, ok := d.(*errdetails.ErrorInfo); ok {
			pid, _ := strconv.Atoi(info.GetMetadata()["pid"])
			return pid
		}
	}
	return 0
}

// withSession is ctx with the mcp-session metadata and more pairs.
func withSession(ctx context.Context, session string, kv ...string) context.Context {
	return metadata.AppendToOutgoingContext(ctx, append([]string{SessionMetadataKey, session}, kv...)...)
}

// TestSessionEnvIsPrivate: each session's child gets its own value from
// the allow-listed metadata, and no child gets the bridge's own
// environment beyond BaseEnv.
func TestSessionEnvIsPrivate(t *testing.T) {
	t.Setenv("MCPBRIDGE_TEST_BRIDGE_SECRET", "s3cret")
	sc := policyServer(t, "s", PolicySession)
	sc.Session.EnvFromMetadata = map[string]string{"USER_TOKEN": "x-user-token"}
	b := startStreamsBridge(t, sc)
	ctx := testCtx(t)
	envOf := func(ctx context.Context, name string) string {
		res, err := b.client.CallTool(ctx, &mcpbridgev1.CallToolRequest{Server: "s", Name: "env", Arguments: argsStruct(`{"name":"` + name + `"}`)})
		if err != nil {
			t.Fatalf("env %s: %v", name, err)
		}
		return res.GetContent()[0].GetText().GetText()
	}
	alice := withSession(ctx, "alice-0001", "x-user-token", "token-a")
	bob := withSession(ctx, "bob-0002", "x-user-token", "token-b")
	anon := withSession(ctx, "anon-0003")
	for _, c := range []struct {
		ctx        context.Context
		name, want string
	}{
		{alice, "USER_TOKEN", "token-a"},
		{bob, "USER_TOKEN", "token-b"},
		{anon, "USER_TOKEN", "<unset>"},
		{alice, "MCPBRIDGE_TEST_BRIDGE_SECRET", "<unset>"},
		// A later request cannot change a running session's environment.
		{withSession(ctx, "alice-0001", "x-user-token", "token-x"), "USER_TOKEN", "token-a"},
	} {
		if got := envOf(c.ctx, c.name); got != c.want {
			t.Errorf("%s = %q, want %q", c.name, got, c.want)
		}
	}
	if got := envOf(alice, "PATH"); got == "<unset>" {
		t.Errorf("PATH is unset in the child; BaseEnv passes it")
	}
	// A request without a session is refused.
	_, err := b.client.CallTool(ctx, &mcpbridgev1.CallToolRequest{Server: "s", Name: "pid"})
	if status.Code(err) != codes.InvalidArgument {
		t.Errorf("a call without mcp-session = %v, want INVALID_ARGUMENT", err)
	}
	resp, err := b.client.ListServers(ctx, &mcpbridgev1.ListServersRequest{})
	if err != nil || len(resp.GetServers()) != 1 || len(resp.GetServers()[0].GetChildren()) != 3 {
		t.Fatalf("ListServers = %v, %v; want one server with 3 session children", resp, err)
	}
	for _, c := range resp.GetServers()[0].GetChildren() {
		if len(c.GetSession()) != 12 || c.GetSession() == "alice-0001" {
			t.Errorf("child session = %q, want a 12-digit digest", c.GetSession())
		}
	}
}

// TestSessionsIdleOut: 200 sessions, each a child of its own, are created
// (at most 20 at a time), idle out and are stopped: no child process,
// goroutine or file descriptor is left.
func TestSessionsIdleOut(t *testing.T) {
	sc := policyServer(t, "s", PolicySession)
	sc.Session = SessionConfig{IdleTimeout: time.Second, Max: 250}
	b := startStreamsBridge(t, sc)
	ctx := testCtx(t)
	// A first session settles the bridge's own goroutines and fds.
	if _, err := toolPid(withSession(ctx, "warm-up"), b.client, "s", "pid", ""); err != nil {
		t.Fatal(err)
	}
	waitNoChildren(ctx, t, b.client)
	goroutines, fds := runtime.NumGoroutine(), openFDs(t)
	var mu sync.Mutex
	instances := map[string]bool{}
	pidfds := map[int]int{} // pid → pidfd: pids are reused
	sem := make(chan struct{}, 20)
	var wg sync.WaitGroup
	for i := range 200 {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			res, err := b.client.CallTool(withSession(ctx, fmt.Sprintf("session-%03d", i)), &mcpbridgev1.CallToolRequest{Server: "s", Name: "instance"})
			if err != nil {
				t.Error(err)
				return
			}
			id := res.GetContent()[0].GetText().GetText()
			pid, _ := strconv.Atoi(strings.Split(id, "/")[0])
			fd, err := unix.PidfdOpen(pid, 0) // alive: its session is not idle yet
			if err != nil {
				t.Errorf("pidfd_open(%d): %v", pid, err)
				return
			}
			mu.Lock()
			instances[id], pidfds[pid] = true, fd
			mu.Unlock()
		})
	}
	wg.Wait()
	if len(instances) != 200 {
		t.Fatalf("200 sessions ran on %d children", len(instances))
	}
	waitNoChildren(ctx, t, b.client)
	for pid, fd := range pidfds {
		if !testkit.Exited(t, fd, 10*time.Second) {
			t.Errorf("child %d of an idled-out session is still running", pid)
		}
		unix.Close(fd)
	}
	settle(ctx, t, func() error {
		if g, f := runtime.NumGoroutine(), openFDs(t); g > goroutines+2 || f > fds {
			return fmt.Errorf("goroutines %d (before %d), fds %d (before %d)", g, goroutines, f, fds)
		}
		return nil
	})
}

// waitNoChildren waits until ListServers shows no child.
func waitNoChildren(ctx context.Context, t *testing.T, bc mcpbridgev1.BridgeServiceClient) {
	t.Helper()
	settle(ctx, t, func() error {
		resp, err := bc.ListServers(ctx, &mcpbridgev1.ListServersRequest{})
		if err != nil {
			return err
		}
		for _, s := range resp.GetServers() {
			if n := len(s.GetChildren()); n > 0 {
				return fmt.Errorf("server %q still has %d children", s.GetName(), n)
			}
		}
		return nil
	})
}

// TestSessionLimit: beyond Session.Max sessions a new one is refused with
// RESOURCE_EXHAUSTED and RetryInfo; an existing one still works.
func TestSessionLimit(t *testing.T) {
	t.Parallel()
	sc := policyServer(t, "s", PolicySession)
	sc.Session.Max = 2
	b := startStreamsBridge(t, sc)
	ctx := testCtx(t)
	for _, s := range []string{"one-000000", "two-000000"} {
		if _, err := toolPid(withSession(ctx, s), b.client, "s", "pid", ""); err != nil {
			t.Fatal(err)
		}
	}
	_, err := toolPid(withSession(ctx, "three-0000"), b.client, "s", "pid", "")
	st, _ := status.FromError(err)
	retry := false
	for _, d := range st.Details() {
		_, ok := d.(*errdetails.RetryInfo)
		retry = retry || ok
	}
	if st.Code() != codes.ResourceExhausted || !retry {
		t.Errorf("a third session = %v, want RESOURCE_EXHAUSTED with RetryInfo", err)
	}
	if _, err := toolPid(withSession(ctx, "one-000000"), b.client, "s", "pid", ""); err != nil {
		t.Errorf("an open session after the refusal: %v", err)
	}
}

// TestReload: a reload adds, changes and removes servers while calls to an
// unchanged server go on without an error on the same child.
func TestReload(t *testing.T) {
	t.Parallel()
	keep := policyServer(t, "keep", PolicyShared)
	gone := policyServer(t, "gone", PolicyShared)
	changed := policyServer(t, "changed", PolicyPool)
	changed.Pool.Min = 1
	b := startStreamsBridge(t, keep, gone, changed)
	ctx := testCtx(t)
	keepPid, err := toolPid(ctx, b.client, "keep", "pid", "")
	if err != nil {
		t.Fatal(err)
	}
	loadCtx, stopLoad := context.WithCancel(ctx)
	var calls atomic.Int64
	errs := make(chan error, 1)
	go func() {
		defer close(errs)
		for loadCtx.Err() == nil {
			pid, err := toolPid(loadCtx, b.client, "keep", "pid", "")
			switch {
			case loadCtx.Err() != nil:
			case err != nil:
				errs <- err
				return
			case pid != keepPid:
				errs <- fmt.Errorf("keep answered from pid %d, not %d", pid, keepPid)
				return
			}
			calls.Add(1)
		}
	}()
	changed2 := changed
	changed2.Env = append(envVars("RELOAD_MARK=2"), changed.Env...)
	added := policyServer(t, "added", PolicyShared)
	if err := b.svc.Reload(Config{Servers: []ServerConfig{keep, changed2, added}, Logger: b.svc.cfg.Logger}); err != nil {
		t.Fatal(err)
	}
	res, err := b.client.CallTool(ctx, &mcpbridgev1.CallToolRequest{Server: "changed", Name: "env", Arguments: argsStruct(`{"name":"RELOAD_MARK"}`)})
	if err != nil || res.GetContent()[0].GetText().GetText() != "2" {
		t.Errorf("the changed server after reload = %v, %v; want its new environment", res, err)
	}
	if _, err := toolPid(ctx, b.client, "added", "pid", ""); err != nil {
		t.Errorf("the added server: %v", err)
	}
	if _, err := toolPid(ctx, b.client, "gone", "pid", ""); status.Code(err) != codes.InvalidArgument {
		t.Errorf("the removed server = %v, want INVALID_ARGUMENT (unknown server)", err)
	}
	// A bad configuration is refused and changes nothing.
	bad := Config{Servers: []ServerConfig{keep, {Name: "x"}}, Logger: b.svc.cfg.Logger}
	if err := b.svc.Reload(bad); err == nil {
		t.Error("Reload accepted a server without a command")
	}
	if _, err := toolPid(ctx, b.client, "added", "pid", ""); err != nil {
		t.Errorf("after a refused reload: %v", err)
	}
	atLeast(ctx, t, &calls, calls.Load()+20)
	stopLoad()
	if err := <-errs; err != nil {
		t.Errorf("a call to the unchanged server failed during the reload: %v", err)
	}
	t.Logf("%d calls to the unchanged server during the test", calls.Load())
}

// TestUnexecutableServerFailsAlone: a server whose command does not exist
// is FAILED at once, with the exec error in GetServer, while the other
// server serves.
func TestUnexecutableServerFailsAlone(t *testing.T) {
	t.Parallel()
	missing := ServerConfig{Name: "missing", Command: "/nonexistent/mcp-server"}
	b := startStreamsBridge(t, policyServer(t, "ok", PolicyShared), missing)
	ctx := testCtx(t)
	if _, err := toolPid(ctx, b.client, "ok", "pid", ""); err != nil {
		t.Fatal(err)
	}
	settle(ctx, t, func() error {
		resp, err := b.client.GetServer(ctx, &mcpbridgev1.GetServerRequest{Server: "missing"})
		if err != nil {
			return err
		}
		if c := resp.GetChild(); c.GetState() != mcpbridgev1.ChildState_CHILD_STATE_FAILED || !strings.Contains(c.GetLastExit(), "Executable not found") || c.GetRestarts() != 0 {
			return fmt.Errorf("missing server's child = %v, want FAILED after no restart, with the exec error", c)
		}
		return nil
	})
	_, err := toolPid(ctx, b.client, "missing", "pid", "")
	if status.Code(err) != codes.Unavailable {
		t.Errorf("a call to the failed server = %v, want UNAVAILABLE", err)
	}
}

// TestSessionConnectWithoutSession: a Connect stream to a session server
// that names no session gets a child of its own, which another stream
// does not share and which stops when the stream ends.
func TestSessionConnectWithoutSession(t *testing.T) {
	t.Parallel()
	b := startStreamsBridge(t, policyServer(t, "s", PolicySession))
	ctx := testCtx(t)
	pidOf := func(tun *tunnelConn) string {
		tun.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":` + testkit.WithModernMeta(`{"name":"pid"}`) + `}`)
		_, text := tun.response("1", nil)
		return text
	}
	one, two := b.connect(ctx, t, "s"), b.connect(ctx, t, "s")
	if a, c := pidOf(one), pidOf(two); a == c {
		t.Errorf("two Connect streams without a session share a child: %s", a)
	}
	resp, err := b.client.GetServer(ctx, &mcpbridgev1.GetServerRequest{Server: "s"})
	if err != nil || len(resp.GetChildren()) != 2 {
		t.Fatalf("GetServer = %v, %v; want the two streams' children", resp, err)
	}
	if _, err := one.closeAndDrain(); err != nil {
		t.Fatal(err)
	}
	if _, err := two.closeAndDrain(); err != nil {
		t.Fatal(err)
	}
	waitNoChildren(ctx, t, b.client)
}
