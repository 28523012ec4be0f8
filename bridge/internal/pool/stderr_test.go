package pool

import (
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mcpbridge/mcpbridge/internal/testkit"
)

// TestStderrRate: a server's children log at most StderrBurst lines at
// once and StderrRate a second after; the lines over it are counted and
// reported with the next line logged, and kept in the tail all the same.
func TestStderrRate(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var log testkit.Lines
		lines := newStderrLines()
		w := newStderrLog(log.Logger(), lines)
		w.started(42)
		var flood strings.Builder
		for range StderrBurst + 5 {
			flood.WriteString("flood\n")
		}
		if n, err := w.Write([]byte(flood.String())); n != flood.Len() || err != nil {
			t.Fatalf("Write = %d, %v", n, err)
		}
		if got := len(strings.Split(log.String(), "\n")); got != StderrBurst {
			t.Fatalf("%d lines logged, want the burst %d", got, StderrBurst)
		}
		if log.Has("not logged") {
			t.Fatalf("the dropped lines were reported before a line could be logged")
		}
		time.Sleep(time.Second / StderrRate) // one line's worth
		w.Write([]byte("after\n"))
		if !log.Has("mcpbridge: server stderr lines not logged: over the rate limit", "dropped=5", "linesPerSecond=100", "pid=42") {
			t.Errorf("no report of the 5 dropped lines:\n%s", log.String()[len(log.String())-300:])
		}
		if !log.Has("mcpbridge: server stderr", "line=after", "pid=42") {
			t.Errorf("the line after the wait was not logged")
		}
		if tail := lines.Last(); len(tail) != stderrKeep || tail[stderrKeep-1] != "after" || tail[0] != "flood" {
			t.Errorf("the tail = %d lines ending %q, want the last %d", len(tail), tail[len(tail)-1], stderrKeep)
		}
	})
}

// TestStderrLines: a line is logged once its newline arrives, whatever
// the writes it came in; invalid UTF-8 is replaced; a line over
// maxStderrLine is split into lines of at most maxStderrLine bytes, in
// one write or several; a child that did not start logs without a pid.
func TestStderrLines(t *testing.T) {
	var log testkit.Lines
	lines := newStderrLines()
	w := newStderrLog(log.Logger(), lines)
	w.started(0)
	w.Write([]byte("par"))
	w.Write([]byte("tial\nbad \xff byte\n"))
	long := strings.Repeat("x", 2*maxStderrLine+100)
	w.Write([]byte(long + "\n"))
	w.Write([]byte(strings.Repeat("y", maxStderrLine-1)))
	w.Write([]byte("yy\n"))
	want := []string{"partial", "bad \uFFFD byte",
		strings.Repeat("x", maxStderrLine), strings.Repeat("x", maxStderrLine), strings.Repeat("x", 100),
		strings.Repeat("y", maxStderrLine), "y"}
	got := lines.Last()
	if len(got) != len(want) {
		t.Fatalf("%d lines kept, want %d: lengths %v", len(got), len(want), lengths(got))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("line %d: %d bytes %.20q, want %d bytes %.20q", i, len(got[i]), got[i], len(want[i]), want[i])
		}
	}
	if log.Has("pid=") {
		t.Errorf("a child that did not start logged a pid")
	}
}

func lengths(lines []string) []int {
	var n []int
	for _, l := range lines {
		n = append(n, len(l))
	}
	return n
}
