package bridge

// This file is authorization (docs/security.md): the interceptor that
// authenticates every BridgeService call (health stays open), what a
// request names for the rules (target), and the rules applied to what a
// list shows. The door (package internal/door) applies the rules to every request to a
// child.

import (
	"context"
	"errors"
	"strings"

	"github.com/grpc-ecosystem/go-grpc-middleware/v2/interceptors/logging"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/mcpbridge/mcpbridge/bridge/access"
	"github.com/mcpbridge/mcpbridge/bridge/internal/rpcerr"
)

// authenticate is the auth interceptor's function: the caller's principal
// in the context, or UNAUTHENTICATED with nothing that helps an attacker.
func (s *Service) authenticate(ctx context.Context) (context.Context, error) {
	if !s.door.Access().Auth.Enabled() {
		return ctx, nil
	}
	auth := s.door.Access().Auth
	p, err := auth.Authenticate(ctx)
	if err != nil {
		return nil, unauthenticated(auth, err)
	}
	ctx = access.NewContext(ctx, p)
	return logging.InjectFields(ctx, logging.Fields{"principal", p.Name, "auth", p.Method}), nil
}

// unauthenticated is the status of a caller whose credentials failed:
// UNAUTHENTICATED "authentication required", and for an OAuth resource
// server what a 401's WWW-Authenticate says (docs/authorization.md) in a
// google.rpc.ErrorInfo: resource_metadata, scope, error (invalid_token
// when a token was presented) and the header's whole value.
func unauthenticated(auth *access.Authenticator, err error) error {
	st := status.New(codes.Unauthenticated, "authentication required")
	rs := auth.ResourceServer()
	if rs == nil {
		return st.Err()
	}
	invalid := errors.Is(err, access.ErrInvalidToken)
	meta := map[string]string{
		"resource_metadata": rs.MetadataURL(""),
		"www_authenticate":  rs.Challenge("", invalid),
	}
	if scopes := rs.ScopesFor("", access.Server, ""); len(scopes) > 0 {
		meta["scope"] = strings.Join(scopes, " ")
	}
	if invalid {
		meta["error"] = "invalid_token"
	}
	if d, derr := st.WithDetails(&errdetails.ErrorInfo{Reason: rpcerr.ReasonUnauthenticated, Domain: rpcerr.Domain, Metadata: meta}); derr == nil {
		st = d
	}
	return st.Err()
}

// allowServer reports whether the caller of ctx may use server at all.
func (s *Service) allowServer(ctx context.Context, server string) bool {
	return s.door.Access().Rules.Allow(access.FromContext(ctx), server, access.Server, "")
}
