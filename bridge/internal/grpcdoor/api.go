// Package grpcdoor is the gRPC API's handlers: every BridgeService RPC,
// the typed ones, Call and CallStream, CallToolStream, Subscribe, the
// server-request answers, the RPCs about the servers, and Connect as an
// adapter over a session (docs/architecture.md, "Doors"). It turns each
// RPC into requests that pass the door (package internal/door) to a child
// of the server it names, and each outcome into the message or status the
// caller gets. It knows the bridge only through Core; package bridge's
// Service embeds its API, and every door that serves the API (the gRPC
// listener, the HTTP listener's Connect and gRPC-Web through package
// inproc) runs these handlers behind the same interceptors.
package grpcdoor

import (
	"context"
	"log/slog"
	"time"

	"github.com/mcpbridge/mcpbridge/bridge/internal/aggregate"
	"github.com/mcpbridge/mcpbridge/bridge/internal/door"
	"github.com/mcpbridge/mcpbridge/bridge/internal/pool"
	mcpbridgev1 "github.com/mcpbridge/mcpbridge/proto/mcpbridge/v1"
)

// Core is the bridge as the handlers see it.
type Core interface {
	// Lookup finds the fronted server a request names, by its server
	// field or the mcp-server metadata; a failure is already a status.
	Lookup(ctx context.Context, field, method string) (*pool.Server, error)
	// Servers are the fronted servers in force, by name; not to be
	// modified.
	Servers() map[string]*pool.Server
	// Aggregate is the aggregated server a request names by its server
	// field or the mcp-server metadata, or nil when it names none.
	Aggregate(ctx context.Context, field string) *aggregate.Server
	// Aggregates are the aggregated servers in force, sorted by name.
	Aggregates() []*aggregate.Server
	// AllowServer reports whether the caller of ctx may use the server
	// at all.
	AllowServer(ctx context.Context, server string) bool
	// Authenticate is ctx with the caller's principal, or UNAUTHENTICATED
	// (with authentication off, ctx as it is): the health service's
	// check of the callers that ask about a server.
	Authenticate(ctx context.Context) (context.Context, error)
	// Door is the one pipeline of every request to a child.
	Door() *door.Door
	// LongLived is the context of a stream that stays open: ctx's, also
	// cancelled with rpcerr.ErrDraining when the bridge drains (already
	// so when it has); end releases it.
	LongLived(ctx context.Context) (_ context.Context, end func())
	// Open opens a session for the caller of ctx with its first message
	// (package bridge's Service.Open); a refusal is already a status.
	Open(ctx context.Context, server string, first []byte) (Session, error)
	MaxMessageBytes() int
	DefaultDeadline() time.Duration
	Logger() *slog.Logger
}

// Session is a client's session with a fronted server (package bridge's
// Session), as Connect adapts it.
type Session interface {
	Send(msg []byte) error // the session keeps msg

	CloseSend()
	Recv(ctx context.Context) ([]byte, error)
	Close() error
	Server() string
}

// API is mcpbridge.v1.BridgeService over a Core.
type API struct {
	mcpbridgev1.UnimplementedBridgeServiceServer
	core    Core
	inboxes taskInboxes // the questions of tasks on legacy children (taskinbox.go)
}

// New returns the API of core.
func New(core Core) *API { return &API{core: core} }

// connectMethod is the method name of a session's opening, for its
// refusals.
const connectMethod = "Connect"
