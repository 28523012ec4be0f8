package stdio

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/mcpbridge/mcpbridge/internal/protocol"
	"github.com/mcpbridge/mcpbridge/stdio/jsonrpc"
)

func modernClient(tb testing.TB) *Client {
	tb.Helper()
	c, _, err := connectFixture(tb, ConnectConfig{})
	if err != nil {
		tb.Fatalf("Connect: %v", err)
	}
	return c
}

// emit makes the fixture send events (and an optional end) on every listen.
func emit(tb testing.TB, c *Client, end string, events ...string) {
	tb.Helper()
	evs := make([]json.RawMessage, len(events))
	for i, e := range events {
		evs[i] = json.RawMessage(e)
	}
	if _, err := callTool(context.Background(), c, "emit", map[string]any{"events": evs, "end": end}, nil); err != nil {
		tb.Fatalf("emit: %v", err)
	}
}

func seqEvent(n int) string {
	return fmt.Sprintf(`{"method":"notifications/tools/list_changed","params":{"seq":%d}}`, n)
}

func next(tb testing.TB, s *Subscription) Event {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	ev, err := s.Next(ctx)
	if err != nil {
		tb.Fatalf("Next: %v", err)
	}
	return ev
}

func seqOf(tb testing.TB, ev Event) int {
	tb.Helper()
	var p struct{ Seq int }
	json.Unmarshal(ev.Params, &p)
	return p.Seq
}

// Scenario 39.
func TestListenRouting(t *testing.T) {
	c := modernClient(t)
	s, err := c.Listen(context.Background(), json.RawMessage(`{"toolsListChanged":true,"promptsListChanged":true,"resourceSubscriptions":["file:///u"]}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if acc := string(s.Accepted()); strings.Contains(acc, "prompts") || !strings.Contains(acc, "toolsListChanged") {
		t.Errorf("Accepted() = %s, want the filter without promptsListChanged", acc)
	}
	emit(t, c, "", `{"method":"notifications/resources/updated","params":{"uri":"file:///u"}}`, seqEvent(1), seqEvent(2))
	ev := next(t, s)
	var p struct {
		URI  string                     `json:"uri"`
		Meta map[string]json.RawMessage `json:"_meta"`
	}
	json.Unmarshal(ev.Params, &p)
	if ev.Method != "notifications/resources/updated" || p.URI != "file:///u" || string(p.Meta[protocol.MetaSubscriptionID]) != fmt.Sprint(s.ID()) {
		t.Errorf("first event = %s %s", ev.Method, ev.Params)
	}
	if ev := next(t, s); seqOf(t, ev) != 1 {
		t.Errorf("second event = %s", ev.Params)
	}
	if _, err := callTool(context.Background(), c, "echo", nil, nil); err != nil {
		t.Errorf("call while a listen is open: %v", err)
	}
	if ev := next(t, s); seqOf(t, ev) != 2 {
		t.Errorf("buffered event = %s", ev.Params)
	}
}

// Scenario 40.
func TestListenEarlyEvent(t *testing.T) {
	c := modernClient(t)
	s, err := c.Listen(context.Background(), json.RawMessage(`{"toolsListChanged":true,"x-early":true}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	emit(t, c, "", seqEvent(1))
	if ev := next(t, s); seqOf(t, ev) != 0 {
		t.Errorf("first event = %s, want the one sent before the acknowledgement", ev.Params)
	}
	if ev := next(t, s); seqOf(t, ev) != 1 {
		t.Errorf("second event = %s", ev.Params)
	}
}

// Scenario 41.
func TestListenOverflow(t *testing.T) {
	c := modernClient(t)
	s, err := c.Listen(context.Background(), json.RawMessage(`{"toolsListChanged":true}`), &ListenOptions{MaxBuffer: 2})
	if err != nil {
		t.Fatal(err)
	}
	emit(t, c, "", seqEvent(1), seqEvent(2), seqEvent(3))
	if ev := next(t, s); seqOf(t, ev) != 2 || ev.Dropped != 1 {
		t.Errorf("DropOldest: first = seq %d dropped %d, want seq 2 dropped 1", seqOf(t, ev), ev.Dropped)
	}
	if ev := next(t, s); seqOf(t, ev) != 3 || ev.Dropped != 0 {
		t.Errorf("DropOldest: second = seq %d dropped %d, want seq 3 dropped 0", seqOf(t, ev), ev.Dropped)
	}
	s.Close()

	s, err = c.Listen(context.Background(), json.RawMessage(`{"toolsListChanged":true}`), &ListenOptions{MaxBuffer: 1, Overflow: DropNewest})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	emit(t, c, "", seqEvent(1), seqEvent(2), seqEvent(3))
	if ev := next(t, s); seqOf(t, ev) != 1 || ev.Dropped != 2 {
		t.Errorf("DropNewest: first = seq %d dropped %d, want seq 1 dropped 2", seqOf(t, ev), ev.Dropped)
	}
}

// Scenario 42.
func TestListenClose(t *testing.T) {
	c := modernClient(t)
	s, err := c.Listen(context.Background(), json.RawMessage(`{"toolsListChanged":true}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if seen, _ := awaitCancel(t, c, s.ID()); !seen {
		t.Fatal("child never received the cancellation of the listen")
	}
	if n := getStats(t, c).Listens; n != 0 {
		t.Errorf("child reports %d open streams, want 0", n)
	}
	if err := s.Close(); err != nil {
		t.Errorf("second Close = %v", err)
	}
	_, err = s.Next(context.Background())
	wantCode(t, "Next after Close", err, jsonrpc.CodeConnectionClosed)
}

// Scenarios 43 and 44.
func TestListenEnds(t *testing.T) {
	for _, tt := range []struct {
		end  string
		want error
	}{
		{"complete", io.EOF},
		{"cancelled", io.EOF},
		{"error", &jsonrpc.Error{Code: jsonrpc.CodeInternalError}},
	} {
		t.Run(tt.end, func(t *testing.T) {
			c := modernClient(t)
			s, err := c.Listen(context.Background(), json.RawMessage(`{"toolsListChanged":true}`), nil)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			emit(t, c, tt.end, seqEvent(1), seqEvent(2))
			for want := 1; want <= 2; want++ {
				if ev := next(t, s); seqOf(t, ev) != want {
					t.Errorf("event = %s, want seq %d", ev.Params, want)
				}
			}
			for range 2 {
				if _, err := s.Next(context.Background()); !errors.Is(err, tt.want) {
					t.Errorf("Next after the end = %v, want %v", err, tt.want)
				}
			}
		})
	}
	c := modernClient(t)
	_, err := c.Listen(context.Background(), json.RawMessage(`{"toolsListChanged":"yes"}`), nil)
	wantCode(t, "bad filter", err, jsonrpc.CodeInvalidParams)
	c.mu.Lock()
	n := len(c.subs)
	c.mu.Unlock()
	if n != 0 {
		t.Errorf("%d subscription entries kept after a refused listen", n)
	}
}

// Scenario 45.
func TestListenAcknowledgementFailures(t *testing.T) {
	c := modernClient(t)
	_, err := c.Listen(context.Background(), json.RawMessage(`{"x-noack":true}`), &ListenOptions{Timeout: 300 * time.Millisecond})
	wantCode(t, "no acknowledgement", err, jsonrpc.CodeRequestTimeout)
	if seen, _ := awaitCancel(t, c, c.nextID.Load()); !seen {
		t.Error("no cancellation after the acknowledgement timed out")
	}
	_, err = c.Listen(context.Background(), json.RawMessage(`{"x-badack":true}`), nil)
	wantCode(t, "non-object acknowledgement", err, jsonrpc.CodeConnectionClosed)
	if seen, _ := awaitCancel(t, c, c.nextID.Load()); !seen {
		t.Error("no cancellation after an invalid acknowledgement")
	}
}

// Scenario 46.
func TestListenConnectionEnds(t *testing.T) {
	c := modernClient(t)
	s, err := c.Listen(context.Background(), json.RawMessage(`{"toolsListChanged":true}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	emit(t, c, "", seqEvent(1))
	callTool(context.Background(), c, "exit", map[string]int{"code": 3}, nil)
	if ev := next(t, s); seqOf(t, ev) != 1 {
		t.Errorf("queued event = %s", ev.Params)
	}
	_, err = s.Next(context.Background())
	wantCode(t, "after exit", err, jsonrpc.CodeConnectionClosed)
	var x *ExitError
	if !errors.As(err, &x) || x.Code != 3 {
		t.Errorf("Next after exit = %v, want *ExitError{Code:3}", err)
	}

	c = modernClient(t)
	s, err = c.Listen(context.Background(), json.RawMessage(`{"toolsListChanged":true}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	emit(t, c, "", seqEvent(1))
	c.Close()
	_, err = s.Next(context.Background())
	if e := wantCode(t, "after Close", err, jsonrpc.CodeConnectionClosed); e.Message != "Connection closed" {
		t.Errorf("message %q: queued events must be discarded at Close", e.Message)
	}
}

// Scenario 47, and Listen on a legacy connection.
func TestListenNextContext(t *testing.T) {
	c := modernClient(t)
	s, err := c.Listen(context.Background(), json.RawMessage(`{"toolsListChanged":true}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	_, err = s.Next(ctx)
	cancel()
	wantCode(t, "Next with an expiring ctx", err, jsonrpc.CodeRequestTimeout)
	emit(t, c, "", seqEvent(7))
	if ev := next(t, s); seqOf(t, ev) != 7 {
		t.Errorf("event after a timed-out Next = %s", ev.Params)
	}

	legacy, _, err := connectFixture(t, ConnectConfig{}, "FIXTURE_ERA=legacy")
	if err != nil {
		t.Fatal(err)
	}
	_, err = legacy.Listen(context.Background(), json.RawMessage(`{}`), nil)
	if e := wantCode(t, "Listen on legacy", err, jsonrpc.CodeMethodNotFound); !strings.Contains(string(e.Data), `"protocolVersion":"2025-11-25"`) {
		t.Errorf("data %s", e.Data)
	}
	_, err = legacy.Call(context.Background(), "subscriptions/listen", nil, nil)
	wantCode(t, "Call(subscriptions/listen)", err, jsonrpc.CodeInvalidParams)
}
