package mcphttp

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpbridge/mcpbridge/stdio"
	"github.com/mcpbridge/mcpbridge/stdio/jsonrpc"
	"github.com/mcpbridge/mcpbridge/stdio/mcphttp/internal/peer"
)

// This file tests what the adapter does for whom: callers, server paths,
// origins, StartFunc refusals, the connection limit and idle expiry.

// callerHeader names a request's caller in these tests.
const callerHeader = "X-Caller"

// callerConfig is fixtureConfig with Config.Caller reading callerHeader.
func callerConfig(t *testing.T) Config {
	t.Helper()
	cfg := fixtureConfig(t)
	cfg.Caller = func(r *http.Request) string { return r.Header.Get(callerHeader) }
	return cfg
}

// as returns r sent by caller who ("" sends no callerHeader).
func as(who string, r request) request {
	h := map[string]string{callerHeader: who}
	for k, v := range r.header {
		h[k] = v
	}
	r.header = h
	return r
}

// modernCall is a 2026-07-28 request with a complete _meta; extra are more
// members of params (",\"name\":…"), or "".
func modernCall(id, method, extra string) string {
	return `{"jsonrpc":"2.0","id":` + id + `,"method":"` + method + `","params":{"_meta":` + modernMeta + extra + `}}`
}

// withProgress is a 2026-07-28 request whose _meta carries a progress
// token.
func withProgress(id, method, token string) string {
	return `{"jsonrpc":"2.0","id":` + id + `,"method":"` + method + `","params":{"_meta":` +
		strings.TrimSuffix(modernMeta, "}") + `,"progressToken":` + token + `}}}`
}

// startCall is one call of a recorded StartFunc.
type startCall struct {
	server, caller string
}

// startLog records the calls of a StartFunc.
type startLog struct {
	mu    sync.Mutex
	calls []startCall
}

func (l *startLog) all() []startCall {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]startCall(nil), l.calls...)
}

// count returns how many connections were opened for caller who.
func (l *startLog) count(who string) int {
	n := 0
	for _, c := range l.all() {
		if c.caller == who {
			n++
		}
	}
	return n
}

// recordStarts wraps cfg.Start to record each call's server and caller
// (callerHeader).
func recordStarts(cfg Config) (Config, *startLog) {
	l := &startLog{}
	note := func(r *http.Request, server string) {
		l.mu.Lock()
		l.calls = append(l.calls, startCall{server: server, caller: r.Header.Get(callerHeader)})
		l.mu.Unlock()
	}
	if open := cfg.Open; open != nil {
		cfg.Open = func(ctx context.Context, r *http.Request, server string, first []byte) (Conn, error) {
			note(r, server)
			return open(ctx, r, server, first)
		}
		return cfg, l
	}
	start := cfg.Start
	cfg.Start = func(ctx context.Context, r *http.Request, server string, first []byte, ccfg stdio.ClientConfig) (*stdio.Client, error) {
		note(r, server)
		return start(ctx, r, server, first, ccfg)
	}
	return cfg, l
}

// openAs starts a 2025 session as caller who and returns its id.
func openAs(t *testing.T, url, who string) string {
	t.Helper()
	status, h, msgs := post(t, url, as(who, request{body: initialize}))
	sid := h.Get("Mcp-Session-Id")
	if status != http.StatusOK || sid == "" || len(msgs) != 1 || field(t, msgs[0], "result", "protocolVersion") != "2025-11-25" {
		t.Fatalf("initialize as %q: status %d, session %q, messages %s", who, status, sid, msgs)
	}
	initialized := as(who, request{session: sid, body: `{"jsonrpc":"2.0","method":"notifications/initialized"}`})
	if status, _, _ := post(t, url, initialized); status != http.StatusAccepted {
		t.Fatalf("notifications/initialized as %q: status %d, want 202", who, status)
	}
	return sid
}

// exchange sends one request with the given headers (and Host, unless
// empty) and returns its status, header and body. An SSE answer's body is
// not read: the request is ended once its header has arrived.
func exchange(t *testing.T, method, url string, header map[string]string, host, body string) (int, http.Header, []byte) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	if host != "" {
		req.Host = host
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		return resp.StatusCode, resp.Header, nil
	}
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, b
}

// sessionStatus sends a GET or DELETE for session sid as caller who.
func sessionStatus(t *testing.T, method, url, sid, who string) int {
	t.Helper()
	h := map[string]string{"Mcp-Session-Id": sid, "Accept": "text/event-stream"}
	if who != "" {
		h[callerHeader] = who
	}
	status, _, _ := exchange(t, method, url, h, "", "")
	return status
}

// getAs opens session sid's GET stream as caller who (getStream sends no
// caller) and returns what closes it; the test's end closes it too.
func getAs(t *testing.T, url, sid, who string) (close func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Mcp-Session-Id", sid)
	req.Header.Set(callerHeader, who)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		cancel()
		t.Fatalf("GET as %q: %v", who, err)
	}
	close = func() {
		cancel()
		resp.Body.Close()
	}
	t.Cleanup(close)
	if resp.StatusCode != http.StatusOK {
		close()
		t.Fatalf("GET as %q: status %d, want 200", who, resp.StatusCode)
	}
	return close
}

// waitFor polls cond until it holds, failing the test after 10 s.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// waitDone waits (at most 10 s) for a connection's Client to be done.
func waitDone(t *testing.T, what string, l peer.Link) {
	t.Helper()
	select {
	case <-l.Done():
	case <-time.After(10 * time.Second):
		t.Fatalf("%s: the Client is not done 10 s after its connection ended", what)
	}
}

func (a *Adapter) hasSession(sid string) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.sessions[sid] != nil
}

func (a *Adapter) sessionBackend(t *testing.T, sid string) *backend {
	t.Helper()
	a.mu.Lock()
	defer a.mu.Unlock()
	s := a.sessions[sid]
	if s == nil {
		t.Fatalf("no session %s", sid)
	}
	return s.b
}

func (a *Adapter) pairOf(c caller) *modernPair {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.modern[c.key()]
}

// sharedOf returns caller c's shared 2026 backend, failing without one.
func (a *Adapter) sharedOf(t *testing.T, c caller) *backend {
	t.Helper()
	p := a.pairOf(c)
	if p == nil {
		t.Fatalf("no 2026 connections for caller %q of server %q", c.name, c.server)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.shared == nil {
		t.Fatalf("caller %q of server %q has no shared connection", c.name, c.server)
	}
	return p.shared
}

func (a *Adapter) counts() (sessions, modern, reserved int) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return len(a.sessions), len(a.modern), a.reserved
}

// TestCallerSessionIsolation: a 2025 session answers only the caller that
// opened it. Another caller (or none, or the same caller at another
// server's path) gets 404 for POST, GET and DELETE, as for an unknown
// session, and the session is untouched.
func TestCallerSessionIsolation(t *testing.T) {
	a, url := serve(t, callerConfig(t))
	sid := openAs(t, url, "alice")
	echo := `{"jsonrpc":"2.0","id":1,"method":"test/echo"}`

	for _, who := range []string{"bob", ""} {
		status, _, msgs := post(t, url, as(who, request{session: sid, body: echo}))
		if status != http.StatusNotFound || len(msgs) != 1 || field(t, msgs[0], "error") == nil || raw(t, msgs[0], "id") != "1" {
			t.Errorf("POST to alice's session as %q: status %d, %s; want 404 and an error for id 1", who, status, msgs)
		}
		if status := sessionStatus(t, http.MethodGet, url, sid, who); status != http.StatusNotFound {
			t.Errorf("GET of alice's session as %q: status %d, want 404", who, status)
		}
		if status := sessionStatus(t, http.MethodDelete, url, sid, who); status != http.StatusNotFound {
			t.Errorf("DELETE of alice's session as %q: status %d, want 404", who, status)
		}
	}
	// A session belongs to its server too.
	if status, _, _ := post(t, url+"/other", as("alice", request{session: sid, body: echo})); status != http.StatusNotFound {
		t.Errorf("POST to alice's session at another server's path: status %d, want 404", status)
	}

	if !a.hasSession(sid) {
		t.Fatal("alice's session ended after other callers used its id")
	}
	resp := call(t, url, as("alice", request{session: sid, body: echo}))
	if field(t, resp, "result", "method") != "test/echo" || raw(t, resp, "id") != "1" {
		t.Errorf("alice's POST after the others: %s, want the echo of id 1", resp)
	}
	if status := sessionStatus(t, http.MethodGet, url, sid, "alice"); status != http.StatusOK {
		t.Errorf("alice's GET: status %d, want 200", status)
	}
	// The GET handler may still hold the stream for a moment after its
	// client left; a DELETE does not care.
	if status := sessionStatus(t, http.MethodDelete, url, sid, "alice"); status != http.StatusNoContent {
		t.Errorf("alice's DELETE: status %d, want 204", status)
	}
	if a.hasSession(sid) {
		t.Error("alice's session still there after her DELETE")
	}
}

// TestModernConnectionPerCaller: 2026 requests share connections within a
// caller and never across callers.
func TestModernConnectionPerCaller(t *testing.T) {
	cfg, starts := recordStarts(callerConfig(t))
	a, url := serve(t, cfg)
	echo := modernCall("1", "test/echo", "")
	pid := func(who string) any {
		t.Helper()
		resp := call(t, url, as(who, request{body: echo}))
		p := field(t, resp, "result", "pid")
		if p == nil {
			t.Fatalf("test/echo as %q: %s, want a result with the child's pid", who, resp)
		}
		return p
	}
	for _, who := range []string{"alice", "bob"} {
		resp := call(t, url, as(who, request{body: modernCall(`"list"`, "tools/list", "")}))
		if field(t, resp, "result", "tools") == nil {
			t.Fatalf("tools/list as %q: %s, want the tools", who, resp)
		}
	}
	alice, bob, alice2 := pid("alice"), pid("bob"), pid("alice")
	if alice == bob {
		t.Errorf("alice and bob reached the same child (pid %v)", alice)
	}
	if alice != alice2 {
		t.Errorf("alice's requests reached children %v and %v, want one", alice, alice2)
	}
	if n := starts.count("alice"); n != 1 {
		t.Errorf("connections opened for alice: %d, want 1", n)
	}
	if n := starts.count("bob"); n != 1 {
		t.Errorf("connections opened for bob: %d, want 1", n)
	}
	ab, bb := a.sharedOf(t, caller{name: "alice"}), a.sharedOf(t, caller{name: "bob"})
	if ab == bb {
		t.Error("alice and bob share a backend")
	}
	if _, modern, reserved := a.counts(); modern != 2 || reserved != 2 {
		t.Errorf("%d callers' connections, %d reserved; want 2 and 2", modern, reserved)
	}
}

// TestModernCancelIsCallersOwn: a stateless notifications/cancelled
// cancels only the caller's own request with that id, not another
// caller's request with the same id.
func TestModernCancelIsCallersOwn(t *testing.T) {
	a, url := serve(t, callerConfig(t))
	// Bounded: a request wrongly left in flight fails the test, not hangs it.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	type waiting struct {
		resp   *http.Response
		events *events
		child  any // the id the child saw
	}
	wait := func(who, id string) *waiting {
		t.Helper()
		body := withProgress(id, "test/wait", `"`+who+id+`"`)
		resp := send(ctx, t, url, as(who, request{body: body}))
		t.Cleanup(func() { resp.Body.Close() })
		ev := newEvents(resp.Body)
		first, err := ev.next()
		if err != nil {
			t.Fatalf("reading the progress of %s's test/wait %s: %v", who, id, err)
		}
		return &waiting{resp, ev, field(t, first, "params", "message")}
	}
	cancelAs := func(who, id string) {
		t.Helper()
		body := `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":` + id + `}}`
		if status, _, _ := post(t, url, as(who, request{body: body})); status != http.StatusAccepted {
			t.Fatalf("notifications/cancelled of %s as %s: status %d, want 202", id, who, status)
		}
	}
	ended := func(w *waiting, what string) {
		t.Helper()
		if msg, err := w.events.next(); err != io.EOF {
			t.Errorf("%s: the stream carried %s, %v; want its end and no response", what, msg, err)
		}
	}

	a1 := wait("alice", "1")
	a7 := wait("alice", "7")
	b1 := wait("bob", "1")

	cancelAs("bob", "1")
	ended(b1, "bob's request 1 after bob cancelled it")
	cancelAs("alice", "7")
	ended(a7, "alice's request 7 after alice cancelled it")

	// Each child heard of its own caller's cancellation only.
	cancelled := modernCall("2", "test/cancelled", "")
	if got, want := raw(t, call(t, url, as("alice", request{body: cancelled})), "result", "cancelled"), fmt.Sprintf("[%v]", a7.child); got != want {
		t.Errorf("cancellations alice's child got: %s, want %s (her request 7 only)", got, want)
	}
	if got, want := raw(t, call(t, url, as("bob", request{body: cancelled})), "result", "cancelled"), fmt.Sprintf("[%v]", b1.child); got != want {
		t.Errorf("cancellations bob's child got: %s, want %s", got, want)
	}
	// Alice's request 1 is still in flight, and her own cancel ends it.
	ab := a.sharedOf(t, caller{name: "alice"})
	ab.mu.Lock()
	e := ab.calls["1"]
	ab.mu.Unlock()
	if e == nil || e.cancel == nil {
		t.Error("alice's request 1 is no longer in flight after bob cancelled his request 1")
	}
	cancelAs("alice", "1")
	ended(a1, "alice's request 1 after alice cancelled it")
}

// TestServerPaths: Endpoint is server "", Endpoint/NAME server NAME
// (unescaped), and every other path is 404 without a connection.
// Sessions and learnt x-mcp-header annotations are per server.
func TestServerPaths(t *testing.T) {
	cfg, starts := recordStarts(fixtureConfig(t))
	_, url := serve(t, cfg)
	base := strings.TrimSuffix(url, Endpoint)
	list := modernCall("1", "tools/list", "")

	for _, tt := range []struct{ path, server string }{
		{"/mcp", ""},
		{"/mcp/alpha", "alpha"},
		{"/mcp/my%20server", "my server"},
		{"/mcp/caf%C3%A9", "café"},
	} {
		before := len(starts.all())
		status, _, msgs := post(t, base+tt.path, request{body: list})
		if status != http.StatusOK || len(msgs) == 0 || field(t, msgs[len(msgs)-1], "result", "tools") == nil {
			t.Errorf("tools/list at %s: status %d, %s; want 200 and the tools", tt.path, status, msgs)
		}
		got := starts.all()
		if len(got) != before+1 || got[len(got)-1].server != tt.server {
			t.Errorf("tools/list at %s: Start calls %q after %d, want one more for server %q", tt.path, got, before, tt.server)
		}
	}

	before := len(starts.all())
	for _, path := range []string{"/mcp/a/b", "/mcpx", "/mcp/", "/mcp//", "/mcp/a%2Fb", "/mcp/alpha/", "/", "/mcp%2Falpha"} {
		for _, body := range []string{list, initialize} {
			if status, _, _ := post(t, base+path, request{body: body}); status != http.StatusNotFound {
				t.Errorf("POST %s to %s: status %d, want 404", body[:40], path, status)
			}
		}
	}
	if got := starts.all(); len(got) != before {
		t.Errorf("requests to unknown paths opened connections: %q", got[before:])
	}

	// A session opened at /mcp/alpha is alpha's: Start heard so, and the
	// default server's path does not know it.
	sid := open(t, base+"/mcp/alpha")
	if got := starts.all(); got[len(got)-1].server != "alpha" {
		t.Errorf("initialize at /mcp/alpha: Start for server %q, want alpha", got[len(got)-1].server)
	}
	echo := `{"jsonrpc":"2.0","id":1,"method":"test/echo"}`
	if status, _, _ := post(t, url, request{session: sid, body: echo}); status != http.StatusNotFound {
		t.Errorf("alpha's session at %s: status %d, want 404", Endpoint, status)
	}
	if resp := call(t, base+"/mcp/alpha", request{session: sid, body: echo}); field(t, resp, "result", "method") != "test/echo" {
		t.Errorf("alpha's session at /mcp/alpha: %s, want the echo", resp)
	}

	// alpha's tools/list above taught its mirror tool's header; beta has
	// not listed its tools, so its calls are unchecked.
	mirror := modernCall("2", "tools/call", `,"name":"mirror","arguments":{"region":"eu"}`)
	if status, _, _ := post(t, base+"/mcp/alpha", request{body: mirror}); status != http.StatusBadRequest {
		t.Errorf("mirror at alpha without Mcp-Param-Region: status %d, want 400 (alpha listed its tools)", status)
	}
	if status, _, _ := post(t, base+"/mcp/beta", request{body: mirror}); status != http.StatusOK {
		t.Errorf("mirror at beta without Mcp-Param-Region: status %d, want 200 (beta never listed its tools)", status)
	}
}

// TestOrigins: Config.Origins adds browser origins to the loopback ones
// ("*" any), and Config.AnyHost lifts the loopback-Host rule.
func TestOrigins(t *testing.T) {
	// A GET without a session gets 405 once past the origin checks.
	check := func(t *testing.T, url, origin, host string) int {
		t.Helper()
		h := map[string]string{}
		if origin != "" {
			h["Origin"] = origin
		}
		status, _, _ := exchange(t, http.MethodGet, url, h, host, "")
		return status
	}
	listHeader := map[string]string{
		"Content-Type": "application/json", "Accept": "application/json",
		"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/list",
	}
	list := modernCall("1", "tools/list", "")
	type probe struct {
		origin, host string
		want         int
	}
	tests := []struct {
		name   string
		cfg    func(*Config)
		probes []probe
		// a tools/list with this Origin and Host must succeed, if set
		listOrigin, listHost string
	}{
		{
			name: "default",
			cfg:  func(*Config) {},
			probes: []probe{
				{"", "", http.StatusMethodNotAllowed},
				{"http://localhost:3000", "", http.StatusMethodNotAllowed},
				{"https://app.example", "", http.StatusForbidden},
				{"", "bridge.example.com", http.StatusForbidden},
				{"", "bridge.example.com:8080", http.StatusForbidden},
			},
		},
		{
			name: "listed origin",
			cfg:  func(c *Config) { c.Origins = []string{"https://app.example"} },
			probes: []probe{
				{"https://app.example", "", http.StatusMethodNotAllowed},
				{"http://127.0.0.1:5173", "", http.StatusMethodNotAllowed},
				{"https://evil.example", "", http.StatusForbidden},
				{"http://app.example", "", http.StatusForbidden},
				{"https://app.example:8443", "", http.StatusForbidden},
				{"null", "", http.StatusForbidden},
				// Origins do not lift the Host rule.
				{"https://app.example", "bridge.example.com", http.StatusForbidden},
			},
			listOrigin: "https://app.example",
		},
		{
			name: "any origin",
			cfg:  func(c *Config) { c.Origins = []string{"*"} },
			probes: []probe{
				{"https://evil.example", "", http.StatusMethodNotAllowed},
				{"null", "", http.StatusMethodNotAllowed},
				{"", "", http.StatusMethodNotAllowed},
				{"https://evil.example", "bridge.example.com", http.StatusForbidden},
			},
			listOrigin: "https://evil.example",
		},
		{
			name: "any host",
			cfg:  func(c *Config) { c.AnyHost = true },
			probes: []probe{
				{"", "bridge.example.com", http.StatusMethodNotAllowed},
				{"", "bridge.example.com:8080", http.StatusMethodNotAllowed},
				// Origins are still checked.
				{"https://evil.example", "bridge.example.com", http.StatusForbidden},
				{"http://localhost:3000", "bridge.example.com", http.StatusMethodNotAllowed},
			},
			listHost: "bridge.example.com",
		},
		{
			name: "any host and a listed origin",
			cfg:  func(c *Config) { c.AnyHost, c.Origins = true, []string{"https://app.example"} },
			probes: []probe{
				{"https://app.example", "bridge.example.com", http.StatusMethodNotAllowed},
				{"https://evil.example", "bridge.example.com", http.StatusForbidden},
			},
			listOrigin: "https://app.example", listHost: "bridge.example.com",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := fixtureConfig(t)
			tt.cfg(&cfg)
			_, url := serve(t, cfg)
			for _, p := range tt.probes {
				if got := check(t, url, p.origin, p.host); got != p.want {
					t.Errorf("Origin %q, Host %q: status %d, want %d", p.origin, p.host, got, p.want)
				}
			}
			if tt.listOrigin == "" && tt.listHost == "" {
				return
			}
			h := map[string]string{}
			for k, v := range listHeader {
				h[k] = v
			}
			if tt.listOrigin != "" {
				h["Origin"] = tt.listOrigin
			}
			status, _, body := exchange(t, http.MethodPost, url, h, tt.listHost, list)
			if status != http.StatusOK || field(t, body, "result", "tools") == nil {
				t.Errorf("tools/list with Origin %q, Host %q: status %d, %s; want 200 and the tools", tt.listOrigin, tt.listHost, status, body)
			}
		})
	}

	t.Run("listed origin not in canonical form", func(t *testing.T) {
		for _, listed := range []string{"https://app.example/", "HTTPS://App.Example"} {
			cfg := fixtureConfig(t)
			cfg.Origins = []string{listed}
			_, url := serve(t, cfg)
			if got := check(t, url, "https://app.example", ""); got != http.StatusMethodNotAllowed {
				t.Errorf("Origins %q, Origin https://app.example: status %d, want 405 (allowed)", listed, got)
			}
		}
	})

	t.Run("not an origin", func(t *testing.T) {
		for _, o := range []string{"app.example", "https://app.example/path", "ftp://app.example", "https://"} {
			cfg := fixtureConfig(t)
			cfg.Origins = []string{o}
			if a, err := New(cfg); err == nil {
				a.Close()
				t.Errorf("New with Origins %q: no error", o)
			}
		}
	})
}

// TestStartHTTPError: a StartFunc's *HTTPError is answered with its status
// and header, and its JSON-RPC error under the request's id, for a 2025
// initialize, a 2026 request and a 2026 notification; nothing stays
// reserved.
func TestStartHTTPError(t *testing.T) {
	tests := []struct {
		name string
		err  *HTTPError
	}{
		{"401", &HTTPError{
			Status: http.StatusUnauthorized,
			Header: http.Header{"Www-Authenticate": {`Bearer realm="mcphttp-test"`}},
			Err:    jsonrpc.Errorf(jsonrpc.CodeConnectionClosed, "Unauthorized: no credentials"),
		}},
		{"403", &HTTPError{
			Status: http.StatusForbidden,
			Err:    jsonrpc.WithData(jsonrpc.CodeConnectionClosed, "Forbidden", map[string]string{"why": "not yours"}),
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			started := 0
			var mu sync.Mutex
			a, url := serve(t, refusing(func() error {
				mu.Lock()
				started++
				mu.Unlock()
				return tt.err
			}))
			for _, r := range []struct {
				what string
				body string
				id   string
			}{
				{"2025 initialize", initialize, "0"},
				{"2026 tools/list", modernCall(`"x"`, "tools/list", ""), `"x"`},
				{"2026 notification", `{"jsonrpc":"2.0","method":"notifications/roots/list_changed","params":{"_meta":` + modernMeta + `}}`, "null"},
			} {
				status, h, msgs := post(t, url, request{body: r.body})
				if status != tt.err.Status {
					t.Errorf("%s: status %d, want %d", r.what, status, tt.err.Status)
				}
				for k := range tt.err.Header {
					if got, want := h.Values(k), tt.err.Header.Values(k); strings.Join(got, "|") != strings.Join(want, "|") {
						t.Errorf("%s: header %s %q, want %q", r.what, k, got, want)
					}
				}
				if sid := h.Get("Mcp-Session-Id"); sid != "" {
					t.Errorf("%s: refused, yet session %q", r.what, sid)
				}
				if len(msgs) != 1 {
					t.Errorf("%s: %d messages, want one error", r.what, len(msgs))
					continue
				}
				m := msgs[0]
				if raw(t, m, "id") != r.id || raw(t, m, "error", "code") != fmt.Sprint(tt.err.Err.Code) ||
					field(t, m, "error", "message") != tt.err.Err.Message {
					t.Errorf("%s: %s, want id %s and error %d %q", r.what, m, r.id, tt.err.Err.Code, tt.err.Err.Message)
				}
				if tt.err.Err.Data != nil {
					if got, want := raw(t, m, "error", "data"), raw(t, tt.err.Err.Data); got != want {
						t.Errorf("%s: error data %s, want %s", r.what, got, want)
					}
				}
			}
			mu.Lock()
			n := started
			mu.Unlock()
			if n != 3 {
				t.Errorf("Start called %d times, want 3", n)
			}
			if sessions, modern, reserved := a.counts(); sessions != 0 || modern != 0 || reserved != 0 {
				t.Errorf("after refusals: %d sessions, %d callers' connections, %d reserved; want none", sessions, modern, reserved)
			}
		})
	}
}

// refusing is a Config whose connections are refused with refuse's error,
// through Start, or through Open when rawFixtures is set.
func refusing(refuse func() error) Config {
	if rawFixtures {
		return Config{Open: func(context.Context, *http.Request, string, []byte) (Conn, error) { return nil, refuse() }}
	}
	return Config{Start: func(context.Context, *http.Request, string, []byte, stdio.ClientConfig) (*stdio.Client, error) {
		return nil, refuse()
	}}
}

// TestStartHTTPErrorWithoutErr: an *HTTPError without Err is still
// answered with its status (and a generic JSON-RPC error).
func TestStartHTTPErrorWithoutErr(t *testing.T) {
	_, url := serve(t, refusing(func() error { return &HTTPError{Status: http.StatusNotFound} }))
	h := map[string]string{"Content-Type": "application/json", "Accept": "application/json",
		"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/list"}
	status, _, body := exchange(t, http.MethodPost, url, h, "", modernCall("1", "tools/list", ""))
	if status != http.StatusNotFound || raw(t, body, "id") != "1" || field(t, body, "error") == nil {
		t.Errorf("status %d, %s; want 404 and an error for id 1", status, body)
	}
}

// TestMaxSessions: sessions and callers' 2026 connections share the
// limit; a caller's pair of connections counts once; what needs one more
// gets 503, until one ends (expires or is deleted).
func TestMaxSessions(t *testing.T) {
	cfg := callerConfig(t)
	cfg.MaxSessions = 1
	a, url := serve(t, cfg)
	list := func(who string) (int, []byte) {
		t.Helper()
		status, _, msgs := post(t, url, as(who, request{body: modernCall(`"l"`, "tools/list", "")}))
		if len(msgs) == 0 {
			t.Fatalf("tools/list as %q: status %d and no message", who, status)
		}
		return status, msgs[len(msgs)-1]
	}
	over := func(who string) {
		t.Helper()
		status, m := list(who)
		if status != http.StatusServiceUnavailable || raw(t, m, "id") != `"l"` || field(t, m, "error") == nil {
			t.Errorf("tools/list as %q over the limit: status %d, %s; want 503 and an error for id \"l\"", who, status, m)
		}
	}
	ok := func(who string) {
		t.Helper()
		if status, m := list(who); status != http.StatusOK || field(t, m, "result", "tools") == nil {
			t.Errorf("tools/list as %q: status %d, %s; want 200 and the tools", who, status, m)
		}
	}

	ok("alice")
	// Her verbatim connection is of the same pair.
	partial := `{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`
	echo := `{"jsonrpc":"2.0","id":2,"method":"test/echo","params":{"_meta":` + partial + `}}`
	if resp := call(t, url, as("alice", request{body: echo})); field(t, resp, "result", "pid") == nil {
		t.Errorf("alice's verbatim request: %s, want the echo", resp)
	}
	if p := a.pairOf(caller{name: "alice"}); p != nil {
		p.mu.Lock()
		n := len(p.backends())
		p.mu.Unlock()
		if n != 2 {
			t.Errorf("alice has %d connections, want a shared and a verbatim one", n)
		}
	} else {
		t.Error("alice has no 2026 connections")
	}
	if _, _, reserved := a.counts(); reserved != 1 {
		t.Errorf("alice's two connections reserve %d, want 1", reserved)
	}
	over("bob")
	if status, _, msgs := post(t, url, as("bob", request{body: initialize})); status != http.StatusServiceUnavailable || len(msgs) != 1 || raw(t, msgs[0], "id") != "0" {
		t.Errorf("initialize as bob over the limit: status %d, %s; want 503 and an error for id 0", status, msgs)
	}
	ok("alice")

	// Alice's connections expire (see TestExpireIdle); bob's turn.
	shared := a.sharedOf(t, caller{name: "alice"})
	a.expire(time.Now().Add(time.Minute))
	waitDone(t, "alice's expired connection", shared.link)
	ok("bob")
	over("alice")

	// Bob's connections expire too; a session then takes the place, and
	// its DELETE frees it.
	a.expire(time.Now().Add(time.Minute))
	sid := openAs(t, url, "alice")
	over("bob")
	if status := sessionStatus(t, http.MethodDelete, url, sid, "alice"); status != http.StatusNoContent {
		t.Fatalf("DELETE: status %d, want 204", status)
	}
	ok("bob")
	if sessions, modern, reserved := a.counts(); sessions != 0 || modern != 1 || reserved != 1 {
		t.Errorf("%d sessions, %d callers' connections, %d reserved; want 0, 1, 1", sessions, modern, reserved)
	}
}

// TestExpireIdle drives expire by hand: what was used after the cutoff
// stays; what was idle before it ends (404 for a session, a fresh
// connection for a caller), and its connection closes; an open GET stream
// or a request in flight keeps its session or caller's connections alive.
func TestExpireIdle(t *testing.T) {
	a, url := serve(t, callerConfig(t))
	alice := caller{name: "alice"}
	sid := openAs(t, url, "alice")
	call(t, url, as("alice", request{body: modernCall("1", "tools/list", "")}))
	session, shared := a.sessionBackend(t, sid), a.sharedOf(t, alice)

	a.expire(time.Now().Add(-time.Minute))
	if !a.hasSession(sid) || a.pairOf(alice) == nil {
		t.Fatal("expire with a cutoff before the last use ended something")
	}

	a.expire(time.Now().Add(time.Minute))
	if a.hasSession(sid) {
		t.Error("the idle session is still there")
	}
	if a.pairOf(alice) != nil {
		t.Error("alice's idle 2026 connections are still there")
	}
	waitDone(t, "the expired session", session.link)
	waitDone(t, "alice's expired 2026 connection", shared.link)
	if _, _, reserved := a.counts(); reserved != 0 {
		t.Errorf("%d reserved after everything expired, want 0", reserved)
	}
	echo := `{"jsonrpc":"2.0","id":1,"method":"test/echo"}`
	if status, _, _ := post(t, url, as("alice", request{session: sid, body: echo})); status != http.StatusNotFound {
		t.Errorf("POST to the expired session: status %d, want 404", status)
	}
	call(t, url, as("alice", request{body: modernCall("1", "tools/list", "")}))
	if again := a.sharedOf(t, alice); again == shared {
		t.Error("alice's request after expiry reached the expired connection")
	}

	t.Run("open streams keep them", func(t *testing.T) {
		sid := openAs(t, url, "alice")
		closeGet := getAs(t, url, sid, "alice")
		session := a.sessionBackend(t, sid)
		waitFor(t, "the GET stream to be registered", func() bool {
			session.mu.Lock()
			defer session.mu.Unlock()
			return session.get != nil
		})

		waitCtx, stopWait := context.WithTimeout(context.Background(), 30*time.Second)
		defer stopWait()
		w := send(waitCtx, t, url, as("bob", request{body: withProgress("5", "test/wait", `"w"`)}))
		defer w.Body.Close()
		if _, err := newEvents(w.Body).next(); err != nil {
			t.Fatalf("reading bob's test/wait progress: %v", err)
		}
		bob := a.sharedOf(t, caller{name: "bob"})

		a.expire(time.Now().Add(time.Minute))
		if !a.hasSession(sid) {
			t.Error("a session with its GET stream open expired")
		}
		if a.pairOf(caller{name: "bob"}) == nil {
			t.Error("bob's connections expired with his request in flight")
		}
		if resp := call(t, url, as("alice", request{session: sid, body: echo})); field(t, resp, "result", "method") != "test/echo" {
			t.Errorf("alice's session after the sweep: %s, want the echo", resp)
		}

		closeGet()
		stopWait()
		w.Body.Close()
		cutoff := time.Now().Add(time.Minute)
		waitFor(t, "the streams to close", func() bool { return session.idleSince(cutoff) && bob.idleSince(cutoff) })
		a.expire(cutoff)
		if a.hasSession(sid) {
			t.Error("the session is still there once its GET stream closed")
		}
		if a.pairOf(caller{name: "bob"}) != nil {
			t.Error("bob's connections are still there once his request ended")
		}
		waitDone(t, "the expired session", session.link)
		waitDone(t, "bob's expired connection", bob.link)
	})
}

// TestIdleSweeper runs the real sweeper: idle sessions and callers' 2026
// connections end by themselves within a few IdleTimeouts, and not before
// IdleTimeout has passed; a session with its GET stream open does not,
// until the stream closes.
func TestIdleSweeper(t *testing.T) {
	const idle = 500 * time.Millisecond
	cfg := callerConfig(t)
	cfg.IdleTimeout = idle
	a, url := serve(t, cfg)
	// gone records when each of the things polled was first seen gone.
	gone := map[string]time.Time{}
	seen := func(what string, ended bool) bool {
		if _, ok := gone[what]; !ok && ended {
			gone[what] = time.Now()
		}
		return ended
	}
	// tooEarly checks that what, last used no earlier than since, was not
	// ended before IdleTimeout had passed: the sweeper's cutoff is its
	// tick less IdleTimeout, so this holds however slow the machine.
	tooEarly := func(what string, since time.Time) {
		t.Helper()
		if d := gone[what].Sub(since); d < idle {
			t.Errorf("%s expired %v after its last use, before IdleTimeout %v", what, d, idle)
		}
	}

	loneUsed := time.Now()
	lone := openAs(t, url, "alice")
	watched := openAs(t, url, "alice")
	closeGet := getAs(t, url, watched, "alice")
	// Opened after the GET: once the sweeper has ended it, it has swept
	// with a cutoff past the GET stream's opening too.
	laterUsed := time.Now()
	later := openAs(t, url, "alice")
	bobUsed := time.Now()
	call(t, url, as("bob", request{body: modernCall("1", "tools/list", "")}))
	bob := a.sharedOf(t, caller{name: "bob"})
	watchedB, loneB := a.sessionBackend(t, watched), a.sessionBackend(t, lone)

	// Only the adapter's state is polled: a request would keep them alive.
	waitFor(t, "the idle sessions and bob's connections to expire", func() bool {
		l := seen("the idle session", !a.hasSession(lone))
		m := seen("the session opened later", !a.hasSession(later))
		b := seen("bob's connections", a.pairOf(caller{name: "bob"}) == nil)
		return l && m && b
	})
	if !a.hasSession(watched) {
		t.Fatal("the session with its GET stream open expired")
	}
	tooEarly("the idle session", loneUsed)
	tooEarly("the session opened later", laterUsed)
	tooEarly("bob's connections", bobUsed)
	waitDone(t, "the expired session", loneB.link)
	waitDone(t, "bob's expired connection", bob.link)
	echo := `{"jsonrpc":"2.0","id":1,"method":"test/echo"}`
	if status, _, _ := post(t, url, as("alice", request{session: lone, body: echo})); status != http.StatusNotFound {
		t.Errorf("POST to the expired session: status %d, want 404", status)
	}

	streamClosed := time.Now()
	closeGet()
	waitFor(t, "the session to expire once its GET stream closed", func() bool {
		return seen("the session whose stream closed", !a.hasSession(watched))
	})
	tooEarly("the session whose stream closed", streamClosed)
	waitDone(t, "the session expired after its stream", watchedB.link)
	if status, _, _ := post(t, url, as("alice", request{session: watched, body: echo})); status != http.StatusNotFound {
		t.Errorf("POST to the session expired after its stream: status %d, want 404", status)
	}
	if sessions, modern, reserved := a.counts(); sessions != 0 || modern != 0 || reserved != 0 {
		t.Errorf("%d sessions, %d callers' connections, %d reserved left; want none", sessions, modern, reserved)
	}
}
