package door

// This file is the per-caller limits (docs/security.md, "Limits"): a
// request rate and a number of calls in flight per principal, for the
// whole bridge and per server, which the door applies to every request to
// a child (and package bridge's interceptors to the calls that reach
// none). The rate is
// golang.org/x/time/rate's token bucket. go-grpc-middleware's ratelimit
// interceptor is not used: it rewrites the limiter's error into a bare
// status, and a refused caller must get RetryInfo.

import (
	"context"
	"math"
	"net"
	"sync"
	"time"

	"golang.org/x/time/rate"
	"google.golang.org/grpc/peer"

	"github.com/mcpbridge/mcpbridge/bridge/access"
	"github.com/mcpbridge/mcpbridge/stdio/jsonrpc"
)

// Limits bound what one caller may ask: Rate requests a second (with
// Burst, default the rate rounded up), and Concurrent calls in flight.
// Zero: no limit. A caller is its principal, or, without authentication,
// its network address.
type Limits struct {
	Rate       float64
	Burst      int
	Concurrent int
}

func (l Limits) enabled() bool { return l.Rate > 0 || l.Concurrent > 0 }

// maxLimitedCallers bounds the callers a limiter tracks; the least
// recently seen is forgotten first (its bucket starts full again).
const maxLimitedCallers = 10000

// Limiter enforces Limits per caller.
type Limiter struct {
	limits Limits

	mu      sync.Mutex
	callers map[string]*callerLimit
}

type callerLimit struct {
	bucket   *rate.Limiter
	inFlight int
	seen     time.Time
}

// NewLimiter is the Limiter of l.
func NewLimiter(l Limits) *Limiter {
	if l.Burst <= 0 {
		l.Burst = max(1, int(math.Ceil(l.Rate)))
	}
	return &Limiter{limits: l, callers: map[string]*callerLimit{}}
}

// callerKey names the caller of ctx for limits.
func callerKey(ctx context.Context) string {
	if name := access.CallerID(ctx); name != "" {
		return "principal:" + name
	}
	if p, ok := peer.FromContext(ctx); ok && p.Addr != nil {
		host, _, err := net.SplitHostPort(p.Addr.String())
		if err != nil {
			host = p.Addr.String()
		}
		return "addr:" + host
	}
	return "anonymous"
}

// Admit takes one request of the caller of ctx: release when it ends
// (when concurrent counts it), or the wait after which a retry may pass.
func (l *Limiter) Admit(ctx context.Context, concurrent bool) (release func(), retryAfter time.Duration, ok bool) {
	if l == nil || !l.limits.enabled() {
		return func() {}, 0, true
	}
	key := callerKey(ctx)
	now := time.Now()
	l.mu.Lock()
	defer l.mu.Unlock()
	c := l.callers[key]
	if c == nil {
		if len(l.callers) >= maxLimitedCallers {
			l.forgetOldest()
		}
		c = &callerLimit{}
		if l.limits.Rate > 0 {
			c.bucket = rate.NewLimiter(rate.Limit(l.limits.Rate), l.limits.Burst)
		}
		l.callers[key] = c
	}
	c.seen = now
	if concurrent && l.limits.Concurrent > 0 && c.inFlight >= l.limits.Concurrent {
		return nil, 100 * time.Millisecond, false
	}
	if c.bucket != nil {
		r := c.bucket.ReserveN(now, 1)
		if d := r.DelayFrom(now); d > 0 {
			r.CancelAt(now)
			return nil, d, false
		}
	}
	if !concurrent || l.limits.Concurrent <= 0 {
		return func() {}, 0, true
	}
	c.inFlight++
	var once sync.Once
	return func() {
		once.Do(func() {
			l.mu.Lock()
			c.inFlight--
			l.mu.Unlock()
		})
	}, 0, true
}

// forgetOldest drops the least recently seen caller without calls in
// flight; l.mu is held.
func (l *Limiter) forgetOldest() {
	var oldest string
	var at time.Time
	for k, c := range l.callers {
		if c.inFlight == 0 && (oldest == "" || c.seen.Before(at)) {
			oldest, at = k, c.seen
		}
	}
	delete(l.callers, oldest)
}

// TooManyRequests is the JSON-RPC error of a request refused by a
// limit, after which a retry may pass: a tunnel gets it as is, with the
// wait in milliseconds as data.retryAfterMs (the MCP endpoint's 429 takes
// its Retry-After from it), a gRPC caller through exhausted, with the
// wait as RetryInfo too.
func TooManyRequests(after time.Duration) *jsonrpc.Error {
	return jsonrpc.WithData(jsonrpc.CodeInternalError, "Too many requests from this caller; retry later",
		map[string]any{"retryable": true, "retryAfterMs": max(after.Milliseconds(), 1)})
}
