package convert

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"unicode/utf8"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/mcpbridge/mcpbridge/internal/rawjson"
)

// This file writes a JSON value straight as the protobuf wire encoding of
// a google.protobuf.Value, without building the Value, its Structs and
// ListValues first: on the gRPC path a result's structuredContent is only
// ever marshalled (wire.go). What a client reads is what Value's
// conversion gives, byte for byte once parsed (FuzzValueWire): numbers are
// doubles, the last of duplicate keys wins (a map's parser keeps the last
// entry), and a string that is not valid UTF-8 is refused here, so that
// the caller takes the Value path and fails as it always did.

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

var errNotUTF8 = errors.New("a string is not valid UTF-8")

// appendValueField appends JSON value v as field num of a message, its
// type google.protobuf.Value.
func appendValueField(dst []byte, num protowire.Number, v json.RawMessage) ([]byte, error) {
	var end int
	var err error
	dst, err = nested(dst, num, func(dst []byte) ([]byte, error) {
		dst, end, err = appendValueWire(dst, v, 0, 0)
		return dst, err
	})
	if err == nil && rawjson.SkipSpace(v, end) != len(v) {
		err = errBadJSON
	}
	return dst, err
}

// nested appends field num holding the message fill writes: its tag, its
// length and its fields. The length takes one byte until the fields are
// written; a longer one moves them up to make room.
func nested(dst []byte, num protowire.Number, fill func([]byte) ([]byte, error)) ([]byte, error) {
	dst = protowire.AppendTag(dst, num, protowire.BytesType)
	at := len(dst)
	dst = append(dst, 0)
	dst, err := fill(dst)
	if err != nil {
		return dst, err
	}
	n := len(dst) - at - 1
	if k := protowire.SizeVarint(uint64(n)); k > 1 {
		dst = append(dst, make([]byte, k-1)...)
		copy(dst[at+k:], dst[at+1:at+1+n])
	}
	protowire.AppendVarint(dst[:at], uint64(n))
	return dst, nil
}

// appendValueWire appends the fields of the Value that the JSON value at
// b[i] (after any space) converts to, and returns where the value ends.
func appendValueWire(dst, b []byte, i, depth int) ([]byte, int, error) {
	i = rawjson.SkipSpace(b, i)
	if i >= len(b) || depth > maxJSONDepth {
		return dst, i, errBadJSON
	}
	var err error
	switch c := b[i]; c {
	case '{':
		dst, err = nested(dst, valueStruct, func(dst []byte) ([]byte, error) {
			dst, i, err = appendObjectWire(dst, b, i, depth+1)
			return dst, err
		})
		return dst, i, err
	case '[':
		dst, err = nested(dst, valueList, func(dst []byte) ([]byte, error) {
			dst, i, err = appendListWire(dst, b, i, depth+1)
			return dst, err
		})
		return dst, i, err
	case '"':
		dst = protowire.AppendTag(dst, valueString, protowire.BytesType)
		return appendStringWire(dst, b, i)
	case 't', 'f', 'n':
		for _, lit := range []string{"true", "false", "null"} {
			if lit[0] == c && len(b)-i >= len(lit) && string(b[i:i+len(lit)]) == lit {
				switch c {
				case 't':
					dst = protowire.AppendVarint(protowire.AppendTag(dst, valueBool, protowire.VarintType), 1)
				case 'f':
					dst = protowire.AppendVarint(protowire.AppendTag(dst, valueBool, protowire.VarintType), 0)
				default:
					dst = protowire.AppendVarint(protowire.AppendTag(dst, valueNull, protowire.VarintType), 0)
				}
				return dst, i + len(lit), nil
			}
		}
		return dst, i, errBadJSON
	}
	f, j, err := parseNumber(b, i)
	if err != nil {
		return dst, j, err
	}
	dst = protowire.AppendFixed64(protowire.AppendTag(dst, valueNumber, protowire.Fixed64Type), math.Float64bits(f))
	return dst, j, nil
}

// appendObjectWire appends the fields of the Struct that the JSON object
// at b[i] converts to: a map entry per member, in the object's order.
func appendObjectWire(dst, b []byte, i, depth int) ([]byte, int, error) {
	i = rawjson.SkipSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		return dst, i + 1, nil
	}
	for {
		if i >= len(b) || b[i] != '"' {
			return dst, i, errBadJSON
		}
		var err error
		dst, err = nested(dst, structFields, func(dst []byte) ([]byte, error) {
			dst = protowire.AppendTag(dst, entryKey, protowire.BytesType)
			if dst, i, err = appendStringWire(dst, b, i); err != nil {
				return dst, err
			}
			i = rawjson.SkipSpace(b, i)
			if i >= len(b) || b[i] != ':' {
				return dst, errBadJSON
			}
			return nested(dst, entryValue, func(dst []byte) ([]byte, error) {
				dst, i, err = appendValueWire(dst, b, i+1, depth)
				return dst, err
			})
		})
		if err != nil {
			return dst, i, err
		}
		more := false
		if i, more, err = afterElement(b, i, '}'); err != nil || !more {
			return dst, i, err
		}
		i = rawjson.SkipSpace(b, i)
	}
}

// appendListWire appends the fields of the ListValue that the JSON array
// at b[i] converts to.
func appendListWire(dst, b []byte, i, depth int) ([]byte, int, error) {
	i = rawjson.SkipSpace(b, i+1)
	if i < len(b) && b[i] == ']' {
		return dst, i + 1, nil
	}
	for {
		var err error
		dst, err = nested(dst, listValues, func(dst []byte) ([]byte, error) {
			dst, i, err = appendValueWire(dst, b, i, depth)
			return dst, err
		})
		if err != nil {
			return dst, i, err
		}
		more := false
		if i, more, err = afterElement(b, i, ']'); err != nil || !more {
			return dst, i, err
		}
	}
}

// afterElement reads what follows a member of an object or an element of
// an array, from b[i]: a comma, and more follows, or end, the close.
func afterElement(b []byte, i int, end byte) (next int, more bool, err error) {
	i = rawjson.SkipSpace(b, i)
	switch {
	case i < len(b) && b[i] == ',':
		return i + 1, true, nil
	case i < len(b) && b[i] == end:
		return i + 1, false, nil
	}
	return i, false, errBadJSON
}

// appendStringWire appends the JSON string at b[i], decoded, with its
// length: the bytes as they are when it has no escapes, parseString's
// decoding when it has.
func appendStringWire(dst, b []byte, i int) ([]byte, int, error) {
	start := i + 1
	end := rawjson.SkipString(b, i) - 1 // the closing quote
	if end < start || b[end] != '"' {
		return dst, len(b), errBadJSON
	}
	raw := b[start:end]
	if bytes.IndexByte(raw, '\\') < 0 {
		if !utf8.Valid(raw) {
			return dst, end + 1, errNotUTF8
		}
		return protowire.AppendBytes(dst, raw), end + 1, nil
	}
	s, j, err := parseString(b, i)
	if err != nil {
		return dst, j, err
	}
	if !utf8.ValidString(s) {
		return dst, j, errNotUTF8
	}
	return protowire.AppendString(dst, s), j, nil
}
