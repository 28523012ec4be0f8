package bridge

// This file is the interceptors that keep each BridgeService call's
// credentials checked while it runs (package internal/door, Watch): a
// call whose credentials no longer hold ends UNAUTHENTICATED.

import (
	"context"
	"errors"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/mcpbridge/mcpbridge/bridge/internal/door"
)

// revoked replaces the outcome of a call whose credentials were revoked
// with UNAUTHENTICATED.
func revoked(ctx context.Context, err error) error {
	if err != nil && errors.Is(context.Cause(ctx), door.ErrRevoked) {
		return status.Error(codes.Unauthenticated, "authentication required")
	}
	return err
}

// reauthUnary and reauthStream watch each BridgeService call's
// credentials while it runs.
func (s *Service) reauthUnary(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
	ctx, stop := s.door.Watch(ctx)
	defer stop()
	resp, err := handler(ctx, req)
	return resp, revoked(ctx, err)
}

func (s *Service) reauthStream(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, handler grpc.StreamHandler) error {
	ctx, stop := s.door.Watch(ss.Context())
	defer stop()
	return revoked(ctx, handler(srv, watchedStream{ss, ctx}))
}

// watchedStream carries a watched call's context to its handler.
type watchedStream struct {
	grpc.ServerStream
	ctx context.Context
}

func (w watchedStream) Context() context.Context { return w.ctx }
