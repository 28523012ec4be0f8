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
