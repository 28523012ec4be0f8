//go:build linux

package bridge

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/mcpbridge/mcpbridge/internal/testkit"
	mcpbridgev1 "github.com/mcpbridge/mcpbridge/proto/mcpbridge/v1"
)

// Fault tests: a real child misbehaves (the "child" fixture's garbage,
// block, closeout and large tools), the bridge answers the affected call
// with a clear status, loses nothing else, and keeps serving. Each ends
// by calling echo, and checks from GetServer whether the child was
// restarted.

// faultBridge starts a Service fronting the "child" fixture (with extra
// FIXTURE_* settings) behind gRPC on loopback.
func faultBridge(t *testing.T, cfg Config, env ...string) (mcpbridgev1.BridgeServiceClient, *Service, *testkit.Lines) {
	t.Helper()
	logs := &testkit.Lines{}
	cfg.Servers = []ServerConfig{fixtureChild(t, "", time.Second, env...)}
	cfg.Logger = logs.Logger()
	svc := newService(t, cfg)
	return mcpbridgev1.NewBridgeServiceClient(loopbackBridge(t, svc)), svc, logs
}

// echoWorks checks that an echo call goes through.
func echoWorks(ctx context.Context, t *testing.T, bc mcpbridgev1.BridgeServiceClient, what string) {
	t.Helper()
	res, err := callTool(ctx, bc, "echo", `{"message":"still here"}`)
	if err != nil || !strings.Contains(res.GetResultJson(), "still here") {
		t.Fatalf("echo %s = %v, %v; want the message back", what, res, err)
	}
}

// childOf returns the fronted server's child as GetServer reports it.
func childOf(ctx context.Context, t *testing.T, bc mcpbridgev1.BridgeServiceClient) *mcpbridgev1.Child {
	t.Helper()
	res, err := bc.GetServer(ctx, &mcpbridgev1.GetServerRequest{WaitForReady: true})
	if err != nil {
		t.Fatalf("GetServer: %v", err)
	}
	return res.GetChild()
}

// Lines on the child's stdout that are not JSON-RPC, or answer an id
// nobody sent, are logged and skipped; the call they came with succeeds
// and the child is not restarted.
func TestFaultGarbageLines(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	bc, _, logs := faultBridge(t, Config{})
	before := childOf(ctx, t, bc)

	res, err := callTool(ctx, bc, "garbage", `{}`)
	if err != nil || !strings.Contains(res.GetResultJson(), "survived") {
		t.Fatalf("garbage = %v, %v; want its result after the garbage", res, err)
	}
	logs.WaitFor(ctx, t, "skipped a line that is not a JSON-RPC message", "this is not JSON")
	echoWorks(ctx, t, bc, "after the garbage")
	if after := childOf(ctx, t, bc); after.GetPid() != before.GetPid() || after.GetRestarts() != 0 {
		t.Errorf("child after the garbage = %v, want the same process (%d), never restarted", after, before.GetPid())
	}
}

// A call into a child that hangs ends at its deadline with
// DEADLINE_EXCEEDED, the child is told (notifications/cancelled reaches
// the tool's context), and other calls are served meanwhile.
func TestFaultHangingCall(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	bc, _, logs := faultBridge(t, Config{})

	hung := make(chan error, 1)
	go func() {
		callCtx, cancel := context.WithTimeout(ctx, 2*time.Second)
		defer cancel()
		_, err := callTool(callCtx, bc, "block", `{}`)
		hung <- err
	}()
	logs.WaitFor(ctx, t, "fixture: blocking")
	echoWorks(ctx, t, bc, "while another call hangs")
	select {
	case err := <-hung:
		t.Fatalf("the hanging call returned before its deadline: %v", err)
	default:
	}
	if err := <-hung; status.Code(err) != codes.DeadlineExceeded {
		t.Errorf("the hanging call = %v, want DEADLINE_EXCEEDED", err)
	}
	logs.WaitFor(ctx, t, "fixture: cancelled")
	echoWorks(ctx, t, bc, "after the deadline")
}

// A child that closes its stdout but keeps running: the call in flight
// fails UNAVAILABLE at once (the connection is gone), the supervisor
// stops that process (it ignores cancellation and stdin EOF, so it takes
// the signals) and starts another, and the next call succeeds on it.
func TestFaultChildClosesStdout(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	bc, svc, logs := faultBridge(t, Config{})
	before := childOf(ctx, t, bc)
	fd := testkit.Pidfd(t, int(before.GetPid()))

	_, err := callTool(ctx, bc, "closeout", `{}`)
	checkChildGone(t, "the call whose child closed its stdout", err, firstBackoff)
	logs.WaitFor(ctx, t, "fixture: stdout closed")
	if !testkit.Exited(t, fd, 30*time.Second) {
		t.Fatalf("the child %d that closed its stdout is still running", before.GetPid())
	}
	currentChild(t, svc, "")
	echoWorks(ctx, t, bc, "after the restart")
	if after := childOf(ctx, t, bc); after.GetPid() == before.GetPid() || after.GetRestarts() != 1 {
		t.Errorf("child after closing its stdout = %v, want a new process, 1 restart", after)
	}
}

// A response line over the size limit is dropped as it arrives, and its
// call fails as soon as the line ends (the bridge reads the id from its
// first bytes) with RESOURCE_EXHAUSTED, however long its deadline; the
// same child answers the next calls, big ones under the limit included.
func TestFaultResponseOverLimit(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	const limit = 64 << 10
	bc, _, logs := faultBridge(t, Config{MaxMessageBytes: limit})
	before := childOf(ctx, t, bc)

	_, err := callTool(ctx, bc, "large", `{"bytes":200000}`)
	wantStatus(t, "a result over the limit", err, codes.ResourceExhausted, "TOO_LARGE", -32603)
	logs.WaitFor(ctx, t, "failed a call whose response is over the line limit")
	res, err := callTool(ctx, bc, "large", `{"bytes":50000}`)
	if err != nil || len(res.GetResultJson()) < 50000 {
		t.Fatalf("a 50,000-byte result under the limit = %d bytes, %v; want it whole", len(res.GetResultJson()), err)
	}
	echoWorks(ctx, t, bc, "after the over-long line")
	if after := childOf(ctx, t, bc); after.GetPid() != before.GetPid() || after.GetRestarts() != 0 {
		t.Errorf("child after the over-long line = %v, want the same process (%d), never restarted", after, before.GetPid())
	}
}

// A result whose typed response would be over the message limit, though
// its JSON is not (a Struct holds a small number in about six times its
// JSON), is refused with RESOURCE_EXHAUSTED and TOO_LARGE, pointing to
// Call, which returns it; the stream RPC is held to the same.
func TestFaultTypedResponseOverLimit(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	const limit = 1 << 20
	bc, _, _ := faultBridge(t, Config{MaxMessageBytes: limit})
	args := `{"count":200000}` // 400 KB of JSON
	_, err := bc.CallTool(ctx, &mcpbridgev1.CallToolRequest{Name: "numbers", Arguments: mustStruct(t, map[string]any{"count": 200000})})
	rpc := wantStatus(t, "CallTool", err, codes.ResourceExhausted, "TOO_LARGE", -32603)
	if !strings.Contains(rpc.GetMessage(), "Call returns the result as JSON") {
		t.Errorf("message %q does not point to Call", rpc.GetMessage())
	}
	s, err := bc.CallToolStream(ctx, &mcpbridgev1.CallToolStreamRequest{Name: "numbers", Arguments: mustStruct(t, map[string]any{"count": 200000})})
	if err != nil {
		t.Fatal(err)
	}
	_, err = recvAll(s)
	wantStatus(t, "CallToolStream", err, codes.ResourceExhausted, "TOO_LARGE", -32603)
	res, err := callTool(ctx, bc, "numbers", args)
	if err != nil || len(res.GetResultJson()) < 400_000 {
		t.Fatalf("Call = %d bytes, %v; want the JSON result", len(res.GetResultJson()), err)
	}
}

// A request over the child's line limit fails at once: answered by id by a
// child that can tell it (the project's runtime), refused at the bridge
// with RESOURCE_EXHAUSTED when MaxRequestBytes names the limit. Neither
// waits for the deadline, and the child keeps serving.
func TestFaultRequestOverChildLimit(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	args := `{"message":"` + strings.Repeat("m", 200_000) + `"}`

	bc, _, _ := faultBridge(t, Config{}, "FIXTURE_MAX_LINE=100000")
	_, err := callTool(ctx, bc, "echo", args)
	wantStatus(t, "a request the child refuses", err, codes.InvalidArgument, "CHILD_ERROR", -32600)
	echoWorks(ctx, t, bc, "after the refused request")

	logs := &testkit.Lines{}
	child := fixtureChild(t, "", time.Second, "FIXTURE_MAX_LINE=100000")
	child.MaxRequestBytes = 100_000
	svc := newService(t, Config{Servers: []ServerConfig{child}, Logger: logs.Logger()})
	bc = mcpbridgev1.NewBridgeServiceClient(loopbackBridge(t, svc))
	_, err = callTool(ctx, bc, "echo", args)
	rpc := wantStatus(t, "a request over MaxRequestBytes", err, codes.ResourceExhausted, "TOO_LARGE", -32600)
	if !strings.Contains(rpc.GetDataJson(), `"limit":100000`) {
		t.Errorf("JsonRpcError data = %s, want the limit", rpc.GetDataJson())
	}
	echoWorks(ctx, t, bc, "after the refused request")
}

// wantStatus checks an error's code, ErrorInfo reason and JSON-RPC code.
func wantStatus(t *testing.T, what string, err error, code codes.Code, reason string, rpcCode int64) *mcpbridgev1.JsonRpcError {
	t.Helper()
	rpc, info := statusDetails(t, err, code)
	if info.GetReason() != reason || int64(rpc.GetCode()) != rpcCode {
		t.Errorf("%s: %v with reason %s and JSON-RPC code %d; want %s and %d", what, err, info.GetReason(), rpc.GetCode(), reason, rpcCode)
	}
	return rpc
}

// waitCounts polls the fixture's counts of block calls started and
// cancelled until done says they are what the test waits for.
func waitCounts(ctx context.Context, t *testing.T, bc mcpbridgev1.BridgeServiceClient, done func(blocking, cancelled int) bool) {
	t.Helper()
	for {
		res, err := callTool(ctx, bc, "counts", `{}`)
		if err != nil {
			t.Fatalf("counts: %v", err)
		}
		var c struct{ Blocking, Cancelled int }
		if err := json.Unmarshal([]byte(firstText(t, res.GetResultJson())), &c); err != nil {
			t.Fatalf("counts = %s: %v", res.GetResultJson(), err)
		}
		if done(c.Blocking, c.Cancelled) {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("the fixture's counts stopped at %+v", c)
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// A client cancels 1,000 calls in flight at once. Every call ends
// CANCELLED, the child hears of every one (1,000 cancelled block calls),
// the same child serves the next call, and the bridge is back to the
// goroutines and file descriptors it had before.
func TestFaultThousandCancelled(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	const calls = 1000
	bc, _, _ := faultBridge(t, Config{}, "FIXTURE_MAX_CONCURRENCY=2000")
	echoWorks(ctx, t, bc, "before") // the connection and the child are up
	before := childOf(ctx, t, bc)
	goroutines, fds := runtime.NumGoroutine(), openFDs(t)

	callCtx, cancelCalls := context.WithCancel(ctx)
	errs := make(chan error, calls)
	var wg sync.WaitGroup
	for range calls {
		wg.Go(func() {
			_, err := callTool(callCtx, bc, "block", `{}`)
			errs <- err
		})
	}
	waitCounts(ctx, t, bc, func(blocking, _ int) bool { return blocking == calls })
	cancelCalls()
	wg.Wait()
	close(errs)
	for err := range errs {
		if status.Code(err) != codes.Canceled {
			t.Fatalf("a cancelled call = %v, want CANCELLED", err)
		}
	}
	waitCounts(ctx, t, bc, func(_, cancelled int) bool { return cancelled == calls })

	echoWorks(ctx, t, bc, "after 1,000 cancellations")
	if after := childOf(ctx, t, bc); after.GetPid() != before.GetPid() || after.GetRestarts() != 0 {
		t.Errorf("child after 1,000 cancellations = %v, want the same process (%d), never restarted", after, before.GetPid())
	}
	// gRPC ends a cancelled stream's goroutines and buffers asynchronously.
	settle(ctx, t, func() error {
		if n := runtime.NumGoroutine(); n > goroutines+5 {
			return fmt.Errorf("%d goroutines, %d before the calls", n, goroutines)
		}
		if n := openFDs(t); n > fds {
			return fmt.Errorf("%d open file descriptors, %d before the calls", n, fds)
		}
		return nil
	})
}

// settle waits until check passes, checking every 20 ms, and fails t with
// check's last error when ctx ends first.
func settle(ctx context.Context, t *testing.T, check func() error) {
	t.Helper()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		err := check()
		if err == nil {
			return
		}
		select {
		case <-tick.C:
		case <-ctx.Done():
			t.Fatal(err)
		}
	}
}

// openFDs counts this process's open file descriptors.
func openFDs(t *testing.T) int {
	t.Helper()
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	return len(entries)
}

// A launcher that dies while its server (a grandchild holding the child's
// stdout and stderr) lives on fails the calls in flight at once: the
// reaper ends the grandchild, so the pipes close, instead of the bridge
// waiting out the pipes (2 s) and the exit window (1 s) first.
func TestFaultLauncherDies(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	bc, _, logs := faultBridge(t, Config{}, "FIXTURE_GRANDCHILD=1")
	pid := int(childOf(ctx, t, bc).GetPid())
	if pid <= 0 {
		t.Fatalf("no child pid")
	}
	callCtx, cancelCall := context.WithTimeout(ctx, 2*time.Second) // under the 3 s a dead launcher used to take
	defer cancelCall()
	done := make(chan error, 1)
	go func() {
		_, err := callTool(callCtx, bc, "block", `{}`)
		done <- err
	}()
	logs.WaitFor(ctx, t, "fixture: blocking")
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	if err := <-done; status.Code(err) != codes.Unavailable {
		t.Errorf("the call in flight when the launcher died = %v, want UNAVAILABLE before its 2 s deadline", err)
	}
}

// A call whose gRPC deadline passes in the child ends with the bridge's
// own DEADLINE_EXCEEDED, JsonRpcError -32001 in its details, every time:
// the bridge ends the child call a margin before the deadline, so its
// status reaches the client before the client's own timer (which would
// give DEADLINE_EXCEEDED without details) or grpc-go's server-side reset
// (CANCELLED) can.
func TestDeadlineExceededCarriesDetails(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	bc, _, _ := faultBridge(t, Config{})
	echoWorks(ctx, t, bc, "before")
	var wg sync.WaitGroup
	errs := make(chan error, 20)
	for range 20 {
		wg.Go(func() {
			callCtx, cancel := context.WithTimeout(ctx, time.Second)
			defer cancel()
			_, err := callTool(callCtx, bc, "block", `{}`)
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		wantStatus(t, "a call past its deadline", err, codes.DeadlineExceeded, "TIMEOUT", -32001)
	}
}
