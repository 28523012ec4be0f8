//go:build linux

package bridge

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/mcpbridge/mcpbridge/internal/testkit"
	mcpbridgev1 "github.com/mcpbridge/mcpbridge/proto/mcpbridge/v1"
)

// The real children (docs/testing.md, "Real peers") in the two failure
// paths the bridge must carry to them: a deadline that expires mid-call
// reaches the child as notifications/cancelled, and a child killed mid-call
// fails the call UNAVAILABLE and is replaced, after which calls succeed.
// The demo server is held to the same in cmd/mcpbridge
// (TestBridgeFrontsDemo); the fixtures in toolstream_test.go and
// supervisor_test.go.

func init() { fixtures["tap"] = runTapFixture }

// runTapFixture runs the command in its arguments as its own child, with
// the same stdout and stderr, and copies its stdin to the child's line by
// line, appending each line to the file TAP_LOG as well: a transparent
// window on what a real server receives. It exits with the child's status
// once the child exits; the child shares its process group, so the
// supervisor's signals reach both.
func runTapFixture() int {
	log, err := os.OpenFile(os.Getenv("TAP_LOG"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil || len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "tap: need TAP_LOG and a command:", err)
		return 2
	}
	cmd := exec.Command(os.Args[1], os.Args[2:]...)
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	in, err := cmd.StdinPipe()
	if err == nil {
		err = cmd.Start()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "tap:", err)
		return 2
	}
	go func() { // ends at our stdin's EOF, or when the child stops reading
		defer in.Close()
		r := bufio.NewReader(os.Stdin)
		for {
			line, err := r.ReadBytes('\n')
			if len(line) > 0 {
				log.Write(line)
				if _, werr := in.Write(line); werr != nil {
					return
				}
			}
			if err != nil {
				return
			}
		}
	}()
	var exit *exec.ExitError
	if err := cmd.Wait(); errors.As(err, &exit) {
		return max(exit.ExitCode(), 1)
	}
	return 0
}

// tapped fronts sc's command through the tap; it returns the config and
// the path of the log of what the child receives.
func tapped(t *testing.T, sc ServerConfig) (ServerConfig, string) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	log := filepath.Join(t.TempDir(), "stdin.jsonl")
	sc.Args = append([]string{sc.Command}, sc.Args...)
	sc.Command = exe
	sc.Env = append(sc.Env, envVars(testkit.FixtureEnv+"=tap", "TAP_LOG="+log)...)
	return sc, log
}

// received parses the tap's log: every message the child received.
func received(t *testing.T, log string) []map[string]any {
	t.Helper()
	data, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	// A line the tap is still appending has no LF yet: left for later.
	complete := string(data[:bytes.LastIndexByte(data, '\n')+1])
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimSuffix(complete, "\n"), "\n") {
		if line == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("the child received a line that is not JSON: %q", line)
		}
		out = append(out, m)
	}
	return out
}

// cancelledCall finds the tools/call of tool the child received and the
// notifications/cancelled for it, if one came.
func cancelledCall(t *testing.T, msgs []map[string]any, tool string) (call, cancel map[string]any) {
	t.Helper()
	for _, m := range msgs {
		params, _ := m["params"].(map[string]any)
		switch {
		case m["method"] == "tools/call" && params["name"] == tool:
			call = m
		case m["method"] == "notifications/cancelled" && call != nil && params["requestId"] == call["id"]:
			cancel = m
		}
	}
	return call, cancel
}

// realChild is a real peer (docs/testing.md, "Real peers") with a call that
// reports progress early and then works on long enough to be interrupted,
// and a quick call.
type realChild struct {
	name     string
	sc       func(testing.TB) ServerConfig
	long     string
	longArgs map[string]any
	budget   time.Duration // a deadline for the long call past its first progress and before its end
	quick    string
	args     map[string]any
}

var realChildren = []realChild{
	// Progress 0 at once, then two 50 ms steps.
	{"go-sdk", func(tb testing.TB) ServerConfig { return goSDKServer(tb, "") },
		"test_tool_with_progress", nil, 25 * time.Millisecond, "test_simple_text", nil},
	// Progress every 0.5 s for 20 s.
	{"server-everything", func(tb testing.TB) ServerConfig { return everythingServer(tb, "") },
		"trigger-long-running-operation", map[string]any{"duration": 20, "steps": 40}, 2 * time.Second,
		"echo", map[string]any{"message": "hi"}},
}

// longCall and quickCall are the calls of realChildren.
func (rc realChild) longCall(tb testing.TB) *mcpbridgev1.CallToolStreamRequest {
	req := &mcpbridgev1.CallToolStreamRequest{Name: rc.long}
	if rc.longArgs != nil {
		req.Arguments = mustStruct(tb, rc.longArgs)
	}
	return req
}

func (rc realChild) quickCall(tb testing.TB) *mcpbridgev1.CallToolRequest {
	req := &mcpbridgev1.CallToolRequest{Name: rc.quick}
	if rc.args != nil {
		req.Arguments = mustStruct(tb, rc.args)
	}
	return req
}

// A deadline that expires while a real child works reaches it as
// notifications/cancelled for its request; the caller gets
// DEADLINE_EXCEEDED. The Go SDK server's tool runs ~100 ms (two 50 ms
// steps after its first progress), so its deadline is short and an
// attempt whose deadline passed before the child even reported progress
// is made again with a longer one.
func TestRealChildDeadlineCancels(t *testing.T) {
	for _, rc := range realChildren {
		t.Run(rc.name, func(t *testing.T) {
			t.Parallel()
			sc, log := tapped(t, rc.sc(t))
			h := startTypedBridge(t, sc)
			if _, err := h.bc.GetServer(context.Background(), &mcpbridgev1.GetServerRequest{WaitForReady: true}); err != nil {
				t.Fatal(err) // the child is up before any deadline starts
			}
			req := rc.longCall(t)
			for attempt := 1; ; attempt++ {
				outcome := deadlineAttempt(t, h, req, time.Duration(attempt)*rc.budget)
				if outcome == "" {
					break
				}
				if attempt == 6 {
					t.Fatalf("no attempt had its deadline expire after the child's first progress; the last: %s", outcome)
				}
			}
			// The notice may trail the status by a moment.
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			settle(ctx, t, func() error {
				call, cancel := cancelledCall(t, received(t, log), rc.long)
				switch {
				case call == nil:
					return fmt.Errorf("the child never received the tools/call of %s", rc.long)
				case cancel == nil:
					return fmt.Errorf("the child received no notifications/cancelled for request %v", call["id"])
				}
				if reason, _ := cancel["params"].(map[string]any)["reason"].(string); !expiryReason(reason) {
					t.Errorf("cancellation %v, want a timeout reason", cancel)
				}
				return nil
			})
			res, err := h.bc.CallTool(context.Background(), rc.quickCall(t))
			if err != nil || res.GetIsError() {
				t.Errorf("CallTool(%s) after the deadline = %v, %v; want a result", rc.quick, res, err)
			}
		})
	}
}

// A real child killed while a call is in flight: the call fails
// UNAVAILABLE with RetryInfo, the supervisor starts another process, and
// the next call succeeds on it.
func TestRealChildKilledMidCall(t *testing.T) {
	for _, rc := range realChildren {
		t.Run(rc.name, func(t *testing.T) {
			t.Parallel()
			h := startTypedBridge(t, rc.sc(t))
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			before, err := h.bc.GetServer(ctx, &mcpbridgev1.GetServerRequest{WaitForReady: true})
			if err != nil {
				t.Fatal(err)
			}
			s, err := h.bc.CallToolStream(ctx, rc.longCall(t))
			if err != nil {
				t.Fatal(err)
			}
			if first, err := s.Recv(); err != nil || first.GetProgress() == nil {
				t.Fatalf("first message = %v, %v; want progress", first, err)
			}
			pid := int(before.GetChild().GetPid())
			if pid <= 0 { // kill(0) would signal the test's own process group
				t.Fatalf("GetServer() = %v, want a running child", before)
			}
			if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			_, err = recvAll(s)
			checkChildGone(t, "the call in flight when the child was killed", err, firstBackoff)

			currentChild(t, h.svc, "")
			res, err := h.bc.CallTool(ctx, rc.quickCall(t))
			if err != nil || res.GetIsError() || len(res.GetContent()) == 0 {
				t.Fatalf("CallTool(%s) after the restart = %v, %v; want a result", rc.quick, res, err)
			}
			after, err := h.bc.GetServer(ctx, &mcpbridgev1.GetServerRequest{WaitForReady: true})
			if err != nil {
				t.Fatal(err)
			}
			if c := after.GetChild(); c.GetPid() == before.GetChild().GetPid() || c.GetRestarts() != 1 || c.GetLastExit() != "signal: killed" {
				t.Errorf("GetServer().child after SIGKILL = %v, want a new pid, 1 restart, last exit \"signal: killed\"", c)
			}
		})
	}
}

// deadlineAttempt makes the long call with budget as its deadline. It
// returns "" when the deadline expired after the child's first progress
// (what the test wants), and otherwise what happened instead: the
// deadline passed before the child reported, or the call finished first.
func deadlineAttempt(t *testing.T, h *typedHarness, req *mcpbridgev1.CallToolStreamRequest, budget time.Duration) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), budget)
	defer cancel()
	s, err := h.bc.CallToolStream(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	first, err := s.Recv()
	switch {
	case status.Code(err) == codes.DeadlineExceeded:
		return fmt.Sprintf("deadline %v passed before the first progress", budget)
	case err != nil || first.GetProgress() == nil:
		t.Fatalf("first message = %v, %v; want progress", first, err)
	}
	_, err = recvAll(s)
	switch status.Code(err) {
	case codes.DeadlineExceeded:
		return ""
	case codes.OK:
		return fmt.Sprintf("the call finished within its %v deadline", budget)
	}
	t.Fatalf("the call past its deadline ended with %v, want DEADLINE_EXCEEDED", err)
	return ""
}
