package bridge

import (
	"context"
	"errors"
	"time"

	"google.golang.org/grpc"

	"github.com/mcpbridge/mcpbridge/bridge/internal/rpcerr"
	mcpbridgev1 "github.com/mcpbridge/mcpbridge/proto/mcpbridge/v1"
	"github.com/mcpbridge/mcpbridge/stdio/jsonrpc"
)

// This file ends the long-lived streams, Subscribe and Connect, when the
// bridge shuts down (docs/operations.md, "Graceful shutdown"). They have
// no end of their own, so a graceful stop that waited for them would
// always take the whole shutdown timeout; instead each ends at once with
// UNAVAILABLE and RetryInfo, and its client reconnects elsewhere or
// after the restart. Unary calls and the call streams keep running until
// they finish or the timeout cancels them.

// errDraining is the cause with which Shutdown cancels a long-lived
// stream's context.
var errDraining = errors.New("bridge: shutting down")

// drainRetry is the RetryInfo delay of a stream ended by Shutdown.
const drainRetry = time.Second

// longLived returns the context of a long-lived stream: parent's, also
// cancelled (with errDraining) when the service drains. end releases it.
func (s *Service) longLived(parent context.Context) (ctx context.Context, end func()) {
	ctx, cancel := context.WithCancelCause(parent)
	stop := context.AfterFunc(s.draining, func() { cancel(errDraining) })
	return ctx, func() {
		stop()
		cancel(nil)
	}
}

// drained replaces the outcome of a long-lived stream that Shutdown ended
// with UNAVAILABLE and RetryInfo.
func drained(ctx context.Context, server, method string, err error) error {
	if !errors.Is(context.Cause(ctx), errDraining) {
		return err
	}
	return rpcerr.ToStatus(server, method, &rpcerr.CallError{
		RPC:        &jsonrpc.Error{Code: jsonrpc.CodeConnectionClosed, Message: "The bridge is shutting down"},
		RetryAfter: drainRetry,
	})
}

// subscribeStream and connectStream carry a long-lived stream's context
// to its handler.
type subscribeStream struct {
	grpc.ServerStreamingServer[mcpbridgev1.SubscribeResponse]
	ctx context.Context
}

func (s subscribeStream) Context() context.Context { return s.ctx }

type connectStream struct {
	grpc.BidiStreamingServer[mcpbridgev1.ConnectRequest, mcpbridgev1.ConnectResponse]
	ctx context.Context
}

func (s connectStream) Context() context.Context { return s.ctx }
