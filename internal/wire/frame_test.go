package wire

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

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
