package wire

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/mcpbridge/mcpbridge/internal/rawjson"
)

// FuzzDecode checks that Decode never panics, that a decoded message's raw
// members are valid JSON, and that ids it accepts are echoable.
func FuzzDecode(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","_meta":{"progressToken":"t"}}}`,
		`{"jsonrpc":"2.0","id":"a","result":{}}`,
		`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"x"}}`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1.5}}`,
		`[]`, `{"jsonrpc":"1.0","id":3}`, `{"id":9223372036854775808}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		m, err := Decode(in)
		if err != nil {
			if m.ID != nil && !ValidID(m.ID) {
				t.Fatalf("Decode(%q) failed but kept invalid id %q", in, m.ID)
			}
			return
		}
		for _, raw := range [][]byte{m.ID, m.Params, m.Result, m.Error} {
			if raw != nil && !json.Valid(raw) {
				t.Fatalf("Decode(%q): member %q is not valid JSON", in, raw)
			}
		}
		if m.ID != nil {
			frame := AppendResponse(nil, m.ID, json.RawMessage(`{}`))
			back, err := Decode(bytes.TrimSuffix(frame, []byte("\n")))
			if err != nil || !bytes.Equal(back.ID, m.ID) {
				t.Fatalf("id %q does not survive a round trip: %q, %v", m.ID, back.ID, err)
			}
		}
		if m.Kind == KindRequest && m.Params != nil {
			for _, f := range rawjson.Fields(m.Params) {
				if !json.Valid(f.Value) || !json.Valid(f.RawKey) {
					t.Fatalf("Fields(%q): member %q:%q is not valid JSON", m.Params, f.RawKey, f.Value)
				}
			}
		}
	})
}
