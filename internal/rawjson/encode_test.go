package rawjson

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
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
