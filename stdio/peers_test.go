package stdio

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/mcpbridge/mcpbridge/internal/testkit"
)

// connectPeer negotiates with a real peer given as argv.
func connectPeer(tb testing.TB, argv []string, cc ConnectConfig) *Client {
	tb.Helper()
	cfg := spec{argv: argv}
	c, err := Connect(context.Background(), func(ctx context.Context) (*Client, error) {
		c, err := cfg.start(ctx, tb)
		if err == nil {
			tb.Cleanup(func() { testkit.StopChild(tb, c, 2*time.Second) })
		}
		return c, err
	}, cc)
	if err != nil {
		tb.Fatalf("Connect(%v): %v", argv, err)
	}
	return c
}

func toolNames(tb testing.TB, c *Client) []string {
	tb.Helper()
	res, err := c.Call(context.Background(), "tools/list", nil, nil)
	if err != nil {
		tb.Fatalf("tools/list: %v", err)
	}
	var r struct {
		Tools []struct{ Name string } `json:"tools"`
	}
	if err := json.Unmarshal(res, &r); err != nil {
		tb.Fatal(err)
	}
	var names []string
	for _, t := range r.Tools {
		names = append(names, t.Name)
	}
	return names
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// The Go SDK conformance server, in both eras: list tools, call one, call
// one with progress; on 2026-07-28 also a listen that sees a list change.
func TestPeerGoSDK(t *testing.T) {
	argv := testkit.GoSDKServer(t)
	for _, tt := range []struct {
		name     string
		versions []string
		want     string
	}{
		{"modern", nil, Version20260728},
		{"legacy", []string{Version20251125}, Version20251125},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c := connectPeer(t, argv, ConnectConfig{Versions: tt.versions})
			if c.Protocol() != tt.want || !strings.Contains(string(c.ServerInfo()), "mcp-conformance-test-server") {
				t.Fatalf("Protocol() = %q, ServerInfo() = %s", c.Protocol(), c.ServerInfo())
			}
			if names := toolNames(t, c); !contains(names, "test_simple_text") || !contains(names, "test_tool_with_progress") {
				t.Errorf("tools/list lacks the conformance fixtures: %v", names)
			}
			res, err := callTool(context.Background(), c, "test_simple_text", map[string]any{}, nil)
			if err != nil || echoText(t, res) != "This is a simple text response for testing." {
				t.Errorf("test_simple_text = %s, %v", res, err)
			}
			var ticks []float64
			res, err = callTool(context.Background(), c, "test_tool_with_progress", map[string]any{},
				&CallOptions{Progress: func(p Progress) { ticks = append(ticks, p.Progress) }})
			if err != nil || len(ticks) != 3 || ticks[0] != 0 || ticks[2] != 100 {
				t.Errorf("test_tool_with_progress = %s, %v; progress %v, want [0 50 100] before the result", res, err, ticks)
			}
			if tt.want != Version20260728 {
				return
			}
			s, err := c.Listen(context.Background(), json.RawMessage(`{"toolsListChanged":true}`), nil)
			if err != nil {
				t.Fatalf("Listen: %v", err)
			}
			defer s.Close()
			if _, err := callTool(context.Background(), c, "test_trigger_tool_change", map[string]any{}, nil); err != nil {
				t.Fatalf("test_trigger_tool_change: %v", err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			ev, err := s.Next(ctx)
			if err != nil || ev.Method != "notifications/tools/list_changed" {
				t.Errorf("Next = %s %s, %v; want tools/list_changed", ev.Method, ev.Params, err)
			}
		})
	}
}

// The npm server-everything, a legacy-only peer: the probe must fall back
// to initialize, and its long-running tool reports progress.
func TestPeerServerEverything(t *testing.T) {
	argv := testkit.ServerEverything(t)
	c := connectPeer(t, argv, ConnectConfig{})
	if c.Protocol() != Version20251125 {
		t.Fatalf("Protocol() = %q, want 2025-11-25", c.Protocol())
	}
	if names := toolNames(t, c); !contains(names, "echo") || !contains(names, "trigger-long-running-operation") {
		t.Errorf("tools/list = %v", names)
	}
	res, err := callTool(context.Background(), c, "echo", map[string]string{"message": "héllo"}, nil)
	if err != nil || echoText(t, res) != "Echo: héllo" {
		t.Errorf("echo = %s, %v", res, err)
	}
	var ticks []Progress
	res, err = callTool(context.Background(), c, "trigger-long-running-operation", map[string]any{"duration": 1, "steps": 4},
		&CallOptions{Progress: func(p Progress) { ticks = append(ticks, p) }})
	if err != nil || len(ticks) != 4 || ticks[3].Progress != 4 || ticks[3].Total == nil || *ticks[3].Total != 4 {
		t.Errorf("long-running operation = %s, %v; progress %+v, want 4 of 4", res, err, ticks)
	}
}
