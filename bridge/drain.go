package bridge

import (
	"context"
	"errors"
	"strings"

	"google.golang.org/grpc"

	"github.com/mcpbridge/mcpbridge/bridge/internal/grpcdoor"
	"github.com/mcpbridge/mcpbridge/bridge/internal/rpcerr"
)

// This file ends the long-lived streams, Subscribe and Connect, when the
// bridge shuts down (docs/operations.md, "Graceful shutdown"). They have
// no end of their own, so a graceful stop that waited for them would
// always take the whole shutdown timeout; instead each ends at once with
// UNAVAILABLE and RetryInfo, and its client reconnects elsewhere or
// after the restart. Unary calls and the call streams keep running until
// they finish or the timeout ends them (Abort), also with UNAVAILABLE and
// RetryInfo, so that a replica's callers know at once to go elsewhere
// (docs/scaling.md).

// longLived returns the context of a long-lived stream: parent's, also
// cancelled (with rpcerr.ErrDraining) when the service drains, and already so
// when it has (the caller then refuses the stream: refusedDraining). end
// releases it.
func (s *Service) longLived(parent context.Context) (ctx context.Context, end func()) {
	ctx, cancel := context.WithCancelCause(parent)
	if s.draining.Err() != nil {
		// Now, not when AfterFunc's goroutine gets to it: a stream opened
		// after Drain could otherwise send its first message before it
		// learned that it is refused.
		cancel(rpcerr.ErrDraining)
		return ctx, func() {}
	}
	stop := context.AfterFunc(s.draining, func() { cancel(rpcerr.ErrDraining) })
	return ctx, func() {
		stop()
		cancel(nil)
	}
}

// abortable gives a call a context that Abort cancels with rpcerr.ErrDraining,
// and turns the outcome of a call so ended into UNAVAILABLE and RetryInfo.
func (s *Service) abortable(ctx context.Context, fullMethod string, call func(context.Context) error) error {
	ctx, cancel := context.WithCancelCause(ctx)
	if s.aborting.Err() != nil {
		// After Abort a call is refused, not started: AfterFunc's goroutine
		// would cancel it only later, and a quick call could finish first.
		cancel(rpcerr.ErrDraining)
		return rpcerr.Drained(ctx, grpcdoor.NewLogFields(coreView{s}).ServerName(ctx, nil), fullMethod[strings.LastIndexByte(fullMethod, '/')+1:], context.Cause(ctx))
	}
	stop := context.AfterFunc(s.aborting, func() { cancel(rpcerr.ErrDraining) })
	err := call(ctx)
	stop()
	cancel(nil)
	if err == nil || !errors.Is(context.Cause(ctx), rpcerr.ErrDraining) {
		return err
	}
	return rpcerr.Drained(ctx, grpcdoor.NewLogFields(coreView{s}).ServerName(ctx, nil), fullMethod[strings.LastIndexByte(fullMethod, '/')+1:], err)
}

func (s *Service) abortableUnary(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (resp any, err error) {
	err = s.abortable(ctx, info.FullMethod, func(ctx context.Context) error {
		resp, err = handler(ctx, req)
		return err
	})
	return resp, err
}

func (s *Service) abortableStream(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, handler grpc.StreamHandler) error {
	return s.abortable(ss.Context(), info.FullMethod, func(ctx context.Context) error {
		return handler(srv, abortStream{ss, ctx})
	})
}

// abortStream is a stream with the context abortable made.
type abortStream struct {
	grpc.ServerStream
	ctx context.Context
}

func (s abortStream) Context() context.Context { return s.ctx }
