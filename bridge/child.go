package bridge

import (
	"context"
	"log/slog"
	"sync/atomic"

	"github.com/mcpbridge/mcpbridge/bridge/internal/fanout"
	"github.com/mcpbridge/mcpbridge/bridge/internal/supervisor"
	mcpbridgev1 "github.com/mcpbridge/mcpbridge/proto/mcpbridge/v1"
	"github.com/mcpbridge/mcpbridge/stdio"
)

// process is one negotiated process of a child of a fronted server: the
// stdio Client that calls go through, the relay of everything else the
// process sends (package fanout) and the listens its Subscribe streams
// share (package fanout). It is what the child's supervisor manages.
type process struct {
	*stdio.Client
	relay   *fanout.Relay
	listens *fanout.Listens          // Subscribe's shared listens, on a 2026 child
	level   *fanout.ChildLevel       // the logging level of a legacy child (fanout.ChildLevel)
	floor   mcpbridgev1.LoggingLevel // ServerConfig.LogLevel: the level when no reader set one
	child   *child                   // the child whose supervisor started it

	subscribers atomic.Int32 // Subscribe streams on it, for metrics
}

// start spawns and negotiates a child: the supervisor's start function.
// Children that the negotiation gave up on (a probe may taint one; see
// stdio.Connect) are handed to retire, which stops them in the background.
func (m *child) start(ctx context.Context, log *slog.Logger, retire func(supervisor.Process)) (*process, error) {
	srv := m.srv
	var started []*stdio.Client
	relays := map[*stdio.Client]*fanout.Relay{}
	spawn := func(ctx context.Context) (*stdio.Client, error) {
		stderr := newStderrLog(log, m.stderr)
		timeout := srv.cfg.ServerRequestTimeout
		if timeout <= 0 {
			timeout = DefaultServerRequestTimeout
		}
		r := fanout.NewRelay(srv.name, srv.cfg.Roots, timeout, srv.s.door.Access().Auth.Enabled(), log)
		cc := srv.cfg.client(log)
		cc.Counters = &m.counters // the child's totals, across restarts
		c, err := stdio.Start(ctx, srv.cfg.command(stderr, m.env), r.Hook(cc))
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
	r := relays[c]
	level := fanout.NewChildLevel(c, srv.cfg.logLevel, log, r.InFlight)
	if level != nil {
		r.Settle = level.Settle // before the child serves a call
	}
	r.Attach(c) // only now: Connect sets the era unsynchronised
	log.Info("mcpbridge: server connected", "pid", c.Pid(), "protocol", c.Protocol(), "negotiation", c.Negotiation())
	return &process{Client: c, relay: r, listens: fanout.NewListens(c), level: level, floor: srv.cfg.logLevel, child: m}, nil
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
