package access

import (
	"context"
	"sync"
)

// Live is the credentials of a caller whose requests outlive one of its
// credentials: an MCP session over HTTP, where each POST carries the
// host's current access token, and a host refreshes a token that ends or
// steps up to one with more scopes, in the middle of the session
// (docs/authorization.md). The session's context holds a Live; each new
// request of the same caller renews it, and the session's checks (the
// rules, Watch's expiry) see the newest credentials.
type Live struct {
	mu sync.Mutex
	p  *Principal
	c  Credentials
}

// NewLiveContext returns ctx carrying p, presented as c, renewable with
// the returned Live.
func NewLiveContext(ctx context.Context, p *Principal, c Credentials) (context.Context, *Live) {
	l := &Live{p: p, c: c}
	return context.WithValue(ctx, principalKey{}, l), l
}

// Renew puts newer credentials of the same caller in force.
func (l *Live) Renew(p *Principal, c Credentials) {
	l.mu.Lock()
	l.p, l.c = p, c
	l.mu.Unlock()
}

// Current returns the principal and the credentials in force.
func (l *Live) Current() (*Principal, Credentials) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.p, l.c
}
