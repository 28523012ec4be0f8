package supervisor

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"sync"
	"syscall"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpbridge/mcpbridge/stdio"
	"github.com/mcpbridge/mcpbridge/stdio/jsonrpc"
)

// The supervisor's timing (backoff, crash-loop limit, the healthy-minute
// reset, RetryAfter, escalation) runs here under testing/synctest, with a
// fake process in place of a child: fake time makes the intervals exact
// and the tests instant. bridge/child_test.go runs the same life cycle
// with real processes, through gRPC.

// fakeProc is a child process as the supervisor sees it. It exits at EOF
// (Close) unless dieOn says which signal it needs.
type fakeProc struct {
	pid   int
	dieOn syscall.Signal // 0: EOF; SIGTERM; SIGKILL; -1: never (an escaped descendant holds its output)
	t0    time.Time

	closed chan struct{}
	done   chan struct{}

	mu      sync.Mutex
	err     error
	signals []sent
}

// sent is one Signal call: which signal, how long after t0.
type sent struct {
	Sig syscall.Signal
	At  time.Duration
}

func newFakeProc(pid int, dieOn syscall.Signal, t0 time.Time) *fakeProc {
	return &fakeProc{pid: pid, dieOn: dieOn, t0: t0, closed: make(chan struct{}), done: make(chan struct{})}
}

func (p *fakeProc) Pid() int                { return p.pid }
func (p *fakeProc) Closed() <-chan struct{} { return p.closed }
func (p *fakeProc) Done() <-chan struct{}   { return p.done }

func (p *fakeProc) Err() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.err
}

// end ends the connection with err, once.
func (p *fakeProc) end(err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.err == nil {
		p.err = err
		close(p.closed)
	}
}

// exit ends the connection with an exit status and marks the process gone.
func (p *fakeProc) exit(x *stdio.ExitError) {
	p.end(&jsonrpc.Error{Code: jsonrpc.CodeConnectionClosed, Message: "The stdio server exited", Cause: x})
	p.mu.Lock()
	defer p.mu.Unlock()
	select {
	case <-p.done:
	default:
		close(p.done)
	}
}

// crash is the child dying on its own.
func (p *fakeProc) crash(code int) { p.exit(&stdio.ExitError{Code: code}) }

func (p *fakeProc) Close() error {
	p.end(&jsonrpc.Error{Code: jsonrpc.CodeConnectionClosed, Message: "Connection closed"})
	p.mu.Lock()
	dieOn := p.dieOn
	p.mu.Unlock()
	if dieOn == 0 {
		p.exit(&stdio.ExitError{})
	}
	return nil
}

func (p *fakeProc) Signal(sig syscall.Signal) error {
	p.mu.Lock()
	p.signals = append(p.signals, sent{sig, time.Since(p.t0)})
	dieOn := p.dieOn
	p.mu.Unlock()
	select {
	case <-p.done:
		return os.ErrProcessDone
	default:
	}
	if dieOn >= 0 && (sig == syscall.SIGKILL || sig == dieOn) {
		p.exit(&stdio.ExitError{Code: -1, Signal: sig.String()})
	}
	return nil
}

func (p *fakeProc) sent() []sent {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]sent(nil), p.signals...)
}

// fakeStarter is the supervisor's start function in these tests: outcome
// decides each start (a process, or an error), and every start is
// recorded.
type fakeStarter struct {
	t0      time.Time
	outcome func(n int) (*fakeProc, error) // n counts from 0

	mu    sync.Mutex
	at    []time.Duration // when each start happened, after t0
	procs []*fakeProc
}

func (f *fakeStarter) start(ctx context.Context, _ func(Process)) (*fakeProc, error) {
	f.mu.Lock()
	n := len(f.at)
	f.at = append(f.at, time.Since(f.t0))
	f.mu.Unlock()
	p, err := f.outcome(n)
	if err != nil {
		return nil, err
	}
	f.mu.Lock()
	f.procs = append(f.procs, p)
	f.mu.Unlock()
	return p, nil
}

func (f *fakeStarter) starts() []time.Duration {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]time.Duration(nil), f.at...)
}

// last is the most recently started process.
func (f *fakeStarter) last() *fakeProc {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.procs[len(f.procs)-1]
}

// alwaysFails is a start outcome: a child that exits before negotiating.
func alwaysFails(int) (*fakeProc, error) {
	return nil, &jsonrpc.Error{Code: jsonrpc.CodeConnectionClosed, Message: "The stdio server exited", Cause: &stdio.ExitError{Code: 1}}
}

// healthLog records the supervisor's health reports.
type healthLog struct {
	mu  sync.Mutex
	got []bool
}

func (h *healthLog) report(serving bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if n := len(h.got); n == 0 || h.got[n-1] != serving {
		h.got = append(h.got, serving)
	}
}

func (h *healthLog) changes() []bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]bool(nil), h.got...)
}

// The defaults the bridge gives a server.
const (
	defaultGrace       = 5 * time.Second
	defaultMaxRestarts = 5
)

// fakeSupervisor starts a supervisor over f inside the current bubble; the
// test stops it.
func fakeSupervisor(cfg Config[*fakeProc], f *fakeStarter, h *healthLog) *Supervisor[*fakeProc] {
	if cfg.Grace == 0 {
		cfg.Grace = defaultGrace
	}
	if cfg.MaxRestarts == 0 {
		cfg.MaxRestarts = defaultMaxRestarts
	}
	if h != nil {
		cfg.Health = h.report
	}
	if cfg.Start == nil {
		cfg.Start = f.start
	}
	cfg.Logger = slog.New(slog.DiscardHandler)
	return New(cfg)
}

func (s *Supervisor[P]) currentState() State { return s.Status().State }

// waitState waits until the supervisor is in state want, or Failed or
// Stopping, which it never leaves, and returns the state it found.
func (s *Supervisor[P]) waitState(want State) State {
	for {
		st := s.Status()
		switch st.State {
		case want, Failed, Stopping:
			return st.State
		}
		<-st.Changed
	}
}

// unavailable checks that err is an *UnavailableError with retry after
// the given delay (0: none).
func unavailable(t *testing.T, what string, err error, retry time.Duration) {
	t.Helper()
	var u *UnavailableError
	if !errors.As(err, &u) || u.RetryAfter != retry {
		t.Errorf("%s = %v, want an UnavailableError with RetryAfter %v", what, err, retry)
	}
}

// gaps returns the intervals between consecutive times.
func gaps(at []time.Duration) []time.Duration {
	var d []time.Duration
	for i := 1; i < len(at); i++ {
		d = append(d, at[i]-at[i-1])
	}
	return d
}

func millis(n ...int) []time.Duration {
	d := make([]time.Duration, len(n))
	for i, v := range n {
		d[i] = time.Duration(v) * time.Millisecond
	}
	return d
}

// A server that never starts is retried after 100 ms, then 200, 400, 800
// and 1600 ms: MaxRestarts (5) restarts. The sixth failure opens the
// circuit: the server is Failed, calls get UNAVAILABLE at once with the
// time until the next try, and a start is tried every MaxBackoff (30 s).
func TestSupervisorBackoffUntilCrashLoopLimit(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := &fakeStarter{t0: time.Now(), outcome: alwaysFails}
		s := fakeSupervisor(Config[*fakeProc]{}, f, nil)
		defer s.Stop()

		time.Sleep(3100*time.Millisecond + 95*time.Second)
		synctest.Wait()
		if diff := cmp.Diff(millis(100, 200, 400, 800, 1600, 30000, 30000, 30000), gaps(f.starts())); diff != "" {
			t.Errorf("intervals between starts (-want +got):\n%s", diff)
		}
		info := s.Status()
		if info.State != Failed || info.Restarts != 8 || info.LastExit != "exit status 1" {
			t.Errorf("Status() = %+v, want state Failed, 8 restarts, last exit \"exit status 1\"", info)
		}
		_, err := s.Acquire(t.Context())
		unavailable(t, "Acquire in Failed", err, 25*time.Second) // the next try is at 123.1 s
	})
}

// The backoff doubles up to MaxBackoff and stays there, before and after
// the circuit opens; both bounds are settings.
func TestSupervisorBackoffIsCapped(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := &fakeStarter{t0: time.Now(), outcome: alwaysFails}
		s := fakeSupervisor(Config[*fakeProc]{MaxRestarts: 12}, f, nil)
		defer s.Stop()

		time.Sleep(time.Hour)
		synctest.Wait()
		want := millis(100, 200, 400, 800, 1600, 3200, 6400, 12800, 25600, 30000, 30000, 30000, 30000, 30000)
		if diff := cmp.Diff(want, gaps(f.starts())[:len(want)]); diff != "" {
			t.Errorf("intervals between starts (-want +got):\n%s", diff)
		}
		if got := s.currentState(); got != Failed {
			t.Errorf("state after 13 failures = %v, want Failed", got)
		}
	})
	synctest.Test(t, func(t *testing.T) {
		f := &fakeStarter{t0: time.Now(), outcome: alwaysFails}
		s := fakeSupervisor(Config[*fakeProc]{MaxRestarts: 3, InitialBackoff: time.Second, MaxBackoff: 5 * time.Second}, f, nil)
		defer s.Stop()

		time.Sleep(20 * time.Second)
		synctest.Wait()
		if diff := cmp.Diff(millis(1000, 2000, 4000, 5000, 5000), gaps(f.starts())); diff != "" {
			t.Errorf("intervals with a 1 s initial and 5 s maximum backoff (-want +got):\n%s", diff)
		}
	})
}

// A server that crashed six times in a row and would then work is found:
// the circuit half-opens, the next try succeeds, and the server serves.
func TestSupervisorCircuitHalfOpens(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		t0 := time.Now()
		f := &fakeStarter{t0: t0, outcome: func(n int) (*fakeProc, error) {
			if n < 6 {
				return alwaysFails(n)
			}
			return newFakeProc(100+n, 0, t0), nil
		}}
		h := &healthLog{}
		s := fakeSupervisor(Config[*fakeProc]{}, f, h)
		defer s.Stop()

		time.Sleep(3200 * time.Millisecond) // the five restarts and the sixth failure
		synctest.Wait()
		if got := s.currentState(); got != Failed {
			t.Fatalf("state after six failures = %v, want Failed", got)
		}
		time.Sleep(30 * time.Second)
		synctest.Wait()
		c, err := s.Acquire(t.Context())
		if err != nil || c.Pid() != 106 {
			t.Fatalf("Acquire after the half-open try = %v, %v; want the seventh child", c, err)
		}
		if diff := cmp.Diff([]bool{false, true}, h.changes()); diff != "" {
			t.Errorf("health changes (-want +got):\n%s", diff)
		}
	})
}

// While the supervisor waits to restart, calls fail at once with
// UNAVAILABLE and a RetryInfo that counts down to the next start; health
// is NOT_SERVING until the new child is ready, then SERVING again.
func TestSupervisorRetryInfoWhileRestarting(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		t0 := time.Now()
		f := &fakeStarter{t0: t0, outcome: func(n int) (*fakeProc, error) { return newFakeProc(100+n, 0, t0), nil }}
		h := &healthLog{}
		s := fakeSupervisor(Config[*fakeProc]{}, f, h)
		defer s.Stop()

		synctest.Wait()
		first := s.Status()
		if first.State != Ready || first.Child.Pid() != 100 {
			t.Fatalf("Status() after start = %+v, want Ready with pid 100", first)
		}

		// A call in flight sees the connection end as early as the
		// supervisor does; RetryAfter waits for the supervisor to act.
		f.last().crash(3)
		if got, want := s.RetryAfter(), 100*time.Millisecond; got != want {
			t.Errorf("RetryAfter() right after the crash = %v, want %v", got, want)
		}
		time.Sleep(30 * time.Millisecond)
		_, err := s.Acquire(t.Context())
		unavailable(t, "Acquire 30 ms into the backoff", err, 70*time.Millisecond)
		info := s.Status()
		if info.State != Restarting || info.Child != nil || !info.StartedAt.IsZero() || info.LastExit != "exit status 3" {
			t.Errorf("Status() while restarting = %+v, want Restarting, no child or start time, last exit \"exit status 3\"", info)
		}

		time.Sleep(70 * time.Millisecond)
		synctest.Wait()
		c, err := s.Acquire(t.Context())
		if err != nil || c.Pid() != 101 {
			t.Fatalf("Acquire after the backoff = %v, %v; want the child with pid 101", c, err)
		}
		info = s.Status()
		if info.State != Ready || info.Restarts != 1 || !info.StartedAt.Equal(t0.Add(100*time.Millisecond)) {
			t.Errorf("Status() after the restart = %+v, want Ready, 1 restart, started 100ms after the first", info)
		}
		if diff := cmp.Diff([]bool{true, false, true}, h.changes()); diff != "" {
			t.Errorf("health changes (-want +got):\n%s", diff)
		}
		// The crashed child's process group got its SIGKILL for stray
		// descendants.
		if diff := cmp.Diff([]sent{{syscall.SIGKILL, 0}}, f.procs[0].sent()); diff != "" {
			t.Errorf("signals to the crashed child (-want +got):\n%s", diff)
		}
	})
}

// A child that stayed up for a healthy minute resets the backoff and the
// crash-loop count; one that died sooner does not.
func TestSupervisorBackoffResetsAfterHealthyMinute(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		t0 := time.Now()
		f := &fakeStarter{t0: t0, outcome: func(n int) (*fakeProc, error) { return newFakeProc(100+n, 0, t0), nil }}
		s := fakeSupervisor(Config[*fakeProc]{MaxRestarts: 3}, f, nil)
		defer s.Stop()

		// Each child lives this long, then crashes.
		lives := []time.Duration{time.Second, 59 * time.Second, time.Minute, 0, 0, 0}
		var crashes []time.Duration
		for _, life := range lives {
			// Fake time stands still until the test and the supervisor
			// both block, so this returns at the instant of the start.
			if s.waitState(Ready) != Ready {
				break
			}
			time.Sleep(life)
			crashes = append(crashes, time.Since(t0))
			f.last().crash(1)
			s.waitState(Restarting)
		}
		starts := f.starts()
		var waited []time.Duration
		for i, c := range crashes {
			if i+1 < len(starts) {
				waited = append(waited, starts[i+1]-c)
			}
		}
		// 1 s and 59 s lives grow the backoff; the minute resets it, and
		// the three crashes after it are within the limit of 3.
		if diff := cmp.Diff(millis(100, 200, 100, 200, 400), waited); diff != "" {
			t.Errorf("backoff after each crash (-want +got):\n%s", diff)
		}
		if got := s.currentState(); got != Failed {
			t.Errorf("state after 4 quick crashes in a row = %v, want FAILED", got)
		}
	})
}

// Escalation: close stdin, grace, SIGTERM to the group, grace, SIGKILL,
// and a last group SIGKILL for descendants once the child is gone. stop
// returns once the child is gone, bounded even when it never is.
func TestSupervisorEscalation(t *testing.T) {
	const grace = 5 * time.Second
	for _, tc := range []struct {
		name  string
		dieOn syscall.Signal
		want  []sent
		took  time.Duration
	}{
		{"exits at EOF", 0, []sent{{syscall.SIGKILL, 0}}, 0},
		{"exits on SIGTERM", syscall.SIGTERM, []sent{{syscall.SIGTERM, grace}, {syscall.SIGKILL, grace}}, grace},
		{"ignores SIGTERM", syscall.SIGKILL, []sent{{syscall.SIGTERM, grace}, {syscall.SIGKILL, 2 * grace}, {syscall.SIGKILL, 2 * grace}}, 2 * grace},
		{"output held by an escaped descendant", -1, []sent{{syscall.SIGTERM, grace}, {syscall.SIGKILL, 2 * grace}}, 2*grace + killWait},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				t0 := time.Now()
				f := &fakeStarter{t0: t0, outcome: func(n int) (*fakeProc, error) { return newFakeProc(100, tc.dieOn, t0), nil }}
				s := fakeSupervisor(Config[*fakeProc]{Grace: grace}, f, nil)
				synctest.Wait()
				s.Stop()
				if took := time.Since(t0); took != tc.took {
					t.Errorf("stop took %v, want %v", took, tc.took)
				}
				if diff := cmp.Diff(tc.want, f.last().sent()); diff != "" {
					t.Errorf("signals (-want +got):\n%s", diff)
				}
				if got := s.currentState(); got != Stopping {
					t.Errorf("state after stop = %v, want STOPPING", got)
				}
				_, err := s.Acquire(t.Context())
				unavailable(t, "Acquire after Stop", err, 0)
			})
		})
	}
}

// A crashed child whose descendants hold its output is escalated in the
// background while the next child already runs; stop waits for both.
func TestSupervisorEscalatesCrashedChildInBackground(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		t0 := time.Now()
		f := &fakeStarter{t0: t0, outcome: func(n int) (*fakeProc, error) { return newFakeProc(100+n, 0, t0), nil }}
		s := fakeSupervisor(Config[*fakeProc]{Grace: time.Second}, f, nil)
		synctest.Wait()
		first := f.last()
		first.mu.Lock()
		first.dieOn = syscall.SIGTERM // and until then its output stays open
		first.mu.Unlock()
		first.end(&jsonrpc.Error{Code: jsonrpc.CodeConnectionClosed, Message: "The stdio server exited"})
		time.Sleep(500 * time.Millisecond)
		synctest.Wait()
		if got := s.currentState(); got != Ready {
			t.Fatalf("state 500ms after the crash = %v, want READY (restarted)", got)
		}
		s.Stop()
		if took := time.Since(t0); took != time.Second {
			t.Errorf("stop returned after %v, want 1s (the crashed child's grace)", took)
		}
		if diff := cmp.Diff([]sent{{syscall.SIGTERM, time.Second}, {syscall.SIGKILL, time.Second}}, first.sent()); diff != "" {
			t.Errorf("signals to the crashed child (-want +got):\n%s", diff)
		}
	})
}

// stop during a start ends the start and returns at once, as it does
// during the backoff; it is idempotent and safe from several goroutines.
func TestSupervisorStopWhileStartingOrRestarting(t *testing.T) {
	t.Run("starting", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			t0 := time.Now()
			var startCtx context.Context
			s := fakeSupervisor(Config[*fakeProc]{Grace: time.Second, MaxRestarts: 1, Start: func(ctx context.Context, _ func(Process)) (*fakeProc, error) {
				startCtx = ctx
				<-ctx.Done() // a child that never finishes negotiating
				return nil, ctx.Err()
			}}, nil, nil)
			synctest.Wait()
			if got := s.currentState(); got != Starting {
				t.Fatalf("state = %v, want STARTING", got)
			}
			var wg sync.WaitGroup
			for range 3 {
				wg.Go(s.Stop)
			}
			wg.Wait()
			if took := time.Since(t0); took != 0 {
				t.Errorf("stop took %v, want 0", took)
			}
			if !errors.Is(startCtx.Err(), context.Canceled) {
				t.Errorf("start ctx = %v after stop, want cancelled", startCtx.Err())
			}
			if got := s.currentState(); got != Stopping {
				t.Errorf("state after stop = %v, want STOPPING", got)
			}
		})
	})
	t.Run("restarting", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			t0 := time.Now()
			f := &fakeStarter{t0: t0, outcome: alwaysFails}
			s := fakeSupervisor(Config[*fakeProc]{}, f, nil)
			time.Sleep(50 * time.Millisecond)
			s.Stop()
			s.Stop()
			if took := time.Since(t0); took != 50*time.Millisecond {
				t.Errorf("stop returned at %v, want 50ms (no wait for the backoff)", took)
			}
			if n := len(f.starts()); n != 1 {
				t.Errorf("%d starts, want 1", n)
			}
			if got := s.currentState(); got != Stopping {
				t.Errorf("state after stop = %v, want STOPPING", got)
			}
		})
	})
}

// A child that negotiated but whose stop was requested meanwhile is
// stopped, not served.
func TestSupervisorStopDuringStartStopsTheNewChild(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		t0 := time.Now()
		p := newFakeProc(100, 0, t0)
		release := make(chan struct{})
		s := fakeSupervisor(Config[*fakeProc]{Grace: time.Second, MaxRestarts: 1, Start: func(ctx context.Context, _ func(Process)) (*fakeProc, error) {
			<-release // negotiation ends just as stop comes
			return p, nil
		}}, nil, nil)
		synctest.Wait()
		go func() {
			synctest.Wait()
			close(release)
		}()
		s.Stop()
		select {
		case <-p.Done():
		default:
			t.Errorf("the child that finished starting during stop is still running")
		}
	})
}

// A process the start function retires (a probe the negotiation gave up
// on) is stopped in the background; Stop waits for it too.
func TestSupervisorStopWaitsForRetired(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		t0 := time.Now()
		probe := newFakeProc(99, syscall.SIGTERM, t0) // ignores EOF
		s := fakeSupervisor(Config[*fakeProc]{Grace: time.Second, Start: func(ctx context.Context, retire func(Process)) (*fakeProc, error) {
			retire(probe)
			return newFakeProc(100, 0, t0), nil
		}}, nil, nil)
		synctest.Wait()
		if got := s.currentState(); got != Ready {
			t.Fatalf("state = %v, want Ready", got)
		}
		s.Stop()
		if took := time.Since(t0); took != time.Second {
			t.Errorf("Stop returned after %v, want 1s (the retired probe's grace)", took)
		}
		if diff := cmp.Diff([]sent{{syscall.SIGTERM, time.Second}, {syscall.SIGKILL, time.Second}}, probe.sent()); diff != "" {
			t.Errorf("signals to the retired probe (-want +got):\n%s", diff)
		}
	})
}
