// Package asynclog is a slog.Handler that never blocks its callers: records
// go through a bounded queue to one goroutine that writes them with the
// wrapped handler, and when the queue is full a record is dropped and
// counted instead (docs/operations.md, "Logging"). A bridge whose log
// destination stalls (a stderr pipe nobody reads, a slow disk) keeps
// serving; what it could not log is reported, with the count, once the
// destination takes records again.
package asynclog

import (
	"context"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"
)

// DefaultQueue is the number of records New's queue holds by default.
const DefaultQueue = 4096

// Handler is the asynchronous slog.Handler. Make one with New; handlers
// derived with WithAttrs and WithGroup share its queue and its writer.
type Handler struct {
	inner slog.Handler
	s     *sink
}

// sink is the queue and the writer goroutine shared by derived handlers.
type sink struct {
	queue   chan entry
	dropped atomic.Int64
	report  slog.Handler // where drop reports go: the root handler
	done    chan struct{}
	stop    chan struct{}
	once    sync.Once
}

// entry is a queued record and the handler that formats it.
type entry struct {
	h slog.Handler
	r slog.Record
}

// New returns a Handler writing through inner, with a queue of size
// records (DefaultQueue if size <= 0). Close stops it.
func New(inner slog.Handler, size int) *Handler {
	if size <= 0 {
		size = DefaultQueue
	}
	s := &sink{queue: make(chan entry, size), report: inner, done: make(chan struct{}), stop: make(chan struct{})}
	go s.run()
	return &Handler{inner: inner, s: s}
}

// Enabled reports whether the wrapped handler takes records at level.
func (h *Handler) Enabled(ctx context.Context, level slog.Level) bool {
	return h.inner.Enabled(ctx, level)
}

// Handle queues a copy of r, or drops and counts it when the queue is full
// or the Handler is closed. It never blocks and never fails.
func (h *Handler) Handle(_ context.Context, r slog.Record) error {
	select {
	case <-h.s.stop:
		h.s.dropped.Add(1)
		return nil
	default:
	}
	select {
	case h.s.queue <- entry{h: h.inner, r: r.Clone()}:
	default:
		h.s.dropped.Add(1)
	}
	return nil
}

// WithAttrs returns a Handler that adds attrs, sharing this one's queue.
func (h *Handler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return &Handler{inner: h.inner.WithAttrs(attrs), s: h.s}
}

// WithGroup returns a Handler that opens group, sharing this one's queue.
func (h *Handler) WithGroup(name string) slog.Handler {
	return &Handler{inner: h.inner.WithGroup(name), s: h.s}
}

// Dropped returns how many records have been dropped so far.
func (h *Handler) Dropped() int64 { return h.s.dropped.Load() }

// Close writes what is queued, for at most timeout, and stops the writer;
// records handled afterwards are dropped. It is idempotent; derived
// handlers share the close.
func (h *Handler) Close(timeout time.Duration) {
	h.s.once.Do(func() { close(h.s.stop) })
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case <-h.s.done:
	case <-t.C:
	}
}

// run writes queued records until Close, then what is left. Drops are
// reported after the next record written, and at least once a second
// while the queue is idle.
func (s *sink) run() {
	defer close(s.done)
	reported := int64(0)
	report := func() {
		if n := s.dropped.Load(); n > reported {
			r := slog.NewRecord(time.Now(), slog.LevelWarn, "mcpbridge: log records dropped: the log destination was too slow", 0)
			r.AddAttrs(slog.Int64("dropped", n-reported), slog.Int64("total", n))
			_ = s.report.Handle(context.Background(), r)
			reported = n
		}
	}
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		select {
		case e := <-s.queue:
			_ = e.h.Handle(context.Background(), e.r)
			report()
		case <-tick.C:
			report()
		case <-s.stop:
			for {
				select {
				case e := <-s.queue:
					_ = e.h.Handle(context.Background(), e.r)
				default:
					report()
					return
				}
			}
		}
	}
}
