//go:build linux

package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/mcpbridge/mcpbridge/internal/testkit"
	mcpbridgev1 "github.com/mcpbridge/mcpbridge/proto/mcpbridge/v1"
)

// These tests run `mcpbridge serve` as a real process (the binary TestMain
// builds) in front of real stdio MCP servers (the Go SDK conformance
// server, and the "slow" fixture of serve_fixture_test.go), and drive it
// with the real grpcurl binary and with grpc-go. They wait for events
// (log lines, process exits), never for time to pass. Linux only: they
// watch the bridge's child through a pidfd.

// testTimeout bounds every wait, so that a failure fails instead of
// hanging until go test's own timeout.
const testTimeout = 2 * time.Minute

// bridgeProcess is a running `mcpbridge serve`.
type bridgeProcess struct {
	cmd    *exec.Cmd
	addr   string
	log    *testkit.Lines
	exited chan struct{} // closed once the process has been reaped
	state  *os.ProcessState
	paused atomic.Pointer[chan struct{}] // while set, its stderr is not read
}

// pause stops reading the bridge's stderr, as a log pipe nobody drains;
// the returned function resumes.
func (b *bridgeProcess) pause() (resume func()) {
	ch := make(chan struct{})
	b.paused.Store(&ch)
	return func() {
		b.paused.Store(nil)
		close(ch)
	}
}

var listenRE = regexp.MustCompile(`msg="mcpbridge: serving" listen=(\S+)`)

// startBridge runs `mcpbridge serve --listen 127.0.0.1:0 args...` with env
// added to ours, and waits until it listens. Cleanup kills it if the test
// did not stop it.
func startBridge(t testing.TB, env []string, args ...string) *bridgeProcess {
	t.Helper()
	cmd := exec.Command(mcpbridgeBin, append([]string{"serve", "--listen", "127.0.0.1:0"}, args...)...)
	cmd.Env = append(os.Environ(), env...)
	return startBridgeCmd(t, cmd)
}

// startBridgeCmd is startBridge for a command the caller prepared (its
// own binary, credentials or attributes).
func startBridgeCmd(t testing.TB, cmd *exec.Cmd) *bridgeProcess {
	t.Helper()
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	b := &bridgeProcess{cmd: cmd, log: &testkit.Lines{}, exited: make(chan struct{})}
	go func() { // the reader, then the sole caller of Wait
		sc := bufio.NewScanner(stderr)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			b.log.Add(sc.Text())
			if p := b.paused.Load(); p != nil {
				<-*p
			}
		}
		io.Copy(io.Discard, stderr)
		cmd.Wait()
		b.state = cmd.ProcessState
		close(b.exited)
	}()
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-b.exited
		if t.Failed() {
			t.Logf("the bridge's log:\n%s", b.log)
		}
	})
	ctx, cancel := context.WithTimeout(t.Context(), testTimeout)
	defer cancel()
	b.addr = listenRE.FindStringSubmatch(b.log.WaitFor(ctx, t, `msg="mcpbridge: serving"`))[1]
	return b
}

// wait waits for the bridge to exit and returns its exit code.
func (b *bridgeProcess) wait(t testing.TB) int {
	t.Helper()
	select {
	case <-b.exited:
	case <-time.After(testTimeout):
		t.Fatalf("the bridge did not exit")
	}
	return b.state.ExitCode()
}

// conn is a grpc-go client of the bridge.
func (b *bridgeProcess) conn(t testing.TB) *grpc.ClientConn {
	t.Helper()
	return dial(t, b.addr)
}

// dial is a plaintext grpc-go client of addr, closed at cleanup.
func dial(tb testing.TB, addr string) *grpc.ClientConn {
	tb.Helper()
	conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { conn.Close() })
	return conn
}

// childPid returns the pid of the bridge's child, once it is ready.
func childPid(ctx context.Context, t *testing.T, bc mcpbridgev1.BridgeServiceClient) int {
	t.Helper()
	res, err := bc.GetServer(ctx, &mcpbridgev1.GetServerRequest{WaitForReady: true})
	if err != nil || res.GetChild().GetPid() == 0 {
		t.Fatalf("GetServer = %v, %v; want a child with a pid", res, err)
	}
	return int(res.GetChild().GetPid())
}

// grpcurl runs the grpcurl binary and logs a transcript of each run.
type grpcurl struct{ path string }

const installGrpcurl = "GOBIN=$PWD/bin go install github.com/fullstorydev/grpcurl/cmd/grpcurl@v1.9.4"

// findGrpcurl returns the grpcurl in <module>/bin (where .ci/run installs
// the pinned version) or else on PATH; without one the test is skipped,
// or fails under CI=true.
func findGrpcurl(t *testing.T) grpcurl {
	t.Helper()
	if p := filepath.Join(testkit.ModuleRoot(t), "bin", "grpcurl"); isExecutable(p) {
		return grpcurl{p}
	}
	if p, err := exec.LookPath("grpcurl"); err == nil {
		return grpcurl{p}
	}
	testkit.MissingPeer(t, "grpcurl", installGrpcurl)
	return grpcurl{}
}

func isExecutable(path string) bool {
	info, err := os.Stat(path)
	return err == nil && info.Mode().IsRegular() && info.Mode()&0o111 != 0
}

// run runs grpcurl with args and returns its stdout, its stderr and its
// exit code.
func (g grpcurl) run(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), testTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, g.path, args...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatalf("running grpcurl: %v", err)
	}
	code = cmd.ProcessState.ExitCode()
	t.Logf("$ grpcurl %s\n%s%s(exit %d)", shellQuote(args), out.String(), errOut.String(), code)
	return out.String(), errOut.String(), code
}

// shellQuote renders args as a shell command line, for transcripts.
func shellQuote(args []string) string {
	plain := regexp.MustCompile(`^[A-Za-z0-9_./:=@,+-]+$`)
	q := make([]string, len(args))
	for i, a := range args {
		if plain.MatchString(a) {
			q[i] = a
		} else {
			q[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
	}
	return strings.Join(q, " ")
}

// `mcpbridge serve` in front of the Go SDK conformance server, driven by
// the real grpcurl: listing and describing the service through reflection,
// the typed CallTool and CallToolStream (progress before the result), the
// lossless Call, an error's details with -format-error, and health.
func TestServeWithGrpcurl(t *testing.T) {
	g := findGrpcurl(t)
	b := startBridge(t, nil, append([]string{"--"}, testkit.GoSDKServer(t)...)...)
	rpc := func(method string) string { return "mcpbridge.v1.BridgeService/" + method }

	t.Run("list", func(t *testing.T) {
		out, _, code := g.run(t, "-plaintext", b.addr, "list")
		want := "grpc.health.v1.Health\ngrpc.reflection.v1.ServerReflection\ngrpc.reflection.v1alpha.ServerReflection\nmcpbridge.v1.BridgeService\n"
		if code != 0 || out != want {
			t.Errorf("grpcurl list = %q (exit %d), want %q", out, code, want)
		}
	})
	t.Run("describe", func(t *testing.T) {
		out, _, code := g.run(t, "-plaintext", b.addr, "describe", "mcpbridge.v1.BridgeService")
		for _, want := range []string{
			"mcpbridge.v1.BridgeService is a service:",
			"rpc CallTool ( .mcpbridge.v1.CallToolRequest ) returns ( .mcpbridge.v1.CallToolResponse );",
			"rpc CallToolStream ( .mcpbridge.v1.CallToolStreamRequest ) returns ( stream .mcpbridge.v1.CallToolStreamResponse );",
			"rpc Connect ( stream .mcpbridge.v1.ConnectRequest ) returns ( stream .mcpbridge.v1.ConnectResponse );",
		} {
			if code != 0 || !strings.Contains(out, want) {
				t.Errorf("grpcurl describe (exit %d) lacks %q", code, want)
			}
		}
	})
	t.Run("GetServer", func(t *testing.T) {
		out, _, code := g.run(t, "-plaintext", "-d", `{"waitForReady":true}`, b.addr, rpc("GetServer"))
		var res struct {
			ProtocolVersion string
			ServerInfo      struct{ Name string }
			Child           struct {
				Pid   int
				State string
			}
		}
		if err := json.Unmarshal([]byte(out), &res); err != nil || code != 0 {
			t.Fatalf("GetServer: %v (exit %d)", err, code)
		}
		if res.ProtocolVersion != "2026-07-28" || res.ServerInfo.Name != "mcp-conformance-test-server" || res.Child.State != "CHILD_STATE_READY" || res.Child.Pid == 0 {
			t.Errorf("GetServer = %+v, want the conformance server at 2026-07-28, READY with a pid", res)
		}
	})
	t.Run("CallTool", func(t *testing.T) {
		out, _, code := g.run(t, "-plaintext", "-d", `{"name":"test_simple_text"}`, b.addr, rpc("CallTool"))
		var res struct {
			Content []struct{ Text struct{ Text string } }
			IsError bool
		}
		if err := json.Unmarshal([]byte(out), &res); err != nil || code != 0 {
			t.Fatalf("CallTool: %v (exit %d)", err, code)
		}
		if len(res.Content) != 1 || res.Content[0].Text.Text != "This is a simple text response for testing." || res.IsError {
			t.Errorf("CallTool test_simple_text = %s, want its one text block", out)
		}
	})
	t.Run("CallToolStream", func(t *testing.T) {
		out, _, code := g.run(t, "-plaintext", "-d", `{"name":"test_tool_with_progress"}`, b.addr, rpc("CallToolStream"))
		if code != 0 {
			t.Fatalf("CallToolStream exited %d", code)
		}
		// grpcurl prints one JSON object per stream message.
		var kinds []string
		dec := json.NewDecoder(strings.NewReader(out))
		for {
			var msg map[string]json.RawMessage
			if err := dec.Decode(&msg); err == io.EOF {
				break
			} else if err != nil {
				t.Fatalf("stream output: %v", err)
			}
			for k := range msg {
				kinds = append(kinds, k)
			}
		}
		// test_tool_with_progress reports 0, 50 and 100 of 100.
		if len(kinds) < 2 || kinds[len(kinds)-1] != "result" || strings.Count(strings.Join(kinds, " "), "result") != 1 || kinds[0] != "progress" {
			t.Errorf("CallToolStream messages = %v, want progress messages, then exactly one result, last", kinds)
		}
	})
	t.Run("Call", func(t *testing.T) {
		out, _, code := g.run(t, "-plaintext", "-d", `{"method":"tools/call","params_json":"{\"name\":\"test_simple_text\",\"arguments\":{}}"}`, b.addr, rpc("Call"))
		var res struct {
			ResultJSON string `json:"resultJson"`
		}
		if err := json.Unmarshal([]byte(out), &res); err != nil || code != 0 {
			t.Fatalf("Call: %v (exit %d)", err, code)
		}
		if !strings.Contains(res.ResultJSON, `"text":"This is a simple text response for testing."`) {
			t.Errorf("Call tools/call result_json = %s, want the tool's text", res.ResultJSON)
		}
	})
	t.Run("error details", func(t *testing.T) {
		_, errOut, code := g.run(t, "-plaintext", "-format-error", "-d", `{"method":"tools/call","params_json":"{\"name\":\"no_such_tool\"}"}`, b.addr, rpc("Call"))
		var st struct {
			Code    int
			Message string
			Details []struct {
				Type     string          `json:"@type"`
				Code     json.RawMessage // a JSON number: JsonRpcError.code is an int32
				Message  string
				Reason   string
				Domain   string
				Metadata map[string]string
			}
		}
		if err := json.Unmarshal([]byte(errOut), &st); err != nil {
			t.Fatalf("-format-error output: %v", err)
		}
		if code != 64+int(codes.InvalidArgument) || st.Code != int(codes.InvalidArgument) || len(st.Details) != 2 {
			t.Fatalf("unknown tool: exit %d, status %+v; want INVALID_ARGUMENT (exit 67) with two details", code, st)
		}
		rpcErr, info := st.Details[0], st.Details[1]
		if rpcErr.Type != "type.googleapis.com/mcpbridge.v1.JsonRpcError" || string(rpcErr.Code) != "-32602" || rpcErr.Message != st.Message {
			t.Errorf("first detail = %+v, want the child's JsonRpcError -32602", rpcErr)
		}
		if info.Type != "type.googleapis.com/google.rpc.ErrorInfo" || info.Reason != "CHILD_ERROR" || info.Domain != "mcpbridge" ||
			info.Metadata["method"] != "tools/call" || info.Metadata["code"] != "-32602" {
			t.Errorf("second detail = %+v, want ErrorInfo CHILD_ERROR with method and code", info)
		}
	})
	t.Run("health", func(t *testing.T) {
		for _, svc := range []string{"", "mcpbridge.v1.BridgeService"} {
			out, _, code := g.run(t, "-plaintext", "-d", `{"service":"`+svc+`"}`, b.addr, "grpc.health.v1.Health/Check")
			if code != 0 || !strings.Contains(out, `"status": "SERVING"`) {
				t.Errorf("health of %q = %s (exit %d), want SERVING", svc, out, code)
			}
		}
	})
}

// slowFixture is the environment and command that run the "slow" fixture
// behind the bridge.
func slowFixture(t *testing.T, env ...string) (fixtureEnv []string, command []string) {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	env = append(env, testkit.FixtureEnv+"=slow", testkit.QuickRaceExit())
	// The bridge's environment reaches the child only where --env passes it.
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		command = append(command, "--env", name)
	}
	return env, append(command, "--", self)
}

// callSlow calls a "slow" fixture tool through Call and returns a channel
// with the outcome.
func callSlow(ctx context.Context, bc mcpbridgev1.BridgeServiceClient, tool string, ms int) <-chan error {
	done := make(chan error, 1)
	go func() {
		res, err := bc.Call(ctx, &mcpbridgev1.CallRequest{Method: "tools/call", ParamsJson: fmt.Sprintf(`{"name":%q,"arguments":{"ms":%d}}`, tool, ms)})
		if err == nil && !strings.Contains(res.GetResultJson(), `"text":"done"`) {
			err = fmt.Errorf("result %s, want done", res.GetResultJson())
		}
		done <- err
	}()
	return done
}

// SIGTERM and SIGINT shut the bridge down gracefully: a call in flight
// finishes, or, past --shutdown-timeout, fails UNAVAILABLE with RetryInfo and is
// cancelled on the child before its stdin closes; a Subscribe stream ends
// at once with UNAVAILABLE and RetryInfo instead of holding the shutdown;
// the bridge exits 0 and its child is gone.
func TestServeGracefulShutdown(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		for _, tc := range []struct {
			name string
			tool string
			want codes.Code
		}{
			{"call finishes", "slow", codes.OK},
			{"call outlives the timeout", "hang", codes.Unavailable},
		} {
			t.Run(sig.String()+"/"+tc.name, func(t *testing.T) {
				ctx, cancel := context.WithTimeout(t.Context(), testTimeout)
				defer cancel()
				env, command := slowFixture(t)
				b := startBridge(t, env, append([]string{"--shutdown-timeout", "500ms"}, command...)...)
				bc := mcpbridgev1.NewBridgeServiceClient(b.conn(t))
				child := testkit.Pidfd(t, childPid(ctx, t, bc))

				sub, err := bc.Subscribe(ctx, &mcpbridgev1.SubscribeRequest{ToolsListChanged: true})
				if err != nil {
					t.Fatal(err)
				}
				if ack, err := sub.Recv(); err != nil || ack.GetAcknowledged() == nil {
					t.Fatalf("Subscribe = %v, %v; want its acknowledgement", ack, err)
				}
				done := callSlow(ctx, bc, tc.tool, 300)
				b.log.WaitFor(ctx, t, "mcpbridge: server stderr", "fixture: "+tc.tool+" started")
				if err := b.cmd.Process.Signal(sig); err != nil {
					t.Fatal(err)
				}
				_, err = sub.Recv()
				if st := status.Convert(err); st.Code() != codes.Unavailable || st.Message() != "The bridge is shutting down" || !hasRetryInfo(st) {
					t.Errorf("the Subscribe stream at %v = %v, want UNAVAILABLE with RetryInfo", sig, err)
				}
				err = <-done
				if status.Code(err) != tc.want {
					t.Errorf("the call in flight at %v = %v, want %v", sig, err, tc.want)
				}
				if tc.want == codes.Unavailable && !hasRetryInfo(status.Convert(err)) {
					t.Errorf("the call ended at the shutdown timeout = %v, want RetryInfo, so that its caller retries elsewhere", err)
				}
				if code := b.wait(t); code != 0 {
					t.Errorf("the bridge exited %d after %v, want 0", code, sig)
				}
				if !testkit.Exited(t, child, 0) { // the bridge reaped it before exiting
					t.Errorf("the child outlived the bridge")
				}
				if !b.log.Has("mcpbridge: stopped") {
					t.Errorf("the bridge's log lacks its last line")
				}
				if tc.tool == "hang" && !b.log.Has("mcpbridge: server stderr", "fixture: hang cancelled") {
					t.Errorf("the call abandoned at the timeout was not cancelled on the child:\n%s", b.log)
				}
			})
		}
	}
}

// hasRetryInfo reports a google.rpc.RetryInfo among st's details.
func hasRetryInfo(st *status.Status) bool {
	for _, d := range st.Details() {
		if _, ok := d.(*errdetails.RetryInfo); ok {
			return true
		}
	}
	return false
}

// A log destination that stalls does not stall the bridge: with its stderr
// unread (the pipe fills after a few hundred call records, the log's queue
// after 4,096 more), 6,000 calls still complete, and once stderr is read
// again the log says how many records it had to drop.
func TestServeUnreadLogDoesNotBlock(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), testTimeout)
	defer cancel()
	b := startBridge(t, nil)
	bc := mcpbridgev1.NewBridgeServiceClient(b.conn(t))
	childPid(ctx, t, bc) // ready
	resume := b.pause()
	for i := range 6000 {
		if _, err := bc.Ping(ctx, &mcpbridgev1.PingRequest{}); err != nil {
			resume()
			t.Fatalf("call %d with the log unread: %v", i, err)
		}
	}
	resume()
	b.log.WaitFor(ctx, t, "mcpbridge: log records dropped")
}

// A bridge killed with SIGKILL cannot stop its child; the kernel does
// (Pdeathsig).
func TestServeKilledLeavesNoChild(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), testTimeout)
	defer cancel()
	b := startBridge(t, nil, append([]string{"--"}, testkit.GoSDKServer(t)...)...)
	child := testkit.Pidfd(t, childPid(ctx, t, mcpbridgev1.NewBridgeServiceClient(b.conn(t))))
	if err := b.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	b.wait(t)
	if !testkit.Exited(t, child, 10*time.Second) {
		t.Errorf("the child outlived the SIGKILLed bridge")
	}
}

// A bridge killed with SIGKILL leaves no descendant of its child either:
// with `sh -c` as the launcher, a grandchild that ignores stdin EOF and
// group signals, or one that left the process group, dies with the child,
// killed by the child's reaper (docs/stdio.md, scenario 93).
func TestServeKilledLeavesNoDescendant(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	lingerRE := regexp.MustCompile(`line="linger (\d+)"`)
	for _, setsid := range []bool{false, true} {
		t.Run(fmt.Sprintf("setsid=%v", setsid), func(t *testing.T) {
			ctx, cancel := context.WithTimeout(t.Context(), testTimeout)
			defer cancel()
			script := fmt.Sprintf(`%s=linger LINGER_SETSID=%v "$0" & exec "$1" demo`, testkit.FixtureEnv, setsid)
			b := startBridge(t, []string{testkit.QuickRaceExit()}, "--env", "GORACE", "--", "sh", "-c", script, self, mcpbridgeBin)
			child := testkit.Pidfd(t, childPid(ctx, t, mcpbridgev1.NewBridgeServiceClient(b.conn(t))))
			pid, err := strconv.Atoi(lingerRE.FindStringSubmatch(b.log.WaitFor(ctx, t, "mcpbridge: server stderr", `line="linger `))[1])
			if err != nil {
				t.Fatal(err)
			}
			grandchild := testkit.Pidfd(t, pid)
			t.Cleanup(func() { unix.PidfdSendSignal(grandchild, unix.SIGKILL, nil, 0) }) // should the test fail

			if err := b.cmd.Process.Signal(syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			b.wait(t)
			if !testkit.Exited(t, grandchild, 10*time.Second) {
				t.Errorf("the grandchild outlived the SIGKILLed bridge")
			}
			if !testkit.Exited(t, child, 10*time.Second) {
				t.Errorf("the child outlived the SIGKILLed bridge")
			}
		})
	}
}

// Each flag of `mcpbridge serve` does what it says, and a bad value is a
// clear error (exit 2) before anything starts.
func TestServeFlags(t *testing.T) {
	t.Run("invalid", func(t *testing.T) {
		for _, tc := range []struct {
			args []string
			code int
			want string
		}{
			{[]string{"--protocol", "2024-11-05"}, 2, `invalid value "2024-11-05" for flag --protocol: want auto or one of 2026-07-28, 2025-11-25, 2025-06-18`},
			{[]string{"--max-message-bytes", "0"}, 2, `invalid value "0" for flag --max-message-bytes: must be positive`},
			{[]string{"--client-capabilities", "[]"}, 2, `invalid value "[]" for flag --client-capabilities: not a JSON object`},
			{[]string{"--roots", `{"uri":"file:///"}`}, 2, `invalid value "{\"uri\":\"file:///\"}" for flag --roots: not a JSON array`},
			{[]string{"--max-message-bytes", "16MiB"}, 2, `invalid value "16MiB" for flag --max-message-bytes: want a whole number`},
			{[]string{"--default-deadline", "0s"}, 2, `invalid value "0s" for flag --default-deadline: must be positive`},
			{[]string{"--default-deadline", "20m"}, 2, `invalid value "20m0s" for flag --default-deadline: longer than --max-deadline 10m0s`},
			{[]string{"--max-deadline", "-1s"}, 2, `invalid value "-1s" for flag --max-deadline: must be positive`},
			{[]string{"--grace", "0"}, 2, `invalid value "0s" for flag --grace: must be positive`},
			{[]string{"--drain-delay", "-1s"}, 2, `invalid value "-1s" for flag --drain-delay: must not be negative`},
			{[]string{"--watch-config", "1s"}, 2, `invalid value "1s" for flag --watch-config: needs --config`},
			{[]string{"--health-listen", "127.0.0.1:x"}, 2, `invalid value "127.0.0.1:x" for flag --health-listen: the port must be a number from 0 to 65535`},
			{[]string{"--grace", "5"}, 2, `invalid value "5" for flag --grace: want a duration such as 10s, 1m30s or 500ms`},
			{[]string{"--grace", "abc"}, 2, `invalid value "abc" for flag --grace: want a duration such as 10s, 1m30s or 500ms`},
			{[]string{"--insecure=maybe"}, 2, `invalid value "maybe" for flag --insecure: want true or false`},
			{[]string{"--max-restarts", "0"}, 2, `invalid value "0" for flag --max-restarts: must be positive`},
			{[]string{"--max-restart-backoff", "1ms"}, 2, `invalid value "1ms" for flag --max-restart-backoff: must be at least 100ms`},
			{[]string{"--listen", "50051"}, 2, `invalid value "50051" for flag --listen: address 50051: missing port in address`},
			{[]string{"--listen", "127.0.0.1:99999"}, 2, `invalid value "127.0.0.1:99999" for flag --listen: the port must be a number from 0 to 65535`},
			{[]string{"--log-level", "loud"}, 2, `invalid value "loud" for flag --log-level: want debug, info, warn or error`},
			{[]string{"--bogus"}, 2, `flag provided but not defined: --bogus`},
			{[]string{"--reaper=maybe"}, 2, `invalid value "maybe" for flag --reaper: want true or false`},
			// Plaintext HTTP off loopback is refused as plaintext gRPC is,
			// and CORS without the HTTP listener is a mistake. The first
			// two are found after the flags are parsed, when serving starts.
			{[]string{"--listen", "127.0.0.1:0", "--http-listen", "0.0.0.0:0"}, 2, "refusing to serve plaintext HTTP"},
			{[]string{"--listen", "127.0.0.1:0", "--http-cors-origin", "https://app.example"}, 2, "--http-cors-origin needs --http-listen"},
			{[]string{"--listen", "127.0.0.1:0", "--http-listen", "127.0.0.1:0", "--http-cors-origin", "app.example"}, 2, "want * or an origin"},
			{[]string{"--listen", "127.0.0.1:0", "--http-listen", "nope"}, 2, "--http-listen"},
		} {
			t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
				// Bounded: a bad value wrongly accepted would serve until killed.
				ctx, cancel := context.WithTimeout(t.Context(), testTimeout)
				defer cancel()
				cmd := exec.CommandContext(ctx, mcpbridgeBin, append(append([]string{"serve"}, tc.args...), "--", "false")...)
				out, _ := cmd.CombinedOutput()
				if code := cmd.ProcessState.ExitCode(); code != tc.code || !strings.Contains(string(out), tc.want) {
					t.Errorf("mcpbridge serve %s: exit %d, output:\n%s\nwant exit %d and %q", strings.Join(tc.args, " "), code, out, tc.code, tc.want)
				}
			})
		}
	})

	t.Run("protocol", func(t *testing.T) {
		sdk := testkit.GoSDKServer(t)
		for _, tc := range []struct{ flag, want string }{
			{"auto", "2026-07-28"},
			{"2026-07-28", "2026-07-28"},
			{"2025-11-25", "2025-11-25"},
			{"2025-06-18", "2025-06-18"},
		} {
			t.Run(tc.flag, func(t *testing.T) {
				ctx, cancel := context.WithTimeout(t.Context(), testTimeout)
				defer cancel()
				b := startBridge(t, nil, append([]string{"--protocol", tc.flag, "--"}, sdk...)...)
				bc := mcpbridgev1.NewBridgeServiceClient(b.conn(t))
				res, err := bc.GetServer(ctx, &mcpbridgev1.GetServerRequest{WaitForReady: true})
				if err != nil || res.GetProtocolVersion() != tc.want {
					t.Fatalf("--protocol %s: GetServer = %v, %v; want protocol %s", tc.flag, res, err, tc.want)
				}
				// The child really speaks it: a tool call works.
				out, err := bc.Call(ctx, &mcpbridgev1.CallRequest{Method: "tools/call", ParamsJson: `{"name":"test_simple_text","arguments":{}}`})
				if err != nil || !strings.Contains(out.GetResultJson(), "simple text") {
					t.Errorf("--protocol %s: tools/call = %v, %v", tc.flag, out, err)
				}
			})
		}
	})

	t.Run("name, max-message-bytes, deadlines", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(t.Context(), testTimeout)
		defer cancel()
		env, command := slowFixture(t)
		b := startBridge(t, env, append([]string{"--name", "slowpoke", "--max-message-bytes", "4096", "--default-deadline", "300ms", "--max-deadline", "600ms"}, command...)...)
		bc := mcpbridgev1.NewBridgeServiceClient(b.conn(t))

		res, err := bc.GetServer(ctx, &mcpbridgev1.GetServerRequest{Server: "slowpoke", WaitForReady: true})
		if err != nil || res.GetName() != "slowpoke" {
			t.Errorf("--name slowpoke: GetServer = %v, %v", res, err)
		}
		_, err = bc.GetServer(ctx, &mcpbridgev1.GetServerRequest{Server: "other", WaitForReady: true})
		if status.Code(err) != codes.InvalidArgument {
			t.Errorf("--name slowpoke: GetServer of another name = %v, want INVALID_ARGUMENT", err)
		}

		big := fmt.Sprintf(`{"name":"slow","arguments":{"ms":1,"pad":%q}}`, strings.Repeat("x", 8192))
		_, err = bc.Call(ctx, &mcpbridgev1.CallRequest{Method: "tools/call", ParamsJson: big})
		if status.Code(err) != codes.ResourceExhausted {
			t.Errorf("--max-message-bytes 4096: an 8 KiB request = %v, want RESOURCE_EXHAUSTED", err)
		}
		if err := <-callSlow(ctx, bc, "slow", 1); err != nil {
			t.Errorf("a small request: %v", err)
		}

		// No deadline: --default-deadline applies.
		if err := <-callSlow(ctx, bc, "hang", 0); status.Code(err) != codes.DeadlineExceeded {
			t.Errorf("--default-deadline 300ms: a call without deadline that hangs = %v, want DEADLINE_EXCEEDED", err)
		}
		// A longer deadline is cut to --max-deadline.
		long, cancelLong := context.WithTimeout(ctx, time.Minute)
		defer cancelLong()
		start := time.Now()
		if err := <-callSlow(long, bc, "hang", 0); status.Code(err) != codes.DeadlineExceeded || long.Err() != nil {
			t.Errorf("--max-deadline 600ms: a 1-minute call that hangs = %v after %v, want DEADLINE_EXCEEDED before its own deadline", err, time.Since(start))
		}
	})

	t.Run("reaper", func(t *testing.T) {
		for _, reaper := range []bool{true, false} {
			ctx, cancel := context.WithTimeout(t.Context(), testTimeout)
			defer cancel()
			b := startBridge(t, nil, fmt.Sprintf("--reaper=%v", reaper))
			pid := childPid(ctx, t, mcpbridgev1.NewBridgeServiceClient(b.conn(t)))
			bridge, parent := b.cmd.Process.Pid, parentOf(t, pid)
			// Under a reaper, the reaper is the child's parent and the
			// bridge's child.
			if underReaper := parent != bridge && parentOf(t, parent) == bridge; underReaper != reaper {
				t.Errorf("--reaper=%v: the child %d has parent %d, the bridge is %d", reaper, pid, parent, bridge)
			}
		}
	})

	t.Run("grace", func(t *testing.T) {
		env, command := slowFixture(t, "FIXTURE_IGNORE_EOF=1")
		ctx, cancel := context.WithTimeout(t.Context(), testTimeout)
		defer cancel()
		b := startBridge(t, env, append([]string{"--grace", "200ms"}, command...)...)
		child := testkit.Pidfd(t, childPid(ctx, t, mcpbridgev1.NewBridgeServiceClient(b.conn(t))))
		if err := b.cmd.Process.Signal(syscall.SIGTERM); err != nil {
			t.Fatal(err)
		}
		if code := b.wait(t); code != 0 {
			t.Errorf("exit %d, want 0", code)
		}
		if !b.log.Has("server did not exit; signalling its process group", "signal=terminated") {
			t.Errorf("a child that ignores EOF did not get SIGTERM after --grace")
		}
		if !testkit.Exited(t, child, 0) {
			t.Errorf("the child outlived the bridge")
		}
	})
}

// parentOf returns pid's parent pid.
func parentOf(t testing.TB, pid int) int {
	t.Helper()
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		t.Fatal(err)
	}
	f := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
	ppid, err := strconv.Atoi(f[1])
	if err != nil {
		t.Fatal(err)
	}
	return ppid
}

// With no flag beyond the era, a legacy demo behind `mcpbridge serve` can
// ask its caller: the bridge declares the client capabilities it routes
// (--client-capabilities' default), so the demo's ask tool sends
// elicitation/create, which reaches the CallToolStream that opted in as a
// server_request; RespondToServerRequest answers it and the tool returns
// the answer.
func TestServeLegacyDemoAsks(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), testTimeout)
	defer cancel()
	b := startBridge(t, nil, "--protocol", "2025-11-25", "--", mcpbridgeBin, "demo", "-tick", "0")
	bc := mcpbridgev1.NewBridgeServiceClient(b.conn(t))
	childPid(ctx, t, bc)
	args, _ := structpb.NewStruct(map[string]any{"question": "Your name?"})
	s, err := bc.CallToolStream(ctx, &mcpbridgev1.CallToolStreamRequest{Name: "ask", Arguments: args, ServerRequests: true})
	if err != nil {
		t.Fatal(err)
	}
	for {
		msg, err := s.Recv()
		if err != nil {
			t.Fatalf("CallToolStream(ask): %v before the result", err)
		}
		if sr := msg.GetServerRequest(); sr != nil {
			if sr.GetMethod() != "elicitation/create" || !strings.Contains(sr.GetParamsJson(), "Your name?") {
				t.Fatalf("server_request = %v, want the demo's elicitation/create", sr)
			}
			if _, err := bc.RespondToServerRequest(ctx, &mcpbridgev1.RespondToServerRequestRequest{
				Id: sr.GetId(), Outcome: &mcpbridgev1.RespondToServerRequestRequest_ResultJson{ResultJson: `{"action":"accept","content":{"answer":"Ada"}}`},
			}); err != nil {
				t.Fatalf("RespondToServerRequest: %v", err)
			}
			continue
		}
		if res := msg.GetResult(); res != nil {
			if len(res.GetContent()) == 0 || res.GetContent()[0].GetText().GetText() != "The user answered: Ada" || res.GetIsError() {
				t.Errorf("ask = %v, want the user's answer", res)
			}
			return
		}
	}
}
