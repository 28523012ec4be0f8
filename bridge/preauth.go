package bridge

// This file is authentication before a call's message is read
// (docs/security.md, "Transport hardening"). The auth interceptor runs
// after grpc-go has read and decoded a unary call's request, so that an
// unauthenticated caller could make the bridge read and decode a message
// of up to MaxMessageBytes before it was refused. A tap handle
// (grpc.InTapHandle) runs when a stream's headers arrive, before a byte of
// its messages is read: it refuses the caller there, and the stream ends
// with the tap's status (UNAUTHENTICATED "authentication required").

import (
	"context"
	"strings"

	"google.golang.org/grpc"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/tap"

	"github.com/mcpbridge/mcpbridge/bridge/access"
)

// maxHeaderListSize bounds the metadata of one call, which the bridge
// reads before it knows who the caller is. grpc-go's own bound is 16 MiB;
// a bridge call's metadata is a bearer token, mcp-server, mcp-session,
// traceparent and the values of env_from_metadata, which 64 KiB holds many
// times over (grpc-java's default is 8 KiB). A call whose metadata is
// larger fails (INTERNAL). An embedder that needs more passes its own
// grpc.MaxHeaderListSize to NewGRPCServer, whose options come last.
const maxHeaderListSize = 64 << 10

// isHealthMethod reports whether fullMethod ("/service/method") is a
// method of the gRPC health service, which probes reach without
// credentials.
func isHealthMethod(fullMethod string) bool {
	prefix := "/" + healthpb.Health_ServiceDesc.ServiceName + "/"
	return strings.HasPrefix(fullMethod, prefix)
}

// transportOptions are the grpc.Server options of the hardening: the tap
// and the metadata bound. grpc-go takes one tap handle per server and
// panics at a second, so NewGRPCServer's options cannot add another.
func (s *Service) transportOptions() []grpc.ServerOption {
	return []grpc.ServerOption{
		grpc.InTapHandle(s.tapAuthenticate),
		grpc.MaxHeaderListSize(maxHeaderListSize),
	}
}

// tapAuthenticate authenticates a call when its headers arrive, before its
// messages are read: with authentication on, a caller without valid
// credentials is refused there, and an authenticated one's principal goes
// into the context that the call's handlers get (authenticateOnce then
// takes it instead of authenticating again). Health stays open and is not
// looked at (grpcdoor.Health authenticates the callers that need it).
//
// The tap runs on the connection's reader goroutine, so that while it
// runs no other frame of that connection is read: it must be cheap. It is
// s.authenticate: an API key costs one SHA-256 and a map lookup; a JWT
// seen in the last minute one SHA-256 and a lookup in the cache of
// verified tokens, and a new one a signature verification; a JWT naming a
// key id the key set lacks makes the key set be fetched again, at most
// once a minute and bounded in time (bridge/access/jwks.go); a client
// certificate is read from the connection's peer, verified at the
// handshake.
func (s *Service) tapAuthenticate(ctx context.Context, info *tap.Info) (context.Context, error) {
	if isHealthMethod(info.FullMethodName) || !s.door.Access().Auth.Enabled() {
		return ctx, nil
	}
	return s.authenticate(ctx)
}

// authenticateOnce is the auth interceptor's function: the principal the
// tap found, or else s.authenticate (for a server built without the tap).
// With authentication on, a call without a principal is refused.
func (s *Service) authenticateOnce(ctx context.Context) (context.Context, error) {
	if access.FromContext(ctx) != nil {
		return ctx, nil
	}
	return s.authenticate(ctx)
}
