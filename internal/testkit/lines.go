package testkit

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"
)

// maxLines bounds what a Lines keeps; tests log far less.
const maxLines = 10000

// Lines collects lines (a process's stderr, a logger's records) and lets a
// test wait for one. It is safe for concurrent use; its zero value is
// ready.
type Lines struct {
	mu      sync.Mutex
	lines   []string
	changed chan struct{}
}

// Add records one line.
func (l *Lines) Add(line string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.lines) < maxLines {
		l.lines = append(l.lines, line)
	}
	if l.changed != nil {
		close(l.changed)
	}
	l.changed = make(chan struct{})
}

// WaitFor returns the first line that contains every one of parts, waiting
// for it until ctx ends; then it fails tb with every line.
func (l *Lines) WaitFor(ctx context.Context, tb testing.TB, parts ...string) string {
	tb.Helper()
	return l.WaitCount(ctx, tb, 1, parts...)[0]
}

// WaitCount waits until at least n lines contain every one of parts, and
// returns those lines; it fails tb, with every line, when ctx ends first.
func (l *Lines) WaitCount(ctx context.Context, tb testing.TB, n int, parts ...string) []string {
	tb.Helper()
	for {
		l.mu.Lock()
		if l.changed == nil {
			l.changed = make(chan struct{})
		}
		changed := l.changed
		var got []string
		for _, line := range l.lines {
			if ContainsAll(line, parts...) {
				got = append(got, line)
			}
		}
		l.mu.Unlock()
		if len(got) >= n {
			return got
		}
		select {
		case <-changed:
		case <-ctx.Done():
			tb.Fatalf("%d lines with %q, want %d: %v; the lines:\n%s", len(got), parts, n, ctx.Err(), l)
			return nil
		}
	}
}

// Has reports whether a line contains every one of parts.
func (l *Lines) Has(parts ...string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.ContainsFunc(l.lines, func(line string) bool { return ContainsAll(line, parts...) })
}

// String is every line, one per line.
func (l *Lines) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.lines, "\n")
}

// Logger returns a logger that adds each record to l as one line: the
// message, then " key=value" for each attribute, those of With included.
// It logs every level.
func (l *Lines) Logger() *slog.Logger { return l.LoggerAt(slog.LevelDebug - 4) }

// LoggerAt is Logger for records at level and above only, as a bridge run
// with --log-level logs.
func (l *Lines) LoggerAt(level slog.Level) *slog.Logger {
	return slog.New(linesHandler{l: l, min: level})
}

// linesHandler is the slog.Handler of Lines.Logger.
type linesHandler struct {
	l     *Lines
	min   slog.Level
	attrs []slog.Attr
}

func (h linesHandler) Enabled(_ context.Context, level slog.Level) bool { return level >= h.min }

func (h linesHandler) Handle(_ context.Context, rec slog.Record) error {
	var b strings.Builder
	b.WriteString(rec.Message)
	add := func(a slog.Attr) bool {
		fmt.Fprintf(&b, " %s=%v", a.Key, a.Value)
		return true
	}
	for _, a := range h.attrs {
		add(a)
	}
	rec.Attrs(add)
	h.l.Add(b.String())
	return nil
}

func (h linesHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return linesHandler{h.l, h.min, append(slices.Clip(h.attrs), attrs...)}
}

func (h linesHandler) WithGroup(string) slog.Handler { return h }

// ContainsAll reports whether s contains every one of parts.
func ContainsAll(s string, parts ...string) bool {
	for _, p := range parts {
		if !strings.Contains(s, p) {
			return false
		}
	}
	return true
}

// SyncBuffer is a bytes.Buffer that a child's stderr copier and a test may
// use at once.
type SyncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

// Write appends p.
func (s *SyncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

// String returns what was written.
func (s *SyncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
