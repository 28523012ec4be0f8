package convert

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/testing/protocmp"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/mcpbridge/mcpbridge/internal/protocol"
	mcpbridgev1 "github.com/mcpbridge/mcpbridge/proto/mcpbridge/v1"
)

// decodeCallToolInOrder is DecodeCallToolResult as it was before it read
// resultType in the same pass as the members: resultType first (mrtr),
// then the members.
func decodeCallToolInOrder(raw json.RawMessage, r Era) (*mcpbridgev1.CallToolResponse, error) {
	ir, err := mrtr(raw, r)
	if err != nil || ir != nil {
		return &mcpbridgev1.CallToolResponse{InputRequired: ir}, err
	}
	out := &mcpbridgev1.CallToolResponse{}
	err = members(raw, "result", func(k string, v json.RawMessage) error { return callToolMember(out, k, v, r) })
	return out, err
}

// DecodeCallToolResult, reading resultType with the members, gives what
// reading it first gave, errors included, in both eras: whatever
// resultType says, wherever it is, null or repeated.
func TestDecodeCallToolResultOnePass(t *testing.T) {
	results := []string{
		`{"content":[{"type":"text","text":"hi"}],"structuredContent":{"a":[1,true,null,"é"]},"isError":true,"_meta":{"k":"v"}}`,
		`{"content":[],"resultType":"complete"}`,
		`{"resultType":"complete","content":[],"_meta":{"a":1}}`,
		`{"content":[],"resultType":null}`,
		`{"content":[],"resultType":"input_required"}`,
		`{"resultType":"input_required","inputRequests":{"q":{"method":"roots/list"}},"requestState":"s","_meta":{"m":1}}`,
		`{"resultType":"input_required","content":null,"requestState":"s"}`,
		`{"content":[],"resultType":"task"}`,
		`{"content":[],"resultType":5}`,
		`{"content":[],"resultType":"input_required","resultType":"complete"}`,
		`{"content":[],"resultType":"complete","resultType":"input_required","requestState":"s"}`,
		`{"content":[],"resultType":"input_required","resultType":null}`,
		`{"content":[],"result\u0054ype":"input_required","requestState":"s"}`,
		`{"content":"not an array","resultType":"task"}`,
		`{"resultType":"task","content":"not an array"}`,
		`{"content":"not an array"}`,
		`{"isError":"yes","_meta":[1]}`,
		`{"_meta":[1],"resultType":"complete"}`,
		`{"structuredContent":1e999}`,
		`{"content":null,"structuredContent":null,"isError":null,"_meta":null}`,
		`{}`,
		`[]`,
		`"not an object"`,
		`{"content":[{"type":"text","text":"a"},{"type":"hologram"}],"content":[{"type":"text","text":"last wins"}]}`,
	}
	for _, era := range []string{protocol.Version20260728, protocol.Version20251125} {
		r := EraOf(era)
		for _, raw := range results {
			want, werr := decodeCallToolInOrder(json.RawMessage(raw), r)
			got, err := DecodeCallToolResult(json.RawMessage(raw), r)
			if fmt.Sprint(err) != fmt.Sprint(werr) {
				t.Errorf("%s, %s: error %v, want %v", era, raw, err, werr)
			}
			if diff := cmp.Diff(want, got, protocmp.Transform()); diff != "" {
				t.Errorf("%s, %s (-in order +one pass):\n%s", era, raw, diff)
			}
		}
	}
}

// Value and Struct agree with protojson on large texts too, with and
// without escapes (the shared copy of structjson.go's text is made for the
// second only), and their strings read the same whichever way they were
// made.
func TestValueLargeText(t *testing.T) {
	var plain, escaped strings.Builder
	plain.WriteString(`{"records":[`)
	escaped.WriteString(`{"records":[`)
	for i := range 500 {
		if i > 0 {
			plain.WriteByte(',')
			escaped.WriteByte(',')
		}
		fmt.Fprintf(&plain, `{"id":%d,"name":"record %d","tags":["a","b"],"ok":true,"note":null}`, i, i)
		fmt.Fprintf(&escaped, `{"id":%d,"name":"record \"%d\"\n","plain":"no escapes","k\u00e9y":"\ud83d\ude00"}`, i, i)
	}
	plain.WriteString(`]}`)
	escaped.WriteString(`]}`)
	for _, in := range []string{plain.String(), escaped.String()} {
		if len(in) <= sharedTextMax {
			t.Fatalf("a text of %d bytes is not large", len(in))
		}
		want := &structpb.Struct{}
		if err := protojson.Unmarshal([]byte(in), want); err != nil {
			t.Fatal(err)
		}
		got, err := Struct(json.RawMessage(in))
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, got, protocmp.Transform()); diff != "" {
			t.Errorf("Struct of %d bytes (-protojson +got):\n%s", len(in), diff)
		}
		v, err := Value(json.RawMessage(in))
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, v.GetStructValue(), protocmp.Transform()); diff != "" {
			t.Errorf("Value of %d bytes (-protojson +got):\n%s", len(in), diff)
		}
	}
}
