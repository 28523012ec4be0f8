package bridge

import (
	"context"
	"errors"
	"slices"
	"sync"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/mcpbridge/mcpbridge/bridge/access"
)

// This file keeps a call's credentials checked for as long as the call
// lasts (docs/security.md, "Authentication"): a Subscribe or a Connect
// tunnel may stay open for hours, and a key removed by a reload or a token
// that expires must end it, not only refuse the next call. Every
// BridgeService call of an authenticated caller is watched: when the
// access settings are replaced (Reload) its credentials are checked again
// against the new ones, and when they expire (a JWT's exp, a client
// certificate's NotAfter) they are checked then. A check that fails, or
// that finds another principal or other groups, cancels the call's
// context with errRevoked; the call ends UNAUTHENTICATED, and the door
// refuses whatever it still sends. Nothing runs between checks: one
// context.AfterFunc on the access settings and one timer per call.

// errRevoked is the cause with which a call's context is cancelled when
// its caller's credentials no longer hold.
var errRevoked = errors.New("bridge: the caller's credentials no longer hold")

// watchCaller returns ctx, cancelled with errRevoked once the credentials
// it carries no longer hold, and the function that stops watching. With
// authentication off (no principal) it returns ctx itself.
func (s *Service) watchCaller(ctx context.Context) (context.Context, func()) {
	p := access.FromContext(ctx)
	if p == nil {
		return ctx, func() {}
	}
	ctx, cancel := context.WithCancelCause(ctx)
	w := &callerWatch{s: s, ctx: ctx, cancel: cancel, p: p}
	w.arm(s.access())
	return ctx, w.stop
}

// callerWatch watches one call's credentials.
type callerWatch struct {
	s      *Service
	ctx    context.Context
	cancel context.CancelCauseFunc
	p      *access.Principal

	mu      sync.Mutex
	stopped bool
	unwatch func() bool // the AfterFunc on the access settings' replacement
	timer   *time.Timer // the credentials' expiry
}

// arm watches for the replacement of acc and for the expiry.
func (w *callerWatch) arm(acc *accessState) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.stopped {
		return
	}
	w.unwatch = context.AfterFunc(acc.replaced, w.check)
	if exp := expiry(w.p); !exp.IsZero() && w.timer == nil {
		w.timer = time.AfterFunc(time.Until(exp), w.check)
	}
}

// check authenticates the call's credentials again against the settings
// in force, and ends the call when they fail or name someone else.
func (w *callerWatch) check() {
	acc := w.s.access()
	q, err := acc.auth.Authenticate(w.ctx)
	if err != nil || !samePrincipal(w.p, q) || expired(q) {
		w.cancel(errRevoked)
		return
	}
	w.mu.Lock()
	w.timer = nil
	w.mu.Unlock()
	w.arm(acc)
}

func (w *callerWatch) stop() {
	w.mu.Lock()
	w.stopped = true
	if w.unwatch != nil {
		w.unwatch()
	}
	if w.timer != nil {
		w.timer.Stop()
	}
	w.mu.Unlock()
	w.cancel(nil)
}

// samePrincipal reports whether a new check found the caller the call
// started with: the same principal, method and groups.
func samePrincipal(a, b *access.Principal) bool {
	return b != nil && a.Name == b.Name && a.Method == b.Method && slices.Equal(a.Groups, b.Groups)
}

// expiry is when the principal's credentials end; zero for never.
func expiry(p *access.Principal) time.Time { return p.Expires }

// expired reports credentials past their end.
func expired(p *access.Principal) bool {
	exp := expiry(p)
	return !exp.IsZero() && !time.Now().Before(exp)
}

// revoked replaces the outcome of a call whose credentials were revoked
// with UNAUTHENTICATED.
func revoked(ctx context.Context, err error) error {
	if err != nil && errors.Is(context.Cause(ctx), errRevoked) {
		return status.Error(codes.Unauthenticated, "authentication required")
	}
	return err
}

// reauthUnary and reauthStream watch each BridgeService call's
// credentials while it runs.
func (s *Service) reauthUnary(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
	ctx, stop := s.watchCaller(ctx)
	defer stop()
	resp, err := handler(ctx, req)
	return resp, revoked(ctx, err)
}

func (s *Service) reauthStream(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, handler grpc.StreamHandler) error {
	ctx, stop := s.watchCaller(ss.Context())
	defer stop()
	return revoked(ctx, handler(srv, watchedStream{ss, ctx}))
}

// watchedStream carries a watched call's context to its handler.
type watchedStream struct {
	grpc.ServerStream
	ctx context.Context
}

func (w watchedStream) Context() context.Context { return w.ctx }
