package wire

import (
	"errors"
	"strings"
	"testing"
)

// Peek finds the id and kind of an over-long message wherever the common
// serializers put the id: first (Go, Python), last (TypeScript), as a
// number or a string; and finds nothing rather than guessing wrong.
func TestPeek(t *testing.T) {
	bulk := `{"content":[{"type":"text","text":"` + strings.Repeat("x", 3*HeadBytes) + `"}],"id":99,"method":"fake"}`
	tests := []struct {
		name, line string
		id         string
		kind       Kind
	}{
		{"response, id first", `{"jsonrpc":"2.0","id":7,"result":` + bulk + `}`, "7", KindResponse},
		{"response, id last", `{"result":` + bulk + `,"jsonrpc":"2.0","id":7}`, "7", KindResponse},
		{"error response, spaced", `{ "jsonrpc" : "2.0" , "error" : {"code":-32603,"message":"` + strings.Repeat("m", 3*HeadBytes) + `"} , "id" : -3 }`, "-3", KindResponse},
		{"request, id last", `{"method":"tools/call","params":` + bulk + `,"jsonrpc":"2.0","id":"a-1"}`, `"a-1"`, KindRequest},
		{"request, id first", `{"jsonrpc":"2.0","id":12,"method":"tools/call","params":` + bulk + `}`, "12", KindRequest},
		{"request, method after params", `{"jsonrpc":"2.0","params":` + bulk + `,"method":"x","id":12}`, "12", KindRequest},
		{"notification", `{"jsonrpc":"2.0","method":"notifications/message","params":` + bulk + `}`, "", KindNotification},
		{"nested id is not the id", `{"jsonrpc":"2.0","result":` + bulk + `}`, "", KindInvalid},
		{"null id", `{"jsonrpc":"2.0","id":null,"error":` + bulk + `}`, "", KindInvalid},
		{"object id", `{"jsonrpc":"2.0","result":` + bulk + `,"id":{"a":1}}`, "", KindInvalid},
		{"escaped quotes in the tail", `{"result":` + bulk + `,"x":"a\",\"id\":5","y":1}`, "", KindInvalid},
		{"not an object", `[` + bulk + `]`, "", KindInvalid},
		{"BOM", "\xEF\xBB\xBF" + `{"id":4,"result":` + bulk + `}`, "4", KindResponse},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lr := NewReader(strings.NewReader(tt.line+"\n"), 2*HeadBytes)
			_, err := lr.ReadLine()
			var tooLong *LineTooLongError
			if !errors.As(err, &tooLong) {
				t.Fatalf("ReadLine = %v, want *LineTooLongError", err)
			}
			id, kind := tooLong.Peek()
			if string(id) != tt.id || kind != tt.kind {
				t.Errorf("Peek = %q, %v; want %q, %v", id, kind, tt.id, tt.kind)
			}
		})
	}
}

func FuzzPeek(f *testing.F) {
	f.Add([]byte(`{"id":1,"result":{}}`), []byte(`{"result":{},"id":1}`))
	f.Add([]byte(`{"a":"\"`), []byte(`\"","id":"x"}`))
	f.Fuzz(func(t *testing.T, head, tail []byte) {
		e := &LineTooLongError{Head: head, Tail: tail}
		id, kind := e.Peek() // must not panic
		if id != nil && !validID(id) {
			t.Errorf("Peek returned id %q, not a number or string", id)
		}
		if (id == nil) != (kind == KindInvalid || kind == KindNotification) {
			t.Errorf("Peek = %q, %v: kind and id disagree", id, kind)
		}
	})
}
