package door

import (
	"context"
	"errors"
	"slices"
	"sync"
	"time"

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
// context with ErrRevoked; the call ends UNAUTHENTICATED, and the door
// refuses whatever it still sends. Nothing runs between checks: one
// context.AfterFunc on the access settings and one timer per call.

// ErrRevoked is the cause with which a call's context is cancelled when
// its caller's credentials no longer hold.
var ErrRevoked = errors.New("bridge: the caller's credentials no longer hold")

// Watch returns ctx, cancelled with ErrRevoked once the credentials it
// carries no longer hold, and the function that stops watching. With
// authentication off (no principal) it returns ctx itself.
func (d *Door) Watch(ctx context.Context) (context.Context, func()) {
	p := access.FromContext(ctx)
	if p == nil {
		return ctx, func() {}
	}
	ctx, cancel := context.WithCancelCause(ctx)
	w := &callerWatch{d: d, ctx: ctx, cancel: cancel, p: p}
	w.arm(d.Access())
	return ctx, w.stop
}

// callerWatch watches one call's credentials.
type callerWatch struct {
	d      *Door
	ctx    context.Context
	cancel context.CancelCauseFunc
	p      *access.Principal

	mu      sync.Mutex
	stopped bool
	unwatch func() bool // the AfterFunc on the access settings' replacement
	timer   *time.Timer // the credentials' expiry
}

// arm watches for the replacement of acc and for the expiry.
func (w *callerWatch) arm(acc *Access) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.stopped {
		return
	}
	w.unwatch = context.AfterFunc(acc.replaced, w.check)
	if exp := w.p.Expires; !exp.IsZero() && w.timer == nil {
		w.timer = time.AfterFunc(time.Until(exp), w.check)
	}
}

// check authenticates the call's credentials again against the settings
// in force, and ends the call when they fail or name someone else.
func (w *callerWatch) check() {
	acc := w.d.Access()
	q, err := acc.Auth.Authenticate(w.ctx)
	w.mu.Lock()
	p := w.p
	w.mu.Unlock()
	if err != nil || !samePrincipal(p, q) || expired(q) {
		w.cancel(ErrRevoked)
		return
	}
	// arm watches anew: what it replaces must not fire too (a reload's
	// check would otherwise leave the expiry's timer running, with the
	// call, past stop). The expiry is the credentials' in force: a
	// session's (access.Live) may have been renewed since.
	w.mu.Lock()
	w.p = q
	if w.timer != nil {
		w.timer.Stop()
		w.timer = nil
	}
	if w.unwatch != nil {
		w.unwatch()
	}
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

// expired reports credentials past their end.
func expired(p *access.Principal) bool {
	return !p.Expires.IsZero() && !time.Now().Before(p.Expires)
}
