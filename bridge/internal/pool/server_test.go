package pool

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/mcpbridge/mcpbridge/bridge/access"
	"github.com/mcpbridge/mcpbridge/bridge/internal/door"
	"github.com/mcpbridge/mcpbridge/bridge/internal/supervisor"
	"github.com/mcpbridge/mcpbridge/internal/protocol"
	"github.com/mcpbridge/mcpbridge/internal/testkit"
	mcpbridgev1 "github.com/mcpbridge/mcpbridge/proto/mcpbridge/v1"
	"github.com/mcpbridge/mcpbridge/stdio/jsonrpc"
)

// details are a status's ErrorInfo and RetryInfo delay (0 without one).
func details(err error) (*errdetails.ErrorInfo, time.Duration) {
	var info *errdetails.ErrorInfo
	var retry time.Duration
	for _, d := range status.Convert(err).Details() {
		switch d := d.(type) {
		case *errdetails.ErrorInfo:
			info = d
		case *errdetails.RetryInfo:
			retry = d.GetRetryDelay().AsDuration()
		}
	}
	return info, retry
}

// wantStatus checks err's code and that its message holds part.
func wantStatus(t *testing.T, err error, code codes.Code, part string) {
	t.Helper()
	st := status.Convert(err)
	if err == nil || st.Code() != code || !strings.Contains(st.Message(), part) {
		t.Errorf("error = %v, want %v with %q", err, code, part)
	}
}

// done waits, within wait, until process c has been reaped.
func done(t *testing.T, c *Process) {
	t.Helper()
	select {
	case <-c.Done():
	case <-time.After(wait):
		t.Fatalf("child %d still running after %v", c.Pid(), wait)
	}
}

// TestSharedServer: a shared server's one child serves every caller; it
// is healthy once ready; its stderr goes to the log line by line with its
// pid (a logfmt record as fields) and, when exposed, into GetServer's
// answer with what the child negotiated; stopped, its child is gone and
// a request finds the server being removed.
func TestSharedServer(t *testing.T) {
	sc := fixtureConfig(t, "shared", func(sc *ServerConfig) {
		sc.ExposeStderr, sc.AuditPayloads, sc.Limits = true, true, door.Limits{Concurrent: 3}
	})
	s := start(t, sc)
	ctx := ctxWait(t)
	c, err := s.Acquire(ctx, "CallTool")
	if err != nil {
		t.Fatal(err)
	}
	if got := toolText(t, c, "pid", "{}"); got != strconv.Itoa(c.Pid()) {
		t.Errorf("the tool ran in process %s, not the child %d", got, c.Pid())
	}
	if again, err := s.Acquire(ctx, "ReadResource"); err != nil || again != c {
		t.Errorf("a second request got %v, %v; want the same child", again, err)
	}
	if c.Private() {
		t.Errorf("the shared child is private")
	}
	s.health.WaitFor(ctx, t, "shared true")
	if dv := s.Door(); s.Name() != "shared" || s.Config() != sc || dv.Name != "shared" || !dv.AuditPayloads || dv.Limiter == nil {
		t.Errorf("the door's view of the server: %+v", dv)
	}
	if r := s.Relays(); len(r) != 1 || r[0] != c.Relay {
		t.Errorf("Relays = %v, want the child's", r)
	}
	s.log.WaitFor(ctx, t, "mcpbridge: server stderr", fmt.Sprintf("pid=%d", c.Pid()), fmt.Sprintf("line=pool child %d starting", c.Pid()))
	s.log.WaitFor(ctx, t, "mcpbridge: server stderr", "fixture up", "tools=3")
	s.log.WaitFor(ctx, t, "mcpbridge: server connected", "protocol="+protocol.Version20260728)

	resp := s.Describe("")
	if resp.GetName() != "shared" || resp.GetPolicy() != mcpbridgev1.ServerPolicy_SERVER_POLICY_SHARED || len(resp.GetChildren()) != 1 {
		t.Fatalf("Describe = %v", resp)
	}
	ch := resp.GetChild()
	if ch.GetState() != mcpbridgev1.ChildState_CHILD_STATE_READY || ch.GetPid() != int32(c.Pid()) || ch.GetStartedAt() == nil || ch.GetSession() != "" {
		t.Errorf("the child: %v", ch)
	}
	if tail := strings.Join(ch.GetStderrTail(), "\n"); !strings.Contains(tail, fmt.Sprintf("pool child %d starting", c.Pid())) {
		t.Errorf("stderr tail = %q, want the child's lines (ExposeStderr)", tail)
	}
	if resp.GetProtocolVersion() != c.Protocol() || resp.GetServerInfo().GetFields()["name"].GetStringValue() != "pool-child" ||
		resp.GetCapabilities().GetFields()["tools"] == nil {
		t.Errorf("negotiated: %q %v %v", resp.GetProtocolVersion(), resp.GetServerInfo(), resp.GetCapabilities())
	}
	if info := c.Info(); info.GetPid() != int32(c.Pid()) {
		t.Errorf("Info = %v", info)
	}

	s.Stop()
	done(t, c)
	s.health.WaitFor(ctx, t, "shared false")
	_, err = s.Acquire(ctx, "CallTool")
	wantStatus(t, err, codes.Unavailable, `The server "shared" is being removed`)
	if n := len(s.Children()); n != 0 {
		t.Errorf("%d children after Stop", n)
	}
}

// TestStderrHidden: without ExposeStderr, GetServer shows no stderr.
func TestStderrHidden(t *testing.T) {
	s := start(t, fixtureConfig(t, "hidden", nil))
	ctx := ctxWait(t)
	c, err := s.Acquire(ctx, "CallTool")
	if err != nil {
		t.Fatal(err)
	}
	s.log.WaitFor(ctx, t, "mcpbridge: server stderr", fmt.Sprintf("pool child %d starting", c.Pid()))
	if tail := s.Describe("").GetChild().GetStderrTail(); len(tail) != 0 {
		t.Errorf("stderr tail shown without ExposeStderr: %q", tail)
	}
}

// TestReapedChild: under the reaper (the default where reaper.Main runs),
// a child's process and the command it runs are gone once Stop returns.
func TestReapedChild(t *testing.T) {
	s := start(t, fixtureConfig(t, "reaped", func(sc *ServerConfig) { sc.DisableReaper = false }))
	c, err := s.Acquire(ctxWait(t), "CallTool")
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(toolText(t, c, "pid", "{}"))
	if err != nil {
		t.Fatal(err)
	}
	fd := testkit.Pidfd(t, pid)
	s.Stop()
	if !testkit.Exited(t, fd, wait) {
		t.Errorf("the command %d outlived Stop", pid)
	}
}

// TestRestartAndNext: a child that exits fails its call with RetryInfo
// and its pid while the supervisor restarts it; a child that keeps
// exiting leaves the server FAILED, which Next reports; once it starts
// again, Next gives the new process.
func TestRestartAndNext(t *testing.T) {
	die := filepath.Join(t.TempDir(), "die")
	s := start(t, fixtureConfig(t, "restart", func(sc *ServerConfig) {
		sc.RestartBackoff, sc.MaxRestartBackoff, sc.MaxRestarts = 10*time.Millisecond, 50*time.Millisecond, 1
	}, dieFileEnv+"="+die))
	ctx := ctxWait(t)
	c, err := s.Acquire(ctx, "CallTool")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(die, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = c.Call(ctx, "tools/call", json.RawMessage(`{"name":"exit","arguments":{"code":3}}`), nil)
	var je *jsonrpc.Error
	if !errors.As(err, &je) || je.Code != jsonrpc.CodeConnectionClosed {
		t.Fatalf("the call on a child that exits: %v, want -32000", err)
	}
	st := s.Failure(c, "CallTool", err)
	info, retry := details(st)
	if status.Code(st) != codes.Unavailable || retry <= 0 || info.GetMetadata()["pid"] != strconv.Itoa(c.Pid()) {
		t.Errorf("Failure = %v, RetryInfo %v, ErrorInfo %v; want UNAVAILABLE with a retry and the pid", st, retry, info)
	}
	_, err = s.Next(ctx, c, "CallTool")
	wantStatus(t, err, codes.Unavailable, "kept exiting")
	if _, retry := details(err); retry <= 0 {
		t.Errorf("FAILED without RetryInfo: %v", err)
	}
	s.log.WaitFor(ctx, t, "mcpbridge: server stderr", "line=dying")
	if ch := s.Describe("").GetChild(); ch.GetState() != mcpbridgev1.ChildState_CHILD_STATE_FAILED || ch.GetLastExit() != "exit status 3" {
		t.Errorf("GetServer's child: %v, want FAILED after exit status 3", ch)
	}
	if s.health.serving("restart") {
		t.Errorf("a FAILED server reported serving")
	}

	if err := os.Remove(die); err != nil {
		t.Fatal(err)
	}
	next, err := s.Next(ctx, c, "CallTool")
	if err != nil {
		// Next raced the start tried while FAILED; wait for it.
		waitState(t, s.Children()[0], supervisor.Ready)
		next, err = s.Next(ctx, c, "CallTool")
	}
	if err != nil || next == c || next.Pid() == c.Pid() {
		t.Fatalf("Next = %v, %v; want the new process", next, err)
	}
	if got := toolText(t, next, "pid", "{}"); got != strconv.Itoa(next.Pid()) {
		t.Errorf("the new process answered from %s", got)
	}
	if ch := s.Describe("").GetChild(); ch.GetRestarts() < 2 {
		t.Errorf("restarts = %d, want at least 2", ch.GetRestarts())
	}

	// Other failures are mapped as they are.
	wantStatus(t, s.Failure(next, "CallTool", jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "bad")), codes.InvalidArgument, "bad")
	st = s.Failure(nil, "CallTool", &jsonrpc.Error{Code: jsonrpc.CodeConnectionClosed, Message: "closed"})
	if _, retry := details(st); status.Code(st) != codes.Unavailable || retry != 0 {
		t.Errorf("Failure without a process = %v, retry %v", st, retry)
	}
	// Next while the caller gives up.
	gone, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := s.Next(gone, next, "CallTool"); status.Code(err) != codes.Canceled {
		t.Errorf("Next with a cancelled context = %v, want CANCELED", err)
	}
}

// TestCannotStart: a command that does not exist fails the server at
// once (no crash loop), and every request says so with RetryInfo; a
// private child of it is no refused handshake.
func TestCannotStart(t *testing.T) {
	s := start(t, fixtureConfig(t, "missing", func(sc *ServerConfig) { sc.Command = filepath.Join(t.TempDir(), "nope") }))
	ctx := ctxWait(t)
	_, err := s.Acquire(ctx, "CallTool")
	wantStatus(t, err, codes.Unavailable, "")
	if _, retry := details(err); retry <= 0 {
		t.Errorf("no RetryInfo: %v", err)
	}
	if st := s.Children()[0].Status(); st.State != supervisor.Failed || st.Restarts != 0 {
		t.Errorf("state %v after %d restarts, want FAILED at once", st.State, st.Restarts)
	}
	_, err = s.AcquirePrivate(ctx, "Connect", &Handshake{Version: protocol.Version20250618, Capabilities: []byte(`{}`), ClientInfo: []byte(`{}`)})
	if errors.Is(err, ErrRefusedHandshake) || status.Code(err) != codes.Unavailable {
		t.Errorf("AcquirePrivate = %v, want UNAVAILABLE", err)
	}
	if n := len(s.Children()); n != 1 {
		t.Errorf("%d children: the private child that failed was kept", n)
	}
}

// TestPoolPolicy: a pool starts Min children, sends each request to the
// least loaded ready one, grows by one (up to Max) when every ready child
// is busy, and stops children above Min once idle.
func TestPoolPolicy(t *testing.T) {
	s := start(t, fixtureConfig(t, "pool", func(sc *ServerConfig) {
		sc.Policy, sc.Pool = PolicyPool, PoolConfig{Min: 1, Max: 2, IdleTimeout: time.Hour}
	}))
	ctx := ctxWait(t)
	if n := len(s.Children()); n != 1 {
		t.Fatalf("%d children, want Min 1", n)
	}
	// (A request while no child is ready yet grows the pool too: wait.)
	waitState(t, s.Children()[0], supervisor.Ready)
	c1, err := s.Acquire(ctx, "CallTool")
	if err != nil || len(s.Children()) != 1 {
		t.Fatalf("Acquire = %v, %d children; want the ready child and no growth", err, len(s.Children()))
	}
	leave := c1.Relay.Enter(ctx) // c1 is busy
	if c, err := s.Acquire(ctx, "CallTool"); err != nil || c != c1 {
		t.Fatalf("with the only ready child busy: %v, %v; want it while the pool grows", c, err)
	}
	kids := s.Children()
	if len(kids) != 2 {
		t.Fatalf("%d children once every ready one was busy, want 2", len(kids))
	}
	s.log.WaitFor(ctx, t, "mcpbridge: pool grew", "children=2")
	waitState(t, kids[1], supervisor.Ready)
	c2, err := s.Acquire(ctx, "CallTool")
	if err != nil || c2 == c1 {
		t.Fatalf("with one child busy: %v, %v; want the idle one", c2, err)
	}
	busy := c2.Relay.Enter(ctx)
	if _, err := s.Acquire(ctx, "CallTool"); err != nil || len(s.Children()) != 2 {
		t.Errorf("at Max with both busy: %v, %d children; want no growth", err, len(s.Children()))
	}
	busy()
	leave()

	// A busy child above Min is never idle; an idle one is stopped.
	busy = c2.Relay.Enter(ctx)
	s.sweep(time.Now().Add(2 * time.Hour))
	if n := len(s.Children()); n != 2 {
		t.Errorf("a busy child was stopped as idle: %d children", n)
	}
	busy()
	s.sweep(time.Now().Add(2 * time.Hour))
	if kids := s.Children(); len(kids) != 1 || kids[0].Status().Child != c1 {
		t.Fatalf("after the sweep: %d children, want c1 only", len(kids))
	}
	done(t, c2)
	if !s.health.serving("pool") {
		t.Errorf("the pool is not serving with Min ready")
	}
	if resp := s.Describe(""); resp.GetPolicy() != mcpbridgev1.ServerPolicy_SERVER_POLICY_POOL || len(resp.GetChildren()) != 1 {
		t.Errorf("Describe = %v", resp)
	}
}

// sessionCtx is the context of a request of session name, with more
// metadata pairs, of principal p (nil: anonymous).
func sessionCtx(ctx context.Context, p *access.Principal, name string, kv ...string) context.Context {
	ctx = metadata.NewIncomingContext(ctx, metadata.Pairs(append([]string{SessionMetadataKey, name}, kv...)...))
	if p != nil {
		ctx = access.NewContext(ctx, p)
	}
	return ctx
}

// TestSessionPolicy: one child per session, started on its first request
// with the environment its metadata gives, kept for its next; sessions
// are a principal's own; the caps refuse a session beyond the server's
// Max and a principal's MaxPerPrincipal with RESOURCE_EXHAUSTED and
// RetryInfo; a control character in an environment value is refused;
// StopSession and the idle sweep stop a session's child.
func TestSessionPolicy(t *testing.T) {
	s := start(t, fixtureConfig(t, "sess", func(sc *ServerConfig) {
		sc.Policy = PolicySession
		sc.Session = SessionConfig{Max: 3, MaxPerPrincipal: 1, IdleTimeout: time.Hour, EnvFromMetadata: map[string]string{"USER_TOKEN": "X-User-Token"}}
	}))
	ctx := ctxWait(t)
	s.health.WaitFor(ctx, t, "sess true") // a session server serves before any child runs
	_, err := s.Acquire(ctx, "CallTool")
	wantStatus(t, err, codes.InvalidArgument, SessionMetadataKey)

	anonA := sessionCtx(ctx, nil, "a", "x-user-token", "tok-a")
	a, err := s.Acquire(anonA, "CallTool")
	if err != nil {
		t.Fatal(err)
	}
	if got := toolText(t, a, "env", `{"name":"USER_TOKEN"}`); got != "tok-a" {
		t.Errorf("the session's USER_TOKEN = %q, want its metadata's", got)
	}
	if again, err := s.Acquire(sessionCtx(ctx, nil, "a"), "CallTool"); err != nil || again != a {
		t.Errorf("the session's second request: %v, %v; want its child", again, err)
	}
	alice := &access.Principal{Name: "alice", Method: "apikey"}
	aliceA, err := s.Acquire(sessionCtx(ctx, alice, "a"), "CallTool")
	if err != nil || aliceA == a {
		t.Fatalf("alice's session a: %v, %v; want a child of her own", aliceA, err)
	}
	if got := toolText(t, aliceA, "env", `{"name":"USER_TOKEN"}`); got != "<unset>" {
		t.Errorf("a session without the metadata has USER_TOKEN %q", got)
	}
	_, err = s.Acquire(sessionCtx(ctx, alice, "b"), "CallTool")
	wantStatus(t, err, codes.ResourceExhausted, "max_per_principal 1")
	if _, retry := details(err); retry != 15*time.Minute {
		t.Errorf("RetryInfo %v, want IdleTimeout/4", retry)
	}
	b, err := s.Acquire(sessionCtx(ctx, nil, "b"), "CallTool")
	if err != nil {
		t.Fatal(err)
	}
	_, err = s.Acquire(sessionCtx(ctx, nil, "c"), "CallTool")
	wantStatus(t, err, codes.ResourceExhausted, "most sessions (3)")
	_, err = s.Acquire(sessionCtx(ctx, nil, "d", "x-user-token", "line\nforged=1"), "CallTool")
	wantStatus(t, err, codes.InvalidArgument, `"x-user-token" holds a control character`)
	if strings.Contains(status.Convert(err).Message(), "forged") {
		t.Errorf("the refusal shows the value: %v", err)
	}

	resp := s.Describe("a")
	if resp.GetPolicy() != mcpbridgev1.ServerPolicy_SERVER_POLICY_SESSION || len(resp.GetChildren()) != 3 ||
		resp.GetChild().GetSession() != sessionDigest("a") || resp.GetChild().GetPid() != int32(a.Pid()) {
		t.Errorf("Describe(a) = %v", resp)
	}
	if resp := s.Describe(""); resp.GetChild() != nil {
		t.Errorf("Describe without a session names a child: %v", resp.GetChild())
	}

	s.StopSession("a")
	done(t, a)
	s.StopSession("no such session")
	if n := len(s.Children()); n != 2 {
		t.Errorf("%d children after StopSession, want 2", n)
	}
	// The idle sweep spares a session in use.
	inUse := b.Relay.Enter(ctx)
	s.sweep(time.Now().Add(2 * time.Hour))
	if kids := s.Children(); len(kids) != 1 || kids[0].Status().Child != b {
		t.Fatalf("after the sweep: %d children, want b's only", len(kids))
	}
	done(t, aliceA)
	inUse()
	if s.reaped.Load() != 1 {
		t.Errorf("reaped = %d, want 1", s.reaped.Load())
	}
	s.log.WaitFor(ctx, t, "mcpbridge: stopping an idle child", "session="+sessionDigest(SessionName(sessionCtx(ctx, alice, "a"))))
}

// TestSessionIdle: the janitor stops a session's child once it has been
// idle for IdleTimeout.
func TestSessionIdle(t *testing.T) {
	s := start(t, fixtureConfig(t, "idle", func(sc *ServerConfig) {
		sc.Policy, sc.Session = PolicySession, SessionConfig{IdleTimeout: 100 * time.Millisecond}
	}))
	ctx := ctxWait(t)
	c, err := s.Acquire(sessionCtx(ctx, nil, "x"), "CallTool")
	if err != nil {
		t.Fatal(err)
	}
	done(t, c)
	s.log.WaitFor(ctx, t, "mcpbridge: stopping an idle child")
	waitFor(t, "the idle session forgotten", func() bool { return len(s.Children()) == 0 })
}

const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{"roots":{}},"clientInfo":{"name":"host","version":"9"}}}`

// TestAcquireTunnel: a tunnel that opens with initialize and names no
// session gets a child of its own, negotiated with the client's own
// version, stopped at Release; other tunnels, tunnels that name a session
// and a server whose tunnels share get the policy's child.
func TestAcquireTunnel(t *testing.T) {
	s := start(t, fixtureConfig(t, "tun", nil))
	ctx := ctxWait(t)
	shared, err := s.Acquire(ctx, "CallTool")
	if err != nil {
		t.Fatal(err)
	}
	alice := &access.Principal{Name: "alice", Method: "apikey"}
	own, err := s.AcquireTunnel(access.NewContext(ctx, alice), "Connect", initialize)
	if err != nil {
		t.Fatal(err)
	}
	if own == shared || !own.Private() || own.Protocol() != protocol.Version20250618 {
		t.Errorf("the tunnel's child: private %v, protocol %q; want its own, at the client's version", own.Private(), own.Protocol())
	}
	// All a private child sends is its principal's; the bridge answers
	// roots/list alone only on its own connection.
	if own.Relay.Owner != alice.ID() || shared.Relay.Owner != "" {
		t.Errorf("relay owners: private %q, shared %q; want alice's and none", own.Relay.Owner, shared.Relay.Owner)
	}
	if own.Relay.NoRootsAlone || !shared.Relay.NoRootsAlone {
		t.Errorf("NoRootsAlone: private %v, shared %v; want false and true", own.Relay.NoRootsAlone, shared.Relay.NoRootsAlone)
	}
	if kids := s.Children(); len(kids) != 2 || !strings.HasPrefix(kids[1].session, "connect-") {
		t.Errorf("children %d; want the shared one and a private session", len(kids))
	}
	for _, first := range []string{`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, `not json`} {
		if c, err := s.AcquireTunnel(ctx, "Connect", first); err != nil || c != shared {
			t.Errorf("a tunnel opening with %s: %v, %v; want the shared child", first, c, err)
		}
	}
	if c, err := s.AcquireTunnel(sessionCtx(ctx, nil, "named"), "Connect", initialize); err != nil || c != shared {
		t.Errorf("a tunnel naming a session: %v, %v; want the policy's child", c, err)
	}
	s.Release(shared) // not private: nothing happens
	s.Release(own)
	done(t, own)
	if kids := s.Children(); len(kids) != 1 || kids[0].Status().Child != shared {
		t.Errorf("after Release: %d children, want the shared one", len(kids))
	}

	sharing := start(t, fixtureConfig(t, "sharing", func(sc *ServerConfig) { sc.Tunnel = TunnelShared }))
	c, err := sharing.AcquireTunnel(ctx, "Connect", initialize)
	if err != nil || c.Private() || len(sharing.Children()) != 1 {
		t.Errorf("a server whose tunnels share: %v, private %v", err, c != nil && c.Private())
	}
}

// TestRefusedHandshake: a child that refuses the client's initialize (it
// speaks 2026-07-28 only) is no private child: AcquirePrivate says so and
// stops it, and the tunnel gets the policy's child, where every request
// carries the client's capabilities.
func TestRefusedHandshake(t *testing.T) {
	s := start(t, fixtureConfig(t, "modern", nil, modernOnlyEnv+"=1"))
	ctx := ctxWait(t)
	hs := handshakeOf(initialize)
	if _, err := s.AcquirePrivate(ctx, "Connect", hs); !errors.Is(err, ErrRefusedHandshake) {
		t.Fatalf("AcquirePrivate = %v, want ErrRefusedHandshake", err)
	}
	if n := len(s.Children()); n != 1 {
		t.Errorf("%d children: the refused child was kept", n)
	}
	c, err := s.AcquireTunnel(ctx, "Connect", initialize)
	if err != nil || c.Private() || c.Protocol() != protocol.Version20260728 {
		t.Fatalf("the tunnel: %v, %v; want the shared 2026-07-28 child", c, err)
	}
}

// TestRetire: a removed server's children stop once nothing uses them, at
// the drain limit, or when draining ends.
func TestRetire(t *testing.T) {
	ctx := ctxWait(t)
	retire := func(t *testing.T, name string, busy bool, draining context.Context, limit time.Duration) started {
		s := start(t, fixtureConfig(t, name, nil))
		c, err := s.Acquire(ctx, "CallTool")
		if err != nil {
			t.Fatal(err)
		}
		if busy {
			leave := c.Relay.Enter(ctx)
			defer leave()
		}
		returned := make(chan struct{})
		go func() {
			s.Retire(draining, limit)
			close(returned)
		}()
		select {
		case <-returned:
		case <-time.After(wait):
			t.Fatalf("Retire did not return")
		}
		done(t, c)
		return s
	}
	idle := retire(t, "idle", false, context.Background(), time.Hour)
	idle.log.WaitFor(ctx, t, "mcpbridge: a removed server's children stopped")
	late := retire(t, "late", true, context.Background(), 100*time.Millisecond)
	late.log.WaitFor(ctx, t, "mcpbridge: stopping a removed server's children with calls still in flight", "drain=100ms")
	ended, cancel := context.WithCancel(ctx)
	cancel()
	cut := retire(t, "cut", true, ended, time.Hour)
	if cut.log.Has("a removed server's children stopped") || cut.log.Has("calls still in flight") {
		t.Errorf("a drain that ended logged as another: %s", cut.log)
	}
}
