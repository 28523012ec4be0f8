package mcphttp

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestDecodeHeaderValue(t *testing.T) {
	tests := []struct {
		in      string
		want    string
		wantErr error
	}{
		{in: "us-west1", want: "us-west1"},
		{in: "=?base64?SGVsbG8sIOS4lueVjA==?=", want: "Hello, 世界"},
		{in: "=?base64?IHBhZGRlZCA=?=", want: " padded "},
		{in: "=?base64?bGluZTEKbGluZTI=?=", want: "line1\nline2"},
		{in: "=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?=", want: "=?base64?literal?="},
		{in: "=?base64??=", want: ""},
		// Not the sentinel form: literal.
		{in: "SGVsbG8=", want: "SGVsbG8="},
		{in: "=?base64?SGVsbG8=", want: "=?base64?SGVsbG8="},
		{in: "=?BASE64?SGVsbG8=?=", want: "=?BASE64?SGVsbG8=?="},
		{in: "a\tb c", want: "a\tb c"},
		// The sentinel form with bad Base64, or not UTF-8.
		{in: "=?base64?SGVsbG8?=", wantErr: errBadBase64},
		{in: "=?base64?SGVs!!!bG8=?=", wantErr: errBadBase64},
		{in: "=?base64?SGVsbG8=\n?=", wantErr: errBadBase64},
		{in: "=?base64?/w==?=", wantErr: errBadBase64},
		// Literal values outside visible ASCII, space and tab.
		{in: "h\xc3\xa9", wantErr: errBadChars},
		{in: "a\x7fb", wantErr: errBadChars},
		{in: "a\x00b", wantErr: errBadChars},
	}
	for _, tt := range tests {
		got, err := decodeHeaderValue(tt.in)
		if got != tt.want || err != tt.wantErr {
			t.Errorf("decodeHeaderValue(%q) = %q, %v; want %q, %v", tt.in, got, err, tt.want, tt.wantErr)
		}
	}
}

// FuzzDecodeHeaderValue checks that decoding never panics, that a literal
// decodes to itself, and that the sentinel form decodes to the UTF-8 text
// whose canonical Base64 it carries.
func FuzzDecodeHeaderValue(f *testing.F) {
	for _, seed := range []string{"", "tools/list", "=?base64?SGVsbG8=?=", "=?base64?SGVsbG8?=", "=?base64??=", "=?base64?=?=", "\xff"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, in string) {
		got, err := decodeHeaderValue(in)
		if err != nil {
			return
		}
		wrapped := len(in) >= 11 && strings.HasPrefix(in, "=?base64?") && strings.HasSuffix(in, "?=")
		switch {
		case !wrapped && got != in:
			t.Errorf("literal %q decoded to %q", in, got)
		case wrapped && "=?base64?"+base64.StdEncoding.EncodeToString([]byte(got))+"?=" != in:
			t.Errorf("%q decoded to %q, which does not encode back", in, got)
		case wrapped && !utf8.ValidString(got):
			t.Errorf("%q decoded to invalid UTF-8 %q", in, got)
		}
	})
}

func TestLoopbackHost(t *testing.T) {
	tests := map[string]bool{
		"localhost": true, "localhost:3000": true, "LOCALHOST:1": true,
		"127.0.0.1": true, "127.0.0.1:8080": true, "[::1]": true, "[::1]:80": true,
		"evil.example.com": false, "evil.example.com:80": false, "127.0.0.2:80": false,
		"localhost.evil.com": false, "0.0.0.0:80": false, "": false,
	}
	for host, want := range tests {
		if got := loopbackHost(host); got != want {
			t.Errorf("loopbackHost(%q) = %v, want %v", host, got, want)
		}
	}
}

func TestAcceptsSSE(t *testing.T) {
	tests := map[string]bool{
		"application/json, text/event-stream": true,
		"text/event-stream;q=0.9":             true,
		"TEXT/EVENT-STREAM":                   true,
		"*/*":                                 true,
		"application/json":                    false,
		"":                                    false,
	}
	for accept, want := range tests {
		h := http.Header{}
		if accept != "" {
			h.Set("Accept", accept)
		}
		if got := acceptsSSE(h); got != want {
			t.Errorf("acceptsSSE(Accept: %q) = %v, want %v", accept, got, want)
		}
	}
}

func TestSetMeta(t *testing.T) {
	tests := []struct {
		params, want string
	}{
		{`{"x":1}`, `{"x":1,"_meta":{"k":"v"}}`},
		{`{"_meta":{"a":1,"k":0},"x":[1, 2]}`, `{"_meta":{"a":1,"k":"v"},"x":[1, 2]}`},
		{`{"_meta":"odd"}`, `{"_meta":{"k":"v"}}`},
		{``, `{"_meta":{"k":"v"}}`},
		{`[1]`, `[1]`},
	}
	for _, tt := range tests {
		if got := string(setMeta(json.RawMessage(tt.params), "k", json.RawMessage(`"v"`))); got != tt.want {
			t.Errorf("setMeta(%s) = %s, want %s", tt.params, got, tt.want)
		}
	}
}

func TestSharedCanCarry(t *testing.T) {
	const v, caps, info = `"io.modelcontextprotocol/protocolVersion":"2026-07-28"`, `"io.modelcontextprotocol/clientCapabilities":{}`, `"io.modelcontextprotocol/clientInfo":{}`
	tests := []struct {
		method, params string
		want           bool
	}{
		{"tools/list", `{"_meta":{` + v + `,` + caps + `,` + info + `}}`, true},
		{"tools/list", `{"_meta":{` + v + `,` + caps + `}}`, false},
		{"tools/list", `{"_meta":{` + v + `,` + info + `}}`, false},
		{"tools/list", `{"_meta":{"io.modelcontextprotocol/protocolVersion":"v9",` + caps + `,` + info + `}}`, false},
		{"tools/list", `{"_meta":[]}`, false},
		{"tools/list", `{}`, false},
		{"tools/list", ``, false},
		{"ping", `{"_meta":{` + v + `,` + caps + `,` + info + `}}`, false},
		{"initialize", `{"_meta":{` + v + `,` + caps + `,` + info + `}}`, false},
	}
	for _, tt := range tests {
		if mv := readMeta(json.RawMessage(tt.params)); sharedCanCarry(tt.method, &mv) != tt.want {
			t.Errorf("sharedCanCarry(%s, %s) = %v, want %v", tt.method, tt.params, !tt.want, tt.want)
		}
	}
}
