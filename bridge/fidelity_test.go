//go:build linux

package bridge

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/mcpbridge/mcpbridge/internal/wire"
)

// TestPrivateSessionIsTheHostsOwn: on a private child (a 2025 host's own
// child, started with its initialize), the host's request id, its
// progress token and its cancellation reason reach the server as the host
// sent them, through Connect and through the MCP endpoint, and the
// server's progress comes back under the host's token: nothing of the
// session is remapped, since no one else shares the child
// (docs/architecture.md, "Tunnels and their children"). The server is the
// real server-everything behind the tap, which records what it receives.
func TestPrivateSessionIsTheHostsOwn(t *testing.T) {
	t.Parallel()
	const (
		initialize = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"host","version":"1"}}}`
		initalized = `{"jsonrpc":"2.0","method":"notifications/initialized"}`
		call       = `{"jsonrpc":"2.0","id":"host-7","method":"tools/call","params":{"name":"trigger-long-running-operation","arguments":{"duration":20,"steps":40},"_meta":{"progressToken":7}}}`
		cancel     = `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"host-7","reason":"host-reason-8423"}}`
	)
	doors := map[string]func(t *testing.T, sc ServerConfig) (progress string){
		"connect": func(t *testing.T, sc ServerConfig) string {
			b := startStreamsBridge(t, sc)
			ctx := testCtx(t)
			tun := b.connectWith(ctx, t, "", initialize)
			if m, text := tun.response("0", nil); m.HasError() {
				t.Fatalf("initialize: %s", text)
			}
			tun.send(initalized)
			tun.send(call)
			for {
				m, text := tun.recv()
				if m.Kind == wire.KindNotification && m.Method == "notifications/progress" {
					tun.send(cancel)
					return text
				}
				if m.Kind == wire.KindResponse {
					t.Fatalf("the call ended before its first progress: %s", text)
				}
			}
		},
		"mcp": func(t *testing.T, sc ServerConfig) string {
			base := startHTTPDoor(t, Config{Servers: []ServerConfig{sc}}, HTTPOptions{})
			url := base + "/mcp"
			session := openMCPSession(t, url, initialize)
			sc2 := bufio.NewScanner(sseRequest(t, http.MethodPost, url, call, session))
			for sc2.Scan() {
				data, ok := strings.CutPrefix(sc2.Text(), "data: ")
				if !ok || !strings.Contains(data, "notifications/progress") {
					continue
				}
				if code, _, body := doorPost(t, url, "application/json", cancel, session...); code != http.StatusAccepted {
					t.Fatalf("cancel: %d %s", code, body)
				}
				return data
			}
			t.Fatalf("the call's stream ended before its first progress: %v", sc2.Err())
			return ""
		},
	}
	for name, door := range doors {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			sc, log := tapped(t, everythingServer(t, "ev"))
			progress := door(t, sc)
			var p struct {
				Params struct {
					ProgressToken json.RawMessage `json:"progressToken"`
				} `json:"params"`
			}
			if json.Unmarshal([]byte(progress), &p); string(p.Params.ProgressToken) != "7" {
				t.Errorf("the host's progress: %s, want its own token 7", progress)
			}
			// What the server received, once the cancellation is there.
			deadline := time.Now().Add(testWait)
			for {
				got, cancelled := cancelledCall(t, received(t, log), "trigger-long-running-operation")
				if cancelled != nil {
					params, _ := got["params"].(map[string]any)
					meta, _ := params["_meta"].(map[string]any)
					if got["id"] != "host-7" || meta["progressToken"] != float64(7) {
						t.Errorf("the server got the call as id %v, progress token %v; want the host's \"host-7\" and 7", got["id"], meta["progressToken"])
					}
					if reason := cancelled["params"].(map[string]any)["reason"]; reason != "host-reason-8423" {
						t.Errorf("the server got the cancellation with reason %v, want the host's host-reason-8423", reason)
					}
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("the server never got the host's cancellation of host-7; it got %v", received(t, log))
				}
				time.Sleep(20 * time.Millisecond)
			}
		})
	}
}

// TestServerRequestAtSessionStart: a server that asks the host something
// right after initialized (server-everything's roots/list, for a host that
// declared roots) asks before the host's GET stream is open; the request
// waits for the stream and reaches the host there, instead of being
// answered -32603 "No client stream is open" for it.
func TestServerRequestAtSessionStart(t *testing.T) {
	t.Parallel()
	sc := everythingServer(t, "ev")
	svc, err := New(Config{Servers: []ServerConfig{sc}, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { svc.Close() }) // after serveHTTPDoor's cleanup
	url := serveHTTPDoor(t, svc, HTTPOptions{}) + "/mcp"
	session := openMCPSession(t, url, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"roots":{"listChanged":true}},"clientInfo":{"name":"host","version":"1"}}}`)
	// The host is late with its GET stream: it opens it only once the
	// server's request is pending on the server's child.
	asked := func() bool {
		for _, m := range svc.serverSet()["ev"].Children() {
			if c := m.Status().Child; c != nil {
				if _, requests := c.Client.Load(); requests > 0 {
					return true
				}
			}
		}
		return false
	}
	for deadline := time.Now().Add(testWait); !asked(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the server never asked for roots")
		}
	}
	events := bufio.NewScanner(sseRequest(t, http.MethodGet, url, "", session))
	for events.Scan() {
		if data, ok := strings.CutPrefix(events.Text(), "data: "); ok && strings.Contains(data, `"roots/list"`) {
			return
		}
	}
	t.Fatalf("the GET stream ended without the server's roots/list: %v", events.Err())
}

func init() { fixtures["asks-at-start"] = runAsksAtStart }

// runAsksAtStart is a 2025 server that asks its client for roots the
// moment the client says initialized, as real servers do, and tells what
// it was answered through its tool "roots".
func runAsksAtStart() int {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<20)
	out := bufio.NewWriter(os.Stdout)
	write := func(line string) {
		out.WriteString(line + "\n")
		out.Flush()
	}
	answer := "no answer yet"
	for in.Scan() {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Result json.RawMessage `json:"result"`
			Error  json.RawMessage `json:"error"`
		}
		if json.Unmarshal(in.Bytes(), &m) != nil {
			continue
		}
		switch {
		case m.Method == "initialize":
			write(`{"jsonrpc":"2.0","id":` + string(m.ID) + `,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"asks-at-start","version":"1"}}}`)
		case m.Method == "notifications/initialized":
			write(`{"jsonrpc":"2.0","id":"ask-1","method":"roots/list"}`)
		case m.Method == "" && string(m.ID) == `"ask-1"`:
			answer = string(m.Result) + string(m.Error)
		case m.Method == "tools/list":
			write(`{"jsonrpc":"2.0","id":` + string(m.ID) + `,"result":{"tools":[{"name":"roots","inputSchema":{"type":"object"}}]}}`)
		case m.Method == "tools/call":
			text, _ := json.Marshal(answer)
			write(`{"jsonrpc":"2.0","id":` + string(m.ID) + `,"result":{"content":[{"type":"text","text":` + string(text) + `}]}}`)
		case m.Method == "ping":
			write(`{"jsonrpc":"2.0","id":` + string(m.ID) + `,"result":{}}`)
		case m.ID != nil && m.Method != "":
			write(`{"jsonrpc":"2.0","id":` + string(m.ID) + `,"error":{"code":-32601,"message":"Method not found"}}`)
		}
	}
	return 0
}

// TestPrivateChildAsksAtStart: a private child that asks its host for
// roots while the bridge is still starting it for the host (right after
// the initialized the bridge sends it on the host's behalf) gets the
// host's answer: the request waits for the host's tunnel instead of
// finding nobody to ask (-32601).
func TestPrivateChildAsksAtStart(t *testing.T) {
	t.Parallel()
	sc := fixtureServer(t, "asks", "asks-at-start")
	b := startStreamsBridge(t, sc)
	ctx := testCtx(t)
	tun := b.connectWith(ctx, t, "", `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"roots":{}},"clientInfo":{"name":"host","version":"1"}}}`)
	asked := false
	tun.response("0", func(m wire.Message, text string) {
		if m.Kind == wire.KindRequest && m.Method == "roots/list" {
			asked = true
			tun.send(`{"jsonrpc":"2.0","id":` + string(m.ID) + `,"result":{"roots":[{"uri":"file:///host/project","name":"project"}]}}`)
		}
	})
	tun.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	if !asked {
		m, text := tun.recv()
		if m.Kind != wire.KindRequest || m.Method != "roots/list" {
			t.Fatalf("the host got %s, want the child's roots/list", text)
		}
		tun.send(`{"jsonrpc":"2.0","id":` + string(m.ID) + `,"result":{"roots":[{"uri":"file:///host/project","name":"project"}]}}`)
	}
	for deadline := time.Now().Add(testWait); ; {
		tun.send(`{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"roots","arguments":{}}}`)
		_, text := tun.response("9", nil)
		if strings.Contains(text, "file:///host/project") {
			return
		}
		if !strings.Contains(text, "no answer yet") || time.Now().After(deadline) {
			t.Fatalf("the child was answered %s, want the host's roots", text)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// openMCPSession opens a 2025 session at url with initialize and says
// initialized; it returns the session's headers.
func openMCPSession(t *testing.T, url, initialize string) []string {
	t.Helper()
	code, h, body := doorPost(t, url, "application/json", initialize)
	sid := h.Get("Mcp-Session-Id")
	if code != http.StatusOK || sid == "" {
		t.Fatalf("initialize: %d %s", code, body)
	}
	session := []string{"Mcp-Session-Id", sid, "MCP-Protocol-Version", "2025-11-25"}
	if code, _, body := doorPost(t, url, "application/json", `{"jsonrpc":"2.0","method":"notifications/initialized"}`, session...); code != http.StatusAccepted {
		t.Fatalf("initialized: %d %s", code, body)
	}
	return session
}

// sseRequest sends a request that answers with an SSE stream (a POST of
// body, or the session's GET) and returns the stream, closed at cleanup.
func sseRequest(t *testing.T, method, url, body string, header []string) io.Reader {
	t.Helper()
	ctx, stop := context.WithTimeout(context.Background(), testWait)
	t.Cleanup(stop)
	var r io.Reader
	if body != "" {
		r = strings.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, url, r)
	if err != nil {
		t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Accept", "application/json, text/event-stream")
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp.Body
}
