package bridge

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"connectrpc.com/connect"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"github.com/mcpbridge/mcpbridge/bridge/access"
	"github.com/mcpbridge/mcpbridge/bridge/internal/door"
	"github.com/mcpbridge/mcpbridge/bridge/internal/httpdoor"
	"github.com/mcpbridge/mcpbridge/internal/testkit"
	mcpbridgev1 "github.com/mcpbridge/mcpbridge/proto/mcpbridge/v1"
	"github.com/mcpbridge/mcpbridge/proto/mcpbridge/v1/mcpbridgev1connect"
)

// These tests hold the HTTP door's guard (httpdoor.go) on every path of
// the listener, in process: a Service with a real child, its grpc.Server,
// and the door on a loopback http.Server. Each of them failed when the
// door was a client of the gRPC side (docs/security.md, "Every door").

// doorConfig is a Config whose callers are alice and bob, by API key
// (authz_test.go's keys).
func doorConfig(tb testing.TB, servers ...ServerConfig) Config {
	tb.Helper()
	auth, err := access.New(context.Background(), access.Config{APIKeys: []access.APIKey{
		{Principal: "alice", SHA256: access.HashKey(aliceKey)},
		{Principal: "bob", SHA256: access.HashKey(bobKey)},
	}})
	if err != nil {
		tb.Fatal(err)
	}
	return Config{Servers: servers, Auth: auth}
}

// startHTTPDoor serves cfg's Service through its HTTP door on 127.0.0.1:0
// (serveHTTPDoor) and returns the door's base URL. Cleanup closes the
// door, the listener, the gRPC server and then the children, in the order
// Shutdown does.
func startHTTPDoor(tb testing.TB, cfg Config, o HTTPOptions) string {
	tb.Helper()
	cfg.Logger = slog.New(slog.DiscardHandler)
	svc, err := New(cfg)
	if err != nil {
		tb.Fatalf("New: %v", err)
	}
	tb.Cleanup(func() { svc.Close() }) // after serveHTTPDoor's cleanup
	return serveHTTPDoor(tb, svc, o)
}

// doorPost POSTs body to url with header ("Name", "value" pairs) and
// returns the status, the headers and the body of the answer.
func doorPost(tb testing.TB, url, contentType, body string, header ...string) (int, http.Header, string) {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testWait)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		tb.Fatal(err)
	}
	req.Header.Set("Content-Type", contentType)
	req.Header.Set("Accept", "application/json, text/event-stream")
	for i := 0; i+1 < len(header); i += 2 {
		if header[i] == "Host" {
			req.Host = header[i+1]
			continue
		}
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		tb.Fatalf("POST %s: %v", url, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, string(b)
}

const (
	legacyInit = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"door-test","version":"1"}}}`
	modernMeta = `{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"door-test","version":"1"}}`
)

// modernList is a 2026-07-28 tools/list and the headers it needs.
func modernList(id int) (string, []string) {
	return `{"jsonrpc":"2.0","id":` + strconv.Itoa(id) + `,"method":"tools/list","params":{"_meta":` + modernMeta + `}}`,
		[]string{"MCP-Protocol-Version", "2026-07-28", "Mcp-Method", "tools/list"}
}

// TestHTTPDoorHostAndOriginOnEveryPath: on a loopback listener, a request
// whose Host or Origin is a rebinding page's is refused 403 on the API
// (Connect JSON), gRPC-Web and /mcp alike, and never reaches the child.
func TestHTTPDoorHostAndOriginOnEveryPath(t *testing.T) {
	t.Parallel()
	base := startHTTPDoor(t, Config{Servers: []ServerConfig{typedChildServer(t, "demo", "modern")}}, HTTPOptions{})
	list, listHeaders := modernList(1)
	paths := []struct {
		name, path, contentType, body string
		header                        []string
	}{
		{"connect", "/mcpbridge.v1.BridgeService/ListServers", "application/json", `{}`, nil},
		{"grpc-web", "/mcpbridge.v1.BridgeService/ListServers", "application/grpc-web+proto", "\x00\x00\x00\x00\x00", nil},
		{"mcp", "/mcp/demo", "application/json", list, listHeaders},
	}
	for _, p := range paths {
		t.Run(p.name, func(t *testing.T) {
			if code, _, body := doorPost(t, base+p.path, p.contentType, p.body, p.header...); code != http.StatusOK {
				t.Fatalf("from loopback: %d %s, want 200", code, body)
			}
			for _, bad := range [][]string{
				{"Host", "evil.example:8080", "Origin", "http://evil.example:8080"},
				{"Host", "evil.example"},
				{"Origin", "http://evil.example"},
			} {
				code, header, body := doorPost(t, base+p.path, p.contentType, p.body, append(append([]string(nil), p.header...), bad...)...)
				if code != http.StatusForbidden {
					t.Errorf("%v: %d %s, want 403", bad, code, body)
				}
				if p.name == "grpc-web" && header.Get("Grpc-Status") != "7" {
					t.Errorf("%v: grpc-status %q, want 7 (PERMISSION_DENIED)", bad, header.Get("Grpc-Status"))
				}
			}
		})
	}
}

// rawExchange writes head (a request's head, without its body) on a new
// connection to addr, then reads the answer's status line and headers. It
// sends no body: an answer proves that nothing of the body was waited for.
func rawExchange(tb testing.TB, addr, head string) (int, http.Header) {
	tb.Helper()
	conn, err := net.DialTimeout("tcp", addr, testWait)
	if err != nil {
		tb.Fatal(err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(testWait))
	if _, err := io.WriteString(conn, head); err != nil {
		tb.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		tb.Fatalf("no answer before the body: %v", err)
	}
	resp.Body.Close()
	return resp.StatusCode, resp.Header
}

// TestHTTPDoorCredentialsBeforeBody: an unauthenticated request with a
// body of 128 MiB, or a chunked one, is answered 401 with WWW-Authenticate
// on every path before a byte of its body is sent; an authenticated one
// whose body is over the limit is answered 413 the same way; and a body
// that trickles is cut at the body timeout with 408.
func TestHTTPDoorCredentialsBeforeBody(t *testing.T) {
	t.Parallel()
	cfg := doorConfig(t, typedChildServer(t, "demo", "modern"))
	base := startHTTPDoor(t, cfg, HTTPOptions{BodyTimeout: 500 * time.Millisecond})
	addr := strings.TrimPrefix(base, "http://")
	for _, path := range []string{"/mcpbridge.v1.BridgeService/CallTool", "/mcp/demo", "/mcp"} {
		for _, framing := range []string{"Content-Length: 134217728", "Transfer-Encoding: chunked"} {
			head := "POST " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n" + framing + "\r\n\r\n"
			code, header := rawExchange(t, addr, head)
			if code != http.StatusUnauthorized || !strings.HasPrefix(header.Get("Www-Authenticate"), "Bearer ") {
				t.Errorf("%s, %s, no credentials: %d %v; want 401 with WWW-Authenticate", path, framing, code, header)
			}
		}
		head := "POST " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAuthorization: Bearer " + aliceKey +
			"\r\nContent-Length: 134217728\r\n\r\n"
		if code, _ := rawExchange(t, addr, head); code != http.StatusRequestEntityTooLarge {
			t.Errorf("%s, alice, 128 MiB: %d, want 413", path, code)
		}
		// Ten bytes of a hundred, then nothing: 408 at the body timeout.
		head = "POST " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAuthorization: Bearer " + aliceKey +
			"\r\nContent-Length: 100\r\n\r\n{\"jsonrpc\""
		if code, _ := rawExchange(t, addr, head); code != http.StatusRequestTimeout {
			t.Errorf("%s, alice, a trickled body: %d, want 408", path, code)
		}
	}
	// A 15 MiB body without credentials on /mcp is 401, not a parse error.
	code, _, body := doorPost(t, base+"/mcp/demo", "application/json", strings.Repeat("x", 15<<20))
	if code != http.StatusUnauthorized {
		t.Errorf("/mcp, 15 MiB, no credentials: %d %.200s; want 401", code, body)
	}
}

// TestHTTPDoorSessionShare: one principal cannot take every MCP session
// of the door: alice's share is a quarter of them, one more is 429 with
// Retry-After in the words of the bridge's own session caps, and bob
// still opens his.
func TestHTTPDoorSessionShare(t *testing.T) {
	t.Parallel()
	cfg := doorConfig(t, typedChildServer(t, "demo", "legacy"))
	base := startHTTPDoor(t, cfg, HTTPOptions{MaxSessions: 8})
	initialize := func(key string) (int, http.Header, string) {
		return doorPost(t, base+"/mcp/demo", "application/json", legacyInit, "Authorization", "Bearer "+key)
	}
	for i := range 2 {
		if code, h, body := initialize(aliceKey); code != http.StatusOK || h.Get("Mcp-Session-Id") == "" {
			t.Fatalf("alice's session %d: %d %s", i+1, code, body)
		}
	}
	code, h, body := initialize(aliceKey)
	if code != http.StatusTooManyRequests || h.Get("Retry-After") == "" || !strings.Contains(body, "max_per_principal 2") {
		t.Errorf("alice's third session: %d Retry-After %q %s; want 429, Retry-After and max_per_principal 2", code, h.Get("Retry-After"), body)
	}
	if code, h, body := initialize(bobKey); code != http.StatusOK || h.Get("Mcp-Session-Id") == "" {
		t.Errorf("bob's session: %d %s, want 200 with a session", code, body)
	}
}

// TestHTTPDoorRefusalsAsStatuses: what refuses a session or a request at
// /mcp is an HTTP status with the gRPC refusal's words, not a 200 with a
// JSON-RPC error: the server's session cap per principal is 429 with
// Retry-After and its max_per_principal; a 2026 request over the caller's
// rate is 429 with Retry-After; an unknown server is 404.
func TestHTTPDoorRefusalsAsStatuses(t *testing.T) {
	t.Parallel()
	sessions := typedChildServer(t, "sessions", "legacy")
	sessions.Policy = PolicySession
	sessions.Session = SessionConfig{Max: 4, MaxPerPrincipal: 1}
	cfg := doorConfig(t, sessions, typedChildServer(t, "demo", "modern"))
	cfg.Limits = Limits{Rate: 0.01, Burst: 3}
	base := startHTTPDoor(t, cfg, HTTPOptions{})
	alice := []string{"Authorization", "Bearer " + aliceKey}

	if code, _, body := doorPost(t, base+"/mcp/sessions", "application/json", legacyInit, alice...); code != http.StatusOK {
		t.Fatalf("alice's first session: %d %s", code, body)
	}
	code, h, body := doorPost(t, base+"/mcp/sessions", "application/json", legacyInit, alice...)
	if code != http.StatusTooManyRequests || h.Get("Retry-After") == "" || !strings.Contains(body, "max_per_principal 1") {
		t.Errorf("alice's second session: %d Retry-After %q %s; want 429 with Retry-After and max_per_principal 1", code, h.Get("Retry-After"), body)
	}

	bob := []string{"Authorization", "Bearer " + bobKey}
	var last string
	for i := 1; i <= 4; i++ {
		list, headers := modernList(i)
		code, h, body := doorPost(t, base+"/mcp/demo", "application/json", list, append(headers, bob...)...)
		last = fmt.Sprintf("%d Retry-After %q %s", code, h.Get("Retry-After"), body)
		if code == http.StatusTooManyRequests {
			if h.Get("Retry-After") == "" || !strings.Contains(body, "Too many requests") {
				t.Errorf("bob's request %d: %s; want 429 with Retry-After and the limit's words", i, last)
			}
			break
		}
		if code != http.StatusOK {
			t.Fatalf("bob's request %d: %s", i, last)
		}
		if i == 4 {
			t.Errorf("bob's four requests at a rate of 0.01/s with a burst of 3 all passed; the last: %s", last)
		}
	}

	if code, _, body := doorPost(t, base+"/mcp/nope", "application/json", legacyInit, alice...); code != http.StatusNotFound || !strings.Contains(body, "nope") {
		t.Errorf("unknown server: %d %s, want 404 naming it", code, body)
	}
	// /mcp names no server, and this bridge fronts two: the answer says so
	// and how to name one, as on gRPC.
	if code, _, body := doorPost(t, base+"/mcp", "application/json", legacyInit, alice...); code != http.StatusNotFound ||
		!strings.Contains(body, "fronts several servers") || !strings.Contains(body, "/mcp/{name}") {
		t.Errorf("no server named: %d %s, want 404 saying the bridge fronts several and how to name one", code, body)
	}
}

// serveHTTPDoor serves svc's HTTP door on 127.0.0.1:0, beside whatever
// else serves svc, and returns its base URL; cleanup as startHTTPDoor's.
func serveHTTPDoor(tb testing.TB, svc *Service, o HTTPOptions) string {
	tb.Helper()
	d, err := svc.NewHTTPDoor(o)
	if err != nil {
		tb.Fatalf("NewHTTPDoor: %v", err)
	}
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	hs := httpdoor.NewServer(d, nil, slog.New(slog.DiscardHandler)) // HTTP/1.1 and h2c, as Serve's
	served := make(chan struct{})
	go func() {
		defer close(served)
		hs.Serve(lis)
	}()
	tb.Cleanup(func() {
		d.Close()
		ctx, cancel := context.WithTimeout(context.Background(), testWait)
		defer cancel()
		hs.Shutdown(ctx)
		hs.Close()
		<-served
	})
	return "http://" + lis.Addr().String()
}

// grpcWeb calls method with req over gRPC-Web (binary) and returns the
// call's grpc-status, from the headers of a trailers-only answer or from
// the trailer frame.
func grpcWeb(tb testing.TB, url string, req proto.Message, header ...string) string {
	tb.Helper()
	b, err := proto.Marshal(req)
	if err != nil {
		tb.Fatal(err)
	}
	frame := binary.BigEndian.AppendUint32([]byte{0}, uint32(len(b)))
	code, h, body := doorPost(tb, url, "application/grpc-web+proto", string(append(frame, b...)), header...)
	if v := h.Get("Grpc-Status"); v != "" {
		return v
	}
	for rest := []byte(body); len(rest) >= 5; {
		n := int(binary.BigEndian.Uint32(rest[1:5]))
		if len(rest) < 5+n {
			break
		}
		if rest[0]&0x80 != 0 {
			for line := range strings.SplitSeq(string(rest[5:5+n]), "\r\n") {
				if v, ok := strings.CutPrefix(strings.ToLower(line), "grpc-status:"); ok {
					return strings.TrimSpace(v)
				}
			}
		}
		rest = rest[5+n:]
	}
	tb.Fatalf("gRPC-Web answer without a grpc-status: HTTP %d %v %q", code, h, body)
	return ""
}

// TestHTTPDoorEveryGuard holds the HTTP listener's paths to the guards
// the gRPC ones have (TestDoorEveryPath): a request the rules forbid and
// a request over a limit are refused on the API as Connect JSON, as
// gRPC-Web and at /mcp, each with its audit record and refusals metric
// (via http, the listener they came by), and nothing reaches the child; a call whose key a
// reload removes ends unauthenticated.
func TestHTTPDoorEveryGuard(t *testing.T) {
	t.Parallel()
	rules := access.Rules{
		{Principals: []string{"alice"}, Servers: []string{"*"}, Tools: []string{"*"}, Resources: []string{"*"}, Prompts: []string{"*"}},
		{Groups: []string{"guests"}, Servers: []string{"p", "r"}, Tools: []string{"pid", "hold"}, Resources: []string{"test://public"}},
	}
	p := policyServer(t, "p", PolicyShared)
	r := policyServer(t, "r", PolicyShared)
	r.Limits = Limits{Rate: 0.001, Burst: 1}
	b := startSecureBridge(t, Config{Servers: []ServerConfig{p, r}, Rules: rules})
	base := serveHTTPDoor(t, b.svc, HTTPOptions{})
	ctx := testCtx(t)
	for _, name := range []string{"p", "r"} { // every child ready, so that nothing is sent later
		if _, err := b.bc.Ping(as(ctx, aliceKey), &mcpbridgev1.PingRequest{Server: name}); err != nil {
			t.Fatal(err)
		}
	}
	bob := []string{"Authorization", "Bearer " + bobKey}
	api := base + "/mcpbridge.v1.BridgeService/CallTool"
	mcpCall := func(server, tool string) (int, http.Header, string) {
		body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"` + tool + `","arguments":{},"_meta":` + modernMeta + `}}`
		return doorPost(t, base+"/mcp/"+server, "application/json", body,
			append([]string{"MCP-Protocol-Version", "2026-07-28", "Mcp-Method", "tools/call", "Mcp-Name", tool}, bob...)...)
	}

	sent := b.sentToChildren("p", "r")
	chk := &refusalCheck{t: t, b: b, reason: door.RefusedDenied, records: len(b.records(t))}
	chk.expect("Connect JSON", "p", "tools/call", door.ViaHTTP, func() {
		if code, _, body := doorPost(t, api, "application/json", `{"server":"p","name":"secret"}`, bob...); code != http.StatusForbidden || !strings.Contains(body, "permission_denied") {
			t.Errorf("CallTool(secret) as Connect JSON: %d %s, want 403 permission_denied", code, body)
		}
	})
	chk.expect("gRPC-Web", "p", "tools/call", door.ViaHTTP, func() {
		if got := grpcWeb(t, api, &mcpbridgev1.CallToolRequest{Server: "p", Name: "secret"}, bob...); got != "7" {
			t.Errorf("CallTool(secret) as gRPC-Web: grpc-status %s, want 7", got)
		}
	})
	chk.expect("/mcp", "p", "tools/call", door.ViaHTTP, func() {
		if code, _, body := mcpCall("p", "secret"); !strings.Contains(body, "Permission denied") {
			t.Errorf("tools/call secret at /mcp: %d %s, want Permission denied", code, body)
		}
	})

	if got := b.sentToChildren("p", "r"); got != sent {
		t.Errorf("the children were sent %d bytes while every forbidden request was refused", got-sent)
	}

	chk.reason = door.RefusedLimited
	if code, _, body := doorPost(t, api, "application/json", `{"server":"r","name":"pid"}`, bob...); code != http.StatusOK {
		t.Fatalf("bob's one call to r: %d %s", code, body)
	}
	chk.records = len(b.records(t))
	sent = b.sentToChildren("p", "r")
	chk.expect("Connect JSON", "r", "tools/call", door.ViaHTTP, func() {
		if code, _, body := doorPost(t, api, "application/json", `{"server":"r","name":"pid"}`, bob...); code != http.StatusTooManyRequests || !strings.Contains(body, "resource_exhausted") {
			t.Errorf("CallTool over the rate as Connect JSON: %d %s, want 429 resource_exhausted", code, body)
		}
	})
	chk.expect("gRPC-Web", "r", "tools/call", door.ViaHTTP, func() {
		if got := grpcWeb(t, api, &mcpbridgev1.CallToolRequest{Server: "r", Name: "pid"}, bob...); got != "8" {
			t.Errorf("CallTool over the rate as gRPC-Web: grpc-status %s, want 8", got)
		}
	})
	// The MCP endpoint's session for bob passes the door when it opens:
	// that opening is what the rate refuses, with the same words.
	chk.expect("/mcp", "r", "Connect", door.ViaHTTP, func() {
		if code, h, body := mcpCall("r", "pid"); code != http.StatusTooManyRequests || h.Get("Retry-After") == "" || !strings.Contains(body, "Too many requests") {
			t.Errorf("tools/call over the rate at /mcp: %d Retry-After %q %s, want 429 with Retry-After", code, h.Get("Retry-After"), body)
		}
	})
	if got := b.sentToChildren("p", "r"); got != sent {
		t.Errorf("the children were sent %d bytes while every request was refused", got-sent)
	}

	// Revoked: bob's calls in flight over Connect JSON and gRPC-Web end
	// unauthenticated when a reload removes his key.
	held := make(chan string, 2)
	go func() {
		code, _, body := doorPost(t, api, "application/json", `{"server":"p","name":"hold","arguments":{"ms":60000}}`, bob...)
		held <- fmt.Sprintf("connect %d %s", code, body)
	}()
	go func() {
		got := grpcWeb(t, api, &mcpbridgev1.CallToolRequest{Server: "p", Name: "hold", Arguments: argsStruct(`{"ms":60000}`)}, bob...)
		held <- "grpc-web grpc-status " + got
	}()
	for {
		n, err := b.bc.CallTool(as(ctx, aliceKey), &mcpbridgev1.CallToolRequest{Server: "p", Name: "count", Arguments: argsStruct(`{"name":"hold"}`)})
		if err != nil {
			t.Fatalf("alice's count of holds = %v", err)
		}
		if n.GetContent()[0].GetText().GetText() == "2" {
			break
		}
		select {
		case <-ctx.Done():
			t.Fatal("bob's holds never both reached the child")
		case <-time.After(5 * time.Millisecond):
		}
	}
	onlyAlice, err := access.New(context.Background(), access.Config{APIKeys: []access.APIKey{{Principal: "alice", SHA256: access.HashKey(aliceKey)}}})
	if err != nil {
		t.Fatal(err)
	}
	next := b.svc.cfg
	next.Servers = append([]ServerConfig(nil), b.svc.cfg.Servers...)
	next.Auth = onlyAlice
	if err := b.svc.Reload(next); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		select {
		case got := <-held:
			switch {
			case strings.HasPrefix(got, "connect "):
				if !strings.HasPrefix(got, "connect 401 ") || !strings.Contains(got, "unauthenticated") {
					t.Errorf("bob's held Connect JSON call after his key was removed: %s, want 401 unauthenticated", got)
				}
			case got != "grpc-web grpc-status 16":
				t.Errorf("bob's held gRPC-Web call after his key was removed: %s, want grpc-status 16 (UNAUTHENTICATED)", got)
			}
		case <-ctx.Done():
			t.Fatal("bob's held calls did not end when his key was removed")
		}
	}
}

// TestHTTPDoorAPIInProcess: the API on the HTTP listener runs in process,
// with no grpc.Server behind it. The bidirectional Connect tunnel works
// over HTTP/2 without TLS (h2c) as the Connect protocol and as gRPC, its
// requests pass the door via http; a Connect call with a traceparent gets
// a server span in the caller's trace, with the door's client span under
// it; and the call sees the request's headers as metadata (mcp-server
// picks the server, as on gRPC); a gRPC client of the HTTP listener gets
// the guard's refusals as gRPC statuses.
func TestHTTPDoorAPIInProcess(t *testing.T) {
	t.Parallel()
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	t.Cleanup(func() { tp.Shutdown(context.Background()) })
	p := policyServer(t, "p", PolicyShared)
	q := policyServer(t, "q", PolicyShared)
	b := startSecureBridge(t, Config{Servers: []ServerConfig{p, q}, TracerProvider: tp,
		Rules: access.Rules{{Principals: []string{"alice"}, Servers: []string{"*"}, Tools: []string{"*"}}}})
	base := serveHTTPDoor(t, b.svc, HTTPOptions{})
	ctx := testCtx(t)

	var protocols http.Protocols
	protocols.SetUnencryptedHTTP2(true)
	h2c := &http.Client{Transport: &http.Transport{Protocols: &protocols}}
	t.Cleanup(h2c.CloseIdleConnections)
	for _, tt := range []struct {
		name string
		opts []connect.ClientOption
	}{{"connect", nil}, {"grpc", []connect.ClientOption{connect.WithGRPC()}}} {
		c := mcpbridgev1connect.NewBridgeServiceClient(h2c, base, tt.opts...)
		records := len(b.records(t))
		st := c.Connect(ctx)
		st.RequestHeader().Set("Authorization", "Bearer "+aliceKey)
		if err := st.Send(&mcpbridgev1.ConnectRequest{Server: "p",
			MessageJson: `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":` + testkit.WithModernMeta(`{"name":"pid","arguments":{}}`) + `}`}); err != nil {
			t.Fatalf("%s: Send: %v", tt.name, err)
		}
		res, err := st.Receive()
		if err != nil || !strings.Contains(res.GetMessageJson(), `"id":1`) || !strings.Contains(res.GetMessageJson(), `"text"`) {
			t.Errorf("%s: tools/call pid in a tunnel over h2c = %v, %v; want its result", tt.name, res, err)
		}
		st.CloseRequest()
		for err == nil {
			_, err = st.Receive()
		}
		st.CloseResponse()
		if !errors.Is(err, io.EOF) {
			t.Errorf("%s: the tunnel ended with %v, want its end", tt.name, err)
		}
		recs := b.records(t)
		var found bool
		for _, r := range recs[records:] {
			found = found || (r["method"] == "tools/call" && r["via"] == door.ViaHTTP && r["principal"] == "alice")
		}
		if !found {
			t.Errorf("%s: audit records %v, want alice's tools/call via http", tt.name, recs[records:])
		}
	}

	// A gRPC client of the HTTP listener: the guard's refusals are gRPC
	// statuses with their words; an authenticated call is served.
	target := strings.TrimPrefix(base, "http://")
	for _, tt := range []struct {
		name      string
		authority string
		key       string
		want      codes.Code
		words     string
	}{
		{"no credentials", "", "", codes.Unauthenticated, "authentication required"},
		{"a foreign Host", "evil.example", aliceKey, codes.PermissionDenied, `Forbidden: Host "evil.example" is not a loopback name`},
		{"alice", "", aliceKey, codes.OK, ""},
	} {
		opts := []grpc.DialOption{grpc.WithTransportCredentials(insecure.NewCredentials())}
		if tt.authority != "" {
			opts = append(opts, grpc.WithAuthority(tt.authority))
		}
		conn, err := grpc.NewClient(target, opts...)
		if err != nil {
			t.Fatal(err)
		}
		callCtx := ctx
		if tt.key != "" {
			callCtx = as(ctx, tt.key)
		}
		_, err = mcpbridgev1.NewBridgeServiceClient(conn).CallTool(callCtx, &mcpbridgev1.CallToolRequest{Server: "p", Name: "pid"})
		conn.Close()
		if status.Code(err) != tt.want || !strings.HasPrefix(status.Convert(err).Message(), tt.words) {
			t.Errorf("%s: CallTool over gRPC on the HTTP listener = %v, want %v %q", tt.name, err, tt.want, tt.words)
		}
	}

	// A traced Connect call, its server named by the mcp-server header.
	parent := "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"
	code, _, body := doorPost(t, base+"/mcpbridge.v1.BridgeService/CallTool", "application/json", `{"name":"pid"}`,
		"Authorization", "Bearer "+aliceKey, "Traceparent", parent, "Mcp-Server", "q")
	if code != http.StatusOK || !strings.Contains(body, `"text"`) {
		t.Fatalf("CallTool with mcp-server q: %d %s", code, body)
	}
	var server, client sdktrace.ReadOnlySpan
	for _, s := range rec.Ended() {
		switch {
		case s.Name() == "mcpbridge.v1.BridgeService/CallTool" && s.SpanKind() == trace.SpanKindServer:
			server = s
		case s.Name() == "tools/call pid" && s.SpanKind() == trace.SpanKindClient:
			client = s
		}
	}
	if server == nil || client == nil {
		t.Fatalf("spans %v, want the call's server span and the door's client span", rec.Ended())
	}
	if server.Parent().TraceID().String() != "0af7651916cd43dd8448eb211c80319c" || server.Parent().SpanID().String() != "b7ad6b7169203331" {
		t.Errorf("server span's parent %v, want the caller's traceparent", server.Parent())
	}
	if client.Parent().SpanID() != server.SpanContext().SpanID() {
		t.Errorf("the door's span's parent %v, want the server span %v", client.Parent().SpanID(), server.SpanContext().SpanID())
	}
	var srvAttr string
	for _, a := range client.Attributes() {
		if a.Key == "mcpbridge.server" {
			srvAttr = a.Value.AsString()
		}
	}
	if srvAttr != "q" {
		t.Errorf("the call went to server %q, want q (the mcp-server header)", srvAttr)
	}
}
