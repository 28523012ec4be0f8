package fanout

import (
	"context"
	"encoding/json"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpbridge/mcpbridge/bridge/access"
	"github.com/mcpbridge/mcpbridge/bridge/internal/convert"
	"github.com/mcpbridge/mcpbridge/internal/protocol"
	"github.com/mcpbridge/mcpbridge/internal/rawjson"
	mcpbridgev1 "github.com/mcpbridge/mcpbridge/proto/mcpbridge/v1"
	"github.com/mcpbridge/mcpbridge/stdio"
)

// This file keeps a legacy child's logging level (logging/setLevel, which
// holds for its whole session) at what its readers need
// (docs/architecture.md, "Logging levels"): the child logs at least as
// much as the most verbose of them wants, and no more than that once
// the verbose ones are gone. A reader is a Subscribe stream or a call
// stream with a log_level, or a Connect tunnel after its own
// logging/setLevel; each holds a want while it reads. With none, the
// child is held at ServerConfig.LogLevel when one is set, and otherwise
// left as it is. 2026 children take the level per request and need none
// of this.
//
// With authentication (a secure relay) wants belong to principals, and
// the child is held at what the principals whose calls are in flight
// want: a reader's level is what it receives, not what another
// principal's calls cost. A call that enters when the level differs from
// what its principals want has it set first (relay.enter calls settle),
// and a child that was raised is lowered again for a principal that
// wants less (to the floor, or to emergency when there is none). Logs
// are attributed to the principal whose calls are in flight (relay.go),
// so a reader gets its own calls' logs and never another's.

// ChildLevel is one legacy child's logging level. Its zero value (and
// nil) is a child that takes no level: wants are no-ops.
type ChildLevel struct {
	c     *stdio.Client
	floor mcpbridgev1.LoggingLevel // ServerConfig.LogLevel; 0: none
	log   *slog.Logger

	// inFlight returns the principals with calls in flight on a secure
	// relay, and ok false on one that is not (every caller is one).
	inFlight func() (who []string, ok bool)
	secure   bool // inFlight's ok, which never changes

	// rest is set while the child is at the level it has with no want at
	// all (the floor, or nothing or emergency without one), so that a call
	// that enters with no want anywhere pays no more than a lock.
	rest atomic.Bool

	mu     sync.Mutex
	counts []int                    // wants per level, by LoggingLevel
	by     map[string]map[int32]int // a secure relay's wants: by principal, then level
	kick   chan struct{}            // one slot: the target may have changed

	sendMu sync.Mutex               // one logging/setLevel at a time
	sent   mcpbridgev1.LoggingLevel // the level the child last accepted
}

// Bounds of one logging/setLevel call: a reader's want waits for it (so
// that the child logs at the level before the reader's own call goes
// out, and no call of the bridge's is in flight beside it to make the
// child's logs unattributable), the background sender less urgently.
const (
	wantLevelTimeout = 2 * time.Second
	setLevelTimeout  = 10 * time.Second
)

// NewChildLevel returns the level keeper of a negotiated legacy child that
// declares the logging capability, and starts its sender; nil for any
// other child. The sender ends with the child's connection.
func NewChildLevel(c *stdio.Client, floor mcpbridgev1.LoggingLevel, log *slog.Logger, inFlight func() ([]string, bool)) *ChildLevel {
	if protocol.Modern(c.Protocol()) {
		return nil
	}
	if caps, ok := rawjson.Member(c.ServerCapabilities(), "logging"); !ok || !rawjson.IsObject(caps) {
		return nil
	}
	l := &ChildLevel{c: c, floor: floor, log: log, inFlight: inFlight, counts: make([]int, len(protocol.LogLevels)+1),
		by: map[string]map[int32]int{}, kick: make(chan struct{}, 1)}
	_, l.secure = inFlight()
	l.rest.Store(floor == 0) // nothing sent yet: at rest unless a floor is to be set
	go l.sender()
	l.changed()
	return l
}

// Want records a reader of the caller of ctx that needs logs at level or
// above, until release; it returns once the child logs that verbosely
// while that caller's calls are in flight (or the attempt failed, which is
// logged). release hands the change to the background sender.
func (l *ChildLevel) Want(ctx context.Context, level mcpbridgev1.LoggingLevel) (release func()) {
	if l == nil || level <= 0 || int(level) >= len(l.counts) {
		return func() {}
	}
	who := access.CallerID(ctx)
	l.mu.Lock()
	l.counts[level]++
	l.addBy(who, level, 1)
	l.mu.Unlock()
	l.apply(wantLevelTimeout)
	var once sync.Once
	return func() {
		once.Do(func() {
			l.mu.Lock()
			l.counts[level]--
			l.addBy(who, level, -1)
			l.mu.Unlock()
			l.changed()
		})
	}
}

// addBy counts delta wants of who at level; l.mu is held.
func (l *ChildLevel) addBy(who string, level mcpbridgev1.LoggingLevel, delta int) {
	m := l.by[who]
	if m == nil {
		m = map[int32]int{}
		l.by[who] = m
	}
	if m[int32(level)] += delta; m[int32(level)] == 0 {
		delete(m, int32(level))
	}
	if len(m) == 0 {
		delete(l.by, who)
	}
}

// Settle is relay.enter's hook: a call is about to go out, so the child
// is set to what the principals in flight want first, if it is not.
func (l *ChildLevel) Settle() {
	if l == nil {
		return
	}
	if !l.secure {
		return
	}
	l.mu.Lock()
	idle := len(l.by) == 0
	l.mu.Unlock()
	if idle && l.rest.Load() {
		return // no principal wants logs, and the child is at rest
	}
	l.apply(wantLevelTimeout)
}

func (l *ChildLevel) changed() {
	select {
	case l.kick <- struct{}{}:
	default:
	}
}

// target is the level the child should log at: the most verbose want
// (on a secure relay, of the principals with calls in flight), but never
// less verbose than the floor, which holds while no reader asks for more;
// else the floor; 0 for none. A secure relay's child that was raised and
// is not wanted verbose now goes back to the floor, or to the least
// verbose level (emergency) without one.
func (l *ChildLevel) target() mcpbridgev1.LoggingLevel {
	who, secure := l.inFlight()
	l.mu.Lock()
	defer l.mu.Unlock()
	if !secure {
		for level, n := range l.counts {
			if n > 0 {
				return l.atLeastFloor(mcpbridgev1.LoggingLevel(level))
			}
		}
		return l.floor
	}
	best := mcpbridgev1.LoggingLevel(0)
	for _, w := range who {
		for level := range l.by[w] {
			if lv := mcpbridgev1.LoggingLevel(level); best == 0 || lv < best {
				best = lv
			}
		}
	}
	switch {
	case best != 0:
		return l.atLeastFloor(best)
	case l.floor != 0 || l.sent == 0:
		return l.floor
	}
	return mcpbridgev1.LoggingLevel_LOGGING_LEVEL_EMERGENCY
}

// atLeastFloor is level, or the floor when that is more verbose: a
// reader that wants less than the floor does not make the child log less
// for the others (a tunnel that set no level takes every log).
func (l *ChildLevel) atLeastFloor(level mcpbridgev1.LoggingLevel) mcpbridgev1.LoggingLevel {
	if l.floor != 0 && l.floor < level {
		return l.floor
	}
	return level
}

// apply tells the child the current target, unless it already has it.
func (l *ChildLevel) apply(timeout time.Duration) {
	l.sendMu.Lock()
	defer l.sendMu.Unlock()
	level := l.target()
	if level == 0 || level == l.sent || l.c.Err() != nil {
		return
	}
	params := append(rawjson.AppendString([]byte(`{"level":`), convert.LevelName(level)), '}')
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	_, err := l.c.Call(ctx, "logging/setLevel", json.RawMessage(params), nil)
	cancel()
	if err != nil {
		if l.c.Err() != nil {
			// The connection is closing (a host that left, a shutdown, a
			// child that exited): the level went with it, and this is no
			// refusal.
			l.log.Debug("mcpbridge: logging/setLevel ended with the connection", "level", convert.LevelName(level), "error", err)
			return
		}
		l.log.Warn("mcpbridge: the server refused logging/setLevel", "level", convert.LevelName(level), "error", err)
		return
	}
	l.sent = level
	l.rest.Store(level == l.floor || l.floor == 0 && level == mcpbridgev1.LoggingLevel_LOGGING_LEVEL_EMERGENCY)
	l.log.Debug("mcpbridge: server logging level set", "level", convert.LevelName(level))
}

// sender applies the changes that releases and the floor ask for, until
// the connection ends.
func (l *ChildLevel) sender() {
	for {
		select {
		case <-l.c.Closed():
			return
		case <-l.kick:
			l.apply(setLevelTimeout)
		}
	}
}
