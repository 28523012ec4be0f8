package pool

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"
)

// A child's stderr line that is a log record reaches a JSON log as fields:
// JSON as it is, logfmt (slog's text handler) as strings; anything else,
// and anything that only looks like it, as the line.
func TestStderrAttr(t *testing.T) {
	tests := []struct {
		line string
		want string // the record's JSON after "msg":"mcpbridge: server stderr",
	}{
		{`{"level":"INFO","msg":"ready","n":3}`, `"record":{"level":"INFO","msg":"ready","n":3}`},
		{`time=2026-12-02T10:00:00Z level=INFO msg="serving MCP on stdin" tick=3s`,
			`"record":{"time":"2026-12-02T10:00:00Z","level":"INFO","msg":"serving MCP on stdin","tick":"3s"}`},
		{`plain words on stderr`, `"line":"plain words on stderr"`},
		{`a=b c`, `"line":"a=b c"`},
		{`level=INFO retry=3`, `"line":"level=INFO retry=3"`},
		{`{"broken":`, `"line":"{\"broken\":"`},
		{`Error: x=1 failed msg=`, `"line":"Error: x=1 failed msg="`},
	}
	for _, tt := range tests {
		var buf bytes.Buffer
		slog.New(slog.NewJSONHandler(&buf, &slog.HandlerOptions{ReplaceAttr: func(groups []string, a slog.Attr) slog.Attr {
			if len(groups) == 0 && a.Key == slog.TimeKey {
				return slog.Attr{}
			}
			return a
		}})).Info("mcpbridge: server stderr", stderrAttr(tt.line))
		got := strings.TrimSpace(buf.String())
		if !json.Valid([]byte(got)) {
			t.Errorf("%q: the log line is not JSON: %s", tt.line, got)
		}
		if want := `{"level":"INFO","msg":"mcpbridge: server stderr",` + tt.want + `}`; got != want {
			t.Errorf("%q:\n got %s\nwant %s", tt.line, got, want)
		}
	}
}

// Each child keeps its own last lines: once a new child starts, Last is
// its lines only, and a late line of the old child stays the old child's.
func TestStderrTailPerChild(t *testing.T) {
	lines := newStderrLines()
	log := slog.New(slog.DiscardHandler)
	first := newStderrLog(log, lines)
	first.started(1)
	first.Write([]byte("first: starting\nfirst: dying\n"))
	if got := strings.Join(lines.Last(), "|"); got != "first: starting|first: dying" {
		t.Fatalf("Last with one child = %q", got)
	}
	second := newStderrLog(log, lines)
	second.started(2)
	if got := lines.Last(); len(got) != 0 {
		t.Errorf("Last once a second child started = %q, want nothing yet", got)
	}
	first.Write([]byte("first: a late line\n"))
	second.Write([]byte("second: up\n"))
	if got := strings.Join(lines.Last(), "|"); got != "second: up" {
		t.Errorf("Last = %q, want the second child's lines only", got)
	}
	if got := strings.Join(first.tail.lines(), "|"); got != "first: starting|first: dying|first: a late line" {
		t.Errorf("the first child's tail = %q", got)
	}
}
