package main

import (
	"crypto/sha256"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"time"

	connectcors "connectrpc.com/cors"
	"connectrpc.com/vanguard"
	"connectrpc.com/vanguard/vanguardgrpc"
	"github.com/rs/cors"
	"google.golang.org/grpc"
	"google.golang.org/protobuf/encoding/protojson"

	"github.com/mcpbridge/mcpbridge/internal/mcphttp"
)

// The HTTP front door (docs/operations.md, "HTTP"), on a listener of its
// own beside gRPC:
//
//   - MCP Streamable HTTP at /mcp and /mcp/{server}, for remote MCP hosts
//     (package internal/mcphttp). Each MCP session, and each caller's 2026
//     requests, is a Connect tunnel opened in process on the bridge's own
//     grpc.Server with the HTTP request's credentials.
//   - the gRPC API over the Connect protocol and gRPC-Web, for browsers and
//     curl. Vanguard transcodes each request into a gRPC call on the same
//     grpc.Server.
//
// Either way a call passes through the same interceptors as one over gRPC:
// authentication, authorization, limits, audit, metrics and traces.
// Nothing here decides anything about a call.

// httpReadHeaderTimeout bounds how long a client may take to send a
// request's headers (a slow-loris guard); bodies and streams are bounded
// by the calls' own deadlines.
const httpReadHeaderTimeout = 10 * time.Second

// originsFlag is --http-cors-origin, repeatable.
type originsFlag []string

func (o *originsFlag) String() string { return strings.Join(*o, ",") }

func (o *originsFlag) Set(s string) error {
	c, err := canonicalOrigin(s)
	if err != nil {
		return err
	}
	*o = append(*o, c)
	return nil
}

// canonicalOrigin accepts "*" or an origin, scheme://host[:port] without
// a path, and returns it as browsers send it (mcphttp.CanonicalOrigin), so
// that https://App.example/ matches what a page on it sends.
func canonicalOrigin(s string) (string, error) {
	if s == "*" {
		return s, nil
	}
	c, ok := mcphttp.CanonicalOrigin(s)
	if !ok {
		return "", errors.New("want * or an origin such as https://app.example.com")
	}
	return c, nil
}

// httpMaxMCPConnections bounds the MCP connections the HTTP front door
// keeps open: 2025 sessions and callers' 2026 tunnels (mcphttp.Config's
// MaxSessions).
const httpMaxMCPConnections = 256

// httpOptions are what the HTTP front door serves and to whom.
type httpOptions struct {
	origins         []string // CORS, and the MCP endpoint's Origin check
	anyHost         bool     // the listener is not on loopback: any Host
	maxMessageBytes int
	log             *slog.Logger
}

// newHTTPHandler serves MCP Streamable HTTP at /mcp and below, and gs's
// services over Connect (JSON and binary) and gRPC-Web everywhere else,
// with CORS for the origins (none: no CORS headers, so browsers on other
// origins are refused by their own rules). The adapter it returns must be
// closed before gs stops.
func newHTTPHandler(gs *grpc.Server, o httpOptions) (http.Handler, *mcphttp.Adapter, error) {
	mcp, err := mcphttp.New(mcphttp.Config{
		Start:       mcphttp.Tunnel(gs, o.maxMessageBytes),
		Caller:      callerOf,
		Origins:     o.origins,
		AnyHost:     o.anyHost,
		Logger:      o.log,
		MaxSessions: httpMaxMCPConnections,
		// A message is at most a tunnel's message.
		MaxBodyBytes: int64(o.maxMessageBytes),
	})
	if err != nil {
		return nil, nil, fmt.Errorf("http: %w", err)
	}
	api, err := newAPIHandler(gs, o.origins)
	if err != nil {
		mcp.Close()
		return nil, nil, err
	}
	var mcpH http.Handler = mcp
	if len(o.origins) > 0 {
		mcpH = cors.New(cors.Options{
			AllowedOrigins: o.origins,
			AllowedMethods: []string{http.MethodGet, http.MethodPost, http.MethodDelete},
			// The transport's headers, Mcp-Param-* among them, and
			// Authorization.
			AllowedHeaders: []string{"*"},
			ExposedHeaders: []string{"Mcp-Session-Id", "Mcp-Protocol-Version", "Www-Authenticate"},
			MaxAge:         2 * 60 * 60,
		}).Handler(mcp)
	}
	mux := http.NewServeMux()
	mux.Handle(mcphttp.Endpoint, mcpH)
	mux.Handle(mcphttp.Endpoint+"/", mcpH)
	mux.Handle("/", api)
	return mux, mcp, nil
}

// callerOf names the credentials of an MCP request (mcphttp.Config's
// Caller): requests with the same Authorization, Mcp-Session and client
// certificate share tunnels, and a session answers only them. It is a
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

// httpFront is the running HTTP listener.
type httpFront struct {
	srv  *http.Server
	mcp  *mcphttp.Adapter
	done chan struct{}
}

// startHTTP serves h on lis, with TLS when tlsConfig is set (HTTP/1.1 and
// HTTP/2 by ALPN) and in plaintext otherwise (HTTP/1.1 and HTTP/2 without
// TLS, as curl --http2-prior-knowledge and gRPC-Web proxies speak it).
func startHTTP(lis net.Listener, h http.Handler, mcp *mcphttp.Adapter, tlsConfig *tls.Config, log *slog.Logger) *httpFront {
	var protocols http.Protocols
	protocols.SetHTTP1(true)
	if tlsConfig != nil {
		protocols.SetHTTP2(true)
		alpn := []string{"h2", "http/1.1"}
		tlsConfig = tlsConfig.Clone()
		tlsConfig.NextProtos = alpn
		if get := tlsConfig.GetConfigForClient; get != nil { // mTLS: the current CA pool's configuration
			tlsConfig.GetConfigForClient = func(hello *tls.ClientHelloInfo) (*tls.Config, error) {
				c, err := get(hello)
				if c != nil {
					c = c.Clone()
					c.NextProtos = alpn
				}
				return c, err
			}
		}
		lis = tls.NewListener(lis, tlsConfig)
	} else {
		protocols.SetUnencryptedHTTP2(true)
	}
	srv := &http.Server{
		Handler:           h,
		Protocols:         &protocols,
		ReadHeaderTimeout: httpReadHeaderTimeout,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
	f := &httpFront{srv: srv, mcp: mcp, done: make(chan struct{})}
	go func() {
		defer close(f.done)
		if err := srv.Serve(lis); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Error("mcpbridge: the HTTP listener failed", "error", err)
		}
	}()
	return f
}

// shutdown ends the MCP sessions and streams, and their tunnels, at the
// start of the bridge's shutdown, as the bridge ends its long-lived
// streams; later MCP requests get 503. The Connect and gRPC-Web calls go
// on until GracefulStop.
func (f *httpFront) shutdown() { f.mcp.Close() }

// close stops the listener and ends the connections left; the calls on
// them have ended by then (GracefulStop, or Abort).
func (f *httpFront) close() {
	f.mcp.Close()
	f.srv.Close()
	<-f.done
}
