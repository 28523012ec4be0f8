package bridge

// This file is the per-principal cap on a session server's sessions
// (docs/security.md, "Transport hardening"). SessionConfig.Max bounds the
// sessions of every caller together: without a cap of its own, one
// principal that opens Max sessions locks every other one out until its
// sessions idle out.

import (
	"fmt"

	"github.com/mcpbridge/mcpbridge/bridge/internal/rpcerr"
	"github.com/mcpbridge/mcpbridge/stdio/jsonrpc"
)

// normalizePerPrincipal checks MaxPerPrincipal and fills in its default:
// Max/4 rounded up (16 of the default 64), at least 1, so that four
// principals at their cap fill the server.
func (c *SessionConfig) normalizePerPrincipal(server string) error {
	if c.MaxPerPrincipal == 0 {
		c.MaxPerPrincipal = max(1, (c.Max+3)/4)
	}
	if c.MaxPerPrincipal > c.Max {
		return fmt.Errorf("bridge: server %q: session max_per_principal %d is above its max %d", server, c.MaxPerPrincipal, c.Max)
	}
	return nil
}

// principalFull is the refusal of a new session of principal who when who
// has MaxPerPrincipal sessions open; nil otherwise, and always without
// authentication (who is ""). A Connect stream's own session counts like
// a named one. srv.mu is held.
func (srv *fronted) principalFull(who, method string) error {
	if who == "" {
		return nil
	}
	open := 0
	for _, m := range srv.sessions {
		if m.owner == who {
			open++
		}
	}
	limit := srv.cfg.Session.MaxPerPrincipal
	if open < limit {
		return nil
	}
	return rpcerr.ToStatus(srv.name, method, &rpcerr.CallError{
		RPC: jsonrpc.WithData(jsonrpc.CodeInternalError,
			fmt.Sprintf("The server %q has the most sessions one principal may have (max_per_principal %d) open for this caller", srv.name, limit),
			map[string]any{"retryable": true, "limit": limit, "per": "principal"}),
		RetryAfter: srv.cfg.Session.IdleTimeout / 4,
	})
}
