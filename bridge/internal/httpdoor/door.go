// Package httpdoor is the bridge's HTTP door (docs/operations.md, "HTTP";
// docs/security.md, "Every door"): one listener beside gRPC that serves
//
//   - MCP Streamable HTTP at /mcp and /mcp/{server}, for remote MCP hosts
//     (package stdio/mcphttp). Each MCP session, and each caller's 2026
//     requests, is a session the bridge opens in process (Bridge.Open):
//     no gRPC request is made to reach the bridge.
//   - the gRPC API over the Connect protocol, gRPC-Web and gRPC, for
//     browsers, curl and clients that cannot reach the gRPC listener.
//     connect-go decodes each call, and the bridge's handlers run it in
//     process behind the interceptors of every BridgeService call
//     ([Calls]): no gRPC request is made to reach them either.
//
// One guard stands before every path, before any byte of a body is read:
// the Host and Origin rule against DNS rebinding, authentication (401 with
// WWW-Authenticate), a bound on a body's size (413) and on the time it
// takes to arrive (408). The door knows the bridge only through [Bridge].
package httpdoor

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/rs/cors"
	"go.opentelemetry.io/otel/trace"
	"google.golang.org/grpc/codes"

	"github.com/mcpbridge/mcpbridge/bridge/access"
	"github.com/mcpbridge/mcpbridge/internal/wire"
	mcpbridgev1 "github.com/mcpbridge/mcpbridge/proto/mcpbridge/v1"
	"github.com/mcpbridge/mcpbridge/stdio/jsonrpc"
	"github.com/mcpbridge/mcpbridge/stdio/mcphttp"
)

// Defaults of Options.
const (
	// DefaultMaxSessions bounds the MCP connections the door keeps open:
	// 2025 sessions and callers' 2026 connections.
	DefaultMaxSessions = 256
	// DefaultBodyTimeout bounds the time a request body of one message
	// takes to arrive, from the end of its headers.
	DefaultBodyTimeout = 15 * time.Second
)

// bodySlack is what a body may hold beyond the message limit: the
// envelope and the JSON spelling of a message the gRPC limit measures as
// protobuf.
const bodySlack = 64 << 10

// Options are what the door serves and to whom (bridge.HTTPOptions).
type Options struct {
	Origins     []string
	AnyHost     bool
	MaxSessions int
	BodyTimeout time.Duration
}

// Session is a client's session with a fronted server (bridge.Session).
type Session interface {
	// SendBy hands the session a message of the client, given up at
	// deadline (zero: none) with os.ErrDeadlineExceeded. The session
	// keeps msg: the caller does not touch it again.
	SendBy(msg []byte, deadline time.Time) error
	CloseSend()
	Recv(ctx context.Context) ([]byte, error)
	Close() error
	Done() <-chan struct{}
}

// Bridge is what the door needs of the bridge.
type Bridge interface {
	// Open opens a session for the caller of ctx (httpCaller); a refusal
	// is a gRPC status with a JsonRpcError.
	Open(ctx context.Context, server string, first []byte) (Session, error)
	// Authenticator is the authenticator in force (a reload replaces it).
	Authenticator() *access.Authenticator
	// HasServer reports whether the bridge fronts a server of that name
	// (an aggregate's too).
	HasServer(name string) bool
	MaxMessageBytes() int
	Logger() *slog.Logger
	// TracerProvider is the bridge's (nil: calls are not traced).
	TracerProvider() trace.TracerProvider
}

// Door is the HTTP listener's handler. Shutdown it when the bridge starts
// to drain, and Close it before the grpc.Server stops.
type Door struct {
	b       Bridge
	o       Options
	mux     *http.ServeMux
	mcp     *mcphttp.Adapter
	streams map[string]bool // the API's paths whose request body is a stream
	lives   lives           // the sessions' renewable credentials
}

// New returns the door of b, whose API calls runs.
func New(b Bridge, calls Calls, o Options) (*Door, error) {
	if o.MaxSessions <= 0 {
		o.MaxSessions = DefaultMaxSessions
	}
	if o.BodyTimeout <= 0 {
		o.BodyTimeout = DefaultBodyTimeout
	}
	d := &Door{b: b, o: o, mux: http.NewServeMux(), streams: map[string]bool{}}
	for _, m := range mcpbridgev1.BridgeService_ServiceDesc.Streams {
		if m.ClientStreams {
			d.streams["/"+mcpbridgev1.BridgeService_ServiceDesc.ServiceName+"/"+m.StreamName] = true
		}
	}
	mcp, err := mcphttp.New(mcphttp.Config{
		Open:        d.open,
		Caller:      d.caller,
		Principal:   func(r *http.Request) string { return access.CallerID(r.Context()) },
		Origins:     o.Origins,
		AnyHost:     o.AnyHost,
		Logger:      b.Logger(),
		MaxSessions: o.MaxSessions,
		// A message is at most a session's message.
		MaxBodyBytes: int64(b.MaxMessageBytes()),
		Challenge:    d.scopeChallenge,
	})
	if err != nil {
		return nil, fmt.Errorf("http: %w", err)
	}
	api := newAPIHandler(calls, b.MaxMessageBytes(), b.TracerProvider(), o.Origins)
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
func (d *Door) Shutdown() { d.mcp.Close() }

// Close ends what Shutdown ends and waits for it; the listener's own
// connections are the http.Server's to close.
func (d *Door) Close() error { return d.mcp.Close() }

// pathKind is what a path of the door serves, for the words of a refusal.
type pathKind int

const (
	pathAPI     pathKind = iota // the Connect protocol (JSON or binary)
	pathGRPCWeb                 // gRPC-Web
	pathGRPC                    // gRPC over HTTP/2
	pathMCP                     // MCP Streamable HTTP
)

func kindOf(r *http.Request) pathKind {
	if r.URL.Path == mcphttp.Endpoint || strings.HasPrefix(r.URL.Path, mcphttp.Endpoint+"/") {
		return pathMCP
	}
	switch ct := strings.ToLower(r.Header.Get("Content-Type")); {
	case strings.HasPrefix(ct, "application/grpc-web"):
		return pathGRPCWeb
	case ct == "application/grpc" || strings.HasPrefix(ct, "application/grpc+") || strings.HasPrefix(ct, "application/grpc;"):
		return pathGRPC
	}
	return pathAPI
}

// ServeHTTP is the guard, then the path's handler.
func (d *Door) ServeHTTP(w http.ResponseWriter, r *http.Request) {
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
	auth := d.b.Authenticator()
	if rs := auth.ResourceServer(); isMetadataPath(r, rs) {
		d.serveMetadata(w, r, rs)
		return
	}
	if auth.Enabled() && !preflight {
		p, err := auth.Check(access.RequestCredentials(r))
		if err != nil {
			// Nothing of the body is read, and an HTTP/1 connection is
			// not kept for a next request behind the unread body.
			w.Header().Set("Connection", "close")
			refuseHTTP(w, kind, http.StatusUnauthorized, codes.Unauthenticated, "authentication required",
				http.Header{"Www-Authenticate": {challenge(auth, r, err)}})
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
func (d *Door) readBody(w http.ResponseWriter, r *http.Request, kind pathKind) bool {
	limit := int64(d.b.MaxMessageBytes()) + bodySlack
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
	body := http.MaxBytesReader(w, r.Body, limit)
	var buf *bytes.Buffer
	var err error
	if r.ContentLength > 0 {
		// Read into a slice of the body's size: ReadFrom would grow it
		// again, to keep room for a read past the end.
		b := make([]byte, r.ContentLength)
		_, err = io.ReadFull(body, b)
		buf = bytes.NewBuffer(b)
	} else {
		buf = new(bytes.Buffer)
		_, err = buf.ReadFrom(body)
	}
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
	r.Body = wholeBody{buf} // its Bytes spare the MCP endpoint a second read and copy (mcphttp)
	return true
}

// refuseHTTP answers a request the guard or the door refuses, in the
// spelling of its path: a JSON-RPC error for the MCP endpoint, a Connect
// error for the API, for gRPC-Web the status in the headers as well, and
// for gRPC the status alone, in a trailers-only answer. The HTTP status is
// the same for all but gRPC, whose clients read only grpc-status.
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
	case pathGRPC:
		// A trailers-only answer: a gRPC client takes the status from
		// grpc-status only under HTTP 200; under any other it makes one
		// up from the HTTP status, without the message.
		w.Header().Set("Content-Type", "application/grpc")
		w.Header().Set("Grpc-Status", strconv.Itoa(int(code)))
		w.Header().Set("Grpc-Message", encodeGRPCMessage(msg))
		w.WriteHeader(http.StatusOK)
	default:
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(httpStatus)
		body, _ := json.Marshal(struct {
			Code    string `json:"code"`
			Message string `json:"message"`
		}{connectCode(code), msg})
		w.Write(append(body, '\n'))
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

// wholeBody is a body the guard read whole.
type wholeBody struct{ *bytes.Buffer }

func (wholeBody) Close() error { return nil }
