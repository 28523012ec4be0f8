//go:build linux

package bridge

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/status"

	"github.com/mcpbridge/mcpbridge/bridge/internal/pool"
	"github.com/mcpbridge/mcpbridge/bridge/internal/rpcerr"
	"github.com/mcpbridge/mcpbridge/bridge/internal/supervisor"
	"github.com/mcpbridge/mcpbridge/internal/protocol"
	"github.com/mcpbridge/mcpbridge/internal/testkit"
	mcpbridgev1 "github.com/mcpbridge/mcpbridge/proto/mcpbridge/v1"
)

// These tests run the supervisor with real child processes (the "child"
// fixture of supervisor_fixture_test.go) behind a real gRPC server on
// loopback. They wait for events (log lines, health updates, state
// changes, process exits), never for time to pass. Linux only: they watch
// processes that are not ours through pidfds.

// newGate makes a named pipe for FIXTURE_GATE: each fixture start blocks
// until release is called once for it.
func newGate(t *testing.T) (path string, release func()) {
	t.Helper()
	path = filepath.Join(t.TempDir(), "gate")
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Fatal(err)
	}
	return path, func() {
		t.Helper()
		// Opening blocks until the fixture opens the other end.
		if err := os.WriteFile(path, []byte("go\n"), 0); err != nil {
			t.Fatalf("releasing the gate: %v", err)
		}
	}
}

// callTool runs tools/call through the Call RPC.
func callTool(ctx context.Context, bc mcpbridgev1.BridgeServiceClient, name, args string) (*mcpbridgev1.CallResponse, error) {
	return bc.Call(ctx, &mcpbridgev1.CallRequest{Method: "tools/call", ParamsJson: `{"name":"` + name + `","arguments":` + args + `}`})
}

// checkChildGone checks that err is the UNAVAILABLE of a call whose child
// died, with RetryInfo of at most retryWithin, or without (retryWithin 0:
// no start is scheduled).
func checkChildGone(t *testing.T, what string, err error, retryWithin time.Duration) {
	t.Helper()
	st, rpc, info, ri := splitStatus(err)
	if st.Code() != codes.Unavailable || rpc.GetCode() != -32000 || info.GetReason() != rpcerr.ReasonChildUnavailable {
		t.Errorf("%s: status %v %q, JsonRpcError %v, ErrorInfo %v; want UNAVAILABLE, -32000, CHILD_UNAVAILABLE", what, st.Code(), st.Message(), rpc, info)
	}
	switch {
	case retryWithin > 0 && (ri == nil || ri.GetRetryDelay().AsDuration() <= 0 || ri.GetRetryDelay().AsDuration() > retryWithin):
		t.Errorf("%s: RetryInfo %v, want a delay in (0, %v]", what, ri, retryWithin)
	case retryWithin == 0 && ri != nil:
		t.Errorf("%s: RetryInfo %v, want none", what, ri)
	}
}

// expectHealth reads the next status from a health Watch stream.
func expectHealth(t *testing.T, w healthpb.Health_WatchClient, want healthpb.HealthCheckResponse_ServingStatus) {
	t.Helper()
	got, err := w.Recv()
	if err != nil {
		t.Fatalf("health Watch: %v", err)
	}
	if got.GetStatus() != want {
		t.Fatalf("health Watch = %v, want %v", got.GetStatus(), want)
	}
}

// firstBackoff is how long the first restart after a crash waits.
const firstBackoff = 100 * time.Millisecond

// waitState waits until the server is in state want, or STOPPING, which
// it never leaves, or 30 s have passed, and returns the status it found.
func waitState(svc *Service, server string, want supervisor.State) supervisor.Status[*pool.Process] {
	timeout := time.NewTimer(30 * time.Second)
	defer timeout.Stop()
	for {
		st := svc.serverSet()[server].Children()[0].Status()
		if st.State == want || st.State == supervisor.Stopping {
			return st
		}
		select {
		case <-st.Changed:
		case <-timeout.C:
			return st
		}
	}
}

// currentChild waits for the server's child to be READY and returns it.
func currentChild(t *testing.T, svc *Service, server string) *pool.Process {
	t.Helper()
	st := waitState(svc, server, supervisor.Ready)
	if st.State != supervisor.Ready {
		t.Fatalf("server %q is %v, want ready", server, st.State)
	}
	return st.Child
}

// The whole crash-and-restart cycle over gRPC on loopback: calls in flight
// fail UNAVAILABLE at once with RetryInfo when the child dies (by exiting
// mid-call, then by SIGKILL), health goes NOT_SERVING and back to SERVING,
// the next call succeeds on the new child, and GetServer tells the story.
func TestChildDeathFailsCallsInFlightAndRestarts(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute) // a failing wait fails instead of hanging
	defer cancel()
	gate, release := newGate(t)
	logs := &testkit.Lines{}
	svc := newService(t, Config{
		Servers: []ServerConfig{fixtureChild(t, "fx", time.Second, "FIXTURE_GATE="+gate)},
		Logger:  logs.Logger(),
	})
	conn := loopbackBridge(t, svc)
	bc := mcpbridgev1.NewBridgeServiceClient(conn)
	hc := healthpb.NewHealthClient(conn)

	overall, err := hc.Watch(ctx, &healthpb.HealthCheckRequest{Service: HealthService})
	if err != nil {
		t.Fatal(err)
	}
	perServer, err := hc.Watch(ctx, &healthpb.HealthCheckRequest{Service: HealthService + "/fx"})
	if err != nil {
		t.Fatal(err)
	}
	expectHealth(t, overall, healthpb.HealthCheckResponse_NOT_SERVING) // the child waits at the gate
	expectHealth(t, perServer, healthpb.HealthCheckResponse_NOT_SERVING)
	release()
	expectHealth(t, overall, healthpb.HealthCheckResponse_SERVING)
	expectHealth(t, perServer, healthpb.HealthCheckResponse_SERVING)

	first, err := bc.GetServer(ctx, &mcpbridgev1.GetServerRequest{WaitForReady: true})
	if err != nil {
		t.Fatal(err)
	}
	c1 := first.GetChild()
	if c1.GetState() != mcpbridgev1.ChildState_CHILD_STATE_READY || c1.GetPid() == 0 || c1.GetStartedAt() == nil || c1.GetRestarts() != 0 || c1.GetLastExit() != "" {
		t.Fatalf("GetServer().child = %v, want READY with a pid, started_at, no restarts or last exit", c1)
	}
	if first.GetName() != "fx" || first.GetProtocolVersion() != protocol.Version20260728 || first.GetServerInfo().GetFields()["name"].GetStringValue() != "bridge-fixture" {
		t.Errorf("GetServer() = %v, want server fx at 2026-07-28 with the fixture's serverInfo", first)
	}

	// Two calls in flight when the child dies: one blocked in a tool, and
	// the one that makes the child exit.
	blocked := make(chan error, 1)
	go func() {
		_, err := callTool(ctx, bc, "block", `{}`)
		blocked <- err
	}()
	// The child's stderr reaches the log line by line, with server and pid.
	logs.WaitFor(ctx, t, "mcpbridge: server stderr", "fixture: blocking", "server=fx", fmt.Sprintf("pid=%d", c1.GetPid()))
	_, err = callTool(ctx, bc, "crash", `{"code":3}`)
	checkChildGone(t, "the call that crashed the child", err, firstBackoff)
	checkChildGone(t, "the call blocked in the child", <-blocked, firstBackoff)
	expectHealth(t, overall, healthpb.HealthCheckResponse_NOT_SERVING)
	expectHealth(t, perServer, healthpb.HealthCheckResponse_NOT_SERVING)

	release() // the restart completes
	expectHealth(t, overall, healthpb.HealthCheckResponse_SERVING)
	expectHealth(t, perServer, healthpb.HealthCheckResponse_SERVING)
	res, err := callTool(ctx, bc, "echo", `{"message":"after the restart"}`)
	if err != nil || !strings.Contains(res.GetResultJson(), "after the restart") {
		t.Fatalf("echo after the restart = %v, %v; want the message back", res, err)
	}
	second, err := bc.GetServer(ctx, &mcpbridgev1.GetServerRequest{WaitForReady: true})
	if err != nil {
		t.Fatal(err)
	}
	c2 := second.GetChild()
	if c2.GetState() != mcpbridgev1.ChildState_CHILD_STATE_READY || c2.GetPid() == 0 || c2.GetPid() == c1.GetPid() ||
		!c2.GetStartedAt().AsTime().After(c1.GetStartedAt().AsTime()) || c2.GetRestarts() != 1 || c2.GetLastExit() != "exit status 3" {
		t.Errorf("GetServer().child after the crash = %v, want READY, a new pid and started_at, 1 restart, last exit \"exit status 3\" (before: %v)", c2, c1)
	}

	// Killed from outside this time.
	if c2.GetPid() <= 0 { // kill(0) would signal the test's own process group
		t.Fatalf("GetServer().child = %v, want a running child", c2)
	}
	if err := syscall.Kill(int(c2.GetPid()), syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	expectHealth(t, overall, healthpb.HealthCheckResponse_NOT_SERVING)
	release()
	expectHealth(t, overall, healthpb.HealthCheckResponse_SERVING)
	third, err := bc.GetServer(ctx, &mcpbridgev1.GetServerRequest{WaitForReady: true})
	if err != nil {
		t.Fatal(err)
	}
	if c3 := third.GetChild(); c3.GetRestarts() != 2 || c3.GetLastExit() != "signal: killed" || c3.GetPid() == c2.GetPid() {
		t.Errorf("GetServer().child after SIGKILL = %v, want 2 restarts, last exit \"signal: killed\", a new pid", c3)
	}
}

// A server that failed six starts in a row and would then work is not
// given up on: the circuit opens (FAILED, calls fail at once with
// RetryInfo), half-opens after MaxRestartBackoff, and the next start
// serves.
func TestChildThatComesBackAfterCrashLoop(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute) // a failing wait fails instead of hanging
	defer cancel()
	cfg := fixtureChild(t, "", time.Second, "FIXTURE_FAIL_STARTS=6:"+filepath.Join(t.TempDir(), "starts"))
	cfg.RestartBackoff, cfg.MaxRestartBackoff = 20*time.Millisecond, 500*time.Millisecond
	// Pinned, so that every start of the supervisor is one start of the
	// fixture (no server/discover probe, no fresh child for initialize).
	cfg.Versions = []string{protocol.Version20251125}
	svc := newService(t, Config{Servers: []ServerConfig{cfg}, Logger: slog.New(slog.DiscardHandler)})
	bc := mcpbridgev1.NewBridgeServiceClient(loopbackBridge(t, svc))

	if st := waitState(svc, "", supervisor.Failed).State; st != supervisor.Failed {
		t.Fatalf("state after six failed starts = %v, want FAILED", st)
	}
	_, err := callTool(ctx, bc, "echo", `{"message":"x"}`)
	checkChildGone(t, "a call while the circuit is open", err, cfg.MaxRestartBackoff)
	c := currentChild(t, svc, "")
	res, err := callTool(ctx, bc, "echo", `{"message":"back"}`)
	if err != nil || firstText(t, res.GetResultJson()) != "back" {
		t.Fatalf("echo after the half-open start = %v, %v", res, err)
	}
	got, err := bc.GetServer(ctx, &mcpbridgev1.GetServerRequest{WaitForReady: true})
	if err != nil {
		t.Fatal(err)
	}
	if ch := got.GetChild(); ch.GetState() != mcpbridgev1.ChildState_CHILD_STATE_READY || ch.GetRestarts() != 6 || int(ch.GetPid()) != c.Pid() {
		t.Errorf("GetServer().child = %v, want READY after 6 restarts, pid %d", ch, c.Pid())
	}
}

// A child that never completes the handshake does not hold anyone up:
// GetServer answers at once with STARTING, a call waits at most the
// handshake timeout and then gets UNAVAILABLE with RetryInfo, and the
// server reaches FAILED after MaxRestarts+1 handshake timeouts.
func TestChildThatNeverAnswersTheHandshake(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second) // well under the 30 s default deadline
	defer cancel()
	logs := &testkit.Lines{}
	cfg := fixtureChild(t, "", time.Second, "FIXTURE_MUTE=1")
	cfg.HandshakeTimeout = time.Second
	cfg.MaxRestarts = 1
	cfg.MaxRestartBackoff = time.Hour
	svc := newService(t, Config{Servers: []ServerConfig{cfg}, Logger: logs.Logger()})
	bc := mcpbridgev1.NewBridgeServiceClient(loopbackBridge(t, svc))

	got, err := bc.GetServer(ctx, &mcpbridgev1.GetServerRequest{})
	if err != nil || got.GetChild().GetState() != mcpbridgev1.ChildState_CHILD_STATE_STARTING || got.GetProtocolVersion() != "" {
		t.Fatalf("GetServer while the child starts = %v, %v; want STARTING at once, nothing negotiated", got, err)
	}
	_, err = callTool(ctx, bc, "echo", `{"message":"x"}`)
	checkChildGone(t, "a call while the child does not answer its handshake", err, time.Hour)
	if st := waitState(svc, "", supervisor.Failed).State; st != supervisor.Failed {
		t.Fatalf("state = %v, want FAILED after two handshake timeouts", st)
	}
	if !logs.Has("The server did not complete the handshake in time") {
		t.Errorf("the handshake timeout is not in the bridge's log:\n%s", logs)
	}
}

// The cause of a crash loop is in the log whatever its level: a failed
// start is logged at Error with the server's last stderr lines, also when
// the bridge logs only warnings and the lines themselves (Info) are not.
// GetServer shows them only when the server exposes its stderr.
func TestCrashCauseKept(t *testing.T) {
	for _, expose := range []bool{false, true} {
		t.Run(fmt.Sprintf("expose=%v", expose), func(t *testing.T) {
			ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
			defer cancel()
			logs := &testkit.Lines{}
			cfg := fixtureChild(t, "", time.Second, "FIXTURE_FAIL_START=1")
			cfg.MaxRestarts, cfg.MaxRestartBackoff, cfg.ExposeStderr = 1, time.Hour, expose
			svc := newService(t, Config{Servers: []ServerConfig{cfg}, Logger: logs.LoggerAt(slog.LevelWarn)})
			bc := mcpbridgev1.NewBridgeServiceClient(loopbackBridge(t, svc))
			if st := waitState(svc, "", supervisor.Failed).State; st != supervisor.Failed {
				t.Fatalf("state = %v, want FAILED", st)
			}
			if !logs.Has("mcpbridge: starting the server failed", secretDiagnosis) {
				t.Errorf("the failed start's record lacks the server's last stderr line:\n%s", logs)
			}
			if logs.Has("mcpbridge: server stderr") {
				t.Errorf("a stderr line was logged at Info under a Warn logger")
			}
			got, err := bc.GetServer(ctx, &mcpbridgev1.GetServerRequest{})
			if err != nil {
				t.Fatal(err)
			}
			tail := got.GetChild().GetStderrTail()
			if shown := slices.Contains(tail, secretDiagnosis); shown != expose {
				t.Errorf("GetServer().child.stderr_tail = %q; want the server's stderr shown: %v", tail, expose)
			}
		})
	}
}

// A child that floods its stderr does not flood the bridge's log: lines
// past the rate limit are counted and reported instead of logged, and the
// last ones are still kept.
func TestStderrFloodIsRateLimited(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	const flood = 50_000
	logs := &testkit.Lines{}
	cfg := fixtureChild(t, "", time.Second, fmt.Sprintf("FIXTURE_STDERR_FLOOD=%d", flood))
	cfg.ExposeStderr = true
	svc := newService(t, Config{Servers: []ServerConfig{cfg}, Logger: logs.Logger()})
	bc := mcpbridgev1.NewBridgeServiceClient(loopbackBridge(t, svc))
	echoWorks(ctx, t, bc, "after the flood")
	want := fmt.Sprintf("fixture: flood line %d", flood-1)
	settle(ctx, t, func() error { // the stderr copier may still be at it
		if tail := childOf(ctx, t, bc).GetStderrTail(); !slices.Contains(tail, want) {
			return fmt.Errorf("the last flood line never reached stderr_tail: %q", tail)
		}
		return nil
	})
	// A line logged after the flood (the block tool prints one when it
	// starts, which the limit may still drop, and one when cancelled)
	// reports the lines dropped.
	blockCtx, cancelBlock := context.WithTimeout(ctx, 200*time.Millisecond)
	callTool(blockCtx, bc, "block", `{}`)
	cancelBlock()
	logs.WaitFor(ctx, t, "mcpbridge: server stderr ", "line=fixture: cancelled")
	logged, others, dropped := 0, 0, 0
	for _, l := range strings.Split(logs.String(), "\n") {
		switch {
		case strings.Contains(l, "mcpbridge: server stderr ") && strings.Contains(l, "line=fixture: flood line"):
			logged++
		case strings.Contains(l, "mcpbridge: server stderr lines not logged: over the rate limit"):
			var n int
			if _, err := fmt.Sscanf(l[strings.Index(l, "dropped="):], "dropped=%d", &n); err != nil {
				t.Fatalf("report %q: %v", l, err)
			}
			dropped += n
		case strings.Contains(l, "mcpbridge: server stderr "):
			others++
		}
	}
	if logged == 0 || logged > pool.StderrBurst+pool.StderrRate*60 || logged >= flood {
		t.Errorf("%d of %d flood lines logged; want some, and the rate limit to hold", logged, flood)
	}
	if written := flood + 2; logged+others+dropped != written { // the flood, "blocking" and "cancelled"
		t.Errorf("%d lines logged and %d reported dropped; want them to add up to the %d written", logged+others, dropped, written)
	}
	t.Logf("%d of %d flood lines logged, %d reported dropped", logged, flood, dropped)
}

// A server that exits before it negotiates is retried up to the
// crash-loop limit and then left FAILED with the circuit open: calls get
// UNAVAILABLE at once, with RetryInfo for the next try, and what the server
// printed (paths included) stays in the bridge's log, out of the status.
func TestChildThatCannotStartEndsFailed(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute) // a failing wait fails instead of hanging
	defer cancel()
	logs := &testkit.Lines{}
	cfg := fixtureChild(t, "", time.Second, "FIXTURE_FAIL_START=1")
	cfg.MaxRestarts = 1
	cfg.MaxRestartBackoff = time.Hour // one failed try is enough: no second one during the test
	svc := newService(t, Config{Servers: []ServerConfig{cfg}, Logger: logs.Logger()})
	conn := loopbackBridge(t, svc)
	bc := mcpbridgev1.NewBridgeServiceClient(conn)

	if st := waitState(svc, "", supervisor.Failed).State; st != supervisor.Failed {
		t.Fatalf("state = %v, want FAILED", st)
	}
	_, err := callTool(ctx, bc, "echo", `{"message":"x"}`)
	checkChildGone(t, "a call to a crash-looping server", err, time.Hour)
	if st := status.Convert(err); strings.Contains(st.Message(), "secret") || strings.Contains(fmt.Sprint(st.Details()), "secret") {
		t.Errorf("the status leaks the child's stderr: %v %v", st.Message(), st.Details())
	}
	if !logs.Has("mcpbridge: server stderr", secretDiagnosis) {
		t.Errorf("the child's stderr is not in the bridge's log")
	}
	got, err := bc.GetServer(ctx, &mcpbridgev1.GetServerRequest{WaitForReady: true})
	if err != nil {
		t.Fatal(err)
	}
	if c := got.GetChild(); c.GetState() != mcpbridgev1.ChildState_CHILD_STATE_FAILED || c.GetRestarts() != 1 || c.GetLastExit() != "exit status 1" || c.GetPid() != 0 {
		t.Errorf("GetServer().child = %v, want FAILED, 1 restart, last exit \"exit status 1\", no pid", c)
	}
	health, err := healthpb.NewHealthClient(conn).Check(ctx, &healthpb.HealthCheckRequest{Service: HealthService})
	if err != nil || health.GetStatus() != healthpb.HealthCheckResponse_NOT_SERVING {
		t.Errorf("health = %v, %v; want NOT_SERVING", health, err)
	}
}

// Service.Close stops a child by closing its stdin, then SIGTERM to its
// process group after the grace period, then SIGKILL after another; a
// grandchild in the group that holds the child's stdout goes too: killed
// by the child's reaper as soon as the child exits, or by the group
// SIGTERM without a reaper.
func TestCloseEscalates(t *testing.T) {
	const grace = 300 * time.Millisecond
	for _, tc := range []struct {
		name     string
		env      []string
		noReaper bool
		signal   syscall.Signal // how the child ended; 0: it exited
		atLeast  time.Duration  // how long Close must have taken
	}{
		{"exits at EOF", nil, false, 0, 0},
		{"ignores EOF", []string{"FIXTURE_IGNORE_EOF=1"}, false, syscall.SIGTERM, grace},
		{"ignores EOF and SIGTERM", []string{"FIXTURE_IGNORE_EOF=1", "FIXTURE_IGNORE_TERM=1"}, false, syscall.SIGKILL, 2 * grace},
		{"ignores EOF and SIGTERM, no reaper", []string{"FIXTURE_IGNORE_EOF=1", "FIXTURE_IGNORE_TERM=1"}, true, syscall.SIGKILL, 2 * grace},
		{"grandchild holds its stdout", []string{"FIXTURE_GRANDCHILD=1"}, false, 0, 0},
		{"grandchild holds its stdout, no reaper", []string{"FIXTURE_GRANDCHILD=1"}, true, 0, grace},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := fixtureChild(t, "", grace, tc.env...)
			srv.DisableReaper = tc.noReaper
			svc := newService(t, Config{Servers: []ServerConfig{srv}, Logger: slog.New(slog.DiscardHandler)})
			c := currentChild(t, svc, "")
			res, err := svc.Call(t.Context(), &mcpbridgev1.CallRequest{Method: "tools/call", ParamsJson: `{"name":"pids"}`})
			if err != nil {
				t.Fatal(err)
			}
			var pids struct{ Pid, Grandchild int }
			if err := json.Unmarshal([]byte(firstText(t, res.GetResultJson())), &pids); err != nil || pids.Pid != c.Pid() {
				t.Fatalf("pids = %+v, %v; want the child's pid %d", pids, err, c.Pid())
			}
			var grandchild int
			if pids.Grandchild != 0 {
				grandchild = testkit.Pidfd(t, pids.Grandchild)
			}

			start := time.Now()
			svc.Close()
			took := time.Since(start)

			state := c.ExitState()
			if state == nil {
				t.Fatalf("Close returned before the child was reaped")
			}
			ws := state.Sys().(syscall.WaitStatus)
			switch {
			case tc.signal == 0 && (ws.Signaled() || ws.ExitStatus() != 0):
				t.Errorf("child ended with %v, want exit status 0", state)
			case tc.signal != 0 && (!ws.Signaled() || ws.Signal() != tc.signal):
				t.Errorf("child ended with %v, want signal %v", state, tc.signal)
			}
			if took < tc.atLeast {
				t.Errorf("Close took %v, want at least %v", took, tc.atLeast)
			}
			if grandchild != 0 && !testkit.Exited(t, grandchild, 10*time.Second) {
				t.Errorf("grandchild %d survived Close", pids.Grandchild)
			}
		})
	}
}

// Service.Close with several servers, one of them stubborn, stops every
// child and grandchild, fails the calls in flight with UNAVAILABLE and no
// RetryInfo, and is idempotent; calls after it fail the same way.
func TestCloseLeavesNoChildBehind(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute) // a failing wait fails instead of hanging
	defer cancel()
	logs := &testkit.Lines{}
	svc := newService(t, Config{
		Servers: []ServerConfig{
			fixtureChild(t, "plain", 200*time.Millisecond),
			fixtureChild(t, "stubborn", 200*time.Millisecond, "FIXTURE_IGNORE_EOF=1", "FIXTURE_IGNORE_TERM=1", "FIXTURE_GRANDCHILD=1"),
		},
		Logger: logs.Logger(),
	})
	conn := loopbackBridge(t, svc)
	bc := mcpbridgev1.NewBridgeServiceClient(conn)

	var fds []int
	for _, name := range []string{"plain", "stubborn"} {
		c := currentChild(t, svc, name)
		fds = append(fds, testkit.Pidfd(t, c.Pid()))
		res, err := bc.Call(ctx, &mcpbridgev1.CallRequest{Server: name, Method: "tools/call", ParamsJson: `{"name":"pids"}`})
		if err != nil {
			t.Fatal(err)
		}
		var pids struct{ Grandchild int }
		json.Unmarshal([]byte(firstText(t, res.GetResultJson())), &pids)
		if pids.Grandchild != 0 {
			fds = append(fds, testkit.Pidfd(t, pids.Grandchild))
		}
	}
	if len(fds) != 3 {
		t.Fatalf("watching %d processes, want 3", len(fds))
	}

	blocked := make(chan error, 1)
	go func() {
		_, err := bc.Call(ctx, &mcpbridgev1.CallRequest{Server: "plain", Method: "tools/call", ParamsJson: `{"name":"block"}`})
		blocked <- err
	}()
	logs.WaitFor(ctx, t, "fixture: blocking", "server=plain")

	svc.Close()
	for i, fd := range fds {
		// Close waited for each child and for its output to close; a
		// process may take a moment more to turn into a zombie.
		if !testkit.Exited(t, fd, 5*time.Second) {
			t.Errorf("process %d of 3 is still running after Close", i+1)
		}
	}
	checkChildGone(t, "the call in flight at Close", <-blocked, 0)
	_, err := bc.Call(ctx, &mcpbridgev1.CallRequest{Server: "stubborn", Method: "tools/call", ParamsJson: `{"name":"pids"}`})
	checkChildGone(t, "a call after Close", err, 0)
	if err := svc.Close(); err != nil {
		t.Errorf("second Close = %v", err)
	}
}

// firstText returns the text of a tools/call result's first content block.
func firstText(t *testing.T, result string) string {
	t.Helper()
	var r struct{ Content []struct{ Text string } }
	if err := json.Unmarshal([]byte(result), &r); err != nil || len(r.Content) == 0 {
		t.Fatalf("tools/call result %s: %v", result, err)
	}
	return r.Content[0].Text
}
