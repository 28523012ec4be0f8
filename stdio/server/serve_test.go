package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpbridge/mcpbridge/internal/seam"
	"github.com/mcpbridge/mcpbridge/internal/wire"
	"github.com/mcpbridge/mcpbridge/stdio/jsonrpc"
)

// Server: framing (docs/stdio.md, scenarios 48-52).

func TestServeEmptyInput(t *testing.T) { // scenario 48
	for i := range 100 {
		lines, err := serveString(t, newFakeRuntime(), Config{}, "")
		if err != nil || len(lines) != 0 {
			t.Fatalf("run %d: Serve(empty input) = %v with output %q, want nil and nothing", i, err, lines)
		}
	}
	// Over a pipe closed at once, too.
	h := startServe(t, newFakeRuntime(), Config{})
	h.eof()
	if rest := h.rest(); h.err != nil || len(rest) != 0 || h.out.writes.Load() != 0 {
		t.Fatalf("Serve(closed pipe) = %v with %d writes %q, want nil and nothing", h.err, h.out.writes.Load(), rest)
	}
}

func TestServeCRLF(t *testing.T) { // scenario 49
	input := reqLine(1, "echo", `{"a":1}`) + "\r\n" + reqLine(2, "echo", `{"b":"x"}`) + "\r\n"
	lines, err := serveString(t, newFakeRuntime(), Config{}, input)
	if err != nil {
		t.Fatalf("Serve = %v", err)
	}
	got := map[string]string{}
	for _, l := range lines {
		w := parseOut(t, l)
		got[string(w.ID)] = string(w.Result)
	}
	want := map[string]string{"1": `{"a":1}`, "2": `{"b":"x"}`}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("responses (-want +got):\n%s", diff)
	}
}

func TestServeInvalidLines(t *testing.T) { // scenario 50
	input := strings.Join([]string{
		`{not-json}`,
		`[]`,
		`[{"jsonrpc":"2.0","id":1,"method":"echo"}]`,
		`42`,
		`{"jsonrpc":"2.0","id":1,"method":"echo"} trailing`,
		reqLine(2, "echo", `{"ok":true}`),
	}, "\n") + "\n"
	lines, err := serveString(t, newFakeRuntime(), Config{}, input)
	if err != nil {
		t.Fatalf("Serve = %v", err)
	}
	want := []struct {
		id   string
		code int64
	}{{"null", -32700}, {"null", -32600}, {"null", -32600}, {"null", -32600}, {"null", -32700}}
	if len(lines) != len(want)+1 {
		t.Fatalf("got %d lines %q, want %d", len(lines), lines, len(want)+1)
	}
	for i, w := range want {
		got := parseOut(t, lines[i])
		if string(got.ID) != w.id || got.Error == nil || got.Error.Code != w.code {
			t.Errorf("line %d = %s, want error %d with id %s", i, lines[i], w.code, w.id)
		}
	}
	if got := lines[0]; got != errorLine("null", -32700, "Parse error", "") {
		t.Errorf("parse error frame = %s", got)
	}
	if last := parseOut(t, lines[len(want)]); string(last.ID) != "2" || string(last.Result) != `{"ok":true}` {
		t.Errorf("the valid request after them got %s", last.line)
	}
}

func TestServeSilentLines(t *testing.T) { // scenario 51
	rt := newFakeRuntime()
	var notified []string
	rt.notify = func(_ context.Context, method string, params json.RawMessage) {
		notified = append(notified, method+" "+string(params))
	}
	input := strings.Join([]string{
		"", "   ", "\t\r",
		`{"jsonrpc":"2.0","id":5,"result":{}}`,
		`{"jsonrpc":"2.0","id":6,"error":{"code":-1,"message":"x"}}`,
		`{"jsonrpc":"2.0","id":16.5,"result":{}}`,
		`{"jsonrpc":"1.0","method":"notifications/x"}`,
		`{"jsonrpc":"2.0","method":7}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":99}}`,
		`{"jsonrpc":"2.0","method":"notifications/roots/list_changed","params":{ "a" : 1 }}`,
		reqLine(7, "echo", `{"last":true}`), // no LF: at EOF
	}, "\n")
	lines, err := serveString(t, rt, Config{}, input)
	if err != nil {
		t.Fatalf("Serve = %v", err)
	}
	if want := []string{`{"jsonrpc":"2.0","id":7,"result":{"last":true}}`}; !cmp.Equal(want, lines) {
		t.Errorf("output = %q, want only %q", lines, want)
	}
	if want := []string{`notifications/roots/list_changed {"a":1}`}; !cmp.Equal(want, notified) {
		t.Errorf("Session.Notify got %q, want %q", notified, want)
	}
}

func TestServeInvalidEnvelope(t *testing.T) { // scenario 52
	input := `{"jsonrpc":"1.0","id":3,"method":"echo"}` + "\n" + `{"jsonrpc":"2.0","id":4,"method":5}` + "\n" +
		`{"jsonrpc":"2.0","id":"x"}` + "\n"
	lines, err := serveString(t, newFakeRuntime(), Config{}, input)
	if err != nil {
		t.Fatalf("Serve = %v", err)
	}
	if len(lines) != 3 {
		t.Fatalf("got %q, want 3 lines", lines)
	}
	for i, id := range []string{"3", "4", `"x"`} {
		w := parseOut(t, lines[i])
		if string(w.ID) != id || w.Error == nil || w.Error.Code != jsonrpc.CodeInvalidRequest {
			t.Errorf("line %d = %s, want -32600 with id %s", i, lines[i], id)
		}
	}
}

// Server: stdout hygiene and line limits (scenario 84; 82 and 83 are in
// serve_process_test.go).

func TestServeLineLimitEdges(t *testing.T) { // scenario 84
	limitErr := errorLine("null", -32600, "Line exceeds the 10-byte limit", "")
	tests := []struct {
		name, input string
		refused     []bool // per output line: the limit error or not
	}{
		{"9 bytes + LF accepted", `{"a":123}` + "\n", []bool{false}},
		{"10 + LF refused", `{"a":1234}` + "\n", []bool{true}},
		{"10 at EOF accepted", `{"a":1234}`, []bool{false}},
		{"11 at EOF refused", `{"a":12345}`, []bool{true}},
		{"CR counts", `{"a":123}` + "\r\n", []bool{true}},
		{"reported once, next served", strings.Repeat("x", 100) + "\n" + `{"a":1}` + "\n", []bool{true, false}},
		{"two long lines", strings.Repeat("x", 30) + "\n" + strings.Repeat("y", 1000) + "\n", []bool{true, true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lines, err := serveString(t, newFakeRuntime(), Config{MaxLineBytes: 10}, tt.input)
			if err != nil {
				t.Fatalf("Serve = %v", err)
			}
			if len(lines) != len(tt.refused) {
				t.Fatalf("output %q, want %d lines", lines, len(tt.refused))
			}
			for i, refused := range tt.refused {
				if (lines[i] == limitErr) != refused {
					t.Errorf("line %d = %s; want the limit error: %v", i, lines[i], refused)
				}
			}
		})
	}
}

// An over-long request is answered with its own id, wherever the id sits
// in the line, so that the client's call fails at once; a line whose id
// cannot be told gets the null-id refusal.
func TestServeLineLimitByID(t *testing.T) {
	bulk := `"params":{"text":"` + strings.Repeat("z", 10_000) + `"}`
	limitErr := func(id string) string {
		return errorLine(id, -32600, "Line exceeds the 1000-byte limit", `{"limit":1000}`)
	}
	tests := []struct{ name, input, want string }{
		{"id first", `{"jsonrpc":"2.0","id":5,"method":"tools/call",` + bulk + `}`, limitErr("5")},
		{"id last", `{"method":"tools/call",` + bulk + `,"jsonrpc":"2.0","id":"r-9"}`, limitErr(`"r-9"`)},
		{"no id to be seen", `{"jsonrpc":"2.0",` + bulk + `}`, errorLine("null", -32600, "Line exceeds the 1000-byte limit", "")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lines, err := serveString(t, newFakeRuntime(), Config{MaxLineBytes: 1000}, tt.input+"\n")
			if err != nil {
				t.Fatalf("Serve = %v", err)
			}
			if len(lines) != 1 || lines[0] != tt.want {
				t.Errorf("output %q, want %q", lines, tt.want)
			}
		})
	}
}

// Server: encoding (scenarios 85-87).

func TestServeEncoding(t *testing.T) { // scenario 85
	t.Run("non-ASCII raw", func(t *testing.T) {
		lines, _ := serveString(t, newFakeRuntime(), Config{}, reqLine(1, "echo", `{"s":"😀 é \u00e9"}`)+"\n")
		if want := `{"jsonrpc":"2.0","id":1,"result":{"s":"😀 é \u00e9"}}`; len(lines) != 1 || lines[0] != want {
			t.Errorf("output %q, want %q", lines, want)
		}
	})
	t.Run("U+2028 keeps the frame", func(t *testing.T) {
		lines, _ := serveString(t, newFakeRuntime(), Config{}, reqLine(1, "echo", "{\"s\":\"a\u2028b\u2029c\"}")+"\n")
		if len(lines) != 1 {
			t.Fatalf("output %q, want one line", lines)
		}
		w := parseOut(t, lines[0])
		var got struct{ S string }
		if err := json.Unmarshal(w.Result, &got); err != nil || got.S != "a\u2028b\u2029c" {
			t.Errorf("result %s = %q, %v", w.Result, got.S, err)
		}
	})
	t.Run("ASCII identical to encoding/json", func(t *testing.T) {
		params := `{ "html" : "<a&b>" , "n" : 1.50 , "big" : 123456789012345678901234567890 , "esc" : "\"\\\/\t" , "arr" : [ 1 , { } ] }`
		lines, _ := serveString(t, newFakeRuntime(), Config{}, reqLine(1, "echo", params)+"\n")
		var want bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetEscapeHTML(false)
		_ = enc.Encode(struct {
			JSONRPC string          `json:"jsonrpc"`
			ID      int             `json:"id"`
			Result  json.RawMessage `json:"result"`
		}{"2.0", 1, json.RawMessage(params)})
		if len(lines) != 1 || lines[0]+"\n" != want.String() {
			t.Errorf("output %q, want %q", lines, want.String())
		}
	})
}

func TestServeInputUTF8(t *testing.T) { // scenario 86 (in-process; see also TestServeProcessLocale)
	input := reqLine(1, "echo", `{"s":"héllo 日本 😀"}`) + "\n" +
		reqLine(2, "echo", "{\"s\":\"caf\xff\"}") + "\n" +
		"\xEF\xBB\xBF" + reqLine(3, "echo", `{"bom":true}`) + "\n"
	lines, err := serveString(t, newFakeRuntime(), Config{}, input)
	if err != nil {
		t.Fatalf("Serve = %v", err)
	}
	got := map[string]string{}
	for _, l := range lines {
		w := parseOut(t, l)
		got[string(w.ID)] = string(w.Result)
	}
	want := map[string]string{"1": `{"s":"héllo 日本 😀"}`, "2": `{"s":"caf\ufffd"}`, "3": `{"bom":true}`}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("results (-want +got):\n%s", diff)
	}
}

func TestServeResultNewlines(t *testing.T) { // scenario 87
	rt := newFakeRuntime()
	rt.handle = func(_ context.Context, req *seam.Request) (json.RawMessage, error) {
		if req.Method == "pretty" { // pretty-printed text from the runtime
			return json.RawMessage("{\r\n  \"a\": [\n    1,\n    2\n  ]\n}\n"), nil
		}
		return json.Marshal(map[string]any{"content": []any{map[string]string{"type": "text", "text": "line1\nline2\r\nend"}}})
	}
	lines, err := serveString(t, rt, Config{}, reqLine(1, "text", "")+"\n")
	if err != nil || len(lines) != 1 {
		t.Fatalf("Serve = %v, %q", err, lines)
	}
	if want := `{"jsonrpc":"2.0","id":1,"result":{"content":[{"text":"line1\nline2\r\nend","type":"text"}]}}`; lines[0] != want {
		t.Errorf("output %s, want %s", lines[0], want)
	}
	lines, _ = serveString(t, rt, Config{}, reqLine(2, "pretty", "")+"\n")
	if want := []string{`{"jsonrpc":"2.0","id":2,"result":{"a":[1,2]}}`}; !cmp.Equal(want, lines) {
		t.Errorf("output %q, want %q", lines, want)
	}
}

// Server: input bounds (scenarios 88-89).

func TestServeHugeNumberAndLongID(t *testing.T) { // scenario 88
	h := startServe(t, newFakeRuntime(), Config{})
	huge := `{"jsonrpc":"2.0","id":1,"method":"echo","params":{"n":` + strings.Repeat("7", 1_500_000) + `}}`
	// The bound is on the check itself, one linear pass (docs/stdio.md,
	// "Ids and numbers"); the round trip through pipes below also measures
	// the machine's load.
	start := time.Now()
	if _, err := wire.Decode([]byte(huge)); err == nil {
		t.Error("Decode accepted a 1.5M-digit integer")
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("refusing a 1.5M-digit integer took %v, want well under 1 s", d)
	}
	start = time.Now()
	h.sendLine(huge)
	if got := h.next(); got != errorLine("null", -32700, "Parse error", "") {
		t.Errorf("huge integer got %.200s", got)
	}
	t.Logf("refused through Serve after %v", time.Since(start))
	long := strings.Repeat("i", 300)
	h.sendLine(reqLine(long, "echo", `{}`))
	got := h.next()
	if w := parseOut(t, got); string(w.ID) != "null" || w.Error == nil || w.Error.Code != -32600 || strings.Contains(got, long) {
		t.Errorf("300-character id got %s", got)
	}
	h.sendLine(reqLine(3, "echo", `{"next":true}`))
	if got := h.next(); got != `{"jsonrpc":"2.0","id":3,"result":{"next":true}}` {
		t.Errorf("next request got %s", got)
	}
	h.eof()
	if err := h.wait(); err != nil {
		t.Errorf("Serve = %v", err)
	}
}

func TestServeIDBounds(t *testing.T) { // scenario 89
	input := reqLine(9223372036854775807, "echo", `{}`) + "\n" +
		`{"jsonrpc":"2.0","id":9223372036854775808,"method":"echo"}` + "\n" +
		reqLine(-9223372036854775808, "echo", `{}`) + "\n"
	lines, err := serveString(t, newFakeRuntime(), Config{}, input)
	if err != nil {
		t.Fatalf("Serve = %v", err)
	}
	var ids []string
	for _, l := range lines {
		w := parseOut(t, l)
		if w.Error != nil {
			ids = append(ids, fmt.Sprintf("%s:%d", w.ID, w.Error.Code))
		} else {
			ids = append(ids, string(w.ID))
		}
	}
	want := []string{"null:-32600", "9223372036854775807", "-9223372036854775808"}
	if !cmp.Equal(sortedStrings(want), sortedStrings(ids)) { // responses may come in any order
		t.Errorf("ids %q, want %q", ids, want)
	}

	token := strings.Repeat("t", 257)
	lines, _ = serveString(t, newFakeRuntime(), Config{}, reqLine(5, "echo", `{"_meta":{"progressToken":"`+token+`"}}`)+"\n")
	if len(lines) != 1 || !strings.HasPrefix(lines[0], `{"jsonrpc":"2.0","id":5,"error":{"code":-32602,`) {
		t.Errorf("257-byte progressToken got %q, want -32602 with id 5", lines)
	}
}

func sortedStrings(s []string) []string {
	c := append([]string(nil), s...)
	for i := range c {
		for j := i + 1; j < len(c); j++ {
			if c[j] < c[i] {
				c[i], c[j] = c[j], c[i]
			}
		}
	}
	return c
}

// The seam: results, errors, versions, notifications and the Peer.

func TestServeHandlerOutcomes(t *testing.T) {
	tests := []struct{ method, want string }{
		{"fail", `{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"Bad thing","data":{"why":"x"}}}`},
		{"internal", errorLine("1", -32603, "Internal error", "")},
		{"invalid", errorLine("1", -32603, "Server produced an invalid result", "")},
		{"array", errorLine("1", -32603, "Server produced an invalid result", "")},
		{"unknown", errorLine("1", -32601, "Method not found", "")},
		{"subscriptions/listen", errorLine("1", -32601, "Method not found", "")},
	}
	for _, tt := range tests {
		t.Run(tt.method, func(t *testing.T) {
			lines, err := serveString(t, newFakeRuntime(), Config{}, reqLine(1, tt.method, `{}`)+"\n")
			if err != nil || len(lines) != 1 || lines[0] != tt.want {
				t.Errorf("Serve = %v, %q; want %s", err, lines, tt.want)
			}
		})
	}
}

func TestServeVersionFromInitialize(t *testing.T) {
	h := startServe(t, newFakeRuntime(), Config{})
	h.sendLine(reqLine(1, "version", ""))
	if got := h.next(); got != `{"jsonrpc":"2.0","id":1,"result":{"version":""}}` {
		t.Errorf("before initialize: %s", got)
	}
	h.sendLine(reqLine(2, "initialize", `{"protocolVersion":"2025-11-25"}`))
	h.next()
	h.sendLine(reqLine(3, "version", ""))
	if got := h.next(); got != `{"jsonrpc":"2.0","id":3,"result":{"version":"2025-11-25"}}` {
		t.Errorf("after initialize: %s", got)
	}
	h.sendLine(reqLine(4, "initialize", `{"protocolVersion":"2025-06-18"}`))
	h.next()
	h.sendLine(reqLine(5, "version", ""))
	if got := h.next(); got != `{"jsonrpc":"2.0","id":5,"result":{"version":"2025-06-18"}}` {
		t.Errorf("after a second initialize: %s", got)
	}
	h.eof()
	if err := h.wait(); err != nil {
		t.Errorf("Serve = %v", err)
	}
}

func TestServePeer(t *testing.T) {
	rt := newFakeRuntime()
	rt.handle = func(ctx context.Context, req *seam.Request) (json.RawMessage, error) {
		rt.mu.Lock()
		p := rt.peer
		rt.mu.Unlock()
		switch req.Method {
		case "ask":
			if err := req.Notify(ctx, "notifications/message", json.RawMessage(`{"level":"info","data":"asking"}`)); err != nil {
				return nil, err
			}
			res, err := p.Call(ctx, "roots/list", json.RawMessage(`{ }`))
			var e *jsonrpc.Error
			if errors.As(err, &e) && e.Code == jsonrpc.CodeConnectionClosed {
				// A local error: the runtime reports it in its own words.
				return json.RawMessage(`{"callFailed":"` + e.Message + `"}`), nil
			}
			if err != nil {
				return nil, err
			}
			return json.RawMessage(fmt.Sprintf(`{"roots":%s}`, res)), nil
		case "tell":
			return json.RawMessage(`{}`), p.Notify(ctx, "notifications/tools/list_changed", nil)
		}
		return nil, jsonrpc.Errorf(jsonrpc.CodeMethodNotFound, "Method not found")
	}
	h := startServe(t, rt, Config{})
	h.sendLine(reqLine("a", "ask", ""))
	if got := h.next(); got != `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"asking"}}` {
		t.Errorf("request-scoped notification = %s", got)
	}
	if got := h.next(); got != `{"jsonrpc":"2.0","id":1,"method":"roots/list","params":{}}` {
		t.Errorf("server-to-client request = %s", got)
	}
	h.sendLine(`{"jsonrpc":"2.0","id":999,"result":{}}`) // unknown: dropped
	h.sendLine(`{"jsonrpc":"2.0","id":"1","result":{}}`) // "1" is not 1: dropped
	h.sendLine(`{"jsonrpc":"2.0","id":1,"result":[{"uri":"file:///"}]}`)
	if got := h.next(); got != `{"jsonrpc":"2.0","id":"a","result":{"roots":[{"uri":"file:///"}]}}` {
		t.Errorf("response = %s", got)
	}
	h.sendLine(reqLine("b", "ask", ""))
	h.next()
	if got := h.next(); got != `{"jsonrpc":"2.0","id":2,"method":"roots/list","params":{}}` {
		t.Errorf("second server-to-client request = %s", got)
	}
	h.sendLine(`{"jsonrpc":"2.0","id":2,"error":{"code":-32601,"message":"No roots"}}`)
	if got := h.next(); got != errorLine(`"b"`, -32601, "No roots", "") {
		t.Errorf("error passed back = %s", got)
	}
	h.sendLine(reqLine("c", "tell", ""))
	if got := h.next(); got != `{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}` {
		t.Errorf("unsolicited notification = %s", got)
	}
	if got := h.next(); got != `{"jsonrpc":"2.0","id":"c","result":{}}` {
		t.Errorf("tell response = %s", got)
	}
	// A call pending at EOF fails at once: no answer can come.
	h.sendLine(reqLine("d", "ask", ""))
	h.next()
	h.next()
	h.eof()
	if got := h.next(); got != `{"jsonrpc":"2.0","id":"d","result":{"callFailed":"Connection closed"}}` {
		t.Errorf("call pending at EOF: %s", got)
	}
	if err := h.wait(); err != nil {
		t.Errorf("Serve = %v", err)
	}
	if rt.closed != 1 || rt.sessions != 1 {
		t.Errorf("sessions %d, closed %d; want 1 and 1", rt.sessions, rt.closed)
	}
}

// unreadInput fails the test if Serve reads it.
type unreadInput struct{ tb testing.TB }

func (r unreadInput) Read([]byte) (int, error) {
	r.tb.Error("Serve read its input despite an invalid config")
	return 0, io.EOF
}

func TestServeInvalidConfig(t *testing.T) {
	for _, cfg := range []Config{
		{MaxLineBytes: -1}, {WriteTimeout: -time.Second}, {MaxSubscriptions: -1}, {MaxConcurrency: -1},
		{ShutdownGrace: -time.Second},
	} {
		rt := newFakeRuntime()
		err := Serve(context.Background(), rt, unreadInput{t}, io.Discard, cfg)
		var e *jsonrpc.Error
		if !errors.As(err, &e) || e.Code != jsonrpc.CodeInvalidParams || !strings.Contains(e.Message, "negative") {
			t.Errorf("Serve(%+v) = %v, want -32602 naming the field", cfg, err)
		}
		if rt.sessions != 0 {
			t.Errorf("Serve(%+v) made a session", cfg)
		}
	}
	if err := Serve(context.Background(), nil, unreadInput{t}, io.Discard, Config{}); err == nil {
		t.Error("Serve(nil runtime) = nil")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := Serve(ctx, newFakeRuntime(), unreadInput{t}, io.Discard, Config{Logger: slog.New(slog.DiscardHandler)}); !errors.Is(err, context.Canceled) {
		t.Errorf("Serve(cancelled ctx) = %v", err)
	}
}
