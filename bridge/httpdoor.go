package bridge

import (
	"context"
	"log/slog"
	"net/http"
	"time"

	"go.opentelemetry.io/otel/trace"
	"google.golang.org/grpc"

	"github.com/mcpbridge/mcpbridge/bridge/access"
	"github.com/mcpbridge/mcpbridge/bridge/internal/httpdoor"
	"github.com/mcpbridge/mcpbridge/bridge/internal/inproc"
	mcpbridgev1 "github.com/mcpbridge/mcpbridge/proto/mcpbridge/v1"
)

// The HTTP door (docs/operations.md, "HTTP"; docs/security.md, "Every
// door") is package internal/httpdoor: the guard before every path of the
// HTTP listener, the MCP endpoint's sessions opened in process (Open), and
// the API as Connect and gRPC-Web. This file is its public face and the
// bridge as the door sees it.

// Defaults of HTTPOptions.
const (
	// DefaultHTTPMaxSessions bounds the MCP connections the door keeps
	// open: 2025 sessions and callers' 2026 connections.
	DefaultHTTPMaxSessions = httpdoor.DefaultMaxSessions
	// DefaultHTTPBodyTimeout bounds the time a request body of one
	// message takes to arrive, from the end of its headers.
	DefaultHTTPBodyTimeout = httpdoor.DefaultBodyTimeout
)

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
	// Unary and Stream are the program's own interceptors of the API's
	// calls over HTTP, run innermost as those it passes to NewGRPCServer
	// are on the gRPC listener (grpc.ServerOption values cannot be read
	// back, so an embedder names its interceptors for both doors).
	Unary  []grpc.UnaryServerInterceptor
	Stream []grpc.StreamServerInterceptor
}

// HTTPDoor is the HTTP listener's handler: MCP Streamable HTTP at /mcp
// and /mcp/{server}, the gRPC API as Connect and gRPC-Web everywhere
// else, one guard before all of them. Serve runs one; a program that runs
// its own http.Server makes one with NewHTTPDoor, Shutdowns it when the
// bridge starts to drain, and Closes it before the grpc.Server stops.
type HTTPDoor struct{ d *httpdoor.Door }

// NewHTTPDoor returns the HTTP door of s. Its API calls run in process,
// behind the interceptors NewGRPCServer chains, then o's.
func (s *Service) NewHTTPDoor(o HTTPOptions) (*HTTPDoor, error) {
	unary, stream := s.interceptors()
	calls := inproc.New(&mcpbridgev1.BridgeService_ServiceDesc, s, append(unary, o.Unary...), append(stream, o.Stream...))
	d, err := httpdoor.New(doorBridge{s}, calls, httpdoor.Options{Origins: o.Origins, AnyHost: o.AnyHost, MaxSessions: o.MaxSessions, BodyTimeout: o.BodyTimeout})
	if err != nil {
		return nil, err
	}
	return &HTTPDoor{d: d}, nil
}

// ServeHTTP is the guard, then the path's handler.
func (h *HTTPDoor) ServeHTTP(w http.ResponseWriter, r *http.Request) { h.d.ServeHTTP(w, r) }

// Shutdown ends the MCP sessions and streams at the start of the
// bridge's shutdown, as the bridge ends its long-lived streams; later MCP
// requests get 503. The API's calls go on until the gRPC server stops.
func (h *HTTPDoor) Shutdown() { h.d.Shutdown() }

// Close ends what Shutdown ends and waits for it; the listener's own
// connections are the http.Server's to close.
func (h *HTTPDoor) Close() error { return h.d.Close() }

// doorBridge is the bridge as the HTTP door sees it.
type doorBridge struct{ s *Service }

func (b doorBridge) Open(ctx context.Context, server string, first []byte) (httpdoor.Session, error) {
	ss, err := b.s.Open(ctx, server, first)
	if err != nil {
		return nil, err
	}
	return doorSession{ss}, nil
}

func (b doorBridge) Authenticator() *access.Authenticator { return b.s.door.Access().Auth }
func (b doorBridge) HasServer(name string) bool {
	_, ok := b.s.serverSet()[name]
	_, agg := b.s.aggregateSet()[name]
	return ok || agg
}
func (b doorBridge) MaxMessageBytes() int                 { return b.s.cfg.MaxMessageBytes }
func (b doorBridge) Logger() *slog.Logger                 { return b.s.cfg.Logger }
func (b doorBridge) TracerProvider() trace.TracerProvider { return b.s.cfg.TracerProvider }

// doorSession is a Session as the HTTP door sees it.
type doorSession struct{ *Session }

func (d doorSession) SendBy(msg []byte, deadline time.Time) error { return d.sendBy(msg, deadline) }
