package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpbridge/mcpbridge/internal/testkit"
)

// initializeWith is a 2025-11-25 host's initialize declaring caps.
func initializeWith(caps string) string {
	return `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":` + caps +
		`,"clientInfo":{"name":"test-host","version":"1"}}}`
}

// toolNames are the names of a tools/list answer, sorted.
func toolNames(t *testing.T, a map[string]any) []string {
	t.Helper()
	res, _ := a["result"].(map[string]any)
	tools, _ := res["tools"].([]any)
	var names []string
	for _, tool := range tools {
		name, _ := tool.(map[string]any)["name"].(string)
		names = append(names, name)
	}
	if len(names) == 0 {
		t.Fatalf("tools/list answered %v: no tools", a)
	}
	slices.Sort(names)
	return names
}

// TestConnectIsTheHostsSession: a 2025 era host through `mcpbridge
// connect` sees the server it would see had it launched it: the server
// learns the host's own capabilities (server-everything lists the tools
// that need roots, sampling or elicitation only to a host that declares
// them), and the demo's ask answers a host without elicitation with the
// demo's own error. Each host has a child of its own: two hosts with
// different capabilities on one bridge at once each get their own list.
func TestConnectIsTheHostsSession(t *testing.T) {
	everything := testkit.ServerEverything(t)
	b := startBridge(t, nil, append([]string{"--"}, everything...)...)
	for _, caps := range []string{`{}`, `{"roots":{},"sampling":{},"elicitation":{}}`} {
		lines := []string{initializeWith(caps), hostInitialized, hostListTools}
		direct := runStdio(t, nil, everything, lines...)
		bridged := runHost(t, nil, []string{"--addr", b.addr}, lines...)
		if len(direct.answers) != 2 || len(bridged.answers) != 2 {
			t.Fatalf("capabilities %s: answers direct %v, through connect %v (stderr %s)", caps, direct.answers, bridged.answers, bridged.stderr)
		}
		if d, c := toolNames(t, direct.answers[1]), toolNames(t, bridged.answers[1]); !slices.Equal(d, c) {
			t.Errorf("capabilities %s: server-everything lists %d tools to a host that launches it, %d through connect:\n direct  %q\n connect %q", caps, len(d), len(c), d, c)
		}
	}

	// Two hosts at once, each with its own capabilities.
	withRoots := startHost(t, mcpbridgeBin, "connect", "--addr", b.addr)
	without := startHost(t, mcpbridgeBin, "connect", "--addr", b.addr)
	withRoots.call(t, initializeWith(`{"roots":{}}`))
	without.call(t, initializeWith(`{}`))
	withRoots.send(t, hostInitialized)
	without.send(t, hostInitialized)
	rootsTools, plainTools := toolNames(t, withRoots.call(t, hostListTools)), toolNames(t, without.call(t, hostListTools))
	if !slices.Contains(rootsTools, "get-roots-list") || slices.Contains(plainTools, "get-roots-list") {
		t.Errorf("two hosts at once: the one with roots lists %q, the one without %q; want get-roots-list for the first only", rootsTools, plainTools)
	}

	// The demo's ask, from a host without elicitation: the demo's own
	// answer, direct and through connect.
	demo := startBridge(t, nil, "--", mcpbridgeBin, "demo")
	ask := `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"ask","arguments":{"question":"Your name?"}}}`
	lines := []string{initializeWith(`{}`), hostInitialized, ask}
	direct := runStdio(t, nil, []string{mcpbridgeBin, "demo"}, lines...)
	bridged := runHost(t, nil, []string{"--addr", demo.addr}, lines...)
	if len(direct.answers) != 2 || len(bridged.answers) != 2 {
		t.Fatalf("ask: answers direct %v, through connect %v", direct.answers, bridged.answers)
	}
	d, _ := json.Marshal(direct.answers[1])
	c, _ := json.Marshal(bridged.answers[1])
	if string(d) != string(c) {
		t.Errorf("ask from a host without elicitation:\n direct  %s\n connect %s", d, c)
	}
}

// TestConnectCrashStaysWithItsHost: one host's call that crashes its
// server does not end another host's session on the same bridge, and its
// own session goes on with the restarted server: the call in flight fails,
// the host is told in a log message, its resource subscription is taken
// up again, and its next calls are answered.
func TestConnectCrashStaysWithItsHost(t *testing.T) {
	b := startBridge(t, nil, "--", mcpbridgeBin, "demo", "-tick", "100ms")
	a, other := startHost(t, mcpbridgeBin, "connect", "--addr", b.addr), startHost(t, mcpbridgeBin, "connect", "--addr", b.addr)
	for _, h := range []*hostSession{a, other} {
		if res := h.call(t, initializeWith(`{}`)); res["result"] == nil {
			t.Fatalf("initialize = %v", res)
		}
		h.send(t, hostInitialized)
	}
	if res := a.call(t, `{"jsonrpc":"2.0","id":5,"method":"resources/subscribe","params":{"uri":"demo://counter"}}`); res["result"] == nil {
		t.Fatalf("resources/subscribe = %v", res)
	}
	a.waitFor(t, "notifications/resources/updated", "demo://counter")
	exit := `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"exit","arguments":{"code":3}}}`
	if res := a.call(t, exit); res["error"] == nil {
		t.Errorf("the exit tool answered %v; want the crash as an error", res)
	}
	for i := range 3 { // the other host's session goes on
		res := other.call(t, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/list"}`, 10+i))
		if res["result"] == nil {
			t.Fatalf("the other host's tools/list after the crash = %v", res)
		}
	}
	// And so does the crashing host's.
	if res := a.call(t, `{"jsonrpc":"2.0","id":8,"method":"tools/list"}`); res["result"] == nil {
		t.Fatalf("the crashing host's tools/list after the restart = %v", res)
	}
	a.waitFor(t, "notifications/message", "started again for this session")
	a.seen = nil
	a.waitFor(t, "notifications/resources/updated", "demo://counter") // the subscription, taken up again
}

// hostSession is a host with a stdio server it keeps open.
type hostSession struct {
	in   io.WriteCloser
	out  *bufio.Reader
	seen []string // the messages read that were not answers, as text
	// serve, when set, answers the server's requests met while reading:
	// the result for their method; without it they get -32601.
	serve func(method string) any
}

// startHost starts the stdio server argv for a host that keeps it open;
// the test's cleanup closes its stdin and waits for it.
func startHost(t *testing.T, argv ...string) *hostSession {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		in.Close()
		_, _ = io.Copy(io.Discard, out)
		_ = cmd.Wait()
		cancel()
	})
	return &hostSession{in: in, out: bufio.NewReader(out)}
}

func (h *hostSession) send(t *testing.T, line string) {
	t.Helper()
	if _, err := io.WriteString(h.in, line+"\n"); err != nil {
		t.Fatalf("write %s: %v", line, err)
	}
}

// call sends a request and returns its answer.
func (h *hostSession) call(t *testing.T, line string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(line), &m); err != nil {
		t.Fatal(err)
	}
	h.send(t, line)
	for {
		text, err := h.out.ReadString('\n')
		if err != nil {
			t.Fatalf("no answer to %s: %v", line, err)
		}
		var a map[string]any
		if err := json.Unmarshal([]byte(text), &a); err != nil {
			t.Fatalf("the server wrote %q: %v", text, err)
		}
		if a["method"] == nil && a["id"] == m["id"] {
			return a
		}
		h.answerRequest(a)
		h.seen = append(h.seen, text)
	}
}

// answerRequest answers a to the server when it is a request of its own.
// It runs on whichever goroutine reads: a failed write shows as a missing
// answer, not here.
func (h *hostSession) answerRequest(a map[string]any) {
	method, _ := a["method"].(string)
	if method == "" || a["id"] == nil {
		return
	}
	id, _ := json.Marshal(a["id"])
	var reply []byte
	if h.serve != nil {
		res, _ := json.Marshal(h.serve(method))
		reply = fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,"result":%s}`, id, res)
	} else {
		reply = fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"Method not found"}}`, id)
	}
	_, _ = io.WriteString(h.in, string(reply)+"\n")
}

// waitFor reads the server's messages until one of method holds want (a
// message seen before counts), for at most 30 s.
func (h *hostSession) waitFor(t *testing.T, method, want string) {
	t.Helper()
	for _, text := range h.seen {
		if strings.Contains(text, `"method":"`+method+`"`) && strings.Contains(text, want) {
			return
		}
	}
	found := make(chan struct{})
	go func() {
		defer close(found)
		for {
			text, err := h.out.ReadString('\n')
			if err != nil {
				return
			}
			h.seen = append(h.seen, text)
			var m map[string]any
			if json.Unmarshal([]byte(text), &m) == nil {
				h.answerRequest(m)
			}
			if strings.Contains(text, `"method":"`+method+`"`) && strings.Contains(text, want) {
				return
			}
		}
	}()
	select {
	case <-found:
		if len(h.seen) == 0 || !strings.Contains(h.seen[len(h.seen)-1], want) {
			t.Fatalf("the server's output ended without a %s holding %q", method, want)
		}
	case <-time.After(30 * time.Second):
		t.Fatalf("no %s holding %q within 30 s", method, want)
	}
}

// TestConnectServerStatePerHost: what a server keeps per client stays
// with its host through connect, as when the host launches the server:
// server-everything asks a host that declares roots for them and logs
// "Roots updated" to it, directly and through connect; the demo's ask
// answered with a value that does not fit its form is the same tool
// error both ways; and one host's toggle-subscriber-updates does not turn
// another host's updates off.
func TestConnectServerStatePerHost(t *testing.T) {
	everything := testkit.ServerEverything(t)
	b := startBridge(t, nil, append([]string{"--"}, everything...)...)
	demo := startBridge(t, nil, "--", mcpbridgeBin, "demo")
	roots := func(method string) any {
		if method == "roots/list" {
			return map[string]any{"roots": []any{map[string]any{"uri": "file:///tmp/host-root", "name": "host-root"}}}
		}
		return map[string]any{}
	}
	for _, argv := range [][]string{everything, {mcpbridgeBin, "connect", "--addr", b.addr}} {
		h := startHost(t, argv...)
		h.serve = roots
		if res := h.call(t, initializeWith(`{"roots":{"listChanged":true}}`)); res["result"] == nil {
			t.Fatalf("%q: initialize = %v", argv, res)
		}
		h.send(t, hostInitialized)
		h.call(t, `{"jsonrpc":"2.0","id":2,"method":"logging/setLevel","params":{"level":"debug"}}`)
		h.waitFor(t, "notifications/message", "Roots updated: 1 root(s) received from client")
	}

	answers := map[string]string{}
	for _, argv := range [][]string{{mcpbridgeBin, "demo"}, {mcpbridgeBin, "connect", "--addr", demo.addr}} {
		h := startHost(t, argv...)
		h.serve = func(method string) any {
			return map[string]any{"action": "accept", "content": map[string]any{"answer": 5}} // not a string
		}
		h.call(t, initializeWith(`{"elicitation":{}}`))
		h.send(t, hostInitialized)
		res, _ := json.Marshal(h.call(t, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"ask","arguments":{"question":"Your name?"}}}`)["result"])
		answers[argv[1]] = string(res)
	}
	if answers["demo"] != answers["connect"] || !strings.Contains(answers["demo"], `"isError":true`) {
		t.Errorf("ask answered with a number: directly %s, through connect %s; want the same tool error", answers["demo"], answers["connect"])
	}

	a, other := startHost(t, mcpbridgeBin, "connect", "--addr", b.addr), startHost(t, mcpbridgeBin, "connect", "--addr", b.addr)
	for _, h := range []*hostSession{a, other} {
		h.serve = roots
		h.call(t, initializeWith(`{}`))
		h.send(t, hostInitialized)
	}
	list := a.call(t, `{"jsonrpc":"2.0","id":4,"method":"resources/list"}`)
	resources, _ := list["result"].(map[string]any)["resources"].([]any)
	if len(resources) == 0 {
		t.Fatalf("resources/list = %v", list)
	}
	uri, _ := resources[0].(map[string]any)["uri"].(string)
	a.call(t, fmt.Sprintf(`{"jsonrpc":"2.0","id":5,"method":"resources/subscribe","params":{"uri":%q}}`, uri))
	toggle := `{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"toggle-subscriber-updates","arguments":{}}}`
	a.call(t, toggle)     // on, for a's session
	other.call(t, toggle) // on for the other's: in a shared session, off for both
	a.waitFor(t, "notifications/resources/updated", uri)
}
