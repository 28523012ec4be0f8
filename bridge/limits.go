package bridge

// This file applies the bridge-wide limits (package internal/door's
// Limiter) to the BridgeService calls that reach no child; the door
// applies them, and the server's, to every request to a child.

import (
	"context"
	"time"

	"google.golang.org/grpc"

	"github.com/mcpbridge/mcpbridge/bridge/internal/door"
	"github.com/mcpbridge/mcpbridge/bridge/internal/rpcerr"
)

// exhausted is the status of a refused request.
func exhausted(server, method string, retryAfter time.Duration) error {
	return rpcerr.ToStatus(server, method, &rpcerr.CallError{RPC: door.TooManyRequests(retryAfter), RetryAfter: max(retryAfter, time.Millisecond)})
}

// doorMethods are the RPCs whose requests pass the door (package internal/door), which
// applies the bridge-wide limits to each request to a child (to each of a
// tunnel's requests, too); the interceptors limit the others (ListServers,
// RespondToServerRequest, reflection). Listed rather than derived, so that
// a new RPC is limited here until it is known to pass the door.
var doorMethods = map[string]bool{}

func init() {
	for _, m := range []string{"GetServer", "Ping", "ListTools", "ListResources", "ListResourceTemplates", "ListPrompts",
		"CallTool", "ReadResource", "GetPrompt", "Complete", "CallToolStream", "Subscribe", "Call", "CallStream", "Connect"} {
		doorMethods["/mcpbridge.v1.BridgeService/"+m] = true
	}
}

// limitUnary and limitStream apply Config.Limits to the BridgeService
// calls that do not pass the door, after authentication.
func (s *Service) limitUnary(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
	if doorMethods[info.FullMethod] {
		return handler(ctx, req)
	}
	release, wait, ok := s.door.Limiter().Admit(ctx, true)
	if !ok {
		return nil, exhausted("", info.FullMethod, wait)
	}
	defer release()
	return handler(ctx, req)
}

func (s *Service) limitStream(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, handler grpc.StreamHandler) error {
	if doorMethods[info.FullMethod] {
		return handler(srv, ss)
	}
	// The other streams are reflection's, which a client such as grpcurl
	// keeps open beside its calls: they count for the rate only.
	release, wait, ok := s.door.Limiter().Admit(ss.Context(), false)
	if !ok {
		return exhausted("", info.FullMethod, wait)
	}
	defer release()
	return handler(srv, ss)
}
