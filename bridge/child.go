package bridge

import (
	"context"
	"io"
	"log/slog"

	"github.com/mcpbridge/mcpbridge/bridge/internal/supervisor"
	"github.com/mcpbridge/mcpbridge/stdio"
)

// child is one negotiated child process of a fronted server: the stdio
// Client that calls go through, the relay of everything else the child
// sends (relay.go) and the listens its Subscribe streams share
// (listens.go). It is what the server's supervisor manages.
type child struct {
	*stdio.Client
	relay   *relay
	listens *listens // Subscribe's shared listens, on a 2026 child
}

// start spawns and negotiates a child: the supervisor's start function.
// Children that the negotiation gave up on (a probe may taint one; see
// stdio.Connect) are handed to retire, which stops them in the background.
func (srv *upstream) start(ctx context.Context, retire func(supervisor.Process)) (*child, error) {
	var started []*stdio.Client
	relays := map[*stdio.Client]*relay{}
	spawn := func(ctx context.Context) (*stdio.Client, error) {
		stderr := newStderrLog(srv.log)
		r := newRelay(srv.name, srv.cfg, srv.log)
		c, err := stdio.Start(ctx, srv.cfg.command(stderr), r.hook(srv.cfg.client(srv.log)))
		if err != nil {
			stderr.started(0)
			return nil, err
		}
		stderr.started(c.Pid())
		started = append(started, c)
		relays[c] = r
		return c, nil
	}
	c, err := stdio.Connect(ctx, spawn, srv.cfg.connect())
	for _, old := range started {
		if err != nil || old != c {
			retire(old)
		}
	}
	if err != nil {
		return nil, err
	}
	relays[c].attach(c) // only now: Connect sets the era unsynchronised
	srv.log.Info("mcpbridge: server connected", "pid", c.Pid(), "protocol", c.Protocol(), "negotiation", c.Negotiation())
	return &child{Client: c, relay: relays[c], listens: newListens(c)}, nil
}

// stderrLog writes a child's stderr into the structured log, one record per
// line, with the child's pid. exec.Cmd's copier goroutine is its only
// writer; it starts with the process, a moment before the pid is known, so
// Write waits for started.
type stderrLog struct {
	log   *slog.Logger
	ready chan struct{} // closed by started; then log is read-only
	part  []byte
}

func newStderrLog(log *slog.Logger) *stderrLog {
	return &stderrLog{log: log, ready: make(chan struct{})}
}

// started records the child's pid (0 if it did not start) for every line.
func (w *stderrLog) started(pid int) {
	if pid != 0 {
		w.log = w.log.With("pid", pid)
	}
	close(w.ready)
}

var _ io.Writer = (*stderrLog)(nil)

// maxStderrLine bounds one logged stderr line; longer ones are split.
const maxStderrLine = 4 << 10

func (w *stderrLog) Write(p []byte) (int, error) {
	<-w.ready
	n := len(p)
	for len(p) > 0 {
		i := 0
		for i < len(p) && p[i] != '\n' {
			i++
		}
		w.part = append(w.part, p[:i]...)
		if i < len(p) || len(w.part) >= maxStderrLine {
			w.log.Info("mcpbridge: server stderr", "line", string(w.part))
			w.part = w.part[:0]
		}
		if i < len(p) {
			i++
		}
		p = p[i:]
	}
	return n, nil
}

// EnvVar is one change to the child's environment: set Name to Value, or
// remove Name when Unset is true.
type EnvVar struct {
	// Name is the variable's name.
	Name string
	// Value is its value, when it is set.
	Value string
	// Unset removes Name from the child's environment instead.
	Unset bool
}
