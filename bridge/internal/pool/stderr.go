package pool

import (
	"io"
	"log/slog"
	"strings"
	"sync"

	"golang.org/x/time/rate"
)

// This file is what the bridge does with its children's stderr
// (docs/operations.md, "Logging"): each line goes to the log, at most
// StderrRate lines a second per fronted server (a child that floods its
// stderr must not flood the bridge's log); the last stderrKeep lines are
// kept whatever the log level or the rate, for the log record of a
// failure (supervisor) and for GetServer when the server exposes them.

const (
	// stderrKeep is how many of a server's last stderr lines are kept.
	stderrKeep = 20
	// StderrRate and StderrBurst bound the stderr lines logged per
	// second, per server; lines over it are counted and reported.
	StderrRate  = 100
	StderrBurst = 1000
	// maxStderrLine bounds one stderr line, logged or kept; longer ones
	// are split.
	maxStderrLine = 4 << 10
)

// stderrLines is one fronted server's stderr state, shared by its
// successive children.
type stderrLines struct {
	limit *rate.Limiter

	mu      sync.Mutex
	last    []string // the last stderrKeep lines, oldest first
	dropped int      // lines not logged since the last report
}

func newStderrLines() *stderrLines {
	return &stderrLines{limit: rate.NewLimiter(StderrRate, StderrBurst)}
}

// add keeps line and reports whether it may be logged, with the number of
// lines dropped before it that are now to be reported.
func (s *stderrLines) add(line string) (log bool, dropped int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.last) == stderrKeep {
		s.last = append(s.last[:0], s.last[1:]...)
	}
	s.last = append(s.last, line)
	if !s.limit.Allow() {
		s.dropped++
		return false, 0
	}
	dropped, s.dropped = s.dropped, 0
	return true, dropped
}

// Last returns the server's last stderr lines, oldest first.
func (s *stderrLines) Last() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.last...)
}

// stderrLog writes one child's stderr into the structured log, one record
// per line, with the child's pid. exec.Cmd's copier goroutine is its only
// writer; it starts with the process, a moment before the pid is known, so
// Write waits for started.
type stderrLog struct {
	log   *slog.Logger
	lines *stderrLines
	ready chan struct{} // closed by started; then log is read-only
	part  []byte
}

func newStderrLog(log *slog.Logger, lines *stderrLines) *stderrLog {
	return &stderrLog{log: log, lines: lines, ready: make(chan struct{})}
}

// started records the child's pid (0 if it did not start) for every line.
func (w *stderrLog) started(pid int) {
	if pid != 0 {
		w.log = w.log.With("pid", pid)
	}
	close(w.ready)
}

var _ io.Writer = (*stderrLog)(nil)

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
			w.line(strings.ToValidUTF8(string(w.part), "\uFFFD"))
			w.part = w.part[:0]
		}
		if i < len(p) {
			i++
		}
		p = p[i:]
	}
	return n, nil
}

func (w *stderrLog) line(line string) {
	log, dropped := w.lines.add(line)
	if dropped > 0 {
		w.log.Warn("mcpbridge: server stderr lines not logged: over the rate limit", "dropped", dropped, "linesPerSecond", StderrRate)
	}
	if log {
		w.log.Info("mcpbridge: server stderr", "line", line)
	}
}
