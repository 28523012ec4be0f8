package httpdoor

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
)

const (
	legacyInit = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"door-test","version":"1"}}}`
	modernMeta = `{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"door-test","version":"1"}}`
	listPath   = "/mcpbridge.v1.BridgeService/ListServers"
	// grpcWebEmpty is a gRPC-Web request body: one uncompressed frame of
	// an empty message.
	grpcWebEmpty = "\x00\x00\x00\x00\x00"
)

// modernEcho is a 2026-07-28 tools/call of echo and the headers it needs.
func modernEcho(id int, msg string) (string, []string) {
	return `{"jsonrpc":"2.0","id":` + strconv.Itoa(id) + `,"method":"tools/call","params":{"name":"echo","arguments":{"message":"` + msg + `"},"_meta":` + modernMeta + `}}`,
		[]string{"MCP-Protocol-Version", "2026-07-28", "Mcp-Method", "tools/call", "Mcp-Name", "echo", "Accept", "application/json"}
}

// pathCase is a request on one kind of path that the door lets through
// when nothing is wrong with it.
type pathCase struct {
	name, path, contentType, body string
	header                        []string
	kind                          pathKind
}

func everyPath() []pathCase {
	echo, echoHeader := modernEcho(7, "hi")
	return []pathCase{
		{"connect", listPath, "application/json", `{}`, nil, pathAPI},
		{"grpc-web", listPath, "application/grpc-web+proto", grpcWebEmpty, nil, pathGRPCWeb},
		{"mcp-2025", "/mcp/demo", "application/json", legacyInit, []string{"Accept", "application/json"}, pathMCP},
		{"mcp-2026", "/mcp", "application/json", echo, echoHeader, pathMCP},
	}
}

// reached reports how often a request got past the guard: API calls and
// sessions opened.
func (s *served) reached() int { return int(s.api.calls.Load()) + len(s.b.opened()) }

// checkSpelling checks that a refusal is spelt as its path spells them:
// a JSON-RPC error on /mcp, a Connect error on the API, grpc-status for
// gRPC-Web; with the words of want.
func checkSpelling(t *testing.T, kind pathKind, resp *http.Response, body string, code codes.Code, want string) {
	t.Helper()
	switch kind {
	case pathMCP:
		var m struct {
			JSONRPC string          `json:"jsonrpc"`
			ID      json.RawMessage `json:"id"`
			Error   struct {
				Code    int    `json:"code"`
				Message string `json:"message"`
			} `json:"error"`
		}
		if err := json.Unmarshal([]byte(body), &m); err != nil || m.JSONRPC != "2.0" || string(m.ID) != "null" || m.Error.Code != -32600 || !strings.Contains(m.Error.Message, want) {
			t.Errorf("MCP refusal body %s (%v), want a -32600 JSON-RPC error naming %q", body, err, want)
		}
		if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
			t.Errorf("MCP refusal Content-Type %q", ct)
		}
	case pathGRPCWeb:
		if got := resp.Header.Get("Grpc-Status"); got != strconv.Itoa(int(code)) {
			t.Errorf("gRPC-Web refusal grpc-status %q, want %d (%v)", got, code, code)
		}
		if got := resp.Header.Get("Grpc-Message"); !strings.Contains(got, want) {
			t.Errorf("gRPC-Web refusal grpc-message %q, want it to name %q", got, want)
		}
		if ct := resp.Header.Get("Content-Type"); ct != "application/grpc-web+proto" {
			t.Errorf("gRPC-Web refusal Content-Type %q", ct)
		}
	default:
		var e struct{ Code, Message string }
		if err := json.Unmarshal([]byte(body), &e); err != nil || e.Code != connectCode(code) || !strings.Contains(e.Message, want) {
			t.Errorf("Connect refusal body %s (%v), want code %q naming %q", body, err, connectCode(code), want)
		}
	}
}

// TestHostAndOriginOnEveryPath: on a loopback listener, a request whose
// Host or Origin is not loopback's is refused 403 before it reaches the
// API or opens a session, on the Connect API, gRPC-Web and /mcp (both
// eras) alike, in each path's spelling; a listed origin and AnyHost let
// their requests through.
func TestHostAndOriginOnEveryPath(t *testing.T) {
	s := serveDoor(t, &testBridge{}, Options{Origins: []string{"https://app.example"}})
	for _, p := range everyPath() {
		t.Run(p.name, func(t *testing.T) {
			before := s.reached()
			if resp, body := s.post(t, p.path, p.contentType, p.body, p.header...); resp.StatusCode != http.StatusOK {
				t.Fatalf("from loopback: %d %s, want 200", resp.StatusCode, body)
			}
			if s.reached() != before+1 {
				t.Fatalf("a request from loopback did not reach the bridge")
			}
			for _, bad := range []struct {
				header []string
				names  string
			}{
				{[]string{"Host", "evil.example:8080", "Origin", "http://evil.example:8080"}, "Host"},
				{[]string{"Host", "evil.example"}, "Host"},
				{[]string{"Origin", "http://evil.example"}, "Origin"},
				{[]string{"Origin", "null"}, "Origin"},
				{[]string{"Origin", "https://app.example.evil"}, "Origin"},
			} {
				before := s.reached()
				resp, body := s.post(t, p.path, p.contentType, p.body, append(append([]string(nil), p.header...), bad.header...)...)
				if resp.StatusCode != http.StatusForbidden {
					t.Errorf("%v: %d %s, want 403", bad.header, resp.StatusCode, body)
					continue
				}
				checkSpelling(t, p.kind, resp, body, codes.PermissionDenied, bad.names)
				if s.reached() != before {
					t.Errorf("%v: refused, yet it reached the bridge", bad.header)
				}
			}
			for _, good := range [][]string{
				{"Origin", "https://app.example"},
				{"Origin", "http://localhost:3000"},
				{"Host", "localhost:1234"},
				{"Host", "[::1]:1234"},
			} {
				if resp, body := s.post(t, p.path, p.contentType, p.body, append(append([]string(nil), p.header...), good...)...); resp.StatusCode != http.StatusOK {
					t.Errorf("%v: %d %s, want 200", good, resp.StatusCode, body)
				}
			}
		})
	}

	// A listener reachable from elsewhere (AnyHost) takes any Host, and
	// still refuses a foreign Origin.
	anyHost := serveDoor(t, &testBridge{}, Options{AnyHost: true})
	for _, p := range everyPath() {
		if resp, body := anyHost.post(t, p.path, p.contentType, p.body, append(append([]string(nil), p.header...), "Host", "bridge.example:443")...); resp.StatusCode != http.StatusOK {
			t.Errorf("%s, AnyHost, Host bridge.example: %d %s, want 200", p.name, resp.StatusCode, body)
		}
		if resp, _ := anyHost.post(t, p.path, p.contentType, p.body, append(append([]string(nil), p.header...), "Origin", "https://evil.example")...); resp.StatusCode != http.StatusForbidden {
			t.Errorf("%s, AnyHost, foreign Origin: %d, want 403", p.name, resp.StatusCode)
		}
	}
}

// head is a request head for the raw tests: path, content type, and
// extra header lines (each ending in CRLF), without the blank line.
func head(path, contentType, extra string) string {
	return "POST " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: " + contentType + "\r\n" + extra
}

// TestCredentialsBeforeBody: with authentication on, a request without
// valid credentials is answered 401 with WWW-Authenticate, and the
// connection closed, on every kind of path, although none of its body
// (128 MiB by Content-Length, or chunked) was sent: the guard reads
// nothing of it. The same request with alice's key gets past the guard
// to the body's own checks.
func TestCredentialsBeforeBody(t *testing.T) {
	s := serveDoor(t, &testBridge{auth: apiKeys(t)}, Options{})
	for _, p := range everyPath() {
		for _, framing := range []string{"Content-Length: 134217728\r\n", "Transfer-Encoding: chunked\r\n"} {
			for _, creds := range []string{"", "Authorization: Bearer wrong-key\r\n", "Authorization: Basic " + aliceKey + "\r\n"} {
				resp := s.raw(t, head(p.path, p.contentType, framing+creds+"\r\n"), nil)
				b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<10))
				resp.Body.Close()
				if resp.StatusCode != http.StatusUnauthorized || resp.Header.Get("Www-Authenticate") != `Bearer realm="mcpbridge"` {
					t.Errorf("%s, %q, %q: %d %v; want 401 with WWW-Authenticate", p.name, framing, creds, resp.StatusCode, resp.Header)
					continue
				}
				if !resp.Close {
					t.Errorf("%s, %q: 401 keeps the connection open behind an unread body", p.name, framing)
				}
				checkSpelling(t, p.kind, resp, string(b), codes.Unauthenticated, "authentication required")
			}
		}
	}
	if n := s.reached(); n != 0 {
		t.Errorf("%d unauthenticated requests reached the bridge", n)
	}
	// With alice's key, a body over the limit by Content-Length is the
	// body's refusal (413), not the credentials'.
	resp := s.raw(t, head("/mcp", "application/json", "Content-Length: 134217728\r\nAuthorization: Bearer "+aliceKey+"\r\n\r\n"), nil)
	resp.Body.Close()
	if resp.StatusCode != http.StatusRequestEntityTooLarge {
		t.Errorf("alice, 128 MiB: %d, want 413", resp.StatusCode)
	}
	// And a request that is whole gets through, as alice.
	for _, p := range everyPath() {
		if resp, body := s.post(t, p.path, p.contentType, p.body, append(append([]string(nil), p.header...), "Authorization", "Bearer "+aliceKey)...); resp.StatusCode != http.StatusOK {
			t.Errorf("%s as alice: %d %s, want 200", p.name, resp.StatusCode, body)
		}
	}
}

// TestBodyLimits: a body over the message limit and its slack is refused
// 413, before any of it is read when its Content-Length says so, and as
// soon as it is over when it is chunked; a body that trickles is cut at
// the body timeout with 408; a body within the limit reaches the path's
// handler whole. Each refusal is in the path's spelling and closes the
// connection.
func TestBodyLimits(t *testing.T) {
	const maxBytes = 1 << 10
	limit := maxBytes + bodySlack
	s := serveDoor(t, &testBridge{maxBytes: maxBytes}, Options{BodyTimeout: 300 * time.Millisecond})
	for _, p := range everyPath() {
		t.Run(p.name, func(t *testing.T) {
			// By Content-Length: nothing of the body is sent.
			resp := s.raw(t, head(p.path, p.contentType, "Content-Length: "+strconv.Itoa(limit+1)+"\r\n\r\n"), nil)
			b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<10))
			resp.Body.Close()
			if resp.StatusCode != http.StatusRequestEntityTooLarge || !resp.Close {
				t.Errorf("Content-Length over the limit: %d (close %v), want 413 and the connection closed", resp.StatusCode, resp.Close)
			} else {
				checkSpelling(t, p.kind, resp, string(b), codes.ResourceExhausted, strconv.Itoa(limit))
			}

			// Chunked: refused once the body is over the limit.
			chunk := strings.Repeat("x", 8<<10)
			resp = s.raw(t, head(p.path, p.contentType, "Transfer-Encoding: chunked\r\n\r\n"), func(c net.Conn) {
				for sent := 0; sent <= limit; sent += len(chunk) {
					if _, err := fmt.Fprintf(c, "%x\r\n%s\r\n", len(chunk), chunk); err != nil {
						return // the door has answered and closed
					}
				}
			})
			b, _ = io.ReadAll(io.LimitReader(resp.Body, 1<<10))
			resp.Body.Close()
			if resp.StatusCode != http.StatusRequestEntityTooLarge {
				t.Errorf("chunked body over the limit: %d %s, want 413", resp.StatusCode, b)
			} else {
				checkSpelling(t, p.kind, resp, string(b), codes.ResourceExhausted, "larger than")
			}

			// Trickled: a tenth of the body, then nothing.
			start := time.Now()
			resp = s.raw(t, head(p.path, p.contentType, "Content-Length: 100\r\n\r\n")+"0123456789", nil)
			b, _ = io.ReadAll(io.LimitReader(resp.Body, 1<<10))
			resp.Body.Close()
			if resp.StatusCode != http.StatusRequestTimeout || !resp.Close {
				t.Errorf("trickled body: %d (close %v), want 408 and the connection closed", resp.StatusCode, resp.Close)
			} else {
				checkSpelling(t, p.kind, resp, string(b), codes.DeadlineExceeded, "300ms")
			}
			if d := time.Since(start); d < 300*time.Millisecond {
				t.Errorf("408 after %v, before the body timeout", d)
			}
		})
	}
	if n := s.reached(); n != 0 {
		t.Errorf("%d refused bodies reached the bridge", n)
	}
	// A chunked body within the limit reaches the handler whole: the
	// session's first message is the initialize as sent.
	resp := s.raw(t, head("/mcp/demo", "application/json", "Accept: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"), func(c net.Conn) {
		for _, part := range []string{legacyInit[:40], legacyInit[40:]} {
			fmt.Fprintf(c, "%x\r\n%s\r\n", len(part), part)
		}
		io.WriteString(c, "0\r\n\r\n")
	})
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(b), `"serverInfo"`) {
		t.Fatalf("chunked initialize within the limit: %d %s", resp.StatusCode, b)
	}
	if o := s.b.opened(); len(o) != 1 || o[0].first != legacyInit || o[0].server != "demo" {
		t.Errorf("openings %+v, want one for demo whose first message is the initialize", o)
	}
}

// TestStreamBodiesNotRead: the bidirectional Connect RPC's body is a
// stream, which the guard leaves to the RPC: one longer than a message is
// not refused 413.
func TestStreamBodiesNotRead(t *testing.T) {
	const maxBytes = 1 << 10
	s := serveDoor(t, &testBridge{maxBytes: maxBytes}, Options{BodyTimeout: 300 * time.Millisecond})
	if !s.d.streams["/mcpbridge.v1.BridgeService/Connect"] || s.d.streams[listPath] {
		t.Fatalf("streams %v, want Connect alone of these", s.d.streams)
	}
	body := strings.Repeat("x", maxBytes+bodySlack+1)
	resp, _ := s.post(t, "/mcpbridge.v1.BridgeService/Connect", "application/connect+json", body)
	if resp.StatusCode == http.StatusRequestEntityTooLarge || resp.StatusCode == http.StatusRequestTimeout {
		t.Errorf("Connect's stream body: %d, the guard's refusal of a message body", resp.StatusCode)
	}
}

// TestPreflightWithoutCredentials: a CORS preflight of an allowed origin
// passes without credentials, on the API and on /mcp, and gets the CORS
// answer; a plain OPTIONS without credentials, or a preflight of a
// foreign origin, does not.
func TestPreflightWithoutCredentials(t *testing.T) {
	s := serveDoor(t, &testBridge{auth: apiKeys(t)}, Options{Origins: []string{"https://app.example"}})
	for _, path := range []string{listPath, "/mcp", "/mcp/demo"} {
		resp, body := s.do(t, http.MethodOptions, path, "", "",
			"Origin", "https://app.example", "Access-Control-Request-Method", "POST", "Access-Control-Request-Headers", "authorization,content-type")
		if resp.StatusCode/100 != 2 || resp.Header.Get("Access-Control-Allow-Origin") != "https://app.example" {
			t.Errorf("%s: preflight %d %v %s, want 2xx allowing https://app.example", path, resp.StatusCode, resp.Header, body)
		}
		if allowed := strings.ToLower(resp.Header.Get("Access-Control-Allow-Headers")); !strings.Contains(allowed, "authorization") {
			t.Errorf("%s: preflight allows headers %q, want authorization among them", path, allowed)
		}
		if resp, _ := s.do(t, http.MethodOptions, path, "", "", "Origin", "https://app.example"); resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("%s: OPTIONS that is no preflight, without credentials: %d, want 401", path, resp.StatusCode)
		}
		if resp, _ := s.do(t, http.MethodOptions, path, "", "", "Origin", "https://evil.example", "Access-Control-Request-Method", "POST"); resp.StatusCode != http.StatusForbidden {
			t.Errorf("%s: preflight of a foreign origin: %d, want 403", path, resp.StatusCode)
		}
	}
	if n := s.reached(); n != 0 {
		t.Errorf("%d preflights reached the bridge", n)
	}
}

// TestRefuseHTTPSpellings: refuseHTTP answers one refusal in each path's
// spelling, with the same HTTP status and the extra headers.
func TestRefuseHTTPSpellings(t *testing.T) {
	const msg = "100% not \"yours\"\té"
	for _, tt := range []struct {
		kind        pathKind
		contentType string
		check       func(t *testing.T, rec *httptest.ResponseRecorder)
	}{
		{pathMCP, "application/json", func(t *testing.T, rec *httptest.ResponseRecorder) {
			var m struct {
				JSONRPC string          `json:"jsonrpc"`
				ID      json.RawMessage `json:"id"`
				Error   struct {
					Code    int    `json:"code"`
					Message string `json:"message"`
				} `json:"error"`
			}
			if err := json.Unmarshal(rec.Body.Bytes(), &m); err != nil || m.JSONRPC != "2.0" || string(m.ID) != "null" || m.Error.Code != -32600 || m.Error.Message != msg {
				t.Errorf("body %s (%v), want a -32600 error with the message", rec.Body, err)
			}
		}},
		{pathGRPCWeb, "application/grpc-web+proto", func(t *testing.T, rec *httptest.ResponseRecorder) {
			if got := rec.Header().Get("Grpc-Status"); got != "8" {
				t.Errorf("grpc-status %q, want 8", got)
			}
			if got, want := rec.Header().Get("Grpc-Message"), `100%25 not "yours"%09%C3%A9`; got != want {
				t.Errorf("grpc-message %q, want %q", got, want)
			}
			if rec.Body.Len() != 0 {
				t.Errorf("body %q, want none", rec.Body)
			}
		}},
		{pathGRPC, "application/grpc", func(t *testing.T, rec *httptest.ResponseRecorder) {
			if got := rec.Header().Get("Grpc-Status"); got != "8" || rec.Header().Get("Grpc-Message") == "" || rec.Body.Len() != 0 {
				t.Errorf("grpc-status %q, message %q, body %q; want a trailers-only 8 with the message", got, rec.Header().Get("Grpc-Message"), rec.Body)
			}
		}},
		{pathAPI, "application/json", func(t *testing.T, rec *httptest.ResponseRecorder) {
			var e struct{ Code, Message string }
			if err := json.Unmarshal(rec.Body.Bytes(), &e); err != nil || e.Code != "resource_exhausted" || e.Message != msg {
				t.Errorf("body %s (%v), want a resource_exhausted Connect error with the message", rec.Body, err)
			}
		}},
	} {
		rec := httptest.NewRecorder()
		refuseHTTP(rec, tt.kind, http.StatusTooManyRequests, codes.ResourceExhausted, msg, http.Header{"Retry-After": {"3"}, "X-Two": {"a", "b"}})
		want := http.StatusTooManyRequests
		if tt.kind == pathGRPC {
			want = http.StatusOK
		}
		if rec.Code != want || rec.Header().Get("Retry-After") != "3" || len(rec.Header().Values("X-Two")) != 2 {
			t.Errorf("kind %d: %d %v, want %d with the extra headers", tt.kind, rec.Code, rec.Header(), want)
		}
		if ct := rec.Header().Get("Content-Type"); ct != tt.contentType {
			t.Errorf("kind %d: Content-Type %q, want %q", tt.kind, ct, tt.contentType)
		}
		tt.check(t, rec)
	}
	for c, want := range map[codes.Code]string{
		codes.PermissionDenied: "permission_denied", codes.Unauthenticated: "unauthenticated",
		codes.ResourceExhausted: "resource_exhausted", codes.DeadlineExceeded: "deadline_exceeded", codes.Internal: "unknown",
	} {
		if got := connectCode(c); got != want {
			t.Errorf("connectCode(%v) = %q, want %q", c, got, want)
		}
	}
}

// TestKindOf: which spelling a request's refusal takes.
func TestKindOf(t *testing.T) {
	for _, tt := range []struct {
		path, contentType string
		want              pathKind
	}{
		{"/mcp", "application/json", pathMCP},
		{"/mcp/demo", "application/grpc-web+proto", pathMCP},
		{"/mcpx", "application/json", pathAPI},
		{listPath, "application/grpc-web+proto", pathGRPCWeb},
		{listPath, "Application/GRPC-Web-Text", pathGRPCWeb},
		{listPath, "application/grpc", pathGRPC},
		{listPath, "application/grpc+proto", pathGRPC},
		{listPath, "application/grpcx", pathAPI},
		{listPath, "application/proto", pathAPI},
	} {
		r := httptest.NewRequest(http.MethodPost, tt.path, nil)
		r.Header.Set("Content-Type", tt.contentType)
		if got := kindOf(r); got != tt.want {
			t.Errorf("kindOf(%s, %s) = %d, want %d", tt.path, tt.contentType, got, tt.want)
		}
	}
}

// TestNew: the defaults New fills in, and the setting it refuses: an
// origin that is none.
func TestNew(t *testing.T) {
	calls, _ := testCalls()
	d, err := New(&testBridge{}, calls, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if d.o.MaxSessions != DefaultMaxSessions || d.o.BodyTimeout != DefaultBodyTimeout {
		t.Errorf("defaults %+v, want %d sessions and %v", d.o, DefaultMaxSessions, DefaultBodyTimeout)
	}
	d.Shutdown()
	if err := d.Close(); err != nil {
		t.Errorf("Close after Shutdown: %v", err)
	}

	if d, err := New(&testBridge{}, calls, Options{Origins: []string{"app.example"}}); err == nil || !strings.Contains(err.Error(), "app.example") {
		if d != nil {
			d.Close()
		}
		t.Errorf("New with origin app.example: %v, want an error naming it", err)
	}
}

// TestShutdownRefusesMCP: after Shutdown, /mcp answers 503 and opens
// nothing, while the API still serves.
func TestShutdownRefusesMCP(t *testing.T) {
	s := serveDoor(t, &testBridge{}, Options{})
	s.d.Shutdown()
	if resp, body := s.post(t, "/mcp", "application/json", legacyInit, "Accept", "application/json"); resp.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("/mcp after Shutdown: %d %s, want 503", resp.StatusCode, body)
	}
	if resp, body := s.post(t, listPath, "application/json", `{}`); resp.StatusCode != http.StatusOK {
		t.Errorf("API after Shutdown: %d %s, want 200", resp.StatusCode, body)
	}
	if n := len(s.b.opened()); n != 0 {
		t.Errorf("%d sessions opened after Shutdown", n)
	}
}
