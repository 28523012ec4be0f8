package httpdoor

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/binary"
	"errors"
	"io"
	"log/slog"
	"math/big"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"connectrpc.com/connect"
	otelcodes "go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
	"google.golang.org/protobuf/proto"

	mcpbridgev1 "github.com/mcpbridge/mcpbridge/proto/mcpbridge/v1"
	"github.com/mcpbridge/mcpbridge/proto/mcpbridge/v1/mcpbridgev1connect"
)

// TestAPIReachesTheHandlers: the API's paths are calls of the service's
// handlers, run in process (Calls): Connect JSON (with or without Connect-Protocol-Version, as
// curl users send it), Connect binary and gRPC-Web each reach
// ListServers and get its answer in their own encoding; a GET is no
// Connect unary call without its query form.
func TestAPIReachesTheHandlers(t *testing.T) {
	s := serveDoor(t, &testBridge{}, Options{})
	for _, tt := range []struct {
		name, contentType, body string
		header                  []string
	}{
		{"json", "application/json", `{}`, []string{"Authorization", "Bearer k", "Mcp-Session", "work"}},
		{"json, charset", "application/json; charset=utf-8", `{"unknownField":1}`, nil},
		{"json, Connect header", "application/json", `{}`, []string{"Connect-Protocol-Version", "1"}},
		{"proto", "application/proto", "", nil},
	} {
		before := s.api.calls.Load()
		resp, body := s.post(t, listPath, tt.contentType, tt.body, tt.header...)
		if resp.StatusCode != http.StatusOK || s.api.calls.Load() != before+1 {
			t.Errorf("%s: %d %s, want 200 from ListServers", tt.name, resp.StatusCode, body)
			continue
		}
		if len(tt.header) > 0 && tt.header[0] == "Authorization" {
			if md := s.api.lastMD(); !slices.Equal(md.Get("authorization"), []string{"Bearer k"}) || !slices.Equal(md.Get("mcp-session"), []string{"work"}) {
				t.Errorf("%s: ListServers saw metadata %v, want the request's Authorization and Mcp-Session", tt.name, md)
			}
		}
		got := &mcpbridgev1.ListServersResponse{}
		if strings.HasPrefix(tt.contentType, "application/proto") {
			if err := proto.Unmarshal([]byte(body), got); err != nil {
				t.Errorf("%s: %v", tt.name, err)
			}
		} else if !strings.Contains(body, `"protocolVersion":"2025-11-25"`) {
			t.Errorf("%s: body %s, want ListServers' answer in JSON", tt.name, body)
			continue
		}
		if strings.HasPrefix(tt.contentType, "application/proto") && got.GetServers()[0].GetProtocolVersion() != "2025-11-25" {
			t.Errorf("%s: answer %v", tt.name, got)
		}
	}

	// gRPC-Web: a data frame with the answer, then the trailers frame
	// with grpc-status 0.
	before := s.api.calls.Load()
	resp, body := s.post(t, listPath, "application/grpc-web+proto", grpcWebEmpty, "X-Grpc-Web", "1")
	if resp.StatusCode != http.StatusOK || s.api.calls.Load() != before+1 {
		t.Fatalf("gRPC-Web: %d %q", resp.StatusCode, body)
	}
	b := []byte(body)
	if len(b) < 5 || b[0] != 0 {
		t.Fatalf("gRPC-Web answer %q: no data frame", body)
	}
	n := binary.BigEndian.Uint32(b[1:5])
	got := &mcpbridgev1.ListServersResponse{}
	if err := proto.Unmarshal(b[5:5+n], got); err != nil || got.GetServers()[0].GetProtocolVersion() != "2025-11-25" {
		t.Errorf("gRPC-Web data frame: %v, %v", got, err)
	}
	if trailers := b[5+n:]; len(trailers) < 5 || trailers[0] != 0x80 || !strings.Contains(strings.ToLower(string(trailers[5:])), "grpc-status: 0") {
		t.Errorf("gRPC-Web trailers frame %q, want grpc-status 0", trailers)
	}

	// What the service does not serve is its own UNIMPLEMENTED.
	if resp, body := s.post(t, "/mcpbridge.v1.BridgeService/GetServer", "application/json", `{}`); resp.StatusCode != http.StatusNotImplemented || !strings.Contains(body, `"unimplemented"`) {
		t.Errorf("GetServer: %d %s, want the service's UNIMPLEMENTED", resp.StatusCode, body)
	}
}

// TestAPICORS: with origins configured, the API answers a listed
// origin's requests with CORS headers, Authorization allowed.
func TestAPICORS(t *testing.T) {
	s := serveDoor(t, &testBridge{}, Options{Origins: []string{"https://app.example"}})
	resp, body := s.post(t, listPath, "application/json", `{}`, "Origin", "https://app.example")
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Access-Control-Allow-Origin") != "https://app.example" {
		t.Errorf("a listed origin's call: %d %v %s", resp.StatusCode, resp.Header, body)
	}
	if expose := strings.ToLower(strings.Join(resp.Header.Values("Access-Control-Expose-Headers"), ",")); !strings.Contains(expose, "grpc-status") {
		t.Errorf("exposed headers %q, want the gRPC-Web status among them", expose)
	}
	// Without origins, no CORS headers at all.
	plain := serveDoor(t, &testBridge{}, Options{})
	if resp, _ := plain.post(t, listPath, "application/json", `{}`, "Origin", "http://localhost:5173"); resp.Header.Get("Access-Control-Allow-Origin") != "" {
		t.Errorf("without origins, CORS headers %v", resp.Header)
	}
}

// selfSigned is a certificate for 127.0.0.1.
func selfSigned(tb testing.TB) tls.Certificate {
	tb.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		tb.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "door"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)}, KeyUsage: x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		tb.Fatal(err)
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}
}

// serveTLS serves hs with TLS on 127.0.0.1:0 until cleanup.
func serveTLS(tb testing.TB, hs *http.Server) string {
	tb.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		hs.ServeTLS(lis, "", "")
	}()
	tb.Cleanup(func() {
		hs.Close()
		<-done
	})
	return lis.Addr().String()
}

// alpn dials addr offering protos and returns what the handshake chose.
func alpn(tb testing.TB, addr string, protos ...string) (string, error) {
	tb.Helper()
	d := &net.Dialer{Timeout: testWait}
	conn, err := tls.DialWithDialer(d, "tcp", addr, &tls.Config{InsecureSkipVerify: true, NextProtos: protos})
	if err != nil {
		return "", err
	}
	defer conn.Close()
	return conn.ConnectionState().NegotiatedProtocol, nil
}

// TestNewServer: the listener's server speaks HTTP/1.1 and HTTP/2 by ALPN
// with TLS, the configuration in force for each client (mTLS's) included,
// and HTTP/1.1 and HTTP/2 without TLS (prior knowledge); it bounds the
// headers' time, and leaves the caller's TLS configuration as it was.
func TestNewServer(t *testing.T) {
	log := slog.New(slog.DiscardHandler)
	ok := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte(r.Proto)) })

	// Plaintext: HTTP/1.1 and h2c.
	plain := NewServer(ok, nil, log)
	if plain.TLSConfig != nil || plain.ReadHeaderTimeout != httpReadHeaderTimeout || plain.MaxHeaderBytes != httpMaxHeaderBytes || plain.IdleTimeout != httpIdleTimeout || plain.ErrorLog == nil || plain.Handler == nil {
		t.Errorf("plaintext server %+v", plain)
	}
	if p := plain.Protocols; p == nil || !p.HTTP1() || !p.UnencryptedHTTP2() || p.HTTP2() {
		t.Errorf("plaintext protocols %v, want HTTP/1.1 and unencrypted HTTP/2", p)
	}
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := make(chan string, 8) // the client's address of each connection the server is done with
	plain.ConnState = func(c net.Conn, st http.ConnState) {
		if st == http.StateClosed {
			select {
			case closed <- c.RemoteAddr().String():
			default: // never blocks the server
			}
		}
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		plain.Serve(lis)
	}()
	defer func() {
		plain.Close()
		<-done
	}()
	for _, tt := range []struct {
		want string
		set  func(*http.Protocols)
	}{
		{"HTTP/1.1", func(p *http.Protocols) { p.SetHTTP1(true) }},
		{"HTTP/2.0", func(p *http.Protocols) { p.SetUnencryptedHTTP2(true) }},
	} {
		var p http.Protocols
		tt.set(&p)
		tr := &http.Transport{Protocols: &p}
		c := &http.Client{Transport: tr, Timeout: testWait}
		resp, err := c.Get("http://" + lis.Addr().String())
		if err != nil {
			t.Errorf("%s: %v", tt.want, err)
			continue
		}
		b := make([]byte, 16)
		n, _ := resp.Body.Read(b)
		resp.Body.Close()
		tr.CloseIdleConnections()
		if string(b[:n]) != tt.want {
			t.Errorf("plaintext %s: served as %q", tt.want, b[:n])
		}
	}

	// Headers beyond the bound (net/http allows 4 KiB of slack): 431,
	// before any handler.
	big, err := http.NewRequest(http.MethodGet, "http://"+lis.Addr().String(), nil)
	if err != nil {
		t.Fatal(err)
	}
	big.Header.Set("X-Big", strings.Repeat("x", httpMaxHeaderBytes+8<<10))
	var bigAddr atomic.Value
	bigClient := &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := (&net.Dialer{}).DialContext(ctx, network, addr)
		if err == nil {
			bigAddr.Store(c.LocalAddr().String())
		}
		return c, err
	}}, Timeout: testWait}
	if resp, err := bigClient.Do(big); err != nil || resp.StatusCode != http.StatusRequestHeaderFieldsTooLarge {
		t.Errorf("a request with %d bytes of headers: %v, %v; want 431", httpMaxHeaderBytes+8<<10, resp, err)
	} else {
		resp.Body.Close()
	}
	bigClient.CloseIdleConnections()
	// net/http lingers 500 ms on a refused connection before it closes it
	// (its RST avoidance): wait for that, so that no goroutine outlives
	// the test.
	for gone := false; !gone; {
		select {
		case addr := <-closed:
			gone = addr == bigAddr.Load()
		case <-time.After(testWait):
			t.Fatal("the refused connection was never closed")
		}
	}

	// TLS: ALPN offers h2 and http/1.1; the caller's config is not
	// changed.
	cert := selfSigned(t)
	given := &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
	hs := NewServer(ok, given, log)
	if given.NextProtos != nil {
		t.Errorf("NewServer changed the caller's config: NextProtos %v", given.NextProtos)
	}
	if hs.TLSConfig == given || !slices.Equal(hs.TLSConfig.NextProtos, []string{"h2", "http/1.1"}) || hs.TLSConfig.MinVersion != tls.VersionTLS12 {
		t.Errorf("TLS config %+v, want a clone offering h2 and http/1.1", hs.TLSConfig)
	}
	if p := hs.Protocols; !p.HTTP1() || !p.HTTP2() || p.UnencryptedHTTP2() {
		t.Errorf("TLS protocols %v, want HTTP/1.1 and HTTP/2 over TLS", p)
	}
	addr := serveTLS(t, hs)
	for _, offer := range [][]string{{"h2", "http/1.1"}, {"http/1.1"}} {
		if got, err := alpn(t, addr, offer...); err != nil || got != offer[0] {
			t.Errorf("TLS, offering %v: %q, %v; want %q", offer, got, err, offer[0])
		}
	}

	// mTLS: the configuration of each client comes from the caller's
	// GetConfigForClient, with the same ALPN; its error fails the
	// handshake.
	inner := &tls.Config{Certificates: []tls.Certificate{cert}}
	fail := errors.New("no configuration for you")
	var refuse atomic.Bool
	mtls := &tls.Config{GetConfigForClient: func(hello *tls.ClientHelloInfo) (*tls.Config, error) {
		if refuse.Load() {
			return nil, fail
		}
		return inner, nil
	}}
	hs = NewServer(ok, mtls, log)
	addr = serveTLS(t, hs)
	if got, err := alpn(t, addr, "h2", "http/1.1"); err != nil || got != "h2" {
		t.Errorf("mTLS config: %q, %v; want h2", got, err)
	}
	if inner.NextProtos != nil {
		t.Errorf("NewServer changed the configuration in force: NextProtos %v", inner.NextProtos)
	}
	c, err := hs.TLSConfig.GetConfigForClient(&tls.ClientHelloInfo{})
	if err != nil || c == inner || !slices.Equal(c.NextProtos, []string{"h2", "http/1.1"}) {
		t.Errorf("GetConfigForClient = %+v, %v; want a clone offering h2 and http/1.1", c, err)
	}
	refuse.Store(true)
	if c, err := hs.TLSConfig.GetConfigForClient(&tls.ClientHelloInfo{}); c != nil || !errors.Is(err, fail) {
		t.Errorf("GetConfigForClient refusing = %v, %v; want its error", c, err)
	}
	if _, err := alpn(t, addr, "h2"); err == nil {
		t.Error("a handshake succeeded although the configuration in force refused it")
	}
}

// TestAPIEveryMethod: every method of the API reaches the service through
// its adapter, over h2c with connect-go's client: the unary ones the test
// service leaves out answer its UNIMPLEMENTED; a server stream carries
// its messages, headers and trailer; the bidirectional Connect echoes,
// ends at the client's end, and ends with the service's status, details
// and all; a traced call gets a server span under the caller's parent,
// marked as an error when the call fails.
func TestAPIEveryMethod(t *testing.T) {
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	t.Cleanup(func() { tp.Shutdown(context.Background()) })
	s := serveDoor(t, &testBridge{tp: tp}, Options{})
	var protocols http.Protocols
	protocols.SetUnencryptedHTTP2(true)
	h2c := &http.Client{Transport: &http.Transport{Protocols: &protocols}}
	t.Cleanup(h2c.CloseIdleConnections)
	c := mcpbridgev1connect.NewBridgeServiceClient(h2c, s.base)
	ctx, cancel := context.WithTimeout(t.Context(), testWait)
	defer cancel()

	unimplemented := map[string]error{}
	_, unimplemented["GetServer"] = c.GetServer(ctx, connect.NewRequest(&mcpbridgev1.GetServerRequest{}))
	_, unimplemented["ListTools"] = c.ListTools(ctx, connect.NewRequest(&mcpbridgev1.ListToolsRequest{}))
	_, unimplemented["ListResources"] = c.ListResources(ctx, connect.NewRequest(&mcpbridgev1.ListResourcesRequest{}))
	_, unimplemented["ListResourceTemplates"] = c.ListResourceTemplates(ctx, connect.NewRequest(&mcpbridgev1.ListResourceTemplatesRequest{}))
	_, unimplemented["ListPrompts"] = c.ListPrompts(ctx, connect.NewRequest(&mcpbridgev1.ListPromptsRequest{}))
	_, unimplemented["CallTool"] = c.CallTool(ctx, connect.NewRequest(&mcpbridgev1.CallToolRequest{}))
	_, unimplemented["ReadResource"] = c.ReadResource(ctx, connect.NewRequest(&mcpbridgev1.ReadResourceRequest{}))
	_, unimplemented["GetPrompt"] = c.GetPrompt(ctx, connect.NewRequest(&mcpbridgev1.GetPromptRequest{}))
	_, unimplemented["Complete"] = c.Complete(ctx, connect.NewRequest(&mcpbridgev1.CompleteRequest{}))
	_, unimplemented["Call"] = c.Call(ctx, connect.NewRequest(&mcpbridgev1.CallRequest{}))
	_, unimplemented["Ping"] = c.Ping(ctx, connect.NewRequest(&mcpbridgev1.PingRequest{}))
	_, unimplemented["RespondToServerRequest"] = c.RespondToServerRequest(ctx, connect.NewRequest(&mcpbridgev1.RespondToServerRequestRequest{}))
	for _, open := range []struct {
		name string
		err  func() error
	}{
		{"Subscribe", func() error {
			st, err := c.Subscribe(ctx, connect.NewRequest(&mcpbridgev1.SubscribeRequest{}))
			if err != nil {
				return err
			}
			defer st.Close()
			for st.Receive() {
			}
			return st.Err()
		}},
		{"CallStream", func() error {
			st, err := c.CallStream(ctx, connect.NewRequest(&mcpbridgev1.CallStreamRequest{}))
			if err != nil {
				return err
			}
			defer st.Close()
			for st.Receive() {
			}
			return st.Err()
		}},
	} {
		unimplemented[open.name] = open.err()
	}
	for name, err := range unimplemented {
		if connect.CodeOf(err) != connect.CodeUnimplemented || !strings.Contains(err.Error(), name) {
			t.Errorf("%s: %v, want the service's UNIMPLEMENTED naming it", name, err)
		}
	}

	// A server stream: three progress events, the headers set and sent,
	// the trailer.
	st, err := c.CallToolStream(ctx, connect.NewRequest(&mcpbridgev1.CallToolStreamRequest{Name: "abc"}))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for st.Receive() {
		n++
		if st.Msg().GetProgress().GetProgress() != float64(n) {
			t.Errorf("event %d: %v", n, st.Msg())
		}
	}
	if err := st.Err(); err != nil || n != 3 || st.ResponseHeader().Get("X-Stream") != "head" || st.ResponseHeader().Get("X-Sent") != "yes" ||
		st.ResponseTrailer().Get("X-Stream-End") != "tail" {
		t.Errorf("CallToolStream: %d events, %v, header %v, trailer %v; want 3 with the service's header and trailer", n, err, st.ResponseHeader(), st.ResponseTrailer())
	}
	st.Close()

	// Connect, as a client that ends, then as one the service refuses.
	bs := c.Connect(ctx)
	for _, m := range []string{"one", "two"} {
		if err := bs.Send(&mcpbridgev1.ConnectRequest{MessageJson: m}); err != nil {
			t.Fatal(err)
		}
		if got, err := bs.Receive(); err != nil || got.GetMessageJson() != m {
			t.Errorf("Connect echo of %s: %v, %v", m, got, err)
		}
	}
	bs.CloseRequest()
	if _, err := bs.Receive(); !errors.Is(err, io.EOF) {
		t.Errorf("Connect after the client's end: %v, want its end", err)
	}
	bs.CloseResponse()
	bs = c.Connect(ctx)
	if err := bs.Send(&mcpbridgev1.ConnectRequest{MessageJson: "fail"}); err != nil {
		t.Fatal(err)
	}
	_, err = bs.Receive()
	bs.CloseRequest()
	bs.CloseResponse()
	var ce *connect.Error
	if !errors.As(err, &ce) || ce.Code() != connect.CodeInvalidArgument || ce.Message() != "failed as asked" || len(ce.Details()) != 1 {
		t.Fatalf("Connect refused: %v, want INVALID_ARGUMENT with one detail", err)
	}
	if d, err := ce.Details()[0].Value(); err != nil || d.(*mcpbridgev1.JsonRpcError).GetCode() != -32602 {
		t.Errorf("the refusal's detail: %v, %v; want the JsonRpcError -32602", d, err)
	}

	// A traced call, and a traced failure.
	req := connect.NewRequest(&mcpbridgev1.ListServersRequest{})
	req.Header().Set("Traceparent", "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01")
	if _, err := c.ListServers(ctx, req); err != nil {
		t.Fatal(err)
	}
	var ok, failed sdktrace.ReadOnlySpan
	for _, sp := range rec.Ended() {
		switch sp.Name() {
		case "mcpbridge.v1.BridgeService/ListServers":
			ok = sp
		case "mcpbridge.v1.BridgeService/Ping":
			failed = sp
		}
	}
	if ok == nil || ok.Parent().TraceID().String() != "0af7651916cd43dd8448eb211c80319c" || ok.SpanKind() != trace.SpanKindServer || ok.Status().Code != otelcodes.Unset {
		t.Errorf("ListServers' span %v, want a server span under the caller's trace", ok)
	}
	if failed == nil || failed.Status().Code != otelcodes.Error {
		t.Errorf("Ping's span %v, want one marked as an error", failed)
	}
}

// TestToConnect: a status becomes a Connect error with its code, message
// and details; a context's end its code; a Connect error stays itself.
func TestToConnect(t *testing.T) {
	if toConnect(nil) != nil {
		t.Error("toConnect(nil) is not nil")
	}
	own := connect.NewError(connect.CodeAborted, errors.New("own"))
	if got := toConnect(own); got != own {
		t.Errorf("toConnect of a Connect error = %v, want it unchanged", got)
	}
	var ce *connect.Error
	if errors.As(toConnect(context.DeadlineExceeded), &ce); ce == nil || ce.Code() != connect.CodeDeadlineExceeded {
		t.Errorf("toConnect(context.DeadlineExceeded) = %v, want deadline_exceeded", ce)
	}
}
