package main

import (
	"bufio"
	"context"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mcpbridge/mcpbridge/internal/testkit"
)

// mcpPost is one POST to an MCP endpoint: its status, header and the
// JSON-RPC messages of the answer (one for application/json, each event's
// data for an SSE stream).
type mcpPost struct {
	status int
	header http.Header
	msgs   []string
}

func (p mcpPost) String() string {
	return fmt.Sprintf("%d %v %q", p.status, p.header, p.msgs)
}

// last is the answer's last message, "" for none.
func (p mcpPost) last() string {
	if len(p.msgs) == 0 {
		return ""
	}
	return p.msgs[len(p.msgs)-1]
}

// postMCP POSTs a JSON-RPC message to url with the headers a client of
// its era sends, plus header ("Name", "value" pairs), and reads the answer.
func postMCP(t *testing.T, url, body string, header ...string) mcpPost {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), testTimeout)
	defer cancel()
	req := newJSONPost(t, ctx, url, body)
	req.Header.Set("Accept", "application/json, text/event-stream")
	var m struct {
		Method string `json:"method"`
		Params struct {
			Name string `json:"name"`
			Meta struct {
				Version string `json:"io.modelcontextprotocol/protocolVersion"`
			} `json:"_meta"`
		} `json:"params"`
	}
	json.Unmarshal([]byte(body), &m)
	if v := m.Params.Meta.Version; v != "" {
		req.Header.Set("MCP-Protocol-Version", v)
		req.Header.Set("Mcp-Method", m.Method)
		if m.Params.Name != "" {
			req.Header.Set("Mcp-Name", m.Params.Name)
		}
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("POST %s: %v", body, err)
	}
	defer resp.Body.Close()
	out := mcpPost{status: resp.StatusCode, header: resp.Header}
	if !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		b, _ := io.ReadAll(resp.Body)
		if len(b) > 0 {
			out.msgs = []string{string(b)}
		}
		return out
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for sc.Scan() {
		if data, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
			out.msgs = append(out.msgs, data)
		}
	}
	return out
}

// TestServeHTTPMCPDoor drives the /mcp endpoints of a bridge set up as
// docs/security.md sets one up (API keys, a rule, a bridge-wide limit, an
// audit file), as remote MCP hosts would: the credentials, the rule, the
// limit and the audit hold as on gRPC; one caller cannot use another's
// session; a page from a foreign origin is refused; and a key removed by a
// SIGHUP reload ends the sessions it had open.
func TestServeHTTPMCPDoor(t *testing.T) {
	keys := map[string]string{"alice": "alice-key-0c7e2b9d4f1a", "bob": "bob-key-0c7e2b9d4f1a", "carol": "carol-key-0c7e2b9d4f1a"}
	audit := filepath.Join(t.TempDir(), "audit.jsonl")
	config := func(principals ...string) string {
		return operatorConfig("http_listen: 127.0.0.1:0\n", keys, audit, []string{mcpbridgeBin, "demo", "-tick", "0"}, principals...)
	}
	path := writeConfig(t, "", config("alice", "bob", "carol"))
	b := startBridge(t, nil, "--config", path)
	url := "http://" + httpAddr(t, b) + "/mcp/demo"
	bearer := func(who string) []string { return []string{"Authorization", "Bearer " + keys[who]} }
	call := func(id int, params string) string {
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":%s}`, id, testkit.WithModernMeta(params))
	}
	echo := call(1, `{"name":"echo","arguments":{"message":"hi"}}`)
	const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"door-test","version":"1"}}}`

	// Credentials: none, or a wrong key, is 401 with a challenge.
	for _, h := range [][]string{nil, {"Authorization", "Bearer nope"}} {
		if p := postMCP(t, url, echo, h...); p.status != http.StatusUnauthorized || !strings.HasPrefix(p.header.Get("Www-Authenticate"), "Bearer") {
			t.Errorf("tools/call with %q: %s; want 401 with a Bearer challenge", h, p)
		}
	}
	if p := postMCP(t, url, echo, bearer("alice")...); p.status != http.StatusOK || !strings.Contains(p.last(), `"text":"hi"`) {
		t.Errorf("alice's tools/call: %s; want 200 and hi", p)
	}
	// The rule: carol may use nothing.
	if p := postMCP(t, url, echo, bearer("carol")...); p.status != http.StatusForbidden {
		t.Errorf("carol's tools/call: %s; want 403", p)
	}
	if p := postMCP(t, strings.TrimSuffix(url, "/demo")+"/nosuch", echo, bearer("alice")...); p.status != http.StatusNotFound {
		t.Errorf("alice's tools/call of an unknown server: %s; want 404", p)
	}
	// A page from a foreign origin, which DNS rebinding would make.
	if p := postMCP(t, url, echo, append(bearer("alice"), "Origin", "http://evil.example")...); p.status != http.StatusForbidden {
		t.Errorf("tools/call from Origin http://evil.example: %s; want 403", p)
	}

	// The limit: eight 1.5 s calls at once, four run and four are refused,
	// as on CallTool and in a tunnel.
	var wg sync.WaitGroup
	answers := make([]mcpPost, 8)
	for i := range answers {
		wg.Go(func() {
			answers[i] = postMCP(t, url, call(i+1, `{"name":"progress","arguments":{"seconds":1.5,"steps":1}}`), bearer("alice")...)
		})
	}
	wg.Wait()
	refused, done := 0, 0
	for _, p := range answers {
		switch {
		case strings.Contains(p.last(), "Too many requests"):
			refused++
		case strings.Contains(p.last(), "done: 1 steps"):
			done++
		}
	}
	if refused != 4 || done != 4 {
		t.Errorf("eight 1.5 s calls under concurrent: 4: %d refused, %d done; want 4 and 4: %v", refused, done, answers)
	}

	// bob's 2025 session is his alone.
	open := postMCP(t, url, initialize, bearer("bob")...)
	sid := open.header.Get("Mcp-Session-Id")
	if open.status != http.StatusOK || sid == "" {
		t.Fatalf("bob's initialize: %s; want 200 and a session", open)
	}
	const listTools = `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`
	if p := postMCP(t, url, listTools, append(bearer("alice"), "Mcp-Session-Id", sid)...); p.status != http.StatusNotFound {
		t.Errorf("alice's POST in bob's session: %s; want 404", p)
	}
	if p := postMCP(t, url, listTools, append(bearer("bob"), "Mcp-Session-Id", sid)...); p.status != http.StatusOK || !strings.Contains(p.last(), `"name":"echo"`) {
		t.Errorf("bob's tools/list in his session: %s", p)
	}
	const bobsEcho = `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"message":"bob"}}}`
	if p := postMCP(t, url, bobsEcho, append(bearer("bob"), "Mcp-Session-Id", sid)...); p.status != http.StatusOK || !strings.Contains(p.last(), `"text":"bob"`) {
		t.Errorf("bob's tools/call in his session: %s", p)
	}

	// The audit has the calls over HTTP, under their principals, and says
	// they came over HTTP.
	data, err := os.ReadFile(audit)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range [][]string{
		{`"principal":"alice"`, `"method":"tools/call"`, `"outcome":"ok"`, `"via":"http"`},
		{`"principal":"alice"`, `"method":"tools/call"`, `"refused":"limited"`, `"via":"http"`},
		{`"principal":"bob"`, `"method":"tools/call"`, `"outcome":"ok"`, `"via":"http"`},
		{`"principal":"carol"`, `"refused":"permission_denied"`, `"via":"http"`},
	} {
		found := false
		for line := range strings.SplitSeq(string(data), "\n") {
			all := true
			for _, w := range want {
				all = all && strings.Contains(line, w)
			}
			found = found || all
		}
		if !found {
			t.Errorf("no audit record with %s in:\n%s", want, data)
		}
	}

	// Removing bob's key ends his session: the guard refuses his key on
	// every request (401, before the body is read), and once his key is
	// back his old session is gone (404): he must initialize again.
	reloads := 0
	reload := func(principals ...string) {
		t.Helper()
		reloads++
		writeConfig(t, path, config(principals...))
		if err := b.cmd.Process.Signal(syscall.SIGHUP); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(t.Context(), testTimeout)
		defer cancel()
		b.log.WaitCount(ctx, t, reloads, "configuration reloaded")
	}
	reload("alice", "carol")
	if p := postMCP(t, url, listTools, append(bearer("bob"), "Mcp-Session-Id", sid)...); p.status != http.StatusUnauthorized {
		t.Errorf("bob's session after his key was removed: %s; want 401", p)
	}
	if p := postMCP(t, url, initialize, bearer("bob")...); p.status != http.StatusUnauthorized {
		t.Errorf("bob's initialize after his key was removed: %s; want 401", p)
	}
	reload("alice", "bob", "carol")
	var p mcpPost
	for deadline := time.Now().Add(testTimeout); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if p = postMCP(t, url, listTools, append(bearer("bob"), "Mcp-Session-Id", sid)...); p.status == http.StatusNotFound {
			break
		}
	}
	if p.status != http.StatusNotFound {
		t.Errorf("bob's old session once his key is back: %s; want 404, the session ended with his key", p)
	}
	if p := postMCP(t, url, echo, bearer("alice")...); p.status != http.StatusOK || !strings.Contains(p.last(), `"text":"hi"`) {
		t.Errorf("alice's tools/call after the reload: %s", p)
	}
}

// Over TLS with --client-ca, /mcp knows a caller by its client
// certificate: the door's principal is the certificate's, so the rules
// that name it hold inside the session's tunnel, and a client without a
// certificate does not get past the handshake.
func TestServeHTTPMCPMTLS(t *testing.T) {
	f := newTLSFiles(t)
	config := writeConfig(t, "", fmt.Sprintf(`http_listen: 127.0.0.1:0
auth: {mtls: true}
rules:
  - {principals: ["mtls:alice"], servers: ["*"], tools: [echo]}
servers:
  - command: %s
`, yamlList([]string{mcpbridgeBin, "demo", "-tick", "0"})))
	b := startBridge(t, nil, append(f.args(), "--client-ca", f.caFile, "--config", config)...)
	cert, err := tls.LoadX509KeyPair(f.aliceCert, f.aliceKey)
	if err != nil {
		t.Fatal(err)
	}
	tr := &http.Transport{TLSClientConfig: &tls.Config{RootCAs: f.roots(), Certificates: []tls.Certificate{cert}}, ForceAttemptHTTP2: true}
	defer tr.CloseIdleConnections()
	url := "https://" + httpAddr(t, b) + "/mcp"
	post := func(tr *http.Transport, tool, body string) (*http.Response, string, error) {
		req := newJSONPost(t, t.Context(), url, body, "Accept", "application/json, text/event-stream",
			"MCP-Protocol-Version", "2026-07-28", "Mcp-Method", "tools/call", "Mcp-Name", tool)
		resp, err := (&http.Client{Transport: tr, Timeout: testTimeout}).Do(req)
		if err != nil {
			return nil, "", err
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp, string(b), nil
	}
	call := func(name string) string {
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":%s}`,
			testkit.WithModernMeta(`{"name":"`+name+`","arguments":{"message":"from alice's certificate"}}`))
	}
	resp, body, err := post(tr, "echo", call("echo"))
	if err != nil || resp.StatusCode != http.StatusOK || resp.Proto != "HTTP/2.0" || !strings.Contains(body, "from alice's certificate") {
		t.Fatalf("echo as alice's certificate: %v %v %s; want 200 over HTTP/2 and the echo", err, resp, body)
	}
	// The rule names alice's certificate for echo alone.
	resp, body, err = post(tr, "whoami", strings.Replace(call("whoami"), `"arguments":{"message":"from alice's certificate"}`, `"arguments":{}`, 1))
	t.Logf("whoami as alice's certificate: %s", body)
	if err != nil || !strings.Contains(body, "Permission denied") || strings.Contains(body, `"pid"`) {
		t.Errorf("whoami as alice's certificate: %v %v %s; want the rule's refusal", err, resp, body)
	}
	anon := &http.Transport{TLSClientConfig: &tls.Config{RootCAs: f.roots()}}
	defer anon.CloseIdleConnections()
	if resp, body, err := post(anon, "echo", call("echo")); err == nil {
		t.Errorf("echo without a certificate: %v %s; want the handshake refused", resp.Status, body)
	}
}
