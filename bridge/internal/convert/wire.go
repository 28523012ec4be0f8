package convert

import (
	"encoding/json"
	"sync"
	"sync/atomic"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	mcpbridgev1 "github.com/mcpbridge/mcpbridge/proto/mcpbridge/v1"
)

// A 2026-07-28 child stamps the same `_meta` on every result (its
// serverInfo), and building that google.protobuf.Struct and then
// marshalling it was a tenth of the bridge's CPU per call
// (docs/performance.md). On the gRPC path the response is only ever
// marshalled, so there the `_meta` is encoded once per distinct JSON text
// and added to the response as the wire bytes of its field: proto.Marshal
// writes unknown fields as they are, and a client reads them as the field
// they are numbered as. Go callers of the Service in process get the
// Struct, as before.

// wireCacheMax bounds a cache's entries and wireCacheMaxJSON the JSON text
// an entry may hold: what repeats is small and few, and a child that sends
// a new `_meta` every time only ever misses. A full cache takes no more.
const (
	wireCacheMax     = 256
	wireCacheMaxJSON = 4 << 10
)

// wireCache holds JSON objects already encoded as one Struct field of a
// message: the tag and the length-delimited Struct. Reads take no lock;
// a miss copies the map (it is small and misses are rare once warm).
type wireCache struct {
	num protowire.Number
	mu  sync.Mutex // serializes writers
	m   atomic.Pointer[map[string][]byte]
}

func newWireCache(md protoreflect.MessageDescriptor, field protoreflect.Name) *wireCache {
	c := &wireCache{num: md.Fields().ByName(field).Number()}
	c.m.Store(&map[string][]byte{})
	return c
}

// field returns the wire encoding of JSON object v as c's field.
func (c *wireCache) field(v json.RawMessage) ([]byte, error) {
	if b, ok := (*c.m.Load())[string(v)]; ok {
		return b, nil
	}
	st, err := Struct(v)
	if err != nil {
		return nil, err
	}
	enc, err := proto.MarshalOptions{Deterministic: true}.Marshal(st)
	if err != nil {
		return nil, err
	}
	b := protowire.AppendBytes(protowire.AppendTag(nil, c.num, protowire.BytesType), enc)
	if len(v) > wireCacheMaxJSON || len(*c.m.Load()) >= wireCacheMax {
		// Full: a child whose _meta varies (ids, times) filled it, and
		// would only ever miss; each insert copies the map, so a full
		// cache takes no more and those calls just encode.
		return b, nil
	}
	c.mu.Lock()
	if old := *c.m.Load(); len(old) < wireCacheMax {
		m := make(map[string][]byte, len(old)+1)
		for k, e := range old {
			m[k] = e
		}
		m[string(v)] = b
		c.m.Store(&m)
	}
	c.mu.Unlock()
	return b, nil
}

var callToolMeta = newWireCache((&mcpbridgev1.CallToolResponse{}).ProtoReflect().Descriptor(), "meta")

// structuredContentField is the number of CallToolResponse's
// structured_content, which the gRPC path writes as wire bytes too.
var structuredContentField = (&mcpbridgev1.CallToolResponse{}).ProtoReflect().Descriptor().Fields().ByName("structured_content").Number()

// DecodeCallToolResultForWire is DecodeCallToolResult for a response that
// is only marshalled, as on the gRPC path: its `_meta` and its
// structuredContent are in the unknown fields, as the encoded meta and
// structured_content fields, instead of in Meta and StructuredContent.
func DecodeCallToolResultForWire(raw json.RawMessage, r Era) (*mcpbridgev1.CallToolResponse, error) {
	return decodeCallToolResult(raw, r, true)
}
