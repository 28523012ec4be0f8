package bridge

import (
	"context"
	"encoding/json"
	"log/slog"
	"sync"
	"time"

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

// childLevel is one legacy child's logging level. Its zero value (and
// nil) is a child that takes no level: wants are no-ops.
type childLevel struct {
	c     *stdio.Client
	floor mcpbridgev1.LoggingLevel // ServerConfig.LogLevel; 0: none
	log   *slog.Logger

	mu     sync.Mutex
	counts []int         // wants per level, by LoggingLevel
	kick   chan struct{} // one slot: the target may have changed

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

// newChildLevel returns the level keeper of a negotiated legacy child that
// declares the logging capability, and starts its sender; nil for any
// other child. The sender ends with the child's connection.
func newChildLevel(c *stdio.Client, floor mcpbridgev1.LoggingLevel, log *slog.Logger) *childLevel {
	if protocol.Modern(c.Protocol()) {
		return nil
	}
	if caps, ok := rawjson.Member(c.ServerCapabilities(), "logging"); !ok || !rawjson.IsObject(caps) {
		return nil
	}
	l := &childLevel{c: c, floor: floor, log: log, counts: make([]int, len(protocol.LogLevels)+1), kick: make(chan struct{}, 1)}
	go l.sender()
	l.changed()
	return l
}

// want records a reader that needs logs at level or above, until release;
// it returns once the child logs that verbosely (or the attempt failed,
// which is logged). release hands the change to the background sender.
func (l *childLevel) want(level mcpbridgev1.LoggingLevel) (release func()) {
	if l == nil || level <= 0 || int(level) >= len(l.counts) {
		return func() {}
	}
	l.mu.Lock()
	l.counts[level]++
	l.mu.Unlock()
	l.apply(wantLevelTimeout)
	var once sync.Once
	return func() {
		once.Do(func() {
			l.mu.Lock()
			l.counts[level]--
			l.mu.Unlock()
			l.changed()
		})
	}
}

func (l *childLevel) changed() {
	select {
	case l.kick <- struct{}{}:
	default:
	}
}

// target is the level the child should log at: the most verbose want,
// else the floor; 0 for none.
func (l *childLevel) target() mcpbridgev1.LoggingLevel {
	l.mu.Lock()
	defer l.mu.Unlock()
	for level, n := range l.counts {
		if n > 0 {
			return mcpbridgev1.LoggingLevel(level)
		}
	}
	return l.floor
}

// apply tells the child the current target, unless it already has it.
func (l *childLevel) apply(timeout time.Duration) {
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
		l.log.Warn("mcpbridge: the server refused logging/setLevel", "level", convert.LevelName(level), "error", err)
		return
	}
	l.sent = level
	l.log.Debug("mcpbridge: server logging level set", "level", convert.LevelName(level))
}

// sender applies the changes that releases and the floor ask for, until
// the connection ends.
func (l *childLevel) sender() {
	for {
		select {
		case <-l.c.Closed():
			return
		case <-l.kick:
			l.apply(setLevelTimeout)
		}
	}
}
