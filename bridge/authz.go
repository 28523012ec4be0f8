package bridge

// This file is authorization (docs/security.md): the interceptor that
// authenticates every BridgeService call (health stays open), what a
// request names for the rules (target), and the rules applied to what a
// list shows. The door (package internal/door) applies the rules to every request to a
// child.

import (
	"context"

	"github.com/grpc-ecosystem/go-grpc-middleware/v2/interceptors/logging"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/mcpbridge/mcpbridge/bridge/access"
)

// authenticate is the auth interceptor's function: the caller's principal
// in the context, or UNAUTHENTICATED with nothing that helps an attacker.
func (s *Service) authenticate(ctx context.Context) (context.Context, error) {
	if !s.door.Access().Auth.Enabled() {
		return ctx, nil
	}
	p, err := s.door.Access().Auth.Authenticate(ctx)
	if err != nil {
		return nil, status.Error(codes.Unauthenticated, "authentication required")
	}
	ctx = access.NewContext(ctx, p)
	return logging.InjectFields(ctx, logging.Fields{"principal", p.Name, "auth", p.Method}), nil
}

// allowServer reports whether the caller of ctx may use server at all.
func (s *Service) allowServer(ctx context.Context, server string) bool {
	return s.door.Access().Rules.Allow(access.FromContext(ctx), server, access.Server, "")
}
