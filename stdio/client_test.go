package stdio

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpbridge/mcpbridge/internal/testkit"
	"github.com/mcpbridge/mcpbridge/stdio/jsonrpc"
)

// rawClient starts the fixture in the legacy era, which checks no _meta, and
// talks to it with a raw Client (no negotiation).
func rawClient(tb testing.TB, mutate func(*spec), env ...string) *Client {
	tb.Helper()
	cfg := fixtureConfig(append([]string{"FIXTURE_ERA=legacy"}, env...)...)
	if mutate != nil {
		mutate(&cfg)
	}
	return startClient(tb, cfg)
}

func wantCode(tb testing.TB, what string, err error, code int64) *jsonrpc.Error {
	tb.Helper()
	var e *jsonrpc.Error
	if !errors.As(err, &e) || e.Code != code {
		tb.Fatalf("%s: error = %v, want code %d", what, err, code)
	}
	return e
}

func echoText(tb testing.TB, res json.RawMessage) string {
	tb.Helper()
	var r struct {
		Content []struct{ Text string } `json:"content"`
	}
	if err := json.Unmarshal(res, &r); err != nil || len(r.Content) != 1 {
		tb.Fatalf("not an echo result: %s (%v)", res, err)
	}
	return r.Content[0].Text
}

// Scenario 1.
func TestConnectModernFixture(t *testing.T) {
	c, starts, err := connectFixture(t, ConnectConfig{})
	if err != nil {
		t.Fatalf("Connect: %v", err)
	}
	if got := c.Protocol(); got != Version20260728 {
		t.Errorf("Protocol() = %q, want %q", got, Version20260728)
	}
	if starts.Load() != 1 {
		t.Errorf("start called %d times, want 1", starts.Load())
	}
	if s := getStats(t, c); s.Inits != 0 {
		t.Errorf("initialize sent %d times to a 2026 server, want 0", s.Inits)
	}
	if got := string(c.ServerInfo()); got != `{"name":"fixture","version":"1"}` {
		t.Errorf("ServerInfo() = %s", got)
	}
	if !strings.Contains(string(c.ServerCapabilities()), `"tools"`) || c.Instructions() != "fixture" {
		t.Errorf("capabilities %s, instructions %q", c.ServerCapabilities(), c.Instructions())
	}
	res, err := callTool(context.Background(), c, "echo", map[string]string{"message": "hi"}, nil)
	if err != nil || echoText(t, res) != "hi" {
		t.Fatalf("echo = %s, %v", res, err)
	}
	_, err = callTool(context.Background(), c, "nope", nil, nil)
	wantCode(t, "unknown tool", err, jsonrpc.CodeInvalidParams)
}

// Scenarios 2 and 3.
func TestUTF8RoundTrip(t *testing.T) {
	const s = "héllo 日本 😀 line\u2028separator"
	var got []string
	for _, locale := range []string{"en_US.UTF-8", "C"} {
		c := rawClient(t, nil, "LANG="+locale, "LC_ALL="+locale)
		res, err := callTool(context.Background(), c, "echo", map[string]string{"message": s}, nil)
		if err != nil {
			t.Fatalf("echo under %s: %v", locale, err)
		}
		got = append(got, echoText(t, res))
		res, err = callTool(context.Background(), c, "lastline", nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		var ll struct{ Line string }
		json.Unmarshal(res, &ll)
		line, _ := base64.StdEncoding.DecodeString(ll.Line)
		if !bytes.Contains(line, []byte(s)) || bytes.ContainsAny(line, "\r\n") {
			t.Errorf("under %s the child read %q: want the raw UTF-8 of %q and no CR or LF", locale, line, s)
		}
	}
	if diff := cmp.Diff([]string{s, s}, got); diff != "" {
		t.Errorf("echoes differ (-want +got):\n%s", diff)
	}
}

// Scenarios 4 and 6.
func TestLineLimit(t *testing.T) {
	c := rawClient(t, func(cfg *spec) { cfg.MaxLineBytes = 100_000 })
	for _, idLast := range []bool{false, true} {
		// The timeout is far longer than the call should take: a call whose
		// response was dropped fails at once, by the id read from the
		// line's first bytes (Go's order) or its last (TypeScript's).
		_, err := callTool(context.Background(), c, "big", map[string]any{"bytes": 300_000, "idLast": idLast}, &CallOptions{Timeout: 20 * time.Second})
		e := wantCode(t, fmt.Sprintf("300,000-byte result, id last %v", idLast), err, jsonrpc.CodeInternalError)
		if !errors.Is(err, ErrTooLarge) || e.Message != "The server's response exceeds the 100000-byte line limit" || string(e.Data) != `{"limit":100000}` {
			t.Errorf("300,000-byte result: %v (data %s), want the line-limit error with ErrTooLarge", err, e.Data)
		}
	}
	res, err := callTool(context.Background(), c, "echo", map[string]string{"message": "after"}, nil)
	if err != nil || echoText(t, res) != "after" {
		t.Fatalf("echo after a dropped line = %s, %v", res, err)
	}
	res, err = callTool(context.Background(), c, "big", map[string]int{"bytes": 50_000}, nil)
	if err != nil || len(echoText(t, res)) != 50_000 {
		t.Fatalf("50,000-byte result: %v", err)
	}

	c = rawClient(t, nil)
	res, err = callTool(context.Background(), c, "big", map[string]int{"bytes": 200_000}, nil)
	if err != nil || echoText(t, res) != strings.Repeat("x", 200_000) {
		t.Fatalf("200,000-byte result (three read buffers) not delivered whole: %v", err)
	}
}

// Scenario 4a: requests over the child's line limit fail at once, by the
// child's null-id refusal or, with MaxRequestBytes, before they are sent;
// smaller calls in flight are untouched.
func TestRequestOverChildLimit(t *testing.T) {
	big := strings.Repeat("y", 20_000)
	t.Run("the child refuses it", func(t *testing.T) {
		c := rawClient(t, nil, "FIXTURE_MAX_LINE=10000")
		if _, err := callTool(context.Background(), c, "echo", map[string]string{"message": "warm"}, nil); err != nil {
			t.Fatal(err)
		}
		parked := make(chan error, 1)
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		go func() {
			_, err := callTool(ctx, c, "park", nil, nil)
			parked <- err
		}()
		_, err := callTool(context.Background(), c, "echo", map[string]string{"message": big}, &CallOptions{Timeout: 20 * time.Second})
		e := wantCode(t, "a 20,000-byte request", err, jsonrpc.CodeInvalidRequest)
		if !errors.Is(err, ErrTooLarge) || e.Message != "Line too long" {
			t.Errorf("a 20,000-byte request: %v, want the child's own error with ErrTooLarge", err)
		}
		select {
		case err := <-parked:
			t.Fatalf("the parked call ended with %v; only the long request may fail", err)
		default:
		}
		if res, err := callTool(context.Background(), c, "echo", map[string]string{"message": "after"}, nil); err != nil || echoText(t, res) != "after" {
			t.Fatalf("echo afterwards = %s, %v", res, err)
		}
		cancel()
		wantCode(t, "the parked call", <-parked, jsonrpc.CodeRequestTimeout)
	})
	t.Run("refused before sending", func(t *testing.T) {
		c := rawClient(t, func(cfg *spec) { cfg.MaxRequestBytes = 10_000 }, "FIXTURE_MAX_LINE=10000")
		_, err := callTool(context.Background(), c, "echo", map[string]string{"message": big}, nil)
		e := wantCode(t, "a 20,000-byte request", err, jsonrpc.CodeInvalidRequest)
		if !errors.Is(err, ErrTooLarge) || !strings.Contains(e.Message, "over the server's 10000-byte line limit") {
			t.Errorf("a 20,000-byte request: %v, want the local refusal", err)
		}
		stats, err := callTool(context.Background(), c, "stats", nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		var st struct{ BadLines int }
		json.Unmarshal(stats, &st)
		if st.BadLines != 0 {
			t.Errorf("the child read %d bad lines; the refused request must not have been sent", st.BadLines)
		}
	})
}

// Scenario 5.
func TestInvalidConfig(t *testing.T) {
	for _, tt := range []struct {
		field  string
		mutate func(*ClientConfig)
	}{
		{"MaxLineBytes", func(c *ClientConfig) { c.MaxLineBytes = -1 }},
		{"MaxServerRequests", func(c *ClientConfig) { c.MaxServerRequests = -1 }},
	} {
		cfg := fixtureConfig("FIXTURE_ERA=legacy")
		tt.mutate(&cfg.ClientConfig)
		c, err := cfg.start(context.Background(), t)
		if c != nil {
			t.Fatalf("Start with bad %s spawned a child", tt.field)
		}
		if e := wantCode(t, tt.field, err, jsonrpc.CodeInvalidParams); !strings.Contains(e.Message, tt.field) {
			t.Errorf("error %q does not name %s", e.Message, tt.field)
		}
	}
}

// warnCounter counts Warn records.
type warnCounter struct {
	slog.Handler
	n atomic.Int32
}

func (w *warnCounter) Enabled(context.Context, slog.Level) bool { return true }
func (w *warnCounter) Handle(_ context.Context, r slog.Record) error {
	if r.Level == slog.LevelWarn {
		w.n.Add(1)
	}
	return nil
}
func (w *warnCounter) WithAttrs([]slog.Attr) slog.Handler { return w }
func (w *warnCounter) WithGroup(string) slog.Handler      { return w }

// Scenario 7.
func TestBannerAndCRLF(t *testing.T) {
	warns := &warnCounter{}
	c := rawClient(t, func(cfg *spec) { cfg.Logger = slog.New(warns) }, "FIXTURE_BANNER=1", "FIXTURE_CRLF=1")
	for i := range 3 {
		msg := fmt.Sprint("m", i)
		res, err := callTool(context.Background(), c, "echo", map[string]string{"message": msg}, nil)
		if err != nil || echoText(t, res) != msg {
			t.Fatalf("echo %d = %s, %v", i, res, err)
		}
	}
	if n := warns.n.Load(); n != 1 {
		t.Errorf("%d Warn logs for a banner, want 1", n)
	}
}

// Scenario 8, and stray JSON that is not JSON-RPC.
func TestOddResponses(t *testing.T) {
	c := rawClient(t, nil)
	_, err := callTool(context.Background(), c, "weird", nil, nil)
	if e := wantCode(t, "result and error", err, jsonrpc.CodeConnectionClosed); e.Message != "Invalid JSON-RPC response" {
		t.Errorf("message %q", e.Message)
	}
	if _, err := callTool(context.Background(), c, "garbage", nil, nil); err != nil {
		t.Fatalf("call after garbage lines: %v", err)
	}
	res, err := callTool(context.Background(), c, "echo", map[string]string{"message": "still"}, nil)
	if err != nil || echoText(t, res) != "still" {
		t.Fatalf("echo after odd responses = %s, %v", res, err)
	}
}

// Scenario 9.
func TestConcurrentCorrelation(t *testing.T) {
	c := rawClient(t, nil)
	delays := []int{300, 0, 150, 50}
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for _, d := range delays {
		wg.Go(func() {
			res, err := callTool(context.Background(), c, "sleep", map[string]int{"ms": d}, nil)
			if want := fmt.Sprintf(`{"slept":%d}`, d); err != nil || string(res) != want {
				errs <- fmt.Errorf("sleep %d = %s, %v; want %s", d, res, err, want)
			}
		})
	}
	for i := range 20 {
		wg.Go(func() {
			msg := fmt.Sprint("call-", i)
			res, err := callTool(context.Background(), c, "echo", map[string]string{"message": msg}, nil)
			if err != nil || echoText(t, res) != msg {
				errs <- fmt.Errorf("echo %s = %s, %v", msg, res, err)
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// awaitCancel asks the fixture to wait for the cancellation of id.
func awaitCancel(tb testing.TB, c *Client, id int64) (seen bool, workers int) {
	tb.Helper()
	res, err := callTool(context.Background(), c, "awaitcancel", map[string]any{"message": id}, nil)
	if err != nil {
		tb.Fatalf("awaitcancel: %v", err)
	}
	var r struct {
		Seen    bool
		Workers int
	}
	json.Unmarshal(res, &r)
	return r.Seen, r.Workers
}

// Scenario 10.
func TestTimeoutCancelsOnChild(t *testing.T) {
	c := rawClient(t, nil)
	_, err := callTool(context.Background(), c, "park", nil, &CallOptions{Timeout: 200 * time.Millisecond})
	e := wantCode(t, "park", err, jsonrpc.CodeRequestTimeout)
	if string(e.Data) != `{"timeoutMs":200}` {
		t.Errorf("Data = %s, want {\"timeoutMs\":200}", e.Data)
	}
	id := c.nextID.Load()
	if seen, workers := awaitCancel(t, c, id); !seen || workers != 0 {
		t.Errorf("child saw cancellation of %d: %v, workers %d; want true, 0", id, seen, workers)
	}
}

// Scenario 11.
func TestContextCancel(t *testing.T) {
	c := rawClient(t, nil)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := callTool(ctx, c, "park", nil, nil)
		done <- err
	}()
	// Cancel once the child is parked on the request.
	waitWorkers(t, c, 1)
	id, _ := strconv.ParseInt(getStats(t, c).Parked[0], 10, 64)
	cancel()
	err := <-done
	wantCode(t, "cancelled call", err, jsonrpc.CodeRequestTimeout)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("errors.Is(%v, context.Canceled) = false", err)
	}
	if seen, _ := awaitCancel(t, c, id); !seen {
		t.Error("child never received the cancellation")
	}
}

// waitWorkers polls the fixture until n tools are parked; each poll is a
// round trip, not a sleep.
func waitWorkers(tb testing.TB, c *Client, n int) {
	tb.Helper()
	for range 1000 {
		if getStats(tb, c).Workers == n {
			return
		}
	}
	tb.Fatalf("fixture never had %d parked workers", n)
}

// Scenarios 12 and 13.
func TestProgressOrder(t *testing.T) {
	c := rawClient(t, nil)
	for _, tool := range []string{"progress", "burst"} {
		t.Run(tool, func(t *testing.T) {
			var got []Progress
			res, err := callTool(context.Background(), c, tool, map[string]int{"count": 3, "intervalMs": 10},
				&CallOptions{Progress: func(p Progress) { got = append(got, p) }})
			if err != nil {
				t.Fatal(err)
			}
			if string(res) != `{"ticks":3}` {
				t.Errorf("result %s", res)
			}
			if len(got) != 3 {
				t.Fatalf("%d progress callbacks before Call returned, want 3", len(got))
			}
			for i, p := range got {
				if p.Progress != float64(i+1) || p.Total == nil || *p.Total != 3 || p.Message != fmt.Sprint("tick ", i+1) {
					t.Errorf("progress %d = %+v", i, p)
				}
			}
		})
	}
}

// Scenario 15.
func TestProgressCallbackPanic(t *testing.T) {
	c := rawClient(t, nil)
	_, err := callTool(context.Background(), c, "progress", map[string]any{"count": 50, "intervalMs": 20},
		&CallOptions{Progress: func(Progress) { panic("boom") }})
	wantCode(t, "panicking callback", err, jsonrpc.CodeInternalError)
	var p *PanicError
	if !errors.As(err, &p) || p.Value != "boom" {
		t.Errorf("Cause = %v, want the panic", errors.Unwrap(err))
	}
	if seen, _ := awaitCancel(t, c, c.nextID.Load()); !seen {
		t.Error("child never received the cancellation")
	}
	if _, err := callTool(context.Background(), c, "echo", nil, nil); err != nil {
		t.Errorf("next call: %v", err)
	}
}

// Scenario 16.
func TestCallerProgressToken(t *testing.T) {
	c := rawClient(t, nil)
	_, err := callTool(context.Background(), c, "echo", nil, &CallOptions{
		Progress: func(Progress) {}, Meta: json.RawMessage(`{"progressToken":"mine"}`)})
	wantCode(t, "caller token", err, jsonrpc.CodeInvalidParams)
	// The child's previous line, as it read it, is the lastline request's
	// predecessor: the refused request must not be it.
	if _, err := callTool(context.Background(), c, "echo", map[string]string{"message": "before"}, nil); err != nil {
		t.Fatal(err)
	}
	_, err = callTool(context.Background(), c, "echo", nil, &CallOptions{
		Progress: func(Progress) {}, Meta: json.RawMessage(`{"progressToken":"mine"}`)})
	wantCode(t, "caller token", err, jsonrpc.CodeInvalidParams)
	res, err := callTool(context.Background(), c, "lastline", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	var ll struct{ Line string }
	json.Unmarshal(res, &ll)
	line, _ := base64.StdEncoding.DecodeString(ll.Line)
	if !bytes.Contains(line, []byte(`"before"`)) || bytes.Contains(line, []byte("mine")) {
		t.Errorf("the child's last line before lastline was %s: the refused request reached it", line)
	}
}

// Scenario 17.
func TestLateProgressAndResponse(t *testing.T) {
	var notes atomic.Int32
	c := rawClient(t, func(cfg *spec) {
		cfg.OnNotification = func(Notification) { notes.Add(1) }
	})
	var calls atomic.Int32
	_, err := callTool(context.Background(), c, "progress", map[string]any{"count": 10, "intervalMs": 30, "ignoreCancel": true},
		&CallOptions{Timeout: 100 * time.Millisecond, Progress: func(Progress) { calls.Add(1) }})
	wantCode(t, "timed out", err, jsonrpc.CodeRequestTimeout)
	after := calls.Load()
	// The child goes on for ~200 ms and then answers; the cancellation
	// is recorded once its tool has returned.
	if seen, _ := awaitCancel(t, c, c.nextID.Load()); !seen {
		t.Fatal("child never received the cancellation")
	}
	if _, err := callTool(context.Background(), c, "echo", nil, nil); err != nil {
		t.Fatalf("next call: %v", err)
	}
	if calls.Load() != after || notes.Load() != 0 {
		t.Errorf("late progress reached a callback (%d→%d) or OnNotification (%d)", after, calls.Load(), notes.Load())
	}
	if c.Err() != nil {
		t.Errorf("connection failed: %v", c.Err())
	}
}

// Scenarios 18 and 19.
func TestServerRequests(t *testing.T) {
	reqs := []any{
		map[string]any{"id": 0, "method": "ping"},
		map[string]any{"id": "srv-1", "method": "elicitation/create", "params": map[string]any{"message": "name?"}},
		map[string]any{"id": -5, "method": "roots/list"},
	}
	want := `{"answers":[{"jsonrpc":"2.0","id":0,"result":{}},` +
		`{"jsonrpc":"2.0","id":"srv-1","result":{"action":"accept","id":"srv-1"}},` +
		`{"jsonrpc":"2.0","id":-5,"result":{"action":"accept","id":-5}}]}`
	// The same with a child of each era: a legacy one, and a 2026-07-28
	// one negotiated by Connect.
	for _, era := range []string{"legacy", "2026-07-28"} {
		t.Run(era, func(t *testing.T) {
			var seen sync.Map
			handler := func(ctx context.Context, r ServerRequest) (json.RawMessage, error) {
				seen.Store(string(r.ID), r.Method)
				return json.RawMessage(`{"action":"accept","id":` + string(r.ID) + `}`), nil
			}
			var c *Client
			if era == "legacy" {
				c = rawClient(t, func(cfg *spec) { cfg.OnServerRequest = handler })
			} else {
				cfg := fixtureConfig()
				cfg.OnServerRequest = handler
				var err error
				c, err = Connect(context.Background(), func(ctx context.Context) (*Client, error) {
					c, err := cfg.start(ctx, t)
					if err == nil {
						t.Cleanup(func() { testkit.StopChild(t, c, 2*time.Second) })
					}
					return c, err
				}, ConnectConfig{})
				if err != nil || c.Protocol() != Version20260728 {
					t.Fatalf("Connect = %v, %v; want a 2026-07-28 connection", c, err)
				}
			}
			res, err := callTool(context.Background(), c, "ask", map[string]any{"requests": reqs}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if string(res) != want {
				t.Errorf("answers:\n got %s\nwant %s", res, want)
			}
			if _, ok := seen.Load("0"); ok {
				t.Error("ping reached the handler")
			}
		})
	}

	c := rawClient(t, nil) // no handler
	res, err := callTool(context.Background(), c, "ask", map[string]any{"requests": reqs[1:]}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(res), `"code":-32601`); n != 2 || !strings.Contains(string(res), `"id":"srv-1"`) {
		t.Errorf("without a handler: %s, want two -32601 with the ids", res)
	}
}

// Scenario 20.
func TestServerRequestHandlerFailures(t *testing.T) {
	c := rawClient(t, func(cfg *spec) {
		cfg.OnServerRequest = func(ctx context.Context, r ServerRequest) (json.RawMessage, error) {
			switch r.Method {
			case "panic":
				panic("handler boom")
			case "params":
				return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "bad", Data: json.RawMessage(`{"k":1}`)}
			case "plain":
				return nil, errors.New("secret detail")
			default:
				return json.RawMessage(`{not json`), nil
			}
		}
	})
	res, err := callTool(context.Background(), c, "ask", map[string]any{"requests": []any{
		map[string]any{"id": 1, "method": "panic"},
		map[string]any{"id": 2, "method": "params"},
		map[string]any{"id": 3, "method": "plain"},
		map[string]any{"id": 4, "method": "invalid"},
	}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"answers":[{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"Server request handler panicked"}},` +
		`{"jsonrpc":"2.0","id":2,"error":{"code":-32602,"message":"bad","data":{"k":1}}},` +
		`{"jsonrpc":"2.0","id":3,"error":{"code":-32603,"message":"Server request handler failed"}},` +
		`{"jsonrpc":"2.0","id":4,"error":{"code":-32603,"message":"Server request handler returned an invalid result"}}]}`
	if string(res) != want {
		t.Errorf("answers:\n got %s\nwant %s", res, want)
	}
	if _, err := callTool(context.Background(), c, "echo", nil, nil); err != nil {
		t.Errorf("next call: %v", err)
	}
}

// Scenario 21.
func TestServerRequestCapacity(t *testing.T) {
	release := make(chan struct{})
	var ran atomic.Int32
	entered := make(chan struct{}, 3)
	asked := make(chan struct{}, 1)
	c := rawClient(t, func(cfg *spec) {
		cfg.MaxServerRequests = 2
		cfg.OnNotification = func(n Notification) {
			if n.Method == "notifications/asked" {
				asked <- struct{}{}
			}
		}
		cfg.OnServerRequest = func(ctx context.Context, r ServerRequest) (json.RawMessage, error) {
			ran.Add(1)
			entered <- struct{}{}
			select {
			case <-release:
				return json.RawMessage(`{"action":"accept"}`), nil
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
	})
	done := make(chan json.RawMessage, 1)
	go func() {
		res, _ := callTool(context.Background(), c, "ask", map[string]any{"intervalMs": 20, "requests": []any{
			map[string]any{"id": 1, "method": "elicitation/create"},
			map[string]any{"id": 2, "method": "elicitation/create"},
			map[string]any{"id": 3, "method": "elicitation/create"},
		}}, nil)
		done <- res
	}()
	<-entered
	<-entered
	<-asked // the reader has seen all three, so the third was refused
	close(release)
	res := <-done
	want := `{"answers":[{"jsonrpc":"2.0","id":1,"result":{"action":"accept"}},` +
		`{"jsonrpc":"2.0","id":2,"result":{"action":"accept"}},` +
		`{"jsonrpc":"2.0","id":3,"error":{"code":-32603,"message":"Too many server requests in flight (2)","data":{"limit":2,"retryable":true}}}]}`
	if string(res) != want {
		t.Errorf("answers:\n got %s\nwant %s", res, want)
	}
	if n := ran.Load(); n != 2 {
		t.Errorf("handler ran %d times, want 2", n)
	}
}

// Scenario 22a: Close tells the child about every request it abandons
// before its stdin closes: calls in flight, and a call abandoned just
// before whose notice may still be queued. A child that finishes its work
// at EOF would otherwise keep working for calls nobody waits for.
func TestCloseCancelsCallsInFlight(t *testing.T) {
	var stderr testkit.SyncBuffer
	c := rawClient(t, func(cfg *spec) { cfg.Stderr = &stderr })
	parked := make(chan error, 2)
	for range 2 {
		go func() {
			_, err := callTool(context.Background(), c, "park", nil, nil)
			parked <- err
		}()
	}
	ctx, cancel := context.WithCancel(context.Background())
	abandoned := make(chan error, 1)
	go func() {
		_, err := callTool(ctx, c, "park", nil, nil)
		abandoned <- err
	}()
	var ids []string
	for len(ids) < 3 { // until all three are running in the child
		res, err := callTool(context.Background(), c, "stats", nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		var st struct{ Parked []string }
		json.Unmarshal(res, &st)
		ids = st.Parked // each stats call is a round trip: the loop needs no pause
	}
	cancel()
	wantCode(t, "the abandoned call", <-abandoned, jsonrpc.CodeRequestTimeout)
	c.Close()
	for range 2 {
		wantCode(t, "a call in flight at Close", <-parked, jsonrpc.CodeConnectionClosed)
	}
	select {
	case <-c.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("the child did not exit at EOF")
	}
	line := ""
	for _, l := range strings.Split(stderr.String(), "\n") {
		if v, ok := strings.CutPrefix(l, "fixture: cancelled before EOF: "); ok {
			line = v
		}
	}
	got := strings.Split(line, ",")
	slices.Sort(got)
	got = slices.Compact(got) // a notice the writer wrote as Close began may come twice
	slices.Sort(ids)
	if !slices.Equal(got, ids) {
		t.Errorf("the child saw cancellations for %q before EOF, want all three parked calls %q", got, ids)
	}
}

// Scenarios 22 (child cancels, Close) and 23 (duplicate id).
func TestServerRequestCancelAndDuplicate(t *testing.T) {
	ended := make(chan error, 4)
	entered := make(chan string, 4)
	block := make(chan struct{})
	asked := make(chan struct{}, 4)
	returned := make(chan struct{}, 4)
	var stderr testkit.SyncBuffer
	c := rawClient(t, func(cfg *spec) {
		cfg.Stderr = &stderr
		cfg.OnNotification = func(n Notification) {
			if n.Method == "notifications/asked" {
				asked <- struct{}{}
			}
		}
		cfg.OnServerRequest = func(ctx context.Context, r ServerRequest) (json.RawMessage, error) {
			entered <- string(r.ID)
			if r.Method == "sampling/createMessage" {
				<-ctx.Done()
				ended <- ctx.Err()
				return json.RawMessage(`{"late":true}`), nil
			}
			select {
			case <-ctx.Done():
				defer func() { returned <- struct{}{} }()
				ended <- ctx.Err()
				return json.RawMessage(`{"late":true}`), nil
			case <-block:
				return json.RawMessage(`{"action":"accept"}`), nil
			}
		}
	})
	if _, err := callTool(context.Background(), c, "askcancel", map[string]int{"ms": 50}, nil); err != nil {
		t.Fatal(err)
	}
	<-entered
	if err := <-ended; !errors.Is(err, context.Canceled) {
		t.Errorf("handler ctx ended with %v", err)
	}
	<-returned
	// Two later round trips: the handler's late answer, had it been
	// written, would be ahead of the second (the fixture no longer waits
	// for c1, so it would count it as unasked).
	getStats(t, c)
	if s := getStats(t, c); s.Unasked != 0 {
		t.Errorf("the child received %d answers it did not wait for", s.Unasked)
	}

	done := make(chan json.RawMessage, 1)
	go func() {
		res, _ := callTool(context.Background(), c, "ask", map[string]any{"requests": []any{
			map[string]any{"id": "d", "method": "elicitation/create"},
			map[string]any{"id": "d", "method": "elicitation/create"},
		}}, nil)
		done <- res
	}()
	<-entered
	<-asked // the reader has seen both requests
	close(block)
	want := `{"answers":[{"jsonrpc":"2.0","id":"d","error":{"code":-32600,"message":"Duplicate server request id"}},` +
		`{"jsonrpc":"2.0","id":"d","result":{"action":"accept"}}]}`
	// The fixture keys answers by id, so both slots hold whichever answer
	// came for "d" first and second; the refusal comes first.
	if res := <-done; !strings.Contains(string(res), `"code":-32600`) || !strings.Contains(string(res), `"action":"accept"`) {
		t.Errorf("duplicate id answers = %s, want %s", res, want)
	}
	if len(entered) != 0 {
		t.Error("the handler ran for the duplicate id")
	}

	// Close while a handler blocks: its ctx ends, and nothing is sent: the
	// child, which waits for an answer to "z", has received no more
	// answers than before when it reaches EOF.
	before := getStats(t, c)
	go callTool(context.Background(), c, "ask", map[string]any{"requests": []any{
		map[string]any{"id": "z", "method": "sampling/createMessage"},
	}}, nil)
	<-entered
	c.Close()
	if err := <-ended; !errors.Is(err, context.Canceled) {
		t.Errorf("handler ctx at Close ended with %v", err)
	}
	<-c.Done()
	wantEOF := fmt.Sprintf("fixture: at EOF: answered=%d unasked=%d", before.Answered, before.Unasked)
	if got := stderr.String(); !strings.Contains(got, wantEOF) {
		t.Errorf("the child's stderr:\n%s\nwant %q: an answer reached it after Close", got, wantEOF)
	}
}

// Scenario 24.
func TestChildExit(t *testing.T) {
	c := rawClient(t, nil)
	done := make(chan error, 1)
	go func() {
		_, err := callTool(context.Background(), c, "park", nil, nil)
		done <- err
	}()
	waitWorkers(t, c, 1)
	_, err := callTool(context.Background(), c, "exit", map[string]int{"code": 3}, nil)
	for _, err := range []error{err, <-done} {
		wantCode(t, "call at exit", err, jsonrpc.CodeConnectionClosed)
		var x *ExitError
		if !errors.As(err, &x) || x.Code != 3 {
			t.Errorf("errors.As(%v, *ExitError) = %+v, want Code 3", err, x)
		}
	}
	_, err = callTool(context.Background(), c, "echo", nil, nil)
	wantCode(t, "later Call", err, jsonrpc.CodeConnectionClosed)
	wantCode(t, "later Notify", c.Notify(context.Background(), "notifications/x", nil), jsonrpc.CodeConnectionClosed)
	sub, err := c.Listen(context.Background(), json.RawMessage(`{"toolsListChanged":true}`), nil)
	if sub != nil {
		t.Errorf("later Listen opened a subscription")
	}
	wantCode(t, "later Listen", err, jsonrpc.CodeConnectionClosed)
	var x *ExitError
	if !errors.As(err, &x) || x.Code != 3 {
		t.Errorf("later Listen: errors.As(%v, *ExitError) = %+v, want Code 3", err, x)
	}
	<-c.Done()
	if st := c.ExitState(); st == nil || st.ExitCode() != 3 {
		t.Errorf("ExitState() = %v", st)
	}
}

// Scenario 25.
func TestChildClosesStdin(t *testing.T) {
	c := rawClient(t, nil)
	go callTool(context.Background(), c, "sleep", map[string]int{"ms": 2000}, nil) // a handler that blocks
	if _, err := callTool(context.Background(), c, "closestdin", nil, nil); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		_, err := callTool(context.Background(), c, "echo", nil, &CallOptions{Timeout: 5 * time.Second})
		e := wantCode(t, "call after the child closed stdin", err, jsonrpc.CodeConnectionClosed)
		var x *ExitError
		if !errors.Is(err, syscall.EPIPE) && !(errors.As(err, &x) && x.Code == 0) {
			t.Errorf("cause %v, want EPIPE or exit 0 (%s)", e.Cause, e.Message)
		}
	}
}

// Scenario 26.
func TestResponseThenExit(t *testing.T) {
	c := rawClient(t, nil)
	res, err := callTool(context.Background(), c, "respondexit", nil, nil)
	if err != nil || string(res) != `{"bye":true}` {
		t.Fatalf("respondexit = %s, %v", res, err)
	}
	<-c.Done()
	_, err = callTool(context.Background(), c, "echo", nil, nil)
	wantCode(t, "next call", err, jsonrpc.CodeConnectionClosed)
}

// Scenario 27.
func TestCloseFailsCallsInFlight(t *testing.T) {
	c := rawClient(t, nil)
	errs := make(chan error, 5)
	for range 5 {
		go func() {
			_, err := callTool(context.Background(), c, "park", nil, nil)
			errs <- err
		}()
	}
	waitWorkers(t, c, 5)
	if err := c.Close(); err != nil {
		t.Fatalf("Close = %v", err)
	}
	for range 5 {
		e := wantCode(t, "in flight at Close", <-errs, jsonrpc.CodeConnectionClosed)
		if e.Message != "Connection closed" {
			t.Errorf("message %q", e.Message)
		}
	}
	_, err := callTool(context.Background(), c, "echo", nil, nil)
	wantCode(t, "after Close", err, jsonrpc.CodeConnectionClosed)
	if err := c.Close(); err != nil {
		t.Errorf("second Close = %v", err)
	}
	<-c.Done()
	if st := c.ExitState(); st == nil || st.ExitCode() != 0 {
		t.Errorf("ExitState() = %v, want exit 0 at EOF", st)
	}
}

// Scenario 28.
func TestCloseNeverSignals(t *testing.T) {
	c := rawClient(t, func(cfg *spec) {
		cfg.OnNotification = func(Notification) {}
	}, "FIXTURE_IGNORE_EOF=1", "FIXTURE_GRANDCHILD=1")
	if _, err := callTool(context.Background(), c, "echo", nil, nil); err != nil {
		t.Fatal(err)
	}
	c.Close()
	select {
	case <-c.Done():
		t.Fatal("a child ignoring EOF exited after Close: was it signalled?")
	case <-time.After(time.Second):
	}
	if err := c.Signal(syscall.SIGTERM); err != nil {
		t.Fatalf("Signal(SIGTERM) = %v", err)
	}
	<-c.Done()
	if st := c.ExitState(); st == nil || st.Sys().(syscall.WaitStatus).Signal() != syscall.SIGTERM {
		t.Errorf("ExitState() = %v, want killed by SIGTERM", st)
	}
	// The grandchild shared the group, so it got SIGTERM too; once the
	// whole group is gone Signal says so.
	for range 1000 {
		if err := c.Signal(0); errors.Is(err, os.ErrProcessDone) {
			return
		}
		time.Sleep(5 * time.Millisecond) // waiting for the kernel to reap, no event to wait on
	}
	t.Error("the process group outlived SIGTERM")
}

// Scenario 29.
func TestStartContextIsStartupOnly(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cfg := fixtureConfig("FIXTURE_ERA=legacy")
	c, err := cfg.start(ctx, t)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { testkit.StopChild(t, c, 2*time.Second) })
	cancel()
	res, err := callTool(context.Background(), c, "echo", map[string]string{"message": "alive"}, nil)
	if err != nil || echoText(t, res) != "alive" {
		t.Fatalf("echo after cancelling Start's ctx = %s, %v", res, err)
	}
}

// Scenario 30, and a command that is there but cannot be executed.
func TestMissingExecutable(t *testing.T) { checkMissingExecutables(t, ClientConfig{}) }

// checkMissingExecutables checks that commands that cannot be started
// fail Start with -32000, the right message and the exec error as cause.
func checkMissingExecutables(t *testing.T, cfg ClientConfig) {
	t.Helper()
	for _, tt := range []struct {
		path, msg string
		cause     error
	}{
		{"/nonexistent/mcp-server", "Executable not found", fs.ErrNotExist},
		{"mcpbridge-no-such-command", "Executable not found", exec.ErrNotFound},
		{t.TempDir(), "Could not start the stdio server", fs.ErrPermission},
	} {
		c, err := Start(context.Background(), exec.Command(tt.path), cfg)
		if c != nil {
			t.Fatalf("Start(%s) returned a client", tt.path)
		}
		e := wantCode(t, tt.path, err, jsonrpc.CodeConnectionClosed)
		if e.Message != tt.msg || !errors.Is(err, tt.cause) {
			t.Errorf("Start(%s) = %v, want %q caused by %v", tt.path, err, tt.msg, tt.cause)
		}
	}
}

// Scenario 31.
func TestStderrDrainedAndTail(t *testing.T) {
	var buf bytes.Buffer
	var mu sync.Mutex
	c := rawClient(t, func(cfg *spec) { cfg.Stderr = &lockedWriter{w: &buf, mu: &mu} })
	if _, err := callTool(context.Background(), c, "stderr", map[string]int{"bytes": 1 << 20}, nil); err != nil {
		t.Fatalf("call after 1 MiB of stderr: %v", err)
	}
	_, err := callTool(context.Background(), c, "exit", map[string]int{"code": 7}, nil)
	var x *ExitError
	if !errors.As(err, &x) || x.Code != 7 {
		t.Fatalf("exit 7: %v", err)
	}
	if len(x.StderrTail) != 4096 || !bytes.HasSuffix(x.StderrTail, []byte("TAIL\n")) {
		t.Errorf("StderrTail has %d bytes ending %q", len(x.StderrTail), x.StderrTail[max(0, len(x.StderrTail)-8):])
	}
	<-c.Done()
	mu.Lock()
	defer mu.Unlock()
	if buf.Len() < 1<<20 {
		t.Errorf("Stderr received %d bytes, want 1 MiB", buf.Len())
	}
}

type lockedWriter struct {
	w  io.Writer
	mu *sync.Mutex
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// Scenario 32: the command's environment and directory are the child's.
func TestEnvAndDir(t *testing.T) {
	t.Setenv("FOO", "from-parent")
	dir := t.TempDir()
	cfg := fixtureConfig("FIXTURE_ERA=legacy", "BAR=1")
	cfg.Dir = dir
	cmd := cfg.command(t)
	cmd.Env = slices.DeleteFunc(cmd.Env, func(kv string) bool { return strings.HasPrefix(kv, "FOO=") })
	c, err := Start(context.Background(), cmd, cfg.ClientConfig)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { testkit.StopChild(t, c, 2*time.Second) })
	res, err := callTool(context.Background(), c, "env", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		HasFoo bool
		Bar    string
		Cwd    string
	}
	json.Unmarshal(res, &got)
	if got.HasFoo || got.Bar != "1" || got.Cwd != dir {
		t.Errorf("child env = %+v, want no FOO, BAR=1, cwd %s", got, dir)
	}
}

// Log messages are attributed to the only call in flight, in order with its
// progress; with another call in flight they go to OnNotification.
func TestLogAttribution(t *testing.T) {
	var notes atomic.Int32
	c := rawClient(t, func(cfg *spec) {
		cfg.OnNotification = func(n Notification) {
			if n.Method == "notifications/message" {
				notes.Add(1)
			}
		}
	})
	var got []string
	opts := &CallOptions{
		Progress: func(p Progress) { got = append(got, fmt.Sprint("progress ", p.Progress)) },
		Log: func(n Notification) {
			var m struct{ Data string }
			json.Unmarshal(n.Params, &m)
			got = append(got, m.Data)
		},
	}
	if _, err := callTool(context.Background(), c, "logs", nil, opts); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"progress 1", "log 1", "progress 2", "log 2"}, got); diff != "" {
		t.Errorf("callbacks (-want +got):\n%s", diff)
	}
	if notes.Load() != 0 {
		t.Errorf("%d logs went to OnNotification while one call was in flight", notes.Load())
	}

	// With a parked call beside it, logs cannot be attributed.
	ctx, cancel := context.WithCancel(context.Background())
	parked := make(chan struct{})
	go func() {
		defer close(parked)
		callTool(ctx, c, "park", nil, nil)
	}()
	waitWorkers(t, c, 1)
	got = nil
	if _, err := callTool(context.Background(), c, "logs", nil, opts); err != nil {
		t.Fatal(err)
	}
	cancel()
	<-parked
	if diff := cmp.Diff([]string{"progress 1", "progress 2"}, got); diff != "" {
		t.Errorf("callbacks with another call in flight (-want +got):\n%s", diff)
	}
	if notes.Load() != 2 {
		t.Errorf("%d logs reached OnNotification, want 2", notes.Load())
	}
}

// A child that stops reading its stdin fills the pipe: calls then time out,
// and whatever was cut short by its deadline left no partial line behind
// (writes of at most pipeAtomic bytes are all or nothing).
func TestStalledChildNoPartialLines(t *testing.T) {
	c := rawClient(t, nil)
	stalled := make(chan error, 1)
	go func() {
		_, err := callTool(context.Background(), c, "stall", map[string]int{"ms": 1500}, nil)
		stalled <- err
	}()
	payload := strings.Repeat("p", pipeAtomic-200)
	timeouts := 0
	for range 40 { // 40 × ~4 KiB is more than the 64 KiB a pipe holds
		_, err := callTool(context.Background(), c, "echo", map[string]string{"message": payload}, &CallOptions{Timeout: 20 * time.Millisecond})
		var e *jsonrpc.Error
		if errors.As(err, &e) && e.Code == jsonrpc.CodeRequestTimeout {
			timeouts++
		}
	}
	if err := <-stalled; err != nil {
		t.Fatalf("stall: %v", err)
	}
	if timeouts == 0 {
		t.Fatal("no call timed out: the pipe never filled")
	}
	if s := getStats(t, c); s.BadLines != 0 {
		t.Errorf("the child read %d partial or corrupt lines", s.BadLines)
	}
	if _, err := callTool(context.Background(), c, "echo", nil, nil); err != nil {
		t.Errorf("call after the stall: %v", err)
	}
}

// A progress token is the Client's own: another request whose params name
// a token, be it the victim call's id (what the token once was) or a guess
// at its shape, gets none of the victim's progress into the victim's
// callback, and the victim gets none of it either.
func TestProgressTokenCannotBeForged(t *testing.T) {
	var foreign atomic.Int32
	c := rawClient(t, func(cfg *spec) {
		cfg.OnNotification = func(n Notification) {
			if n.Method == "notifications/progress" {
				foreign.Add(1)
			}
		}
	})
	ctx := context.Background()
	var got []Progress
	var mu sync.Mutex
	victim := make(chan error, 1)
	go func() {
		_, err := callTool(ctx, c, "progress", map[string]int{"count": 20, "intervalMs": 10},
			&CallOptions{Progress: func(p Progress) { mu.Lock(); got = append(got, p); mu.Unlock() }})
		victim <- err
	}()
	// The victim is the Client's first call: id 1. Forge its old token and
	// tokens of the new shape.
	for _, tok := range []string{`1`, `"1.0000000000000000"`, `"1.ffffffffffffffff"`, `2`} {
		params := json.RawMessage(`{"name":"progress","arguments":{"count":3,"intervalMs":1},"_meta":{"progressToken":` + tok + `}}`)
		if _, err := c.Call(ctx, "tools/call", params, nil); err != nil {
			t.Fatalf("forging call with token %s: %v", tok, err)
		}
	}
	if err := <-victim; err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(got) != 20 {
		t.Errorf("the victim got %d progress callbacks, want its own 20", len(got))
	}
	for _, p := range got {
		if p.Total == nil || *p.Total != 20 {
			t.Errorf("the victim got progress %+v of another request", p)
		}
	}
	// Integer tokens are not of the Client's shape: they go to
	// OnNotification, as progress for tokens it never issued does.
	if n := foreign.Load(); n != 6 {
		t.Errorf("OnNotification got %d progress notifications, want the 6 of the integer tokens", n)
	}
}
