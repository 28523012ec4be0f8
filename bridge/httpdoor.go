package bridge

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	connectcors "connectrpc.com/cors"
	"connectrpc.com/vanguard"
	"connectrpc.com/vanguard/vanguardgrpc"
	"github.com/rs/cors"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/peer"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protojson"

	"github.com/mcpbridge/mcpbridge/bridge/access"
	"github.com/mcpbridge/mcpbridge/bridge/internal/door"
	"github.com/mcpbridge/mcpbridge/internal/wire"
	mcpbridgev1 "github.com/mcpbridge/mcpbridge/proto/mcpbridge/v1"
	"github.com/mcpbridge/mcpbridge/stdio"
	"github.com/mcpbridge/mcpbridge/stdio/jsonrpc"
	"github.com/mcpbridge/mcpbridge/stdio/mcphttp"
)

// This file is the HTTP door (docs/operations.md, "HTTP"; docs/security.md,
// "Every door"): one listener beside gRPC that serves
//
//   - MCP Streamable HTTP at /mcp and /mcp/{server}, for remote MCP hosts
//     (package stdio/mcphttp). Each MCP session, and each caller's 2026
//     requests, is a Session opened in process (session.go): no gRPC
//     request is made to reach the bridge.
//   - the gRPC API over the Connect protocol and gRPC-Web, for browsers and
//     curl. Vanguard transcodes each request into a call on the bridge's
//     grpc.Server, whose interceptors treat it as any gRPC call.
//
// One guard stands before every path, before any byte of a body is read:
// the Host and Origin rule against DNS rebinding, authentication (401 with
// WWW-Authenticate), a bound on a body's size (413) and on the time it
// takes to arrive (408).

// Defaults of HTTPOptions.
const (
	// DefaultHTTPMaxSessions bounds the MCP connections the door keeps
	// open: 2025 sessions and callers' 2026 connections.
	DefaultHTTPMaxSessions = 256
	// DefaultHTTPBodyTimeout bounds the time a request body of one
	// message takes to arrive, from the end of its headers.
	DefaultHTTPBodyTimeout = 15 * time.Second
)

// bodySlack is what a body may hold beyond MaxMessageBytes: the envelope
// and the JSON spelling of a message the gRPC limit measures as protobuf.
const bodySlack = 64 << 10

// HTTPOptions are what the HTTP door serves and to whom.
type HTTPOptions struct {
	// Origins are the browser origins allowed besides loopback ones
	// (canonical, "https://app.example.com", or "*"): CORS for the API and
	// the MCP endpoint, and the Origin rule of every path.
	Origins []string
	// AnyHost accepts any Host header: a listener reachable from
	// elsewhere. Otherwise the Host must be a loopback name, on every path.
	AnyHost bool
	// MaxSessions bounds the MCP connections open at once (default
	// DefaultHTTPMaxSessions); a quarter of them, rounded up, is one
	// authenticated principal's share.
	MaxSessions int
	// BodyTimeout bounds the arrival of a body of one message (default
	// DefaultHTTPBodyTimeout). The bidirectional Connect RPC's body is a
	// stream and has none.
	BodyTimeout time.Duration
}

// HTTPDoor is the HTTP listener's handler. Shutdown it when the bridge
// starts to drain, and Close it before the grpc.Server stops.
type HTTPDoor struct {
	s       *Service
	o       HTTPOptions
	mux     *http.ServeMux
	mcp     *mcphttp.Adapter
	streams map[string]bool // the API's paths whose request body is a stream
}

// NewHTTPDoor returns the HTTP door of s, whose API calls gs serves (the
// grpc.Server that NewGRPCServer returned).
func (s *Service) NewHTTPDoor(gs *grpc.Server, o HTTPOptions) (*HTTPDoor, error) {
	if o.MaxSessions <= 0 {
		o.MaxSessions = DefaultHTTPMaxSessions
	}
	if o.BodyTimeout <= 0 {
		o.BodyTimeout = DefaultHTTPBodyTimeout
	}
	d := &HTTPDoor{s: s, o: o, mux: http.NewServeMux(), streams: map[string]bool{}}
	for _, m := range mcpbridgev1.BridgeService_ServiceDesc.Streams {
		if m.ClientStreams {
			d.streams["/"+mcpbridgev1.BridgeService_ServiceDesc.ServiceName+"/"+m.StreamName] = true
		}
	}
	mcp, err := mcphttp.New(mcphttp.Config{
		Start:       s.httpStart,
		Caller:      callerOf,
		Principal:   func(r *http.Request) string { return access.CallerID(r.Context()) },
		Origins:     o.Origins,
		AnyHost:     o.AnyHost,
		Logger:      s.cfg.Logger,
		MaxSessions: o.MaxSessions,
		// A message is at most a tunnel's message.
		MaxBodyBytes: int64(s.cfg.MaxMessageBytes),
	})
	if err != nil {
		return nil, fmt.Errorf("http: %w", err)
	}
	api, err := newAPIHandler(gs, o.Origins)
	if err != nil {
		mcp.Close()
		return nil, err
	}
	var mcpH http.Handler = mcp
	if len(o.Origins) > 0 {
		mcpH = cors.New(cors.Options{
			AllowedOrigins: o.Origins,
			AllowedMethods: []string{http.MethodGet, http.MethodPost, http.MethodDelete},
			// The transport's headers, Mcp-Param-* among them, and
			// Authorization.
			AllowedHeaders: []string{"*"},
			ExposedHeaders: []string{"Mcp-Session-Id", "Mcp-Protocol-Version", "Www-Authenticate", "Retry-After"},
			MaxAge:         2 * 60 * 60,
		}).Handler(mcp)
	}
	d.mcp = mcp
	d.mux.Handle(mcphttp.Endpoint, mcpH)
	d.mux.Handle(mcphttp.Endpoint+"/", mcpH)
	d.mux.Handle("/", api)
	return d, nil
}

// Shutdown ends the MCP sessions and streams at the start of the
// bridge's shutdown, as the bridge ends its long-lived streams; later MCP
// requests get 503. The API's calls go on until the gRPC server stops.
func (d *HTTPDoor) Shutdown() { d.mcp.Close() }

// Close ends what Shutdown ends and waits for it; the listener's own
// connections are the http.Server's to close.
func (d *HTTPDoor) Close() error { return d.mcp.Close() }

// pathKind is what a path of the door serves, for the words of a refusal.
type pathKind int

const (
	pathAPI     pathKind = iota // the Connect protocol (JSON or binary)
	pathGRPCWeb                 // gRPC-Web
	pathMCP                     // MCP Streamable HTTP
)

func kindOf(r *http.Request) pathKind {
	if r.URL.Path == mcphttp.Endpoint || strings.HasPrefix(r.URL.Path, mcphttp.Endpoint+"/") {
		return pathMCP
	}
	if strings.HasPrefix(strings.ToLower(r.Header.Get("Content-Type")), "application/grpc-web") {
		return pathGRPCWeb
	}
	return pathAPI
}

// ServeHTTP is the guard, then the path's handler.
func (d *HTTPDoor) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	kind := kindOf(r)
	if err := mcphttp.CheckOrigin(r, d.o.Origins, d.o.AnyHost); err != nil {
		var e *jsonrpc.Error
		msg := err.Error()
		if errors.As(err, &e) {
			msg = e.Message
		}
		refuseHTTP(w, kind, http.StatusForbidden, codes.PermissionDenied, msg, nil)
		return
	}
	preflight := r.Method == http.MethodOptions && r.Header.Get("Access-Control-Request-Method") != ""
	if auth := d.s.door.Access().Auth; auth.Enabled() && !preflight {
		p, err := auth.Check(access.RequestCredentials(r))
		if err != nil {
			// Nothing of the body is read, and an HTTP/1 connection is
			// not kept for a next request behind the unread body.
			w.Header().Set("Connection", "close")
			refuseHTTP(w, kind, http.StatusUnauthorized, codes.Unauthenticated, "authentication required",
				http.Header{"Www-Authenticate": {`Bearer realm="mcpbridge"`}})
			return
		}
		r = r.WithContext(access.NewContext(r.Context(), p))
	}
	if r.Body != nil && r.Body != http.NoBody && !d.streams[r.URL.Path] {
		if !d.readBody(w, r, kind) {
			return
		}
	}
	d.mux.ServeHTTP(w, r)
}

// readBody reads a body of one message in full, bounded in size and in
// time, and puts it back for the handler: a body that is too large is
// refused with 413 before it is read (or as soon as it is too large), one
// that is too slow with 408.
func (d *HTTPDoor) readBody(w http.ResponseWriter, r *http.Request, kind pathKind) bool {
	limit := int64(d.s.cfg.MaxMessageBytes) + bodySlack
	tooLarge := func() bool {
		w.Header().Set("Connection", "close")
		refuseHTTP(w, kind, http.StatusRequestEntityTooLarge, codes.ResourceExhausted,
			fmt.Sprintf("the request body is larger than %d bytes", limit), nil)
		return false
	}
	if r.ContentLength > limit {
		return tooLarge()
	}
	rc := http.NewResponseController(w)
	_ = rc.SetReadDeadline(time.Now().Add(d.o.BodyTimeout))
	var buf bytes.Buffer
	if r.ContentLength > 0 {
		buf.Grow(int(r.ContentLength))
	}
	_, err := buf.ReadFrom(http.MaxBytesReader(w, r.Body, limit))
	_ = rc.SetReadDeadline(time.Time{})
	if err != nil {
		var mbe *http.MaxBytesError
		var ne net.Error
		switch {
		case errors.As(err, &mbe):
			return tooLarge()
		case errors.As(err, &ne) && ne.Timeout():
			w.Header().Set("Connection", "close")
			refuseHTTP(w, kind, http.StatusRequestTimeout, codes.DeadlineExceeded,
				fmt.Sprintf("the request body did not arrive within %s", d.o.BodyTimeout), nil)
		}
		return false // else the client went away
	}
	r.Body = io.NopCloser(&buf)
	return true
}

// refuseHTTP answers a request the guard or the door refuses, in the
// spelling of its path: a JSON-RPC error for the MCP endpoint, a Connect
// error for the API, and for gRPC-Web the status in the headers as well.
// The HTTP status is the same for all.
func refuseHTTP(w http.ResponseWriter, kind pathKind, httpStatus int, code codes.Code, msg string, header http.Header) {
	for k, vv := range header {
		for _, v := range vv {
			w.Header().Add(k, v)
		}
	}
	switch kind {
	case pathMCP:
		body := wire.AppendError(nil, nil, (*wire.Error)(jsonrpc.Errorf(jsonrpc.CodeInvalidRequest, "%s", msg)))
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(httpStatus)
		w.Write(body)
	case pathGRPCWeb:
		w.Header().Set("Content-Type", "application/grpc-web+proto")
		w.Header().Set("Grpc-Status", strconv.Itoa(int(code)))
		w.Header().Set("Grpc-Message", encodeGRPCMessage(msg))
		w.WriteHeader(httpStatus)
	default:
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(httpStatus)
		fmt.Fprintf(w, `{"code":%q,"message":%q}`+"\n", connectCode(code), msg)
	}
}

// connectCode is a gRPC code as the Connect protocol spells it.
func connectCode(c codes.Code) string {
	switch c {
	case codes.PermissionDenied:
		return "permission_denied"
	case codes.Unauthenticated:
		return "unauthenticated"
	case codes.ResourceExhausted:
		return "resource_exhausted"
	case codes.DeadlineExceeded:
		return "deadline_exceeded"
	}
	return "unknown"
}

// encodeGRPCMessage percent-encodes a grpc-message header value.
func encodeGRPCMessage(msg string) string {
	var b strings.Builder
	for i := 0; i < len(msg); i++ {
		c := msg[i]
		if c < 0x20 || c > 0x7e || c == '%' {
			fmt.Fprintf(&b, "%%%02X", c)
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}

// callerOf names the credentials of an MCP request (mcphttp.Config's
// Caller): requests with the same Authorization, Mcp-Session and client
// certificate share connections, and a session answers only them. It is a
// hash, so that no credential is kept in the clear.
func callerOf(r *http.Request) string {
	h := sha256.New()
	for _, k := range []string{"Authorization", "Mcp-Session"} {
		for _, v := range r.Header.Values(k) {
			h.Write([]byte(v))
			h.Write([]byte{0})
		}
		h.Write([]byte{1})
	}
	if r.TLS != nil && len(r.TLS.PeerCertificates) > 0 {
		h.Write(r.TLS.PeerCertificates[0].Raw)
	}
	return string(h.Sum(nil))
}

// forwardedHeaders are the request headers an MCP session's caller
// carries as metadata: the credentials (watched while the session lasts),
// the bridge's session name, and the trace context.
var forwardedHeaders = []string{"Authorization", "Mcp-Session", "Traceparent", "Tracestate", "User-Agent"}

// httpCaller is the caller's context of a session that the MCP endpoint
// opens for r, on base (the endpoint's, which outlives r): the principal
// the guard found, the forwarded headers as metadata, the client's
// address and TLS state as its peer, and the door it came through.
func httpCaller(base context.Context, r *http.Request) context.Context {
	ctx := context.WithValue(base, viaKey{}, door.ViaHTTP)
	if p := access.FromContext(r.Context()); p != nil {
		ctx = access.NewContext(ctx, p)
	}
	md := metadata.MD{}
	for _, k := range forwardedHeaders {
		if v := r.Header.Values(k); len(v) > 0 {
			md[strings.ToLower(k)] = append([]string(nil), v...)
		}
	}
	ctx = metadata.NewIncomingContext(ctx, md)
	pr := &peer.Peer{Addr: remoteAddr(r.RemoteAddr)}
	if r.TLS != nil {
		pr.AuthInfo = credentials.TLSInfo{State: *r.TLS, CommonAuthInfo: credentials.CommonAuthInfo{SecurityLevel: credentials.PrivacyAndIntegrity}}
	}
	return peer.NewContext(ctx, pr)
}

// remoteAddr is an http.Request's RemoteAddr as a net.Addr.
func remoteAddr(s string) net.Addr {
	if ap, err := net.ResolveTCPAddr("tcp", s); err == nil {
		return ap
	}
	return stringAddr(s)
}

type stringAddr string

func (a stringAddr) Network() string { return "tcp" }
func (a stringAddr) String() string  { return string(a) }

// httpStart is the MCP endpoint's mcphttp.StartFunc: a Session opened in
// process for r's caller, under a Client that speaks to it as to a child.
// What refuses the session is answered with its HTTP status.
func (s *Service) httpStart(ctx context.Context, r *http.Request, server string, first []byte, cfg stdio.ClientConfig) (*stdio.Client, error) {
	ss, err := s.Open(httpCaller(ctx, r), server, first)
	if err != nil {
		return nil, httpRefusal(err)
	}
	inR, inW := io.Pipe()   // the Client's messages, into the session
	outR, outW := io.Pipe() // the session's messages, to the Client
	c, err := stdio.Open(inW, outR, cfg)
	if err != nil {
		ss.Close()
		return nil, err
	}
	var wg sync.WaitGroup
	wg.Go(func() { // the Client's lines into the session, until it closes stdin
		defer ss.CloseSend()
		lr := wire.NewReader(inR, s.cfg.MaxMessageBytes)
		for {
			line, err := lr.ReadLine()
			if err != nil {
				var tooLong *wire.LineTooLongError
				if errors.As(err, &tooLong) {
					continue // the Client writes no such line
				}
				return
			}
			if ss.Send(bytes.Clone(line)) != nil {
				return
			}
		}
	})
	go func() { // the session's messages out to the Client
		var err error
		for {
			var msg []byte
			if msg, err = ss.Recv(context.Background()); err != nil {
				break
			}
			if _, err = outW.Write(append(msg, '\n')); err != nil {
				break
			}
		}
		if !errors.Is(err, io.EOF) {
			cfg.Logger.Debug("mcpbridge: an MCP endpoint's session ended", "server", server, "error", err)
		}
		outW.Close()
		ss.Close()
		inR.Close()
		wg.Wait()
	}()
	go func() { // closing the Client ends the session
		select {
		case <-c.Closed():
			ss.Close()
		case <-ss.Done():
		}
	}()
	return c, nil
}

// httpRefusal maps a status that refused a session to the MCP endpoint's
// answer: the HTTP status of its code (401, 403, 404, 413, 429, 503), the
// status's JsonRpcError as the body, and Retry-After from its RetryInfo.
func httpRefusal(err error) error {
	st := status.Convert(err)
	he := &mcphttp.HTTPError{Status: http.StatusBadGateway, Header: http.Header{}}
	rpc := &jsonrpc.Error{Code: jsonrpc.CodeConnectionClosed, Message: st.Message()}
	for _, d := range st.Details() {
		switch d := d.(type) {
		case *mcpbridgev1.JsonRpcError:
			rpc = &jsonrpc.Error{Code: int64(d.GetCode()), Message: d.GetMessage()}
			if d.GetDataJson() != "" {
				rpc.Data = []byte(d.GetDataJson())
			}
		case *errdetails.RetryInfo:
			secs := max(1, int(d.GetRetryDelay().AsDuration().Round(time.Second)/time.Second))
			he.Header.Set("Retry-After", strconv.Itoa(secs))
		}
	}
	he.Err = rpc
	switch st.Code() {
	case codes.Unauthenticated:
		he.Status = http.StatusUnauthorized
		he.Header.Set("Www-Authenticate", `Bearer realm="mcpbridge"`)
	case codes.PermissionDenied:
		he.Status = http.StatusForbidden
	case codes.NotFound, codes.InvalidArgument:
		he.Status = http.StatusNotFound
	case codes.ResourceExhausted:
		he.Status = http.StatusTooManyRequests
	case codes.Unavailable:
		he.Status = http.StatusServiceUnavailable
	}
	return he
}

// newAPIHandler serves gs's services over Connect (JSON and binary) and
// gRPC-Web, with CORS for origins.
func newAPIHandler(gs *grpc.Server, origins []string) (http.Handler, error) {
	// JSON as grpcurl and connect-go write it: fields at their defaults
	// left out; unknown fields ignored, so that a client built from a newer
	// proto can call an older bridge.
	codec := vanguard.WithCodec(func(res vanguard.TypeResolver) vanguard.Codec {
		return vanguard.JSONCodec{
			MarshalOptions:   protojson.MarshalOptions{Resolver: res},
			UnmarshalOptions: protojson.UnmarshalOptions{Resolver: res, DiscardUnknown: true},
		}
	})
	t, err := vanguardgrpc.NewTranscoder(gs, codec)
	if err != nil {
		return nil, fmt.Errorf("http: %w", err)
	}
	// A POST of JSON or binary protobuf to a method's path is a Connect
	// unary call, with or without Connect-Protocol-Version: the bridge
	// serves no REST routes it could be mistaken for, and curl users need
	// not know the header.
	var h http.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && r.Header.Get("Connect-Protocol-Version") == "" {
			switch ct, _, _ := strings.Cut(r.Header.Get("Content-Type"), ";"); strings.TrimSpace(strings.ToLower(ct)) {
			case "application/json", "application/proto":
				r.Header.Set("Connect-Protocol-Version", "1")
			}
		}
		t.ServeHTTP(w, r)
	})
	if len(origins) == 0 {
		return h, nil
	}
	return cors.New(cors.Options{
		AllowedOrigins: origins,
		AllowedMethods: connectcors.AllowedMethods(),
		// Authorization carries bearer tokens and API keys; mcp-session
		// picks a session child.
		AllowedHeaders: append(connectcors.AllowedHeaders(), "Authorization", "Mcp-Session"),
		ExposedHeaders: connectcors.ExposedHeaders(),
		MaxAge:         2 * 60 * 60,
	}).Handler(h), nil
}
