package jsonrpc

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"
)

func TestAppendCompact(t *testing.T) {
	tests := []struct{ in, want string }{
		{` { "a" : [ 1 , 2.50 , 1e3 ] , "b" : "x y" } `, `{"a":[1,2.50,1e3],"b":"x y"}`},
		{`{"z":1,"a":2}`, `{"z":1,"a":2}`},
		{`"héllo 日本 😀"`, `"héllo 日本 😀"`},
		{`"\u00e9\n"`, `"\u00e9\n"`},
		{"\"caf\xff\"", `"caf\ufffd"`},
		{`123456789012345678901234567890`, `123456789012345678901234567890`},
		{"{\r\n\"a\":\t1}", `{"a":1}`},
		{`"<&>"`, `"<&>"`},
		{"\"\u2028\"", "\"\u2028\""},
	}
	for _, tt := range tests {
		got, err := Compact([]byte(tt.in))
		if err != nil || string(got) != tt.want {
			t.Errorf("Compact(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
	for _, bad := range []string{``, `{`, `{"a":}`, `[1,]`, `01`, `1.`, `"\x"`, "\"a\nb\"", `nul`, `{} x`} {
		if got, err := Compact([]byte(bad)); err == nil {
			t.Errorf("Compact(%q) = %q, want a parse error", bad, got)
		}
	}
}

func TestAllASCIIMatchesEncodingJSON(t *testing.T) {
	v := map[string]any{"method": "tools/call", "n": 12, "s": "a<b>&c\"\\\t\x01", "list": []any{true, nil, 1.5}}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	want := strings.TrimSuffix(buf.String(), "\n")
	got, err := Marshal(v)
	if err != nil || string(got) != want {
		t.Fatalf("Marshal = %s, %v; want %s", got, err, want)
	}
	if s := string(AppendString(nil, "a<b>&c\"\\\t\x01")); s != `"a<b>&c\"\\\t\u0001"` {
		t.Errorf("AppendString = %s", s)
	}
}

func TestFrames(t *testing.T) {
	got := string(AppendRequest(nil, json.RawMessage(`1`), "tools/call", json.RawMessage(`{"a":"x\ny"}`)))
	if want := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"a":"x\ny"}}` + "\n"; got != want {
		t.Errorf("AppendRequest = %q, want %q", got, want)
	}
	got = string(AppendError(nil, nil, &Error{Code: CodeInvalidRequest, Message: "Line exceeds the 10-byte limit"}))
	if want := `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Line exceeds the 10-byte limit"}}` + "\n"; got != want {
		t.Errorf("AppendError = %q, want %q", got, want)
	}
	got = string(AppendNotification(nil, "notifications/cancelled", json.RawMessage(`{"requestId":3}`)))
	if want := `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3}}` + "\n"; got != want {
		t.Errorf("AppendNotification = %q, want %q", got, want)
	}
	got = string(AppendResponse(nil, json.RawMessage(`"srv-1"`), json.RawMessage(`{}`)))
	if want := `{"jsonrpc":"2.0","id":"srv-1","result":{}}` + "\n"; got != want {
		t.Errorf("AppendResponse = %q, want %q", got, want)
	}
}

// A 2,000,000-digit literal is refused in one linear pass.
func TestHugeNumberIsLinear(t *testing.T) {
	line := []byte(`{"jsonrpc":"2.0","id":1,"method":"m","params":{"n":` + strings.Repeat("7", 2_000_000) + `}}`)
	start := time.Now()
	_, err := Decode(line)
	if err == nil || !strings.Contains(err.Error(), "-32700") {
		t.Fatalf("Decode(2M digits) = %v, want -32700", err)
	}
	// Not a performance assertion: a quadratic scan would take minutes.
	t.Logf("refused in %v", time.Since(start))
}

func BenchmarkDecodeLargeResult(b *testing.B) {
	line := []byte(`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"` + strings.Repeat("lorem ipsum ", 1<<20) + `"}]}}`)
	b.SetBytes(int64(len(line)))
	for b.Loop() {
		if _, err := Decode(line); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDecodeSmall(b *testing.B) {
	line := []byte(`{"jsonrpc":"2.0","id":12345,"result":{"content":[{"type":"text","text":"hello"}]}}`)
	b.SetBytes(int64(len(line)))
	for b.Loop() {
		if _, err := Decode(line); err != nil {
			b.Fatal(err)
		}
	}
}

func TestMarshalKeepsLineSeparatorsRaw(t *testing.T) {
	for _, tt := range []struct {
		in   any
		want string
	}{
		{"a\u2028b\u2029c", "\"a\u2028b\u2029c\""},
		{`lit \u2028`, `"lit \\u2028"`},
		{`\` + "\u2028", "\"\\\\\u2028\""},
		{map[string]any{"k": "x\u2028"}, "{\"k\":\"x\u2028\"}"},
	} {
		got, err := Marshal(tt.in)
		if err != nil || string(got) != tt.want {
			t.Errorf("Marshal(%q) = %s, %v; want %s", tt.in, got, err, tt.want)
		}
	}
}
