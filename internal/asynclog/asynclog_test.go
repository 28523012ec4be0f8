package asynclog

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// gate is a writer that blocks every Write until it is opened, as a
// stderr pipe nobody reads does.
type gate struct {
	open chan struct{}
	mu   sync.Mutex
	buf  bytes.Buffer
}

func (g *gate) Write(p []byte) (int, error) {
	<-g.open
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.buf.Write(p)
}

func (g *gate) String() string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.buf.String()
}

// Logging never blocks on a stalled destination: with the writer stuck,
// 10,000 records are handled at once, the queue's worth is kept, the rest
// is dropped and counted, and the count is logged once the destination
// takes records again.
func TestStalledDestination(t *testing.T) {
	g := &gate{open: make(chan struct{})}
	h := New(slog.NewTextHandler(g, nil), 100)
	log := slog.New(h).With("server", "demo")
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := range 10_000 {
			log.Info("call", "n", i)
		}
	}()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("logging blocked on a stalled destination")
	}
	if d := h.Dropped(); d < 10_000-102 || d > 10_000-100 {
		t.Errorf("dropped %d records, want all but the queue's 100 (and the one being written)", d)
	}
	close(g.open)
	h.Close(10 * time.Second)
	out := g.String()
	if n := strings.Count(out, "msg=call"); n < 100 || n > 102 {
		t.Errorf("wrote %d records, want the queue's 100", n)
	}
	if !strings.Contains(out, "mcpbridge: log records dropped") || !strings.Contains(out, "total="+itoa(h.Dropped())) {
		t.Errorf("no drop report with the total %d in:\n%s", h.Dropped(), tail(out))
	}
	if !strings.Contains(out, "server=demo") {
		t.Errorf("derived attributes lost:\n%s", tail(out))
	}
	log.Info("after close") // dropped, not blocked, not written
	if strings.Contains(g.String(), "after close") {
		t.Errorf("a record handled after Close was written")
	}
}

// A destination that keeps up loses nothing, in order.
func TestNothingLostWhenKeepingUp(t *testing.T) {
	var buf bytes.Buffer
	h := New(slog.NewTextHandler(&buf, nil), 0)
	log := slog.New(h)
	for i := range 1000 { // fewer than the default queue holds
		log.Info("call", "n", i)
	}
	h.Close(10 * time.Second)
	if got := strings.Count(buf.String(), "msg=call"); got != 1000 || h.Dropped() != 0 {
		t.Errorf("wrote %d of 1000 records, dropped %d", got, h.Dropped())
	}
	if !strings.Contains(buf.String(), "n=999") || strings.Index(buf.String(), "n=10 ") > strings.Index(buf.String(), "n=999") {
		t.Errorf("records out of order or missing")
	}
	if h.Enabled(context.Background(), slog.LevelDebug) {
		t.Errorf("Enabled(Debug) = true, want the inner handler's answer")
	}
}

func itoa(n int64) string { return strings.TrimSpace(slog.Int64Value(n).String()) }

func tail(s string) string {
	if len(s) > 2000 {
		return "..." + s[len(s)-2000:]
	}
	return s
}
