package httpdoor

import (
	"bufio"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/peer"
	"google.golang.org/grpc/status"

	"github.com/mcpbridge/mcpbridge/bridge/access"
	"github.com/mcpbridge/mcpbridge/bridge/internal/door"
	"github.com/mcpbridge/mcpbridge/bridge/internal/rpcerr"
	"github.com/mcpbridge/mcpbridge/stdio/jsonrpc"
	"github.com/mcpbridge/mcpbridge/stdio/mcphttp"
	"github.com/mcpbridge/mcpbridge/stdio/stdiotest"
)

// toolText is the first text block of a tools/call result.
func toolText(tb testing.TB, r stdiotest.Msg) string {
	tb.Helper()
	var res struct {
		Content []struct{ Text string } `json:"content"`
	}
	if r.Error != nil || json.Unmarshal(r.Result, &res) != nil || len(res.Content) == 0 {
		tb.Fatalf("not a tool's text result: %+v %s", r.Error, r.Result)
	}
	return res.Content[0].Text
}

// sseEvents reads the data of each event of an SSE body, in order.
func sseEvents(r io.Reader) <-chan string {
	out := make(chan string, 8)
	go func() {
		defer close(out)
		sc := bufio.NewScanner(r)
		for sc.Scan() {
			if data, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
				out <- data
			}
		}
	}()
	return out
}

func nextEvent(tb testing.TB, events <-chan string) string {
	tb.Helper()
	select {
	case ev, ok := <-events:
		if !ok {
			tb.Fatal("the SSE stream ended")
		}
		return ev
	case <-time.After(testWait):
		tb.Fatal("no SSE event")
	}
	return ""
}

// TestLegacySessionThroughTheDoor: a 2025 session at /mcp/demo, as
// alice, is a session the bridge opens in process with alice's context
// (principal, forwarded headers as metadata, her address, the HTTP door),
// and carries every kind of message both ways: the initialize, a
// notification, a tool call, a server request answered by the client in
// the middle of a call. DELETE closes the session.
func TestLegacySessionThroughTheDoor(t *testing.T) {
	s := serveDoor(t, &testBridge{auth: apiKeys(t)}, Options{})
	as := []string{"Authorization", "Bearer " + aliceKey, "Accept", "application/json",
		"Traceparent", "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01", "User-Agent", "door-test/1",
		"Mcp-Session", "work", "Cookie", "secret=1", "X-Other", "x"}
	resp, body := s.post(t, "/mcp/demo", "application/json", legacyInit, as...)
	sid := resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != http.StatusOK || sid == "" || !strings.Contains(body, `"scripted"`) {
		t.Fatalf("initialize: %d %q %s", resp.StatusCode, sid, body)
	}
	if r := stdiotest.DecodeMsg(t, []byte(body)); string(r.ID) != "1" {
		t.Errorf("initialize answered id %s, want the client's 1", r.ID)
	}
	o := s.b.opened()
	if len(o) != 1 || o[0].server != "demo" || o[0].first != legacyInit {
		t.Fatalf("openings %+v, want one of demo with the initialize", o)
	}
	ctx := o[0].ctx
	if p := access.FromContext(ctx); p == nil || p.ID() != "apikey:alice" || !slices.Equal(p.Groups, []string{"staff"}) {
		t.Errorf("the session's principal %+v, want alice by API key", p)
	}
	if via := door.Via(ctx, door.ViaGRPC); via != door.ViaHTTP {
		t.Errorf("door.Via = %q, want %q", via, door.ViaHTTP)
	}
	md, _ := metadata.FromIncomingContext(ctx)
	want := metadata.MD{"authorization": {"Bearer " + aliceKey}, "traceparent": {"00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"},
		"user-agent": {"door-test/1"}, "mcp-session": {"work"}}
	if diff := cmp.Diff(want, md); diff != "" {
		t.Errorf("the session's metadata (-want +got):\n%s", diff)
	}
	if pr, ok := peer.FromContext(ctx); !ok || pr.AuthInfo != nil {
		t.Errorf("peer %+v, want one without TLS", pr)
	} else if a, ok := pr.Addr.(*net.TCPAddr); !ok || !a.IP.IsLoopback() || a.Port == 0 {
		t.Errorf("peer address %v (%T), want the client's loopback address", pr.Addr, pr.Addr)
	}
	if ctx.Err() != nil {
		t.Errorf("the session's context ended with its first request: %v", ctx.Err())
	}
	ss := s.b.scriptedSessions()[0]

	inSession := append([]string{"Mcp-Session-Id", sid}, as...)
	if resp, body := s.post(t, "/mcp/demo", "application/json", `{"jsonrpc":"2.0","method":"notifications/initialized"}`, inSession...); resp.StatusCode != http.StatusAccepted {
		t.Fatalf("initialized: %d %s", resp.StatusCode, body)
	}
	ss.waitSeen(t, "notifications/initialized")

	resp, body = s.post(t, "/mcp/demo", "application/json", `{"jsonrpc":"2.0","id":"c1","method":"tools/call","params":{"name":"echo","arguments":{"message":"over http"}}}`, inSession...)
	if r := stdiotest.DecodeMsg(t, []byte(body)); resp.StatusCode != http.StatusOK || string(r.ID) != `"c1"` || toolText(t, r) != "over http" {
		t.Fatalf("echo: %d %s", resp.StatusCode, body)
	}

	// The session answers only its caller: other credentials (here the
	// same key without the Mcp-Session header) do not find it.
	if resp, body := s.post(t, "/mcp/demo", "application/json", `{"jsonrpc":"2.0","id":"c2","method":"tools/call","params":{"name":"echo"}}`,
		"Mcp-Session-Id", sid, "Authorization", "Bearer "+aliceKey, "Accept", "application/json"); resp.StatusCode != http.StatusNotFound {
		t.Errorf("another caller in alice's session: %d %s, want 404", resp.StatusCode, body)
	}

	// A call during which the server asks the client something: the
	// request rides the call's SSE stream, the client's answer a POST of
	// its own, and the call's result ends the stream.
	req, err := http.NewRequest(http.MethodPost, s.base+"/mcp/demo", strings.NewReader(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"ask"}}`))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer "+aliceKey)
	req.Header.Set("Mcp-Session-Id", sid)
	req.Header.Set("Mcp-Session", "work")
	stream, err := s.client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer stream.Body.Close()
	if stream.StatusCode != http.StatusOK || stream.Header.Get("Content-Type") != "text/event-stream" {
		b, _ := io.ReadAll(stream.Body)
		t.Fatalf("a call that asks: %d %v %s, want an SSE stream", stream.StatusCode, stream.Header, b)
	}
	events := sseEvents(stream.Body)
	ask := stdiotest.DecodeMsg(t, []byte(nextEvent(t, events)))
	if ask.Method != "roots/list" || ask.ID == nil {
		t.Fatalf("first event %+v, want the server's roots/list", ask)
	}
	answer := `{"jsonrpc":"2.0","id":` + string(ask.ID) + `,"result":{"roots":[{"uri":"file:///w"}]}}`
	if resp, body := s.post(t, "/mcp/demo", "application/json", answer, inSession...); resp.StatusCode != http.StatusAccepted {
		t.Fatalf("the client's answer: %d %s", resp.StatusCode, body)
	}
	final := stdiotest.DecodeMsg(t, []byte(nextEvent(t, events)))
	if string(final.ID) != "2" || toolText(t, final) != `{"roots":[{"uri":"file:///w"}]}` {
		t.Errorf("the call's result %+v %s, want the client's answer as its text", final, final.Result)
	}

	// DELETE ends the session: the Client closes, and with it the
	// bridge's session.
	if resp, body := s.do(t, http.MethodDelete, "/mcp/demo", "", "", inSession...); resp.StatusCode != http.StatusNoContent {
		t.Fatalf("DELETE: %d %s", resp.StatusCode, body)
	}
	select {
	case <-ss.Done():
	case <-time.After(testWait):
		t.Fatal("DELETE left the bridge's session open")
	}
	if ss.closes.Load() == 0 {
		t.Error("the session ended without Close")
	}
}

// TestSessionEndedByTheBridge: a session the bridge ends (Shutdown,
// revoked credentials) ends its Client: the next request in it is 404, as
// the transport says for a session that is gone, and the client may
// initialize again, which opens another.
func TestSessionEndedByTheBridge(t *testing.T) {
	s := serveDoor(t, &testBridge{}, Options{})
	resp, body := s.post(t, "/mcp", "application/json", legacyInit, "Accept", "application/json")
	sid := resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != http.StatusOK || sid == "" {
		t.Fatalf("initialize: %d %s", resp.StatusCode, body)
	}
	ss := s.b.scriptedSessions()[0]
	ss.Close() // the bridge's side ends it
	call := `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"message":"late"}}}`
	deadline := time.Now().Add(testWait)
	for {
		resp, body := s.post(t, "/mcp", "application/json", call, "Accept", "application/json", "Mcp-Session-Id", sid)
		if resp.StatusCode == http.StatusNotFound {
			break
		}
		if r := stdiotest.DecodeMsg(t, []byte(body)); r.Error == nil {
			t.Fatalf("a call in an ended session was answered: %s", body)
		}
		if time.Now().After(deadline) {
			t.Fatalf("the session is still found after the bridge ended it: %d %s", resp.StatusCode, body)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if resp, _ := s.post(t, "/mcp", "application/json", legacyInit, "Accept", "application/json"); resp.StatusCode != http.StatusOK || len(s.b.opened()) != 2 {
		t.Errorf("initialize again: %d, %d openings; want 200 and a second session", resp.StatusCode, len(s.b.opened()))
	}
}

// TestModernRequestsThroughTheDoor: 2026-07-28 requests of one caller
// share the session opened for its first, whose first message is that
// request; another caller's get one of their own.
func TestModernRequestsThroughTheDoor(t *testing.T) {
	s := serveDoor(t, &testBridge{auth: apiKeys(t)}, Options{})
	for i, who := range []string{aliceKey, aliceKey, bobKey} {
		echo, header := modernEcho(10+i, "modern")
		resp, body := s.post(t, "/mcp/demo", "application/json", echo, append(header, "Authorization", "Bearer "+who)...)
		if r := stdiotest.DecodeMsg(t, []byte(body)); resp.StatusCode != http.StatusOK || toolText(t, r) != "modern" {
			t.Fatalf("request %d: %d %s", i, resp.StatusCode, body)
		}
	}
	o := s.b.opened()
	if len(o) != 2 {
		t.Fatalf("%d sessions opened for alice, alice and bob; want 2", len(o))
	}
	if first, _ := modernEcho(10, "modern"); o[0].first != first {
		t.Errorf("alice's session opened for %s, want her first request", o[0].first)
	}
	if a, b := access.CallerID(o[0].ctx), access.CallerID(o[1].ctx); a != "apikey:alice" || b != "apikey:bob" {
		t.Errorf("sessions of %q and %q, want alice and bob", a, b)
	}
}

// refusal is a status as the bridge refuses a session with it.
func refusal(ce *rpcerr.CallError) error { return rpcerr.ToStatus("demo", "session", ce) }

// refusalCases are the bridge's refusals of a session, as rpcerr makes
// them, and the MCP endpoint's answer to each.
var refusalCases = []struct {
	name       string
	err        error
	status     int
	retryAfter string
	code       int64
	message    string
	data       string
}{
	{"unauthenticated", refusal(&rpcerr.CallError{RPC: jsonrpc.Errorf(jsonrpc.CodeInvalidRequest, "key revoked"), Reason: rpcerr.ReasonUnauthenticated}),
		http.StatusUnauthorized, "", jsonrpc.CodeConnectionClosed, "authentication required", ""},
	{"rules", refusal(&rpcerr.CallError{RPC: jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "alice may not use demo"), Reason: rpcerr.ReasonPermissionDenied}),
		http.StatusForbidden, "", jsonrpc.CodeInvalidParams, "alice may not use demo", ""},
	{"unknown server", refusal(&rpcerr.CallError{RPC: jsonrpc.Errorf(jsonrpc.CodeInvalidParams, `unknown server "demo"`), Reason: rpcerr.ReasonUnknownServer}),
		http.StatusNotFound, "", jsonrpc.CodeInvalidParams, `unknown server "demo"`, ""},
	{"not found", status.Error(codes.NotFound, "gone"), http.StatusNotFound, "", jsonrpc.CodeConnectionClosed, "gone", ""},
	{"bad input", refusal(&rpcerr.CallError{RPC: jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "a control character in mcp-tenant"), Reason: rpcerr.ReasonInvalidInput}),
		http.StatusBadRequest, "", jsonrpc.CodeInvalidParams, "a control character in mcp-tenant", ""},
	{"session cap", refusal(&rpcerr.CallError{RPC: jsonrpc.WithData(jsonrpc.CodeInternalError, "demo has its most sessions (max_per_principal 2) open for this caller",
		map[string]any{"retryable": true, "limit": 2}), RetryAfter: 2600 * time.Millisecond}),
		http.StatusTooManyRequests, "3", jsonrpc.CodeInternalError, "demo has its most sessions (max_per_principal 2) open for this caller", `{"limit":2,"retryable":true}`},
	{"rate under a second", refusal(&rpcerr.CallError{RPC: jsonrpc.WithData(jsonrpc.CodeInternalError, "rate", map[string]any{"retryable": true}), RetryAfter: 200 * time.Millisecond}),
		http.StatusTooManyRequests, "1", jsonrpc.CodeInternalError, "rate", `{"retryable":true}`},
	{"draining", refusal(&rpcerr.CallError{RPC: jsonrpc.Errorf(jsonrpc.CodeConnectionClosed, "the bridge is shutting down"), RetryAfter: 5 * time.Second}),
		http.StatusServiceUnavailable, "5", jsonrpc.CodeConnectionClosed, "the bridge is shutting down", ""},
	{"child failed", refusal(&rpcerr.CallError{RPC: jsonrpc.Errorf(jsonrpc.CodeInternalError, "child exited")}),
		http.StatusBadGateway, "", jsonrpc.CodeInternalError, "child exited", ""},
	{"not a status", errors.New("boom"), http.StatusBadGateway, "", jsonrpc.CodeConnectionClosed, "boom", ""},
}

// TestHTTPRefusal: each gRPC code that refuses a session is its HTTP
// status, with Retry-After from RetryInfo in whole seconds (at least 1),
// WWW-Authenticate for 401, and the status's JsonRpcError as the error.
func TestHTTPRefusal(t *testing.T) {
	for _, tt := range refusalCases {
		var he *mcphttp.HTTPError
		if !errors.As(httpRefusal(tt.err), &he) {
			t.Fatalf("%s: httpRefusal is no HTTPError", tt.name)
		}
		if he.Status != tt.status || he.Header.Get("Retry-After") != tt.retryAfter {
			t.Errorf("%s: %d Retry-After %q, want %d %q", tt.name, he.Status, he.Header.Get("Retry-After"), tt.status, tt.retryAfter)
		}
		if got, want := he.Header.Get("Www-Authenticate"), map[bool]string{true: `Bearer realm="mcpbridge"`}[tt.status == http.StatusUnauthorized]; got != want {
			t.Errorf("%s: WWW-Authenticate %q, want %q", tt.name, got, want)
		}
		if he.Err == nil || he.Err.Code != tt.code || he.Err.Message != tt.message || string(he.Err.Data) != tt.data {
			t.Errorf("%s: error %+v, want %d %q %s", tt.name, he.Err, tt.code, tt.message, tt.data)
		}
	}
}

// TestRefusalsAsHTTPStatuses: a session the bridge refuses is answered
// with its HTTP status and JSON-RPC error, on a 2025 initialize and on a
// 2026 request alike, and opens nothing.
func TestRefusalsAsHTTPStatuses(t *testing.T) {
	for _, tt := range refusalCases {
		t.Run(tt.name, func(t *testing.T) {
			s := serveDoor(t, &testBridge{refuse: func(string) error { return tt.err }}, Options{})
			echo, header := modernEcho(4, "x")
			for _, req := range []struct {
				era, body string
				header    []string
				id        string
			}{
				{"2025", legacyInit, []string{"Accept", "application/json"}, "1"},
				{"2026", echo, header, "4"},
			} {
				resp, body := s.post(t, "/mcp/demo", "application/json", req.body, req.header...)
				if resp.StatusCode != tt.status || resp.Header.Get("Retry-After") != tt.retryAfter {
					t.Errorf("%s: %d Retry-After %q %s, want %d %q", req.era, resp.StatusCode, resp.Header.Get("Retry-After"), body, tt.status, tt.retryAfter)
				}
				if resp.Header.Get("Mcp-Session-Id") != "" {
					t.Errorf("%s: a refused initialize named a session", req.era)
				}
				r := stdiotest.DecodeMsg(t, []byte(body))
				if r.Error == nil || r.Error.Code != tt.code || r.Error.Message != tt.message || string(r.ID) != req.id {
					t.Errorf("%s: answer %s, want error %d %q to id %s", req.era, body, tt.code, tt.message, req.id)
				}
				if tt.data != "" && string(r.Error.Data) != tt.data {
					t.Errorf("%s: error data %s, want %s", req.era, r.Error.Data, tt.data)
				}
			}
			if n := len(s.b.scriptedSessions()); n != 0 {
				t.Errorf("%d sessions opened", n)
			}
		})
	}
}

// TestHTTPCaller: the context a session is opened with is the endpoint's
// (it outlives the request), with the request's principal, its forwarded
// headers as metadata (copied), its address and TLS state as the peer,
// and the HTTP door as its way in.
func TestHTTPCaller(t *testing.T) {
	type baseKey struct{}
	base := context.WithValue(context.Background(), baseKey{}, "endpoint")
	cert := &x509.Certificate{Raw: []byte("cert")}
	state := &tls.ConnectionState{Version: tls.VersionTLS13, ServerName: "bridge.example", PeerCertificates: []*x509.Certificate{cert}}

	r := httptest.NewRequest(http.MethodPost, "/mcp", nil)
	r.RemoteAddr = "192.0.2.7:4711"
	r.TLS = state
	for _, kv := range [][2]string{
		{"Authorization", "Bearer k"}, {"Mcp-Session", "a"}, {"Mcp-Session", "b"}, {"Traceparent", "tp"}, {"Tracestate", "ts"},
		{"User-Agent", "ua"}, {"Cookie", "c"}, {"Mcp-Session-Id", "sid"}, {"X-Forwarded-For", "203.0.113.1"},
	} {
		r.Header.Add(kv[0], kv[1])
	}
	alice := &access.Principal{Name: "alice", Method: "mtls"}
	reqCtx, cancel := context.WithCancel(access.NewContext(context.Background(), alice))
	r = r.WithContext(reqCtx)

	ctx := httpCaller(base, r)
	cancel()
	r.Header["Mcp-Session"][0] = "changed" // the request's headers are not the session's
	if ctx.Err() != nil {
		t.Errorf("the caller's context ended with its request: %v", ctx.Err())
	}
	if ctx.Value(baseKey{}) != "endpoint" {
		t.Error("the caller's context is not the endpoint's")
	}
	if access.FromContext(ctx) != alice {
		t.Errorf("principal %v, want alice", access.FromContext(ctx))
	}
	if via := door.Via(ctx, door.ViaConnect); via != door.ViaHTTP {
		t.Errorf("via %q, want %q", via, door.ViaHTTP)
	}
	md, _ := metadata.FromIncomingContext(ctx)
	want := metadata.MD{"authorization": {"Bearer k"}, "mcp-session": {"a", "b"}, "traceparent": {"tp"}, "tracestate": {"ts"}, "user-agent": {"ua"}}
	if diff := cmp.Diff(want, md); diff != "" {
		t.Errorf("metadata (-want +got):\n%s", diff)
	}
	pr, ok := peer.FromContext(ctx)
	if !ok {
		t.Fatal("no peer")
	}
	if a, ok := pr.Addr.(*net.TCPAddr); !ok || a.String() != "192.0.2.7:4711" {
		t.Errorf("peer address %v (%T), want 192.0.2.7:4711", pr.Addr, pr.Addr)
	}
	info, ok := pr.AuthInfo.(credentials.TLSInfo)
	if !ok || info.State.ServerName != "bridge.example" || len(info.State.PeerCertificates) != 1 || info.SecurityLevel != credentials.PrivacyAndIntegrity {
		t.Errorf("peer auth %+v, want the request's TLS state with privacy and integrity", pr.AuthInfo)
	}
	// What the bridge authenticates from that context is what the
	// request presented.
	if c := access.CredentialsOf(ctx); !slices.Equal(c.Authorization, []string{"Bearer k"}) || c.TLS == nil || c.TLS.ServerName != "bridge.example" {
		t.Errorf("credentials of the caller's context %+v", c)
	}

	// Anonymous, without TLS, from an address that is no host:port.
	r = httptest.NewRequest(http.MethodPost, "/mcp", nil)
	r.RemoteAddr = "@unix"
	ctx = httpCaller(context.Background(), r)
	if access.FromContext(ctx) != nil {
		t.Errorf("principal %v, want none", access.FromContext(ctx))
	}
	if md, _ := metadata.FromIncomingContext(ctx); len(md) != 0 {
		t.Errorf("metadata %v, want none", md)
	}
	pr, _ = peer.FromContext(ctx)
	if pr == nil || pr.AuthInfo != nil || pr.Addr.String() != "@unix" || pr.Addr.Network() != "tcp" {
		t.Errorf("peer %+v, want @unix without TLS", pr)
	}
}

// TestCallerOf: requests with the same credentials are one caller, any
// difference in them another; the name keeps no credential in the clear.
func TestCallerOf(t *testing.T) {
	req := func(auth, session string, cert []byte, other string) *http.Request {
		r := httptest.NewRequest(http.MethodPost, "/mcp", nil)
		if auth != "" {
			r.Header.Set("Authorization", auth)
		}
		if session != "" {
			r.Header.Set("Mcp-Session", session)
		}
		if cert != nil {
			r.TLS = &tls.ConnectionState{PeerCertificates: []*x509.Certificate{{Raw: cert}}}
		}
		r.Header.Set("User-Agent", other)
		return r
	}
	a := callerOf(req("Bearer k", "s", nil, "one"))
	if b := callerOf(req("Bearer k", "s", nil, "two")); a != b {
		t.Error("headers other than the credentials made another caller")
	}
	if strings.Contains(a, "Bearer k") {
		t.Error("the caller's name holds the credential")
	}
	names := map[string]string{"base": a}
	for name, r := range map[string]*http.Request{
		"no session":      req("Bearer k", "", nil, ""),
		"other key":       req("Bearer j", "s", nil, ""),
		"moved separator": req("Bearer ks", "", nil, ""),
		"session only":    req("", "Bearer ks", nil, ""),
		"certificate":     req("Bearer k", "s", []byte("c1"), ""),
		"other cert":      req("Bearer k", "s", []byte("c2"), ""),
	} {
		c := callerOf(r)
		for other, oc := range names {
			if c == oc {
				t.Errorf("%s and %s are the same caller", name, other)
			}
		}
		names[name] = c
	}
}

// recSession records what a sessionConn does with it.
type recSession struct {
	mu        sync.Mutex
	msgs      [][]byte
	deadlines []time.Time
	recv      [][]byte
	recvErr   error
	closeSend int
	closes    int
	done      chan struct{}
}

func (s *recSession) SendBy(msg []byte, deadline time.Time) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.msgs = append(s.msgs, msg)
	s.deadlines = append(s.deadlines, deadline)
	return nil
}

func (s *recSession) CloseSend() { s.mu.Lock(); s.closeSend++; s.mu.Unlock() }

func (s *recSession) Recv(context.Context) ([]byte, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.recv) == 0 {
		return nil, s.recvErr
	}
	m := s.recv[0]
	s.recv = s.recv[1:]
	return m, nil
}

func (s *recSession) Close() error          { s.mu.Lock(); s.closes++; s.mu.Unlock(); return nil }
func (s *recSession) Done() <-chan struct{} { return s.done }

// TestSessionConn: each message the adapter sends is one the session is
// handed, as it is and without a deadline; the session's messages come
// back as they are, and its end, an error or its status, is EOF; Close
// closes the session.
func TestSessionConn(t *testing.T) {
	for _, end := range []error{io.EOF, status.Error(codes.Unauthenticated, "revoked")} {
		ss := &recSession{recv: [][]byte{[]byte(`{"id":1}`), []byte(`{"method":"notifications/message","params":{}}`)}, recvErr: end}
		c := sessionConn{ss}
		msg := []byte(`{"jsonrpc":"2.0","method":"x"}`)
		if err := c.Send(msg); err != nil {
			t.Fatalf("Send: %v", err)
		}
		if len(ss.msgs) != 1 || &ss.msgs[0][0] != &msg[0] || !ss.deadlines[0].IsZero() {
			t.Errorf("end %v: the session was handed %q with deadlines %v; want the message itself, without a deadline", end, ss.msgs, ss.deadlines)
		}
		var got []string
		var err error
		for range 10 {
			var m []byte
			if m, err = c.Recv(); err != nil {
				break
			}
			got = append(got, string(m))
		}
		if want := []string{`{"id":1}`, `{"method":"notifications/message","params":{}}`}; !slices.Equal(got, want) || err != io.EOF {
			t.Errorf("end %v: received %q, %v; want %q, EOF", end, got, err, want)
		}
		c.Close()
		if ss.closes != 1 || ss.closeSend != 0 {
			t.Errorf("end %v: Close: %d Close, %d CloseSend; want one Close", end, ss.closes, ss.closeSend)
		}
	}
}
