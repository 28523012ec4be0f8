package door

import (
	"context"
	"fmt"
	"net"
	"testing"
	"testing/synctest"
	"time"

	"google.golang.org/grpc/peer"

	"github.com/mcpbridge/mcpbridge/bridge/access"
)

// TestLimiterRate: a caller's requests pass at the rate, with the burst
// (by default the rate rounded up); a refused one is told how long to
// wait, and takes no token.
func TestLimiterRate(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := NewLimiter(Limits{Rate: 2.5})
		ctx := caller("alice")
		for i := range 3 { // the burst: 2.5 rounded up
			if _, _, ok := l.Admit(ctx, true); !ok {
				t.Fatalf("request %d of the burst refused", i+1)
			}
		}
		_, wait, ok := l.Admit(ctx, true)
		if ok || wait != 400*time.Millisecond {
			t.Fatalf("over the burst: ok %v, wait %v; want refused for 400ms", ok, wait)
		}
		// The refusal took nothing: after the wait one more passes, and
		// only one.
		time.Sleep(wait)
		if _, _, ok := l.Admit(ctx, true); !ok {
			t.Errorf("refused after the wait it was told")
		}
		if _, _, ok := l.Admit(ctx, true); ok {
			t.Errorf("two passed after one token's wait")
		}
		// Another caller has a bucket of its own.
		if _, _, ok := l.Admit(caller("bob"), true); !ok {
			t.Errorf("another caller was refused")
		}

		withBurst := NewLimiter(Limits{Rate: 1, Burst: 5})
		for i := range 5 {
			if _, _, ok := withBurst.Admit(ctx, false); !ok {
				t.Fatalf("request %d of a burst of 5 refused", i+1)
			}
		}
		if _, wait, ok := withBurst.Admit(ctx, false); ok || wait != time.Second {
			t.Errorf("the sixth: ok %v, wait %v", ok, wait)
		}
	})
}

// TestLimiterConcurrency: a caller has at most Concurrent calls in flight;
// a release (once, however often it is called) makes room; requests that
// do not count as calls (streams that stay open) pass at the cap.
func TestLimiterConcurrency(t *testing.T) {
	l := NewLimiter(Limits{Concurrent: 2})
	ctx := caller("alice")
	r1, _, ok1 := l.Admit(ctx, true)
	r2, _, ok2 := l.Admit(ctx, true)
	if !ok1 || !ok2 {
		t.Fatal("calls under the cap refused")
	}
	if _, wait, ok := l.Admit(ctx, true); ok || wait != 100*time.Millisecond {
		t.Fatalf("a third call: ok %v wait %v, want refused for 100ms", ok, wait)
	}
	if rel, _, ok := l.Admit(ctx, false); !ok {
		t.Errorf("a request that does not count as a call was refused at the cap")
	} else {
		rel()
	}
	if _, _, ok := l.Admit(caller("bob"), true); !ok {
		t.Errorf("another caller was refused")
	}
	r1()
	r1()
	r3, _, ok := l.Admit(ctx, true)
	if !ok {
		t.Fatal("refused after a release")
	}
	if _, _, ok := l.Admit(ctx, true); ok {
		t.Errorf("a release called twice made room twice")
	}
	r2()
	r3()

	// No limits: everything passes, and no caller is tracked.
	var none *Limiter
	if rel, _, ok := none.Admit(ctx, true); !ok {
		t.Errorf("a nil limiter refused")
	} else {
		rel()
	}
	off := NewLimiter(Limits{})
	for range 3 {
		if _, _, ok := off.Admit(ctx, true); !ok {
			t.Fatalf("a limiter without limits refused")
		}
	}
	if len(off.callers) != 0 {
		t.Errorf("a limiter without limits tracks %d callers", len(off.callers))
	}
}

// TestLimiterEviction: past maxLimitedCallers the least recently seen
// caller without calls in flight is forgotten (its bucket starts full
// again); a caller with a call in flight is kept.
func TestLimiterEviction(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := NewLimiter(Limits{Rate: 1, Concurrent: 1})
		old, busy := caller("old"), caller("busy")
		rel, _, ok := l.Admit(busy, true) // held: busy has a call in flight
		if !ok {
			t.Fatal("busy refused")
		}
		defer rel()
		time.Sleep(time.Millisecond)
		if r, _, ok := l.Admit(old, true); !ok {
			t.Fatal("old refused")
		} else {
			r()
		}
		if _, _, ok := l.Admit(old, true); ok {
			t.Fatal("old's second request within the second passed")
		}
		time.Sleep(time.Millisecond)
		for i := range maxLimitedCallers - 2 {
			if r, _, ok := l.Admit(caller(fmt.Sprint("c", i)), true); !ok {
				t.Fatalf("caller %d refused", i)
			} else {
				r()
			}
		}
		if len(l.callers) != maxLimitedCallers {
			t.Fatalf("%d callers tracked, want %d", len(l.callers), maxLimitedCallers)
		}
		// One more: old, the least recently seen without a call in flight,
		// goes; busy, seen earlier but busy, stays.
		time.Sleep(time.Millisecond)
		if _, _, ok := l.Admit(caller("new"), true); !ok {
			t.Fatal("the new caller refused")
		}
		if len(l.callers) != maxLimitedCallers {
			t.Errorf("%d callers tracked, want still %d", len(l.callers), maxLimitedCallers)
		}
		if _, ok := l.callers["principal:apikey:old"]; ok {
			t.Errorf("the least recently seen caller was kept")
		}
		if _, _, ok := l.Admit(busy, true); ok {
			t.Errorf("busy was forgotten with a call in flight: its second call passed")
		}
		if _, _, ok := l.Admit(old, true); !ok {
			t.Errorf("a forgotten caller's bucket did not start full")
		}
	})
}

// TestCallerKey: a caller is its principal's ID; without one, its
// network address without the port; without either, one anonymous caller.
func TestCallerKey(t *testing.T) {
	withPeer := func(addr net.Addr) context.Context {
		return peer.NewContext(context.Background(), &peer.Peer{Addr: addr})
	}
	jwtAlice := access.NewContext(context.Background(), &access.Principal{Name: "alice", Method: "jwt"})
	for _, tc := range []struct {
		ctx  context.Context
		want string
	}{
		{caller("alice"), "principal:apikey:alice"},
		{jwtAlice, "principal:jwt:alice"},
		{withPeer(&net.TCPAddr{IP: net.IPv4(10, 0, 0, 7), Port: 4242}), "addr:10.0.0.7"},
		{withPeer(&net.TCPAddr{IP: net.ParseIP("::1"), Port: 1}), "addr:::1"},
		{withPeer(&net.UnixAddr{Name: "/run/bridge.sock", Net: "unix"}), "addr:/run/bridge.sock"},
		{peer.NewContext(context.Background(), &peer.Peer{}), "anonymous"},
		{context.Background(), "anonymous"},
	} {
		if got := callerKey(tc.ctx); got != tc.want {
			t.Errorf("callerKey = %q, want %q", got, tc.want)
		}
	}
	// Two connections from one host are one caller.
	l := NewLimiter(Limits{Concurrent: 1})
	if _, _, ok := l.Admit(withPeer(&net.TCPAddr{IP: net.IPv4(10, 0, 0, 7), Port: 1}), true); !ok {
		t.Fatal("refused")
	}
	if _, _, ok := l.Admit(withPeer(&net.TCPAddr{IP: net.IPv4(10, 0, 0, 7), Port: 2}), true); ok {
		t.Errorf("a second connection from the same host is another caller")
	}
}

// TestTooManyRequests: the wait is in the data in milliseconds, at least
// one.
func TestTooManyRequests(t *testing.T) {
	for _, tc := range []struct {
		after time.Duration
		want  string
	}{
		{1500 * time.Millisecond, `{"retryAfterMs":1500,"retryable":true}`},
		{time.Microsecond, `{"retryAfterMs":1,"retryable":true}`},
	} {
		if e := TooManyRequests(tc.after); string(e.Data) != tc.want {
			t.Errorf("TooManyRequests(%v) data = %s, want %s", tc.after, e.Data, tc.want)
		}
	}
}
