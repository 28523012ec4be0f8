package stdio

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpbridge/mcpbridge/internal/protocol"
	"github.com/mcpbridge/mcpbridge/internal/testkit"
	"github.com/mcpbridge/mcpbridge/stdio/jsonrpc"
)

// Scenario 33.
func TestConnectLegacy(t *testing.T) {
	c, starts, err := connectFixture(t, ConnectConfig{}, "FIXTURE_ERA=legacy")
	if err != nil {
		t.Fatalf("Connect: %v", err)
	}
	if c.Protocol() != Version20251125 || starts.Load() != 1 {
		t.Errorf("Protocol() = %q after %d starts, want 2025-11-25 after 1", c.Protocol(), starts.Load())
	}
	if got := string(c.ServerInfo()); got != `{"name":"legacy-fixture","version":"1"}` || c.Instructions() != "be nice" {
		t.Errorf("ServerInfo() = %s, Instructions() = %q", got, c.Instructions())
	}
	res, err := c.Call(context.Background(), "tools/list", nil, nil)
	if err != nil || strings.Contains(string(res), "resultType") {
		t.Errorf("tools/list = %s, %v", res, err)
	}
	if res, err := c.Call(context.Background(), "ping", nil, nil); err != nil || string(res) != `{}` {
		t.Errorf("ping = %s, %v; want {}", res, err)
	}
	_, err = c.Call(context.Background(), "server/discover", nil, nil)
	if e := wantCode(t, "discover on legacy", err, jsonrpc.CodeMethodNotFound); string(e.Data) != `{"method":"server/discover","protocolVersion":"2025-11-25"}` {
		t.Errorf("data %s", e.Data)
	}
	var ticks []float64
	if _, err := callTool(context.Background(), c, "progress", map[string]int{"count": 2, "intervalMs": 5},
		&CallOptions{Progress: func(p Progress) { ticks = append(ticks, p.Progress) }}); err != nil || len(ticks) != 2 {
		t.Errorf("progress on legacy: %v, ticks %v", err, ticks)
	}
	if s := getStats(t, c); s.Inits != 1 {
		t.Errorf("initialize sent %d times, want 1", s.Inits)
	}

	c, starts, err = connectFixture(t, ConnectConfig{Versions: []string{Version20250618}}, "FIXTURE_ERA=strict-legacy")
	if err != nil {
		t.Fatalf("pinned Connect: %v", err)
	}
	if c.Protocol() != Version20250618 || starts.Load() != 1 {
		t.Errorf("pinned: Protocol() = %q after %d starts", c.Protocol(), starts.Load())
	}
}

// Scenario 34.
func TestConnectTaintedProbe(t *testing.T) {
	for _, tt := range []struct {
		era    string
		starts int32
	}{
		// A second copy only when the first cannot be initialized: it
		// exited, or refuses initialize after another request.
		{"strict-legacy", 2}, {"exit-probe", 2},
		// A child that stays silent, or writes garbage, is initialized
		// in place.
		{"garbage-probe", 1}, {"silent-probe", 1},
	} {
		t.Run(tt.era, func(t *testing.T) {
			c, starts, err := connectFixture(t, ConnectConfig{ProbeTimeout: 500 * time.Millisecond}, "FIXTURE_ERA="+tt.era)
			if err != nil {
				t.Fatalf("Connect: %v", err)
			}
			if c.Protocol() != Version20251125 || starts.Load() != tt.starts {
				t.Errorf("Protocol() = %q after %d starts; want 2025-11-25 after %d", c.Protocol(), starts.Load(), tt.starts)
			}
			t.Logf("negotiation: %s", c.Negotiation())
			if _, err := callTool(context.Background(), c, "echo", nil, nil); err != nil {
				t.Errorf("echo on the fresh child: %v", err)
			}
		})
	}
}

// Scenario 34a: the probe and the handshake run on one process where that
// is sound, and the whole handshake is bounded. A 2026-07-28-only server
// that misses the probe and refuses initialize with -32022 is settled on
// 2026-07-28 in place; a child that never answers fails Connect with the
// handshake timeout, without a second copy.
func TestConnectHandshakeInPlace(t *testing.T) {
	c, starts, err := connectFixture(t, ConnectConfig{ProbeTimeout: 300 * time.Millisecond}, "FIXTURE_ERA=slow-modern")
	if err != nil {
		t.Fatalf("Connect: %v", err)
	}
	if c.Protocol() != Version20260728 || starts.Load() != 1 || !strings.Contains(c.Negotiation(), "-32022") {
		t.Errorf("Protocol() = %q after %d starts (%s); want 2026-07-28 after 1, by initialize's -32022", c.Protocol(), starts.Load(), c.Negotiation())
	}
	if _, err := callTool(context.Background(), c, "echo", nil, nil); err != nil {
		t.Errorf("echo: %v", err)
	}

	_, starts, err = connectFixture(t, ConnectConfig{ProbeTimeout: 300 * time.Millisecond, HandshakeTimeout: time.Second}, "FIXTURE_ERA=mute")
	e := wantCode(t, "a child that never answers", err, jsonrpc.CodeRequestTimeout)
	if e.Message != "The server did not complete the handshake in time" || string(e.Data) != `{"timeoutMs":1000}` || starts.Load() != 1 {
		t.Errorf("Connect = %v (data %s) after %d starts; want the handshake timeout after 1", err, e.Data, starts.Load())
	}
}

// Scenario 34, slow starters: the probe's silence is timed from the moment the child
// takes the request off its stdin. A server that starts for longer than
// ProbeTimeout (a launcher compiling or downloading it) is probed when it
// reads: a 2026-07-28 server negotiates 2026-07-28 by its discover
// answer, and a silent legacy one is still found by its silence, on one
// child. A child that reads nothing for HandshakeTimeout fails with the
// handshake timeout.
func TestConnectSlowStarter(t *testing.T) {
	t.Run("modern", func(t *testing.T) {
		t.Parallel()
		// The start is longer than the probe's bound; the answer has all of
		// it, however slow the machine.
		const probe, delay = time.Second, 1500 * time.Millisecond
		c, starts, err := connectFixture(t, ConnectConfig{ProbeTimeout: probe}, "FIXTURE_START_DELAY="+delay.String())
		if err != nil {
			t.Fatalf("Connect: %v", err)
		}
		if c.Protocol() != Version20260728 || starts.Load() != 1 || c.Negotiation() != "server/discover answered" {
			t.Errorf("a modern server that starts for %v: Protocol() = %q after %d starts (%s); want 2026-07-28 after 1, by discover",
				delay, c.Protocol(), starts.Load(), c.Negotiation())
		}
	})
	t.Run("silent legacy", func(t *testing.T) {
		t.Parallel()
		const probe, delay = 300 * time.Millisecond, 700 * time.Millisecond
		begin := time.Now()
		c, starts, err := connectFixture(t, ConnectConfig{ProbeTimeout: probe}, "FIXTURE_START_DELAY="+delay.String(), "FIXTURE_ERA=silent-probe")
		if err != nil {
			t.Fatalf("Connect: %v", err)
		}
		took := time.Since(begin)
		if c.Protocol() != Version20251125 || starts.Load() != 1 || !strings.Contains(c.Negotiation(), "unanswered") || took < delay+probe {
			t.Errorf("a silent legacy server that starts for %v: Protocol() = %q after %d starts (%s) in %v; want 2025-11-25 after 1, unanswered, in at least %v",
				delay, c.Protocol(), starts.Load(), c.Negotiation(), took, delay+probe)
		}
	})
	t.Run("never reads", func(t *testing.T) {
		t.Parallel()
		_, starts, err := connectFixture(t, ConnectConfig{ProbeTimeout: 300 * time.Millisecond, HandshakeTimeout: 400 * time.Millisecond}, "FIXTURE_START_DELAY=1200ms")
		e := wantCode(t, "a child that never reads", err, jsonrpc.CodeRequestTimeout)
		if e.Message != "The server did not complete the handshake in time" || string(e.Data) != `{"timeoutMs":400}` || starts.Load() != 1 {
			t.Errorf("Connect = %v (data %s) after %d starts; want the handshake timeout after 1", err, e.Data, starts.Load())
		}
	})
}

// Scenario 35.
func TestConnectCounterOfferedByDiscover(t *testing.T) {
	c, starts, err := connectFixture(t, ConnectConfig{}, "FIXTURE_ERA=unsupported")
	if err != nil {
		t.Fatalf("Connect: %v", err)
	}
	if c.Protocol() != Version20251125 || starts.Load() != 1 {
		t.Errorf("Protocol() = %q after %d starts; want 2025-11-25 after 1", c.Protocol(), starts.Load())
	}
}

// Scenario 36.
func TestConnectCounterOffer(t *testing.T) {
	_, _, err := connectFixture(t, ConnectConfig{Versions: []string{Version20251125}}, "FIXTURE_ERA=old")
	e := wantCode(t, "disallowed counter-offer", err, jsonrpc.CodeInvalidParams)
	if string(e.Data) != `{"negotiated":"2025-06-18","requested":["2025-11-25"]}` {
		t.Errorf("data %s", e.Data)
	}
	c, _, err := connectFixture(t, ConnectConfig{Versions: []string{Version20251125, Version20250618}}, "FIXTURE_ERA=old")
	if err != nil || c.Protocol() != Version20250618 {
		t.Fatalf("Connect = %v; protocol %q", err, c.Protocol())
	}
	_, _, err = connectFixture(t, ConnectConfig{Versions: []string{"2099-01-01"}})
	e = wantCode(t, "unknown version", err, jsonrpc.CodeInvalidParams)
	if !strings.Contains(string(e.Data), `"supported"`) {
		t.Errorf("data %s", e.Data)
	}
}

// Scenario 37.
func TestModernStamping(t *testing.T) {
	c, _, err := connectFixture(t, ConnectConfig{Capabilities: json.RawMessage(`{"elicitation":{}}`)})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Notify(context.Background(), "notifications/roots/list_changed", nil); err != nil {
		t.Fatal(err)
	}
	res, err := callTool(context.Background(), c, "lastmeta", nil, &CallOptions{Meta: json.RawMessage(`{"traceparent":"00-x"}`)})
	if err != nil {
		t.Fatal(err)
	}
	var got struct{ Meta map[string]any }
	json.Unmarshal(res, &got)
	want := map[string]any{
		protocol.MetaProtocolVersion:    "2026-07-28",
		protocol.MetaClientCapabilities: map[string]any{"elicitation": map[string]any{}},
		protocol.MetaClientInfo:         map[string]any{"name": "mcpbridge", "version": "dev"},
		"traceparent":                   "00-x",
	}
	if diff := cmp.Diff(want, got.Meta); diff != "" {
		t.Errorf("request _meta (-want +got):\n%s", diff)
	}
	if s := getStats(t, c); s.MetaNotes != 0 {
		t.Errorf("%d notifications carried _meta, want 0", s.MetaNotes)
	}
	for _, m := range []string{"initialize", "ping", "resources/subscribe", "logging/setLevel"} {
		_, err := c.Call(context.Background(), m, nil, nil)
		wantCode(t, m+" on 2026", err, jsonrpc.CodeMethodNotFound)
	}
	_, err = c.Call(context.Background(), "tools/list", json.RawMessage(`[1]`), nil)
	wantCode(t, "array params", err, jsonrpc.CodeInvalidParams)
	_, err = c.Call(context.Background(), "tools/list", nil, &CallOptions{Meta: json.RawMessage(`{"io.modelcontextprotocol/protocolVersion":"2025-06-18"}`)})
	wantCode(t, "conflicting version", err, jsonrpc.CodeInvalidParams)
}

// Scenario 38.
func TestLegacyBurstAndRoots(t *testing.T) {
	var mu sync.Mutex
	var notes []string
	cfg := fixtureConfig("FIXTURE_ERA=legacy", "FIXTURE_BURST=1")
	roots := make(chan struct{}, 1)
	cfg.OnNotification = func(n Notification) {
		mu.Lock()
		notes = append(notes, n.Method)
		mu.Unlock()
	}
	cfg.OnServerRequest = func(ctx context.Context, r ServerRequest) (json.RawMessage, error) {
		if r.Method != "roots/list" || string(r.ID) != "0" {
			return nil, errors.New("unexpected " + r.Method)
		}
		roots <- struct{}{}
		return json.RawMessage(`{"roots":[{"uri":"file:///tmp"}]}`), nil
	}
	c, err := Connect(context.Background(), func(ctx context.Context) (*Client, error) {
		c, err := cfg.start(ctx, t)
		if err == nil {
			t.Cleanup(func() { testkit.StopChild(t, c, 2*time.Second) })
		}
		return c, err
	}, ConnectConfig{Versions: []string{Version20251125}})
	if err != nil {
		t.Fatal(err)
	}
	<-roots
	// The burst came before roots/list, on the same reader.
	mu.Lock()
	got := append([]string(nil), notes...)
	mu.Unlock()
	want := strings.Split(strings.Repeat("notifications/tools/list_changed ", 5), " ")[:5]
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("notifications (-want +got):\n%s", diff)
	}
	if _, err := callTool(context.Background(), c, "echo", nil, nil); err != nil {
		t.Errorf("next call: %v", err)
	}
	for range 100 { // the roots answer is written after the handler returns
		if getStats(t, c).Answered == 1 {
			return
		}
	}
	t.Error("roots/list was never answered")
}
