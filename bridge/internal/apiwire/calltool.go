package apiwire

import (
	"encoding/binary"
	"math"
	"unicode/utf8"

	"google.golang.org/grpc/mem"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"

	mcpbridgev1 "github.com/mcpbridge/mcpbridge/proto/mcpbridge/v1"
)

// This file keeps CallTool's speed in the codec, not in its message. The
// CallToolResponse a handler returns, and every interceptor, stats handler
// and payload log sees, is an ordinary message: the tool's
// structuredContent in StructuredContent, the result's _meta in Meta.
// protobuf-go marshals those google.protobuf.Value and Struct fields
// through reflection over their maps (a Size pass, then the Marshal pass),
// which was more than half the cost of turning a typical tool result into
// gRPC bytes (docs/performance.md). So the server's codec writes those two
// fields itself, from the message as it is when the codec is handed it,
// after every interceptor has run: nothing is cached, nothing is taken
// from anywhere but the message, and what a client parses is what
// proto.Marshal writes. The rest of the message is protobuf-go's. Anything
// the fast path does not handle as proto.Marshal would (a string that is
// not UTF-8, a Kind of no known type, a message that changes size while it
// is written) is left to the proto codec, which gives its own answer.

// The fields of CallToolResponse (TestCallToolFields holds them to the
// descriptor: a field added to the message must be added here).
const (
	callToolContent           protowire.Number = 1
	callToolStructuredContent protowire.Number = 2
	callToolIsError           protowire.Number = 3
	callToolMeta              protowire.Number = 4
	callToolInputRequired     protowire.Number = 5
)

// The field numbers of google.protobuf.Value, Struct, its map entry and
// ListValue.
const (
	valueNull   protowire.Number = 1
	valueNumber protowire.Number = 2
	valueString protowire.Number = 3
	valueBool   protowire.Number = 4
	valueStruct protowire.Number = 5
	valueList   protowire.Number = 6

	structFields protowire.Number = 1
	entryKey     protowire.Number = 1
	entryValue   protowire.Number = 2
	listValues   protowire.Number = 1
)

// Marshal is the proto codec's, with CallToolResponse's Struct and Value
// fields written by marshalCallTool.
func (c utf8Codec) Marshal(v any) (mem.BufferSlice, error) {
	if r, ok := v.(*mcpbridgev1.CallToolResponse); ok && (r.StructuredContent != nil || r.Meta != nil) {
		if data, ok := marshalCallTool(r); ok {
			return data, nil
		}
	}
	return c.CodecV2.Marshal(v)
}

// marshalCallTool encodes r as proto.Marshal does, its fields in order:
// content, input_required and unknown fields by protobuf-go,
// structured_content and meta by the writer below. ok is false where the
// proto codec must answer instead.
func marshalCallTool(r *mcpbridgev1.CallToolResponse) (data mem.BufferSlice, ok bool) {
	pool := mem.DefaultBufferPool()
	// structured_content and meta first, back to front: w holds
	// [structured_content][meta].
	w := newRevWriter(pool)
	defer w.free()
	if r.Meta != nil {
		start := w.len()
		if !w.structFields(r.Meta) {
			return nil, false
		}
		w.field(callToolMeta, start)
	}
	metaLen := w.len()
	if r.StructuredContent != nil {
		start := w.len()
		if !w.value(r.StructuredContent) {
			return nil, false
		}
		w.field(callToolStructuredContent, start)
	}
	ext := w.bytes()
	sc, meta := ext[:len(ext)-metaLen], ext[len(ext)-metaLen:]

	// The sizes of the rest, as the proto codec takes them: proto.Size
	// caches each message's size for MarshalAppend's UseCachedSize.
	var small [4]int
	sizes := small[:0]
	size := len(ext)
	for _, c := range r.Content {
		n := proto.Size(c)
		sizes = append(sizes, n)
		size += protowire.SizeTag(callToolContent) + protowire.SizeBytes(n)
	}
	if r.IsError {
		size += protowire.SizeTag(callToolIsError) + protowire.SizeVarint(1)
	}
	irSize := 0
	if r.InputRequired != nil {
		irSize = proto.Size(r.InputRequired)
		size += protowire.SizeTag(callToolInputRequired) + protowire.SizeBytes(irSize)
	}
	unknown := r.ProtoReflect().GetUnknown()
	size += len(unknown)

	var pooled *[]byte
	var b []byte
	if mem.IsBelowBufferPoolingThreshold(size) {
		b = make([]byte, 0, size)
	} else {
		pooled = pool.Get(size)
		b = (*pooled)[:0]
	}
	opts := proto.MarshalOptions{UseCachedSize: true}
	var err error
	for i, c := range r.Content {
		b = protowire.AppendTag(b, callToolContent, protowire.BytesType)
		b = protowire.AppendVarint(b, uint64(sizes[i]))
		if b, err = opts.MarshalAppend(b, c); err != nil {
			break
		}
	}
	if err == nil {
		b = append(b, sc...)
		if r.IsError {
			b = protowire.AppendVarint(protowire.AppendTag(b, callToolIsError, protowire.VarintType), 1)
		}
		b = append(b, meta...)
		if r.InputRequired != nil {
			b = protowire.AppendTag(b, callToolInputRequired, protowire.BytesType)
			b = protowire.AppendVarint(b, uint64(irSize))
			b, err = opts.MarshalAppend(b, r.InputRequired)
		}
		b = append(b, unknown...)
	}
	if err != nil || len(b) != size {
		// Not UTF-8 in a content block, or sizes that changed under us:
		// the proto codec's answer, error included.
		if pooled != nil {
			pool.Put(pooled)
		}
		return nil, false
	}
	if pooled == nil {
		return mem.BufferSlice{mem.SliceBuffer(b)}, true
	}
	return mem.BufferSlice{mem.NewBuffer(pooled, pool)}, true
}

// revWriter writes protobuf back to front, as upb does: a nested message
// is written before its length, which is then known, so one pass writes
// any depth without a size pass (whose sizes a map, iterated in a
// different order each time, could not be matched to) and without moving
// what is written. The bytes are buf[off:].
type revWriter struct {
	pool mem.BufferPool
	buf  *[]byte
	off  int
}

// revWriterStart is the first buffer's size: a typical result's _meta
// and structuredContent fit.
const revWriterStart = 512

func newRevWriter(pool mem.BufferPool) revWriter {
	buf := pool.Get(revWriterStart)
	return revWriter{pool: pool, buf: buf, off: len(*buf)}
}

func (w *revWriter) free() { w.pool.Put(w.buf) }

// len is the number of bytes written.
func (w *revWriter) len() int { return len(*w.buf) - w.off }

// bytes is what is written.
func (w *revWriter) bytes() []byte { return (*w.buf)[w.off:] }

// room makes room for n more bytes before those written.
func (w *revWriter) room(n int) {
	if w.off >= n {
		return
	}
	used := w.len()
	size := max(2*len(*w.buf), used+n)
	buf := w.pool.Get(size)
	copy((*buf)[size-used:], w.bytes())
	w.pool.Put(w.buf)
	w.buf, w.off = buf, size-used
}

func (w *revWriter) prependBytes(p []byte) {
	w.room(len(p))
	w.off -= len(p)
	copy((*w.buf)[w.off:], p)
}

func (w *revWriter) prependString(s string) {
	w.room(len(s))
	w.off -= len(s)
	copy((*w.buf)[w.off:], s)
}

func (w *revWriter) prependVarint(v uint64) {
	if v < 0x80 { // tags, and most lengths
		w.room(1)
		w.off--
		(*w.buf)[w.off] = byte(v)
		return
	}
	var tmp [binary.MaxVarintLen64]byte
	w.prependBytes(protowire.AppendVarint(tmp[:0], v))
}

func (w *revWriter) prependTag(num protowire.Number, typ protowire.Type) {
	w.prependVarint(protowire.EncodeTag(num, typ))
}

// field makes what was written since start (a length from the end) field
// num of the enclosing message: its length, then its tag.
func (w *revWriter) field(num protowire.Number, start int) {
	w.prependVarint(uint64(w.len() - start))
	w.prependTag(num, protowire.BytesType)
}

// structFields writes the fields of Struct s: its map, one entry per
// member, then its unknown fields. A nil s is the empty Struct, as
// protobuf-go has it.
func (w *revWriter) structFields(s *structpb.Struct) bool {
	if s == nil {
		return true
	}
	w.prependBytes(s.ProtoReflect().GetUnknown())
	for k, v := range s.Fields {
		if !utf8.ValidString(k) {
			return false
		}
		entry := w.len()
		val := w.len()
		if !w.value(v) {
			return false
		}
		w.field(entryValue, val)
		w.prependString(k)
		w.prependVarint(uint64(len(k)))
		w.prependTag(entryKey, protowire.BytesType)
		w.field(structFields, entry)
	}
	return true
}

// value writes the fields of Value v: the one its Kind sets, then its
// unknown fields. A nil v, or one with no Kind, has none.
func (w *revWriter) value(v *structpb.Value) bool {
	if v == nil {
		return true
	}
	w.prependBytes(v.ProtoReflect().GetUnknown())
	switch k := v.Kind.(type) {
	case nil:
	case *structpb.Value_NullValue:
		w.prependVarint(uint64(int64(k.NullValue)))
		w.prependTag(valueNull, protowire.VarintType)
	case *structpb.Value_NumberValue:
		w.room(8)
		w.off -= 8
		binary.LittleEndian.PutUint64((*w.buf)[w.off:], math.Float64bits(k.NumberValue))
		w.prependTag(valueNumber, protowire.Fixed64Type)
	case *structpb.Value_StringValue:
		if !utf8.ValidString(k.StringValue) {
			return false
		}
		w.prependString(k.StringValue)
		w.prependVarint(uint64(len(k.StringValue)))
		w.prependTag(valueString, protowire.BytesType)
	case *structpb.Value_BoolValue:
		w.prependVarint(protowire.EncodeBool(k.BoolValue))
		w.prependTag(valueBool, protowire.VarintType)
	case *structpb.Value_StructValue:
		start := w.len()
		if !w.structFields(k.StructValue) {
			return false
		}
		w.field(valueStruct, start)
	case *structpb.Value_ListValue:
		start := w.len()
		if l := k.ListValue; l != nil {
			w.prependBytes(l.ProtoReflect().GetUnknown())
			for i := len(l.Values) - 1; i >= 0; i-- { // back to front
				el := w.len()
				if !w.value(l.Values[i]) {
					return false
				}
				w.field(listValues, el)
			}
		}
		w.field(valueList, start)
	default:
		return false
	}
	return true
}
