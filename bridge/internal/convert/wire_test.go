package convert

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/testing/protocmp"

	"github.com/mcpbridge/mcpbridge/internal/protocol"
	mcpbridgev1 "github.com/mcpbridge/mcpbridge/proto/mcpbridge/v1"
)

// What a client reads of DecodeCallToolResultForWire's response, once
// marshalled, is DecodeCallToolResult's response: the same _meta, whether
// it came from the cache or not, and the rest untouched. A _meta that is
// not an object fails both alike.
func TestCallToolResultForWire(t *testing.T) {
	results := []string{
		`{"content":[{"type":"text","text":"hi"}],"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"x","version":"1"}}}`,
		`{"content":[],"structuredContent":{"a":[1,true,null,"é"]},"isError":true,"_meta":{"k":{"n":1.5,"l":[{}]}}}`,
		`{"content":[{"type":"text","text":"no meta"}]}`,
		`{"_meta":{},"content":[]}`,
		` { "_meta" : { "sp" : [ 1 , 2 ] } , "content" : [ ] } `,
		`{"content":[],"structuredContent":{"message":"hello","n":-0.5e3,"deep":{"a":{"b":[[],{},""]}},"dup":1,"dup":2}}`,
		`{"content":[],"structuredContent":"just a string \u00e9\ud83d\ude00"}`,
		`{"content":[],"structuredContent":[null,false,true,0,1e308,"` + strings.Repeat("long ", 60) + `"]}`,
	}
	for round := range 2 { // the second round reads the cache
		for _, raw := range results {
			want, err := DecodeCallToolResult(json.RawMessage(raw), EraOf(protocol.Version20260728))
			if err != nil {
				t.Fatalf("DecodeCallToolResult(%s): %v", raw, err)
			}
			wire, err := DecodeCallToolResultForWire(json.RawMessage(raw), EraOf(protocol.Version20260728))
			if err != nil {
				t.Fatalf("DecodeCallToolResultForWire(%s): %v", raw, err)
			}
			if wire.GetMeta() != nil || wire.GetStructuredContent() != nil {
				t.Errorf("round %d, %s: Meta or StructuredContent is set; want them in the unknown fields", round, raw)
			}
			b, err := proto.Marshal(wire)
			if err != nil {
				t.Fatal(err)
			}
			got := &mcpbridgev1.CallToolResponse{}
			if err := proto.Unmarshal(b, got); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, got, protocmp.Transform()); diff != "" {
				t.Errorf("round %d, %s: what a client reads (-want +got):\n%s", round, raw, diff)
			}
		}
	}
	for _, bad := range []string{`{"content":[],"_meta":[1]}`, `{"content":[],"_meta":"x"}`} {
		if _, err := DecodeCallToolResult(json.RawMessage(bad), EraOf(protocol.Version20260728)); err == nil {
			t.Fatalf("DecodeCallToolResult(%s) = nil error", bad)
		}
		if _, err := DecodeCallToolResultForWire(json.RawMessage(bad), EraOf(protocol.Version20260728)); err == nil {
			t.Errorf("DecodeCallToolResultForWire(%s) = nil error, want the same failure", bad)
		}
	}
}

// The cache stays bounded: a child that sends a new _meta every time
// never holds more than wireCacheMax entries, and large ones are not kept.
func TestWireCacheBounded(t *testing.T) {
	c := newWireCache((&mcpbridgev1.CallToolResponse{}).ProtoReflect().Descriptor(), "meta")
	for i := range 3 * wireCacheMax {
		if _, err := c.field(json.RawMessage(fmt.Sprintf(`{"n":%d}`, i))); err != nil {
			t.Fatal(err)
		}
		if n := len(*c.m.Load()); n > wireCacheMax {
			t.Fatalf("after %d distinct values the cache holds %d, want at most %d", i+1, n, wireCacheMax)
		}
	}
	// Full, it takes no more: a child whose _meta varies does not make
	// every call copy the map.
	full := c.m.Load()
	if _, err := c.field(json.RawMessage(`{"n":"one more"}`)); err != nil || c.m.Load() != full {
		t.Errorf("a full cache was replaced (%v)", err)
	}
	big := fmt.Sprintf(`{"s":%q}`, strings.Repeat("a", wireCacheMaxJSON))
	before := len(*c.m.Load())
	if _, err := c.field(json.RawMessage(big)); err != nil {
		t.Fatal(err)
	}
	if len(*c.m.Load()) != before {
		t.Errorf("a _meta of %d bytes was cached", len(big))
	}
}
