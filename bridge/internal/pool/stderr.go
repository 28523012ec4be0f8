package pool

import (
	"encoding/json"
	"io"
	"log/slog"
	"strings"
	"sync"

	"github.com/go-logfmt/logfmt"
	"golang.org/x/time/rate"

	"github.com/mcpbridge/mcpbridge/internal/rawjson"
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
// successive children: the rate limit, and which child's lines Last
// returns (the newest child's).
type stderrLines struct {
	limit *rate.Limiter

	mu      sync.Mutex
	current *stderrTail // the newest child's
	dropped int         // lines not logged since the last report
}

func newStderrLines() *stderrLines {
	return &stderrLines{limit: rate.NewLimiter(StderrRate, StderrBurst), current: &stderrTail{}}
}

// stderrTail is one child's last stderrKeep lines, oldest first: a
// child's exit is reported with its own lines, not its predecessor's.
type stderrTail struct {
	mu   sync.Mutex
	last []string
}

func (t *stderrTail) add(line string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.last) == stderrKeep {
		t.last = append(t.last[:0], t.last[1:]...)
	}
	t.last = append(t.last, line)
}

func (t *stderrTail) lines() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]string(nil), t.last...)
}

// begin starts the tail of a new child, which Last reports from now on.
func (s *stderrLines) begin() *stderrTail {
	t := &stderrTail{}
	s.mu.Lock()
	s.current = t
	s.mu.Unlock()
	return t
}

// allow reports whether a line may be logged, with the number of lines
// dropped before it that are now to be reported.
func (s *stderrLines) allow() (log bool, dropped int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.limit.Allow() {
		s.dropped++
		return false, 0
	}
	dropped, s.dropped = s.dropped, 0
	return true, dropped
}

// Last returns the newest child's last stderr lines, oldest first.
func (s *stderrLines) Last() []string {
	s.mu.Lock()
	t := s.current
	s.mu.Unlock()
	return t.lines()
}

// stderrLog writes one child's stderr into the structured log, one record
// per line, with the child's pid. exec.Cmd's copier goroutine is its only
// writer; it starts with the process, a moment before the pid is known, so
// Write waits for started.
type stderrLog struct {
	log   *slog.Logger
	lines *stderrLines
	tail  *stderrTail   // this child's own lines
	ready chan struct{} // closed by started; then log is read-only
	part  []byte
}

// newStderrLog starts a child's stderr: from now on the server's Last is
// this child's lines.
func newStderrLog(log *slog.Logger, lines *stderrLines) *stderrLog {
	return &stderrLog{log: log, lines: lines, tail: lines.begin(), ready: make(chan struct{})}
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
		for i < len(p) && p[i] != '\n' && len(w.part)+i < maxStderrLine {
			i++
		}
		w.part = append(w.part, p[:i]...)
		newline := i < len(p) && p[i] == '\n'
		if newline || len(w.part) >= maxStderrLine {
			w.line(strings.ToValidUTF8(string(w.part), "\uFFFD"))
			w.part = w.part[:0]
		}
		if newline {
			i++
		}
		p = p[i:]
	}
	return n, nil
}

func (w *stderrLog) line(line string) {
	w.tail.add(line)
	log, dropped := w.lines.allow()
	if dropped > 0 {
		w.log.Warn("mcpbridge: server stderr lines not logged: over the rate limit", "dropped", dropped, "linesPerSecond", StderrRate)
	}
	if log {
		w.log.Info("mcpbridge: server stderr", stderrAttr(line))
	}
}

// stderrAttr is how a stderr line goes into the bridge's log: a line that
// is itself a log record, a JSON object or logfmt with a msg (as slog's
// handlers write them), as the group "record" of its fields, so that a
// JSON log carries them as fields rather than as escaped text; any other
// line as "line".
func stderrAttr(line string) slog.Attr {
	if b := []byte(line); json.Valid(b) && rawjson.IsObject(b) {
		return slog.Any("record", json.RawMessage(line))
	}
	d := logfmt.NewDecoder(strings.NewReader(line))
	var fields []any
	msg := false
	for d.ScanRecord() {
		if len(fields) > 0 {
			return slog.String("line", line) // more than one record
		}
		for d.ScanKeyval() {
			if d.Value() == nil {
				return slog.String("line", line) // a bare word: prose, not logfmt
			}
			k := string(d.Key())
			msg = msg || k == "msg"
			fields = append(fields, slog.String(k, string(d.Value())))
		}
	}
	if d.Err() != nil || !msg {
		return slog.String("line", line)
	}
	return slog.Group("record", fields...)
}
