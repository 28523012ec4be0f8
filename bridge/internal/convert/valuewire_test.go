package convert

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/mcpbridge/mcpbridge/internal/protocol"
	mcpbridgev1 "github.com/mcpbridge/mcpbridge/proto/mcpbridge/v1"
	"google.golang.org/protobuf/proto"
)

// valueWireCases are JSON values that Value converts, and some it refuses.
var valueWireCases = []string{
	`null`, `true`, `false`, `0`, `-0`, `1.5`, `-12e-3`, `1e308`, `""`, `"plain"`,
	`"esc \" \\ \/ \b \f \n \r \t \u00e9 \ud83d\ude00 \ud800"`,
	`{}`, `[]`, `{"a":1}`, `{"a":{"b":{"c":[1,[2,[3]]]}}}`, `[{},[],{"":""}]`,
	` { "k" : [ 1 , "x" , null ] , "z" : { } } `,
	`{"dup":1,"dup":{"x":2}}`,
	`{"long":"` + strings.Repeat("0123456789", 30) + `"}`,
	`[` + strings.Repeat(`{"k":[1,2,3]},`, 40) + `0]`,
	// Refused by both.
	``, ` `, `{`, `[1,]`, `{"a"}`, `{"a":1,}`, `{1:2}`, `01`, `1.`, `+1`, `Inf`, `1e999`, `tru`, `"open`, `"bad \x"`, `{} x`,
	// Not valid UTF-8: Value keeps it, the wire refuses it.
	"\"\xff\"", "{\"\xfe\":1}",
}

// What a client parses from appendValueField's bytes is the Value that
// Value converts the same JSON to; where Value fails, so does the wire; the
// wire refuses only text that is not UTF-8 beyond that.
func TestValueWire(t *testing.T) {
	for _, c := range valueWireCases {
		checkValueWire(t, c)
	}
}

func FuzzValueWire(f *testing.F) {
	for _, c := range valueWireCases {
		f.Add(c)
	}
	f.Fuzz(func(t *testing.T, c string) { checkValueWire(t, c) })
}

func checkValueWire(t *testing.T, c string) {
	t.Helper()
	want, werr := Value(json.RawMessage(c))
	b, err := appendValueField(nil, structuredContentField, json.RawMessage(c))
	switch {
	case werr != nil && err == nil:
		t.Fatalf("%q: Value fails (%v), the wire does not", c, werr)
	case werr != nil:
		return
	case errors.Is(err, errNotUTF8):
		if _, merr := proto.Marshal(want); merr == nil {
			t.Fatalf("%q: the wire refuses a string as not UTF-8 that marshals", c)
		}
		return
	case err != nil:
		t.Fatalf("%q: Value converts it, the wire fails: %v", c, err)
	}
	// b is field structured_content of a CallToolResponse: parse it as one.
	var resp mcpbridgev1.CallToolResponse
	if err := proto.Unmarshal(b, &resp); err != nil {
		t.Fatalf("%q: the wire bytes do not parse: %v", c, err)
	}
	if got := resp.GetStructuredContent(); !proto.Equal(want, got) {
		t.Fatalf("%q: a client reads %v, want %v", c, got, want)
	}
}

// BenchmarkCallToolResultMarshal decodes the demo echo's result and
// marshals the response, as CallTool does for a gRPC client: with the
// structuredContent and _meta built as Structs (path=struct, what an
// in-process caller gets) and written straight as wire bytes
// (path=wire, the gRPC path).
//
//	go test -run '^$' -bench CallToolResultMarshal -benchmem ./bridge/internal/convert/
func BenchmarkCallToolResultMarshal(b *testing.B) {
	raw := json.RawMessage(`{"content":[{"type":"text","text":"hello"}],"structuredContent":{"message":"hello"},` +
		`"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"mcpbridge-demo","version":"0.1.0"}}}`)
	era := EraOf(protocol.Version20260728)
	for _, p := range []struct {
		name   string
		decode func(json.RawMessage, Era) (*mcpbridgev1.CallToolResponse, error)
	}{{"struct", DecodeCallToolResult}, {"wire", DecodeCallToolResultForWire}} {
		b.Run("path="+p.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				resp, err := p.decode(raw, era)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := proto.Marshal(resp); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
