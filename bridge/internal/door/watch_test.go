package door

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"errors"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/peer"

	"github.com/mcpbridge/mcpbridge/bridge/access"
)

// keyAuth is an authenticator of API keys: key → principal and groups.
func keyAuth(t *testing.T, keys ...access.APIKey) *access.Authenticator {
	t.Helper()
	a, err := access.New(context.Background(), access.Config{APIKeys: keys})
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func apiKey(principal, key string, groups ...string) access.APIKey {
	return access.APIKey{Principal: principal, SHA256: access.HashKey(key), Groups: groups}
}

// keyCall is the context of a call that presented key and was
// authenticated as p by a.
func keyCall(t *testing.T, a *access.Authenticator, key string) context.Context {
	t.Helper()
	ctx := metadata.NewIncomingContext(context.Background(), metadata.Pairs("authorization", "Bearer "+key))
	p, err := a.Authenticate(ctx)
	if err != nil {
		t.Fatalf("authenticating %q: %v", key, err)
	}
	return access.NewContext(ctx, p)
}

// revokedWithin waits, on the bubble's clock, for ctx to end and reports
// whether it was revoked.
func revokedWithin(ctx context.Context, d time.Duration) bool {
	select {
	case <-ctx.Done():
		return errors.Is(context.Cause(ctx), ErrRevoked)
	case <-time.After(d):
		return false
	}
}

// TestWatchReload: at each reload a watched call's credentials are
// checked against the new settings: a call whose key is still there,
// for the same principal and groups, goes on (and is watched at the next
// reload too); one whose key was removed, or now names other groups, ends
// with ErrRevoked, and the door refuses what it still sends.
func TestWatchReload(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		auth := keyAuth(t, apiKey("alice", "key-a", "dev"), apiKey("bob", "key-b"))
		d := New(auth, nil, Limits{})
		alice, stopAlice := d.Watch(keyCall(t, auth, "key-a"))
		defer stopAlice()
		bob, stopBob := d.Watch(keyCall(t, auth, "key-b"))
		defer stopBob()

		// The same keys, in new settings: both go on.
		d.SetAccess(keyAuth(t, apiKey("alice", "key-a", "dev"), apiKey("bob", "key-b")), nil)
		synctest.Wait()
		if alice.Err() != nil || bob.Err() != nil {
			t.Fatalf("a reload that kept the keys ended calls: %v, %v", context.Cause(alice), context.Cause(bob))
		}
		// alice's groups change; bob's key stays. Then bob's key goes.
		d.SetAccess(keyAuth(t, apiKey("alice", "key-a", "admin"), apiKey("bob", "key-b")), nil)
		if !revokedWithin(alice, time.Minute) {
			t.Fatalf("alice's call with other groups: %v, want revoked", context.Cause(alice))
		}
		synctest.Wait()
		if bob.Err() != nil {
			t.Fatalf("bob's call ended at the second reload: %v", context.Cause(bob))
		}
		d.SetAccess(keyAuth(t, apiKey("carol", "key-c")), nil)
		if !revokedWithin(bob, time.Minute) {
			t.Fatalf("bob's call after his key was removed: %v, want revoked", context.Cause(bob))
		}
		if _, ref := d.Admit(bob, NewRequest(ViaConnect, &Server{Name: "s"}, "tools/list", nil)); ref == nil || ref.Why != RefusedUnauthenticated {
			t.Errorf("a revoked call's next request: %+v, want refused unauthenticated", ref)
		}
	})
}

// TestWatchStop: a call that ended is no longer watched: its context is
// cancelled without ErrRevoked, and a later reload does nothing to it.
func TestWatchStop(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		auth := keyAuth(t, apiKey("alice", "key-a"))
		d := New(auth, nil, Limits{})
		ctx, stop := d.Watch(keyCall(t, auth, "key-a"))
		stop()
		stop()
		if ctx.Err() == nil || errors.Is(context.Cause(ctx), ErrRevoked) {
			t.Fatalf("after stop: %v, %v; want cancelled, not revoked", ctx.Err(), context.Cause(ctx))
		}
		d.SetAccess(keyAuth(t), nil)
		synctest.Wait()
		if errors.Is(context.Cause(ctx), ErrRevoked) {
			t.Errorf("a stopped watch was revoked by a reload")
		}
	})
}

// TestWatchAnonymous: without a principal (authentication off) there is
// nothing to watch: the context is the call's own.
func TestWatchAnonymous(t *testing.T) {
	d := New(nil, nil, Limits{})
	ctx := context.Background()
	got, stop := d.Watch(ctx)
	stop()
	if got != ctx || got.Err() != nil {
		t.Errorf("Watch without a principal = %v, %v; want the same context", got, got.Err())
	}
}

// countingCtx counts the lookups of a call's peer, one per check of its
// credentials (Authenticate reads the peer's TLS state).
type countingCtx struct {
	context.Context
	checks *atomic.Int32
}

func (c countingCtx) Value(key any) any {
	v := c.Context.Value(key)
	if _, ok := v.(*peer.Peer); ok {
		c.checks.Add(1)
	}
	return v
}

// certCall is the context of a call over mTLS with a client certificate
// of alice that expires at notAfter, counting the checks of its
// credentials.
func certCall(t *testing.T, a *access.Authenticator, notAfter time.Time, checks *atomic.Int32) (context.Context, *access.Principal) {
	t.Helper()
	cert := &x509.Certificate{Subject: pkix.Name{CommonName: "alice"}, NotAfter: notAfter}
	state := tls.ConnectionState{VerifiedChains: [][]*x509.Certificate{{cert}}}
	ctx := peer.NewContext(context.Background(), &peer.Peer{AuthInfo: credentials.TLSInfo{State: state}})
	ctx = countingCtx{ctx, checks}
	p, err := a.Authenticate(ctx)
	if err != nil {
		t.Fatalf("authenticating the certificate: %v", err)
	}
	checks.Store(0)
	return access.NewContext(ctx, p), p
}

// TestWatchExpiry: a call whose credentials expire (a client
// certificate's NotAfter) ends with ErrRevoked when they do, and not
// before; a reload in between does not change when.
func TestWatchExpiry(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		auth, err := access.New(context.Background(), access.Config{MTLS: true})
		if err != nil {
			t.Fatal(err)
		}
		d := New(auth, nil, Limits{})
		var checks atomic.Int32
		start := time.Now()
		call, p := certCall(t, auth, start.Add(time.Hour), &checks)
		if !p.Expires.Equal(start.Add(time.Hour)) {
			t.Fatalf("the principal expires at %v", p.Expires)
		}
		ctx, stop := d.Watch(call)
		defer stop()
		time.Sleep(30 * time.Minute)
		d.SetAccess(auth, nil) // a reload that keeps mTLS: checked, kept
		synctest.Wait()
		if ctx.Err() != nil {
			t.Fatalf("ended at a reload before the expiry: %v", context.Cause(ctx))
		}
		if n := checks.Load(); n != 1 {
			t.Errorf("%d checks at the reload, want 1", n)
		}
		if !revokedWithin(ctx, 2*time.Hour) {
			t.Fatalf("at the expiry: %v, want revoked", context.Cause(ctx))
		}
		if ended := time.Since(start); ended != time.Hour {
			t.Errorf("revoked after %v, want at the expiry (1h)", ended)
		}
	})
}

// TestWatchStopEndsTheExpiryCheck: once a call ends, its credentials are
// checked no more, at their expiry either, even when a reload checked
// them while it ran: nothing of the call is kept until then.
func TestWatchStopEndsTheExpiryCheck(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		auth, err := access.New(context.Background(), access.Config{MTLS: true})
		if err != nil {
			t.Fatal(err)
		}
		d := New(auth, nil, Limits{})
		var checks atomic.Int32
		call, _ := certCall(t, auth, time.Now().Add(time.Hour), &checks)
		_, stop := d.Watch(call)
		d.SetAccess(auth, nil)
		synctest.Wait()
		if n := checks.Load(); n != 1 {
			t.Fatalf("%d checks at the reload, want 1", n)
		}
		stop()
		time.Sleep(2 * time.Hour) // past the expiry, on the bubble's clock
		synctest.Wait()
		if n := checks.Load(); n != 1 {
			t.Errorf("%d checks in all: the credentials of a call that ended were checked at their expiry", n)
		}
	})
}
